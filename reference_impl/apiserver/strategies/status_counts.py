"""The counter rules of the /status strategies: ``ValidateDeploymentStatus``,
``ValidateReplicaSetStatus``, ``ValidateReplicationControllerStatus`` (non-negative counters; a Job's are in ``batch_status``) and the HPA's
``validateHorizontalPodAutoscalerStatus`` (1.37.2)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_GT_REPLICAS: Final = "cannot be greater than status.replicas"


def _n(status: Obj, f: str) -> int:
    v = status.get(f)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _nonnegative(status: Obj, fields: tuple[str, ...]) -> list[Cause]:
    return [
        fe.invalid(f"status.{f}", status[f], "must be greater than or equal to 0")
        for f in fields
        if isinstance(status.get(f), int) and status[f] < 0
    ]


def _replica_bounds(status: Obj, under: tuple[str, ...]) -> list[Cause]:
    out = [fe.invalid(f"status.{f}", _n(status, f), _GT_REPLICAS) for f in under if _n(status, f) > _n(status, "replicas")]
    if _n(status, "availableReplicas") > _n(status, "readyReplicas"):
        out.append(fe.invalid("status.availableReplicas", _n(status, "availableReplicas"), "cannot be greater than readyReplicas"))
    return out


@validator("Deployment", status=True)
def validate_deployment_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDeploymentStatus``."""
    st = obj.get("status") or {}
    fields = ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
              "unavailableReplicas", "terminatingReplicas", "collisionCount")
    return _nonnegative(st, fields) + _replica_bounds(st, ("updatedReplicas", "readyReplicas", "availableReplicas"))


@validator("ReplicaSet", status=True)
def validate_replicaset_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateReplicaSetStatus``."""
    st = obj.get("status") or {}
    fields = ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration",
              "terminatingReplicas")
    return _nonnegative(st, fields) + _replica_bounds(st, ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"))


@validator("ReplicationController", status=True)
def validate_rc_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateReplicationControllerStatus`` (core; no terminatingReplicas)."""
    st = obj.get("status") or {}
    fields = ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration")
    return _nonnegative(st, fields) + _replica_bounds(st, ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"))


@validator("HorizontalPodAutoscaler", status=True)
def validate_hpa_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateHorizontalPodAutoscalerStatus``: replica counts non-negative."""
    return _nonnegative(obj.get("status") or {}, ("currentReplicas", "desiredReplicas"))

"""Lease (coordination.k8s.io; ``pkg/apis/coordination/validation`` and
``pkg/registry/coordination/lease/strategy.go`` of upstream v1.37.2)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import label_key_errors
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["drop_disabled_lease_fields", "validate_lease"]

Obj = dict[str, Any]
_STRATEGIES: Final = ("OldestEmulationVersion",)
_GATE: Final = "CoordinatedLeaderElection"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


@preparer("Lease")
def drop_disabled_lease_fields(lease: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate/Update: without the gate, strategy and preferredHolder go unless
    the stored lease already has them."""
    if ctx.gates.enabled(_GATE):
        return
    spec, old_spec = lease.get("spec"), _o(_o(old).get("spec"))
    if not isinstance(spec, dict):
        return
    for f in ("strategy", "preferredHolder"):
        if old_spec.get(f) is None:
            spec.pop(f, None)


def _strategy_causes(strategy: str, path: str) -> list[Cause]:
    """``ValidateCoordinatedLeaseStrategy``: a known one, or a qualified name with a prefix."""
    if "/" not in strategy:
        return [] if strategy in _STRATEGIES else [fe.not_supported(f"{path}.strategy", strategy, _STRATEGIES)]
    return [fe.invalid(f"{path}.strategy", strategy, e) for e in label_key_errors(strategy)]


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@validator("Lease")
def validate_lease(lease: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateLeaseSpec`` (create and update alike)."""
    spec, out = _o(lease.get("spec")), []
    duration, transitions = _int(spec.get("leaseDurationSeconds")), _int(spec.get("leaseTransitions"))
    if duration is not None and duration <= 0:
        out.append(fe.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    if transitions is not None and transitions < 0:
        out.append(fe.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    strategy = spec.get("strategy")
    if strategy is not None:
        out += _strategy_causes(str(strategy), "spec.strategy")
    if spec.get("preferredHolder") and not strategy:
        out.append(fe.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"))
    return out

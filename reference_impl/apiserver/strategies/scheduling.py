"""Validation for scheduling.k8s.io: Workload, PodGroup, CompositePodGroup, PriorityClass.

Models ``pkg/apis/scheduling/validation/validation.go`` (1.37) plus the scheduling parts
of Pod (``spec.schedulingGroup``) and Job (``spec.scheduling``) validation. The one-of
unions are objects with empty marker structs; messages follow the real apiserver's
("must specify exactly one of: `basic`, `gang`").
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.scheduling_types import (
    COMPOSITE_POD_GROUP_SPEC,
    POD_GROUP_SPEC,
    POD_GROUP_STATUS,
    WORKLOAD_SPEC,
)
from reference_impl.apiserver.strategies.scheduling_workload import workload_spec_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.declarative import Struct, validate
from reference_impl.apiserver.validation.status_conditions import validate_conditions
from reference_impl.errors import Cause

__all__ = ["HIGHEST_USER_PRIORITY", "SYSTEM_PRIORITY_CLASSES"]

Obj = dict[str, Any]
HIGHEST_USER_PRIORITY: Final = 1_000_000_000
SYSTEM_PRIORITY_CLASSES: Final = {
    "system-cluster-critical": 2_000_000_000,
    "system-node-critical": 2_000_001_000,
}
PREEMPTION_POLICIES: Final = ("Never", "PreemptLowerPriority")


def _known_system_class_error(name: str, value: int, global_default: bool) -> str:
    """``IsKnownSystemPriorityClass``: neither system class is the global default."""
    want = SYSTEM_PRIORITY_CLASSES.get(name)
    if want is None:
        return f"{name} is not a known system priority class"
    if want != value:
        return f"value of {name} PriorityClass must be {want}"
    return f"globalDefault of {name} PriorityClass must be false" if global_default else ""


def _declarative(obj: Obj, old: Obj | None, spec: Struct, ctx: Context) -> list[Cause]:
    # Spec is a struct value upstream: absent is its zero value, which the tags still check.
    ospec = ((old or {}).get("spec") or {}) if old is not None else None
    return validate(obj.get("spec") or {}, ospec, spec, "spec", ctx.gates, update=old is not None)


@validator("Workload")
def validate_workload(wl: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The Workload tags (``scheduling_types``) and ``ValidateWorkloadSpec``, on create and update."""
    spec = wl.get("spec")
    causes = _declarative(wl, old, WORKLOAD_SPEC, ctx)
    return causes + (workload_spec_causes(spec) if isinstance(spec, dict) else [])


@defaulter("PodGroup", "CompositePodGroup")
def default_group(group: Obj, ctx: Context) -> None:
    """disruptionMode defaults to single (``SetDefaults_PodGroupSpec``)."""
    spec = group.setdefault("spec", {})
    if spec.get("disruptionMode") is None:
        spec["disruptionMode"] = {"single": {}}


@validator("PodGroup")
def validate_pod_group(pg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The PodGroup spec tags; ``parentCompositePodGroupName`` needs ``workloadRef``."""
    causes = _declarative(pg, old, POD_GROUP_SPEC, ctx)
    spec = pg.get("spec") or {}
    if spec.get("parentCompositePodGroupName") is not None and spec.get("workloadRef") is None:
        causes.append(
            fe.required("spec.workloadRef", "must be set when parentCompositePodGroupName is set")
        )
    return causes


@validator("PodGroup", status=True)
def validate_pod_group_status(pg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePodGroupStatusUpdate``: conditions, and the status tags."""
    status, ostatus = pg.get("status") or {}, (old or {}).get("status")
    causes = validate_conditions(status.get("conditions"), "status.conditions")
    return causes + validate(
        status, ostatus, POD_GROUP_STATUS, "status", ctx.gates, update=old is not None
    )


@validator("CompositePodGroup")
def validate_composite_pod_group(cpg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The CompositePodGroup spec tags (workloadRef required, spec immutable)."""
    return _declarative(cpg, old, COMPOSITE_POD_GROUP_SPEC, ctx)


@validator("CompositePodGroup", status=True)
def validate_composite_pod_group_status(cpg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCompositePodGroupStatusUpdate``: conditions."""
    return validate_conditions((cpg.get("status") or {}).get("conditions"), "status.conditions")


@defaulter("PriorityClass")
def default_priority_class(pc: Obj, ctx: Context) -> None:
    """preemptionPolicy defaults to PreemptLowerPriority."""
    pc.setdefault("preemptionPolicy", "PreemptLowerPriority")


@validator("PriorityClass")
def validate_priority_class(pc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """User classes ≤ 1e9; ``system-`` names reserved; value and policy immutable. An
    update runs only ``ValidatePriorityClassUpdate`` (the strategy's ValidateUpdate)."""
    name = str(pc["metadata"].get("name", ""))
    value = int(pc.get("value") or 0)
    causes: list[Cause] = []
    if old is not None:
        if value != int(old.get("value") or 0):
            causes.append(fe.forbidden("value", "may not be changed in an update."))
        if pc.get("preemptionPolicy") != old.get("preemptionPolicy"):
            causes.append(
                fe.invalid("preemptionPolicy", pc.get("preemptionPolicy"), "field is immutable")
            )
        return causes
    if name.startswith("system-"):
        err = _known_system_class_error(name, value, pc.get("globalDefault") is True)
        if err:
            causes.append(
                Cause(
                    "metadata.name",
                    "FieldValueForbidden",
                    "Forbidden: priority class names with 'system-' prefix are reserved for "
                    f"system use only. error: {err}",
                )
            )
    elif value > HIGHEST_USER_PRIORITY:
        causes.append(
            Cause(
                "value",
                "FieldValueForbidden",
                f"Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}",
            )
        )
    if pc.get("preemptionPolicy") == "":
        causes.append(fe.required("preemptionPolicy"))  # ValidatePreemptionPolicy
    elif pc.get("preemptionPolicy") not in PREEMPTION_POLICIES:
        causes.append(
            Cause(
                "preemptionPolicy",
                "FieldValueNotSupported",
                'supported values: "Never", "PreemptLowerPriority"',
            )
        )
    return causes


@validator("Pod")
def validate_pod_scheduling_group(pod: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``spec.schedulingGroup.podGroupName`` is a DNS subdomain."""
    group = (pod.get("spec") or {}).get("schedulingGroup")
    causes: list[Cause] = []
    if group is not None:
        name = group.get("podGroupName")
        if name is None:
            causes.append(
                fe.invalid("spec.schedulingGroup.podGroupName", None, "must specify one of: `podGroupName`")
            )
        else:
            causes += [
                Cause(
                    "spec.schedulingGroup.podGroupName",
                    "FieldValueInvalid",
                    f'Invalid value: "{name}": {e}',
                )
                for e in dns1123_subdomain_errors(str(name))
            ]
        if (pod.get("spec") or {}).get("evictionResponders"):
            causes.append(
                Cause(
                    "spec.evictionResponders",
                    "FieldValueForbidden",
                    "Forbidden: may not be set when schedulingGroup is set",
                )
            )
    return causes  # immutability: the core Pod update rule forbids every other spec change

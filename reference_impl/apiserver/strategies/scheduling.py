"""Validation for scheduling.k8s.io: Workload, PodGroup, CompositePodGroup, PriorityClass.

Models ``pkg/apis/scheduling/validation/validation.go`` (1.37) plus the scheduling parts
of Pod (``spec.schedulingGroup``) and Job (``spec.scheduling``) validation. The one-of
unions are objects with empty marker structs; messages follow the real apiserver's
("must specify exactly one of: `basic`, `gang`").
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.errors import Cause

__all__ = ["HIGHEST_USER_PRIORITY", "SYSTEM_PRIORITY_CLASSES"]

Obj = dict[str, Any]
MAX_TEMPLATES: Final = 8
MAX_TOPOLOGY: Final = 1
MAX_DEPTH: Final = 4
MAX_JOB_CLAIMS: Final = 4
HIGHEST_USER_PRIORITY: Final = 1_000_000_000
SYSTEM_PRIORITY_CLASSES: Final = {
    "system-cluster-critical": 2_000_000_000,
    "system-node-critical": 2_000_001_000,
}
PREEMPTION_POLICIES: Final = ("Never", "PreemptLowerPriority")


def _one_of(
    value: object, path: str, options: tuple[str, ...], required: bool = True
) -> list[Cause]:
    """Exactly one member of a marker-struct union (``{gang: {...}}`` or ``{basic: {}}``)."""
    if value is None:
        return []
    set_ = [o for o in options if isinstance(value, dict) and value.get(o) is not None]
    names = ", ".join(f"`{o}`" for o in options)
    if len(set_) > 1:
        shown = "{" + ", ".join(set_) + "}"
        return [
            Cause(
                path,
                "FieldValueInvalid",
                f'Invalid value: "{shown}": must specify exactly one of: {names}',
            )
        ]
    if not set_ and required:
        return [
            Cause(path, "FieldValueInvalid", f'Invalid value: "": must specify one of: {names}')
        ]
    return []


def _min_one(value: object, path: str) -> list[Cause]:
    if value is None or value == 0:
        return [Cause(path, "FieldValueRequired", "Required value")]
    if int(value) < 1:  # type: ignore[call-overload]
        return [
            Cause(
                path,
                "FieldValueInvalid",
                f"Invalid value: {value}: must be greater than or equal to 1",
            )
        ]
    return []


def _policy(spec: Obj, path: str, composite: bool) -> list[Cause]:
    pol = spec.get("schedulingPolicy")
    if pol is None:
        return [Cause(f"{path}.schedulingPolicy", "FieldValueRequired", "Required value")]
    causes = _one_of(pol, f"{path}.schedulingPolicy", ("basic", "gang"))
    gang = pol.get("gang")
    if gang is not None and not causes:
        field = "minGroupCount" if composite else "minCount"
        causes += _min_one(gang.get(field), f"{path}.schedulingPolicy.gang.{field}")
    return causes


def _common(spec: Obj, path: str, composite: bool) -> list[Cause]:
    """What templates and runtime groups share: policy, disruption, topology, priority."""
    causes = _policy(spec, path, composite)
    causes += _one_of(spec.get("disruptionMode"), f"{path}.disruptionMode", ("single", "all"))
    topo = (spec.get("schedulingConstraints") or {}).get("topology") or []
    if len(topo) > MAX_TOPOLOGY:
        causes.append(
            Cause(
                f"{path}.schedulingConstraints.topology",
                "FieldValueTooMany",
                f"Too many: {len(topo)}: must have at most {MAX_TOPOLOGY} item",
            )
        )
    pp = spec.get("preemptionPolicy")
    if pp is not None and pp not in PREEMPTION_POLICIES:
        causes.append(
            Cause(
                f"{path}.preemptionPolicy",
                "FieldValueNotSupported",
                'supported values: "Never", "PreemptLowerPriority"',
            )
        )
    return causes


def _templates(items: list[Obj], path: str, composite: bool, depth: int) -> list[Cause]:
    causes: list[Cause] = []
    if len(items) > MAX_TEMPLATES:
        causes.append(
            Cause(
                path,
                "FieldValueTooMany",
                f"Too many: {len(items)}: must have at most {MAX_TEMPLATES} items",
            )
        )
    seen: set[str] = set()
    for i, t in enumerate(items):
        p = f"{path}[{i}]"
        name = str(t.get("name") or "")
        causes += [Cause(f"{p}.name", "FieldValueInvalid", e) for e in dns1123_label_errors(name)]
        if name in seen:
            causes.append(Cause(p, "FieldValueDuplicate", f"Duplicate value: {name!r}"))
        seen.add(name)
        causes += _common(t, p, composite)
        if composite:
            causes += _composite_children(t, p, depth + 1)
    return causes


def _composite_children(t: Obj, p: str, depth: int) -> list[Cause]:
    pgs, cpgs = t.get("podGroupTemplates") or [], t.get("compositePodGroupTemplates") or []
    if not pgs and not cpgs:
        return [
            Cause(
                p,
                "FieldValueInvalid",
                f'Invalid value: "{t.get("name", "")}": must have at '
                "least one child PodGroupTemplate or CompositePodGroupTemplate",
            )
        ]
    if depth >= MAX_DEPTH and cpgs:
        return [
            Cause(
                f"{p}.compositePodGroupTemplates",
                "FieldValueInvalid",
                f"the hierarchy must be at most {MAX_DEPTH} levels deep",
            )
        ]
    return _templates(pgs, f"{p}.podGroupTemplates", False, depth) + _templates(
        cpgs, f"{p}.compositePodGroupTemplates", True, depth
    )


def _immutable(new: object, old: object, path: str) -> list[Cause]:
    if new == old:
        return []
    return [Cause(path, "FieldValueInvalid", f"Invalid value: {new!r}: field is immutable")]


@validator("Workload")
def validate_workload(wl: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Exactly one template list, ≤8 per level, depth ≤4; template set fixed after create."""
    spec = wl.get("spec") or {}
    causes = _one_of(spec, "spec", ("podGroupTemplates", "compositePodGroupTemplates"))
    causes += _templates(spec.get("podGroupTemplates") or [], "spec.podGroupTemplates", False, 1)
    causes += _templates(
        spec.get("compositePodGroupTemplates") or [], "spec.compositePodGroupTemplates", True, 1
    )
    if old is not None:
        ospec = old.get("spec") or {}
        causes += _immutable(
            spec.get("controllerRef"), ospec.get("controllerRef"), "spec.controllerRef"
        )
        causes += _immutable(
            spec.get("compositePodGroupTemplates"),
            ospec.get("compositePodGroupTemplates"),
            "spec.compositePodGroupTemplates",
        )
        names = sorted(t.get("name") for t in spec.get("podGroupTemplates") or [])
        onames = sorted(t.get("name") for t in ospec.get("podGroupTemplates") or [])
        if names != onames:
            causes.append(
                Cause(
                    "spec.podGroupTemplates",
                    "FieldValueForbidden",
                    "Forbidden: templates cannot be added or removed",
                )
            )
    return causes


@defaulter("PodGroup", "CompositePodGroup")
def default_group(group: Obj, ctx: Context) -> None:
    """disruptionMode defaults to single (``SetDefaults_PodGroupSpec``)."""
    spec = group.setdefault("spec", {})
    if spec.get("disruptionMode") is None:
        spec["disruptionMode"] = {"single": {}}


def _only_min_count_changes(spec: Obj, ospec: Obj, composite: bool) -> list[Cause]:
    causes: list[Cause] = []
    for f in sorted(set(spec) | set(ospec)):
        # resourceClaims has its own immutability rule (strategies/scheduling_claims.py).
        if f not in ("schedulingPolicy", "resourceClaims"):
            causes += _immutable(spec.get(f), ospec.get(f), f"spec.{f}")
    pol, opol = spec.get("schedulingPolicy") or {}, ospec.get("schedulingPolicy") or {}
    for variant in ("basic", "gang"):
        if (pol.get(variant) is None) != (opol.get(variant) is None):
            what = (
                "field cannot be cleared once set"
                if pol.get(variant) is None
                else "field is immutable"
            )
            causes.append(
                Cause(
                    f"spec.schedulingPolicy.{variant}",
                    "FieldValueInvalid",
                    f"Invalid value: null: {what}",
                )
            )
    return causes


@validator("PodGroup")
def validate_pod_group(pg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Policy one-of with minCount ≥1; after create only ``gang.minCount`` may change."""
    spec = pg.get("spec") or {}
    causes = _common(spec, "spec", False)
    parent = spec.get("parentCompositePodGroupName")
    if parent is not None:
        causes += [
            Cause("spec.parentCompositePodGroupName", "FieldValueInvalid", e)
            for e in dns1123_subdomain_errors(str(parent))
        ]
        if not spec.get("workloadRef"):
            causes.append(
                Cause(
                    "spec.workloadRef",
                    "FieldValueRequired",
                    "Required value: must be set when parentCompositePodGroupName is set",
                )
            )
    if old is not None:
        causes += _only_min_count_changes(spec, old.get("spec") or {}, False)
    return causes


@validator("CompositePodGroup")
def validate_composite_pod_group(cpg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Policy one-of with minGroupCount ≥1; workloadRef required; spec immutable but the count."""
    spec = cpg.get("spec") or {}
    causes = _common(spec, "spec", True)
    if not spec.get("workloadRef"):
        causes.append(Cause("spec.workloadRef", "FieldValueRequired", "Required value"))
    if old is not None:
        causes += _only_min_count_changes(spec, old.get("spec") or {}, True)
    return causes


@defaulter("PriorityClass")
def default_priority_class(pc: Obj, ctx: Context) -> None:
    """preemptionPolicy defaults to PreemptLowerPriority."""
    pc.setdefault("preemptionPolicy", "PreemptLowerPriority")


@validator("PriorityClass")
def validate_priority_class(pc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """User classes ≤ 1e9; ``system-`` names reserved; value and policy immutable."""
    name = str(pc["metadata"].get("name", ""))
    value = int(pc.get("value") or 0)
    causes: list[Cause] = []
    if name.startswith("system-"):
        if SYSTEM_PRIORITY_CLASSES.get(name) != value:
            causes.append(
                Cause(
                    "metadata.name",
                    "FieldValueForbidden",
                    "Forbidden: priority class names with 'system-' prefix are reserved for "
                    f"system use only. error: {name} is not a known system priority class",
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
    if pc.get("preemptionPolicy") not in PREEMPTION_POLICIES:
        causes.append(
            Cause(
                "preemptionPolicy",
                "FieldValueNotSupported",
                'supported values: "Never", "PreemptLowerPriority"',
            )
        )
    if old is not None:
        causes += _immutable(pc.get("value"), old.get("value"), "value")
        causes += _immutable(
            pc.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy"
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
                Cause("spec.schedulingGroup.podGroupName", "FieldValueRequired", "Required value")
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


@validator("Job")
def validate_job_scheduling(job: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``spec.scheduling``: policy one-of (minCount optional, >0), ≤4 claims, immutable but minCount."""
    spec = job.get("spec") or {}
    sched = spec.get("scheduling")
    causes: list[Cause] = []
    if sched is not None:
        pol = sched.get("schedulingPolicy")
        causes += _one_of(pol, "spec.scheduling.schedulingPolicy", ("basic", "gang"))
        mc = ((pol or {}).get("gang") or {}).get("minCount")
        if mc is not None and int(mc) < 1:
            causes.append(
                Cause(
                    "spec.scheduling.schedulingPolicy.gang.minCount",
                    "FieldValueInvalid",
                    f"Invalid value: {mc}: must be greater than or equal to 1",
                )
            )
        causes += _one_of(
            sched.get("disruptionMode"), "spec.scheduling.disruptionMode", ("single", "all")
        )
        topo = (sched.get("schedulingConstraints") or {}).get("topology") or []
        if len(topo) > MAX_TOPOLOGY:
            causes.append(
                Cause(
                    "spec.scheduling.schedulingConstraints.topology",
                    "FieldValueTooMany",
                    f"Too many: {len(topo)}: must have at most {MAX_TOPOLOGY} item",
                )
            )
        claims = sched.get("resourceClaims") or []
        if len(claims) > MAX_JOB_CLAIMS:
            causes.append(
                Cause(
                    "spec.scheduling.resourceClaims",
                    "FieldValueTooMany",
                    f"Too many: {len(claims)}: must have at most {MAX_JOB_CLAIMS} items",
                )
            )
    if old is not None:
        causes += _job_scheduling_update(sched, (old.get("spec") or {}).get("scheduling"))
    return causes


def _job_scheduling_update(sched: Obj | None, old: Obj | None) -> list[Cause]:
    if (sched is None) != (old is None):
        return _immutable(sched, old, "spec.scheduling")
    if sched is None or old is None:
        return []

    def strip(s: Obj) -> Obj:
        gang = (s.get("schedulingPolicy") or {}).get("gang")
        pol = {**(s.get("schedulingPolicy") or {})}
        if gang is not None:
            pol["gang"] = {k: v for k, v in gang.items() if k != "minCount"}
        return {**s, "schedulingPolicy": pol}

    return _immutable(strip(sched), strip(old), "spec.scheduling")

"""``dropDisabledPodStatusFields`` of ``pkg/api/pod/util.go`` (1.37.2): the pod status
fields of gates that are off, cleared on pods/status writes unless the stored pod already
uses the feature (in its status, or for some gates in its spec). Upstream runs it after
``pod_status_prepare``'s preserving; the order does not matter, as what that restores
from the old pod is in use there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.features import FeatureGates
from reference_impl.features.gate_memo import per_gates

__all__ = [
    "drop_disabled_pod_status_fields",
    "resource_health_status_in_use",
    "resource_health_status_message_in_use",
]

Obj = dict[str, Any]
_STATUS_LISTS: Final = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
_SPEC_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _statuses(status: Obj | None) -> list[Obj]:
    return [cs for f in _STATUS_LISTS for cs in _dicts((status or {}).get(f))]


def _containers(spec: Obj | None, fields: tuple[str, ...] = _SPEC_LISTS) -> list[Obj]:
    return [c for f in fields for c in _dicts((spec or {}).get(f))]


def _health_resources(status: Obj | None) -> list[Obj]:
    return [
        r
        for cs in _statuses(status)
        for rs in _dicts(cs.get("allocatedResourcesStatus"))
        for r in _dicts(rs.get("resources"))
    ]


def resource_health_status_in_use(status: Obj | None) -> bool:
    """``resourceHealthStatusInUse``."""
    return any(cs.get("allocatedResourcesStatus") for cs in _statuses(status))


def resource_health_status_message_in_use(status: Obj | None) -> bool:
    """``resourceHealthStatusMessageInUse``."""
    return any(r.get("message") is not None for r in _health_resources(status))


def _observed_generation_in_use(status: Obj | None) -> bool:
    """``podObservedGenerationTrackingInUse``."""
    s = status or {}
    return bool(s.get("observedGeneration")) or any(
        c.get("observedGeneration") for c in _dicts(s.get("conditions"))
    )


def _mounts(status: Obj | None) -> list[Obj]:
    return [m for cs in _statuses(status) for m in _dicts(cs.get("volumeMounts"))]


def _pop_all(holders: list[Obj], *keys: str) -> None:
    for h in holders:
        for k in keys:
            h.pop(k, None)


def _sc(old_spec: Obj | None) -> Any:
    return (old_spec or {}).get("securityContext")


# (gate, in use by the old pod (old status, old spec), drop from the new status), in
# upstream's order; a row runs only while its gate is off.
_InUse = Callable[[Obj | None, Obj | None], bool]
_ROWS: Final[tuple[tuple[str, _InUse, Callable[[Obj], None]], ...]] = (
    ("InPlacePodLevelResourcesVerticalScaling",
     lambda os, _: os is not None and (
         os.get("resources") is not None or os.get("allocatedResources") is not None),
     lambda st: _pop_all([st], "resources", "allocatedResources")),
    ("InPlacePodVerticalScaling",
     lambda _, osp: any(
         c.get("resizePolicy") for c in _containers(osp, ("containers", "initContainers"))),
     lambda st: _pop_all(_statuses(st), "resources", "allocatedResources")),
    ("DynamicResourceAllocation",
     lambda _, osp: bool((osp or {}).get("resourceClaims")),
     lambda st: st.pop("resourceClaimStatuses", None)),
    ("DRAExtendedResource",
     lambda os, _: (os or {}).get("extendedResourceClaimStatus") is not None,
     lambda st: st.pop("extendedResourceClaimStatus", None)),
    ("RecursiveReadOnlyMounts",
     lambda _, osp: any(
         m.get("recursiveReadOnly") is not None
         for c in _containers(osp) for m in _dicts(c.get("volumeMounts"))),
     lambda st: _pop_all(_statuses(st), "volumeMounts")),
    ("ResourceHealthStatus",
     lambda os, _: resource_health_status_in_use(os),
     lambda st: _pop_all(_statuses(st), "allocatedResourcesStatus")),
    ("ResourceHealthStatusMessage",
     lambda os, _: resource_health_status_message_in_use(os),
     lambda st: _pop_all(_health_resources(st), "message")),
    ("SupplementalGroupsPolicy",
     lambda _, osp: isinstance(sc := _sc(osp), dict)
     and sc.get("supplementalGroupsPolicy") is not None,
     lambda st: _pop_all(_statuses(st), "user")),
    ("PodObservedGenerationTracking",
     lambda os, _: _observed_generation_in_use(os),
     lambda st: _pop_all([st, *_dicts(st.get("conditions"))], "observedGeneration")),
    ("ImageVolumeWithDigest",
     lambda os, _: any(m.get("volumeStatus") is not None for m in _mounts(os)),
     lambda st: _pop_all(_mounts(st), "volumeStatus")),
    ("DRANodeAllocatableResources",
     lambda os, _: bool((os or {}).get("nodeAllocatableResourceClaimStatuses")),
     lambda st: st.pop("nodeAllocatableResourceClaimStatuses", None)),
    ("CSIVolumeHealth",
     lambda os, _: bool((os or {}).get("volumeHealth")),
     lambda st: st.pop("volumeHealth", None)),
)  # fmt: skip


@per_gates
def _off_rows(gates: FeatureGates) -> tuple[tuple[str, _InUse, Callable[[Obj], None]], ...]:
    """The rows whose gate is off under ``gates`` (most are on, so most writes run none)."""
    return tuple(row for row in _ROWS if not gates.enabled(row[0]))


def drop_disabled_pod_status_fields(
    status: Obj, old_status: Obj | None, spec: Obj | None, old_spec: Obj | None, gates: FeatureGates
) -> None:
    """``dropDisabledPodStatusFields``; ``old_status``/``old_spec`` are None on create."""
    for _gate, in_use, drop in _off_rows(gates):
        if not in_use(old_status, old_spec):
            drop(status)


def _dict(value: Any) -> Obj | None:
    return value if isinstance(value, dict) else None


@preparer("Pod", status=True)
def drop_disabled_pod_status(new: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The status half of ``DropDisabledPodFields`` on pods/status writes."""
    status = _dict(new.get("status"))
    if status is None:
        return
    drop_disabled_pod_status_fields(
        status,
        _dict((old or {}).get("status")),
        _dict(new.get("spec")),
        _dict((old or {}).get("spec")),
        ctx.gates,
    )

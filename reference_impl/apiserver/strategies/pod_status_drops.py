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


def drop_disabled_pod_status_fields(
    status: Obj, old_status: Obj | None, spec: Obj | None, old_spec: Obj | None, gates: FeatureGates
) -> None:
    """``dropDisabledPodStatusFields``; ``old_status``/``old_spec`` are None on create."""

    def off(gate: str, in_use: Callable[[], bool]) -> bool:
        return not gates.enabled(gate) and not in_use()

    if off("InPlacePodLevelResourcesVerticalScaling", lambda: old_status is not None and (
        old_status.get("resources") is not None or old_status.get("allocatedResources") is not None
    )):
        _pop_all([status], "resources", "allocatedResources")
    if off("InPlacePodVerticalScaling", lambda: any(
        c.get("resizePolicy") for c in _containers(old_spec, ("containers", "initContainers"))
    )):
        _pop_all(_statuses(status), "resources", "allocatedResources")
    if off("DynamicResourceAllocation", lambda: bool((old_spec or {}).get("resourceClaims"))):
        status.pop("resourceClaimStatuses", None)
    if off("DRAExtendedResource", lambda: (old_status or {}).get("extendedResourceClaimStatus") is not None):  # noqa: E501
        status.pop("extendedResourceClaimStatus", None)
    if off("RecursiveReadOnlyMounts", lambda: any(
        m.get("recursiveReadOnly") is not None
        for c in _containers(old_spec)
        for m in _dicts(c.get("volumeMounts"))
    )):
        _pop_all(_statuses(status), "volumeMounts")
    if off("ResourceHealthStatus", lambda: resource_health_status_in_use(old_status)):
        _pop_all(_statuses(status), "allocatedResourcesStatus")
    if off("ResourceHealthStatusMessage", lambda: resource_health_status_message_in_use(old_status)):  # noqa: E501
        _pop_all(_health_resources(status), "message")
    sc = (old_spec or {}).get("securityContext")
    if off("SupplementalGroupsPolicy", lambda: isinstance(sc, dict) and sc.get("supplementalGroupsPolicy") is not None):  # noqa: E501
        _pop_all(_statuses(status), "user")
    if off("PodObservedGenerationTracking", lambda: _observed_generation_in_use(old_status)):
        _pop_all([status, *_dicts(status.get("conditions"))], "observedGeneration")
    if off("ImageVolumeWithDigest", lambda: any(m.get("volumeStatus") is not None for m in _mounts(old_status))):  # noqa: E501
        _pop_all(_mounts(status), "volumeStatus")
    if off("DRANodeAllocatableResources", lambda: bool((old_status or {}).get("nodeAllocatableResourceClaimStatuses"))):  # noqa: E501
        status.pop("nodeAllocatableResourceClaimStatuses", None)
    if off("CSIVolumeHealth", lambda: bool((old_status or {}).get("volumeHealth"))):
        status.pop("volumeHealth", None)


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

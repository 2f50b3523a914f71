"""Status strategies: gated status fields on /status writes, and the status reset on create.

Models the status strategies' ``PrepareForUpdate`` (``dropDisabledStatusFields`` of
``pkg/registry/resource/resourceclaim`` and ``dropDisabledPodGroupStatusFields`` of
``pkg/registry/scheduling/podgroup``): a gated field is dropped from a status write
unless its gate is on or the old object already used it, so clients unaware of the
gate never see a field a component should not have written.

- ResourceClaim (status ``allocation.devices.results[]`` / ``devices[]``):
  ``bindingConditions``, ``bindingFailureConditions`` (DRADeviceBindingConditions, in use
  when an old result has either); ``shareID``, ``consumedCapacity`` and the device
  entries' ``shareID`` (DRAConsumableCapacity, in use also when the spec asks for
  capacity or a distinctAttribute). Then, as upstream with DRAResourceClaimDeviceStatus
  (locked on), ``status.devices`` entries for devices the write deallocated are removed.
  ``allocationTimestamp`` is not gated in 1.37.2 and is kept.
- PodGroup: ``resourceClaimStatuses`` (DRAWorkloadResourceClaims, in use when the old
  *spec* has ``resourceClaims``, as upstream's ``draWorkloadResourceClaimsInUse``).

PrepareForCreate of these kinds (and DeviceTaintRule, CompositePodGroup) replaces the
status with the zero value of its non-pointer Go struct, which upstream serves as
``status: {}``: a client cannot create an object with a status.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer

__all__ = ["drop_claim_status_fields", "drop_pod_group_status_fields", "reset_status_on_create"]

Obj = dict[str, Any]
_BINDING: Final = ("bindingConditions", "bindingFailureConditions")
_CAPACITY: Final = ("shareID", "consumedCapacity")


@preparer(
    "ResourceClaim",
    "DeviceTaintRule",
    "PodGroup",
    "CompositePodGroup",
    "ReplicationController",
    "ReplicaSet",
    "PodCertificateRequest",
    "CertificateSigningRequest",
    "Job",
    "Deployment",
    "Service",
)
def reset_status_on_create(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Create: the status is the empty struct whatever the client sent (the rc, rs,
    podcertificaterequest, csr, job, deployment and service strategies' PrepareForCreate too)."""
    if old is None:
        obj["status"] = {}


def _status(obj: Obj | None) -> Obj:
    st = (obj or {}).get("status")
    return st if isinstance(st, dict) else {}


def _results(obj: Obj | None) -> list[Obj]:
    alloc = _status(obj).get("allocation")
    devices = alloc.get("devices") if isinstance(alloc, dict) else None
    results = devices.get("results") if isinstance(devices, dict) else None
    return [r for r in results or () if isinstance(r, dict)]


def _device_statuses(obj: Obj | None) -> list[Obj]:
    return [d for d in _status(obj).get("devices") or () if isinstance(d, dict)]


def _requests(obj: Obj | None) -> Iterator[Obj]:
    devices = ((obj or {}).get("spec") or {}).get("devices") or {}
    for r in devices.get("requests") or ():
        if isinstance(r, dict) and isinstance(r.get("exactly"), dict):
            yield r["exactly"]
        for sub in (r.get("firstAvailable") or ()) if isinstance(r, dict) else ():
            if isinstance(sub, dict):
                yield sub


def _binding_in_use(old: Obj | None) -> bool:
    return any(r.get(f) is not None for r in _results(old) for f in _BINDING)


def _capacity_in_use(old: Obj | None) -> bool:
    constraints = (((old or {}).get("spec") or {}).get("devices") or {}).get("constraints") or ()
    return (
        any(isinstance(c, dict) and c.get("distinctAttribute") is not None for c in constraints)
        or any(r.get("capacity") is not None for r in _requests(old))
        or any(r.get(f) is not None for r in _results(old) for f in _CAPACITY)
        or any(d.get("shareID") is not None for d in _device_statuses(old))
    )


def _device_id(entry: Obj) -> tuple[Any, ...]:
    return (entry.get("driver"), entry.get("pool"), entry.get("device"), entry.get("shareID"))


def _drop_deallocated_devices(claim: Obj, old: Obj) -> None:
    """Remove device statuses of devices allocated in ``old`` but not in ``claim`` (an
    empty list is then dropped, as upstream sets it to nil)."""
    gone = {_device_id(r) for r in _results(old)} - {_device_id(r) for r in _results(claim)}
    st = _status(claim)
    if "devices" not in st:
        return
    kept = [d for d in st["devices"] or () if not (isinstance(d, dict) and _device_id(d) in gone)]
    if kept:
        st["devices"] = kept
    else:
        st.pop("devices")


@preparer("ResourceClaim", status=True)
def drop_claim_status_fields(claim: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Gated allocation-result and device-status fields; then stale device statuses."""
    g = ctx.gates
    if not (g.enabled("DRADeviceBindingConditions") or _binding_in_use(old)):
        for r in _results(claim):
            for f in _BINDING:
                r.pop(f, None)
    if not (g.enabled("DRAConsumableCapacity") or _capacity_in_use(old)):
        for r in _results(claim):
            for f in _CAPACITY:
                r.pop(f, None)
        for d in _device_statuses(claim):
            d.pop("shareID", None)
    if old is not None:
        _drop_deallocated_devices(claim, old)


@preparer("PodGroup", status=True)
def drop_pod_group_status_fields(pg: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``resourceClaimStatuses`` when DRAWorkloadResourceClaims is off and the old spec
    has no ``resourceClaims``."""
    if ctx.gates.enabled("DRAWorkloadResourceClaims") or ((old or {}).get("spec") or {}).get(
        "resourceClaims"
    ):
        return
    _status(pg).pop("resourceClaimStatuses", None)

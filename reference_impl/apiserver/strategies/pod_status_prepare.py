"""``podStatusStrategy.PrepareForUpdate``'s status rules: a pods/status write that omits
what only the apiserver sets (the QoS class) or what an older or misbehaving client does
not know (DRA claim statuses, observedGeneration) keeps the stored value. The spec and the
owner references are taken back by ``status_meta`` and ``update_status``."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer

__all__ = ["preserve_old_observed_generation", "preserve_pod_status_fields"]

Obj = dict[str, Any]
# Kept when the new status has no value at all (nil); an explicit empty list clears them.
_CLAIM_STATUSES: Final = (
    "resourceClaimStatuses",
    "extendedResourceClaimStatus",
    "nodeAllocatableResourceClaimStatuses",
)


def _status(pod: Obj) -> Obj:
    """The pod's status, made a mapping (kept off the object until something is set)."""
    status = pod.get("status")
    return status if isinstance(status, dict) else {}


def _set_status(pod: Obj, status: Obj) -> None:
    if status or isinstance(pod.get("status"), dict):
        pod["status"] = status


def preserve_old_observed_generation(new: Obj, old: Obj) -> None:
    """``preserveOldObservedGeneration``: a zero observedGeneration, in the status or in a
    condition, takes the stored one; conditions of one type pair up in order, as
    validation allows repeated types."""
    status, old_status = _status(new), old.get("status") or {}
    if not status.get("observedGeneration") and old_status.get("observedGeneration"):
        status["observedGeneration"] = old_status["observedGeneration"]
    old_gens: dict[str, list[int]] = {}
    for c in old_status.get("conditions") or []:
        old_gens.setdefault(str(c.get("type", "")), []).append(int(c.get("observedGeneration") or 0))
    for c in status.get("conditions") or []:
        queue = old_gens.get(str(c.get("type", "")))
        gen = queue.pop(0) if queue else 0
        if not c.get("observedGeneration") and gen:
            c["observedGeneration"] = gen
    _set_status(new, status)


@preparer("Pod", status=True)
def preserve_pod_status_fields(new: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The QoS class (immutable, set at create; old kubelets dropped it on rejection), the
    DRA claim statuses when absent, and the observed generations."""
    if old is None:
        return
    status, old_status = _status(new), old.get("status") or {}
    if not status.get("qosClass") and old_status.get("qosClass"):
        status["qosClass"] = old_status["qosClass"]
    for f in _CLAIM_STATUSES:
        if status.get(f) is None and old_status.get(f) is not None:
            status[f] = copy.deepcopy(old_status[f])
    _set_status(new, status)
    preserve_old_observed_generation(new, old)

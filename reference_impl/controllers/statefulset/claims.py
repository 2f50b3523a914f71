"""The PVC retention policy's owner references (``stateful_set_utils.go``).

``whenDeleted: Delete`` makes the set own its claims; ``whenScaled: Delete`` makes a
scaled-down pod own its claims, so the garbage collector removes them with their owner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from reference_impl.controllers.statefulset.identity import controller_ref_to, pod_in_ordinal_range

__all__ = [
    "POD_GVK",
    "SET_GVK",
    "add_controller_ref",
    "has_non_controller_owner",
    "has_owner_ref",
    "has_stale_owner_ref",
    "has_unexpected_controller",
    "is_claim_owner_up_to_date",
    "matches_ref",
    "retention_policy",
    "update_claim_owner_refs",
]

Obj = dict[str, Any]
SET_GVK: Final = ("apps/v1", "StatefulSet")  # controllerKind
POD_GVK: Final = ("v1", "Pod")  # podKind
_RETAIN: Final = "Retain"
_DELETE: Final = "Delete"


def retention_policy(ss: Mapping[str, Any]) -> tuple[str, str]:
    """``getPersistentVolumeClaimRetentionPolicy`` as (whenDeleted, whenScaled); a set
    without a policy retains. A policy given keeps its fields, even empty ones."""
    policy = ss["spec"].get("persistentVolumeClaimRetentionPolicy")
    if policy is None:
        return _RETAIN, _RETAIN
    return str(policy.get("whenDeleted") or ""), str(policy.get("whenScaled") or "")


def _refs(obj: Mapping[str, Any]) -> list[Obj]:
    out: list[Obj] = obj["metadata"].get("ownerReferences") or []
    return out


def _uid(obj: Mapping[str, Any]) -> str:
    return str(obj["metadata"].get("uid") or "")


def matches_ref(ref: Mapping[str, Any], obj: Mapping[str, Any], gvk: tuple[str, str]) -> bool:
    """``matchesRef``: same group/version, kind and name (the UID is not compared)."""
    return (ref.get("apiVersion"), ref.get("kind")) == gvk and ref.get("name") == obj["metadata"].get(
        "name"
    )


def has_unexpected_controller(claim: Mapping[str, Any], ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``hasUnexpectedController``: under a non-Retain policy, a controller ref that is
    neither this set nor this pod, or a stale ref to either of them."""
    if retention_policy(ss) == (_RETAIN, _RETAIN):
        return False
    for ref in _refs(claim):
        if matches_ref(ref, ss, SET_GVK):
            if ref.get("uid") != _uid(ss):
                return True
            continue
        if matches_ref(ref, pod, POD_GVK):
            if ref.get("uid") != _uid(pod):
                return True
            continue
        if ref.get("controller"):
            return True
    return False


def has_non_controller_owner(claim: Mapping[str, Any], ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``hasNonControllerOwner``: the set or pod owns the claim without controller=true."""
    return any(
        ref.get("uid") in (_uid(ss), _uid(pod)) and not ref.get("controller") for ref in _refs(claim)
    )


def remove_refs(refs: list[Obj], predicate: Callable[[Obj], bool]) -> list[Obj]:
    """``removeRefs``."""
    return [r for r in refs if not predicate(r)]


def has_owner_ref(target: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    """``hasOwnerRef``: any ref carries the owner's UID."""
    return any(ref.get("uid") == _uid(owner) for ref in _refs(target))


def has_stale_owner_ref(target: Mapping[str, Any], obj: Mapping[str, Any], gvk: tuple[str, str]) -> bool:
    """``hasStaleOwnerRef``: the first ref naming ``obj`` carries another UID."""
    for ref in _refs(target):
        if matches_ref(ref, obj, gvk):
            return ref.get("uid") != _uid(obj)
    return False


def add_controller_ref(refs: list[Obj], owner: Mapping[str, Any], gvk: tuple[str, str]) -> list[Obj]:
    """``addControllerRef``: append a controller ref unless one with its UID exists."""
    if any(r.get("uid") == _uid(owner) for r in refs):
        return refs
    return [*refs, controller_ref_to(owner, *gvk)]


def is_claim_owner_up_to_date(claim: Mapping[str, Any], ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``isClaimOwnerUpToDate``: whether the claim's refs already express the policy.

    Stale refs are left for the garbage collector (treated as up to date); an unknown
    policy is treated as Retain."""
    if has_stale_owner_ref(claim, ss, SET_GVK) or has_stale_owner_ref(claim, pod, POD_GVK):
        return True
    if has_unexpected_controller(claim, ss, pod):
        return not (has_owner_ref(claim, ss) or has_owner_ref(claim, pod))
    if has_non_controller_owner(claim, ss, pod):
        return False
    deleted, scaled = retention_policy(ss)
    set_owns, pod_owns = has_owner_ref(claim, ss), has_owner_ref(claim, pod)
    scaled_down = not pod_in_ordinal_range(pod, ss)
    if (scaled, deleted) == (_RETAIN, _DELETE):
        return set_owns and not pod_owns
    if (scaled, deleted) == (_DELETE, _RETAIN):
        return not set_owns and scaled_down == pod_owns
    if (scaled, deleted) == (_DELETE, _DELETE):
        return scaled_down != set_owns and scaled_down == pod_owns
    return not (set_owns or pod_owns)  # Retain/Retain, or unknown


def update_claim_owner_refs(claim: Obj, ss: Mapping[str, Any], pod: Mapping[str, Any]) -> None:
    """``updateClaimOwnerRefForSetAndPod``: drop this set's and pod's refs, then add the
    ones the policy asks for (none when another controller owns the claim)."""
    unexpected = has_unexpected_controller(claim, ss, pod)
    refs = remove_refs(
        list(_refs(claim)), lambda r: matches_ref(r, ss, SET_GVK) or matches_ref(r, pod, POD_GVK)
    )
    if not unexpected:
        deleted, scaled = retention_policy(ss)
        scaled_down = not pod_in_ordinal_range(pod, ss)
        if (scaled, deleted) == (_RETAIN, _DELETE):
            refs = add_controller_ref(refs, ss, SET_GVK)
        elif scaled == _DELETE and deleted in (_RETAIN, _DELETE):
            if scaled_down:
                refs = add_controller_ref(refs, pod, POD_GVK)
            elif deleted == _DELETE:
                refs = add_controller_ref(refs, ss, SET_GVK)
    if refs:
        claim["metadata"]["ownerReferences"] = refs
    else:
        claim["metadata"].pop("ownerReferences", None)

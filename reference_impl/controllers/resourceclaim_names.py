"""Pure claim helpers of the resource claim controller.

Ports ``k8s.io/dynamic-resource-allocation/resourceclaim`` (``Name``, ``NameFromPodGroup``,
``IsForPod``, ``IsForPodGroup``, ``IsReservedForPod``, ``BindTo``) and the small
functions of ``pkg/controller/resourceclaim/controller.go`` (``isPodDone``,
``owningPod``, the generateName truncation of ``handleClaim``). Objects are v1 wire dicts.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.owners import get_controller_of, is_controlled_by
from reference_impl.errors import ApiError

__all__ = [
    "ANNOTATION",
    "FINALIZER",
    "APIUnsupported",
    "ClaimNotFound",
    "NonRetryable",
    "SyncError",
    "bind_to",
    "generate_name",
    "is_for_pod",
    "is_for_pod_group",
    "is_pod_done",
    "is_pod_group_consumer",
    "is_reserved_for_pod",
    "name_from_pod_group",
    "owning_pod",
    "pod_claim_name",
]

Obj = dict[str, Any]
ANNOTATION: Final = "resource.kubernetes.io/pod-claim-name"  # resourceapi.PodResourceClaimAnnotation
FINALIZER: Final = "resource.kubernetes.io/delete-protection"  # resourceapi.Finalizer
SCHEDULING: Final = "scheduling.k8s.io"
_MAX_BASE: Final = 57  # leaves room for "-" and 5 random characters in 63


class SyncError(ApiError):
    """A sync failure; the work queue retries it with backoff, as upstream's rate limiter."""


class NonRetryable(Exception):
    """Upstream's ``nonRetryableError``: logged, the key is not requeued."""


class ClaimNotFound(SyncError):
    """``ErrClaimNotFound``: a template claim whose name is not in the status yet."""


class APIUnsupported(SyncError):
    """``ErrAPIUnsupported``: none of the supported fields are set."""


def _ns(obj: Obj) -> str:
    return str(obj["metadata"].get("namespace") or "default")


def _group_name(pod: Obj) -> str | None:
    name = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return str(name) if name else None


def pod_claim_name(pod: Obj, ref: Obj) -> tuple[str | None, bool]:
    """``resourceclaim.Name``: (claim name or None when not needed, must check owner)."""
    if ref.get("resourceClaimName") is not None:
        return str(ref["resourceClaimName"]), False
    if ref.get("resourceClaimTemplateName") is not None:
        for st in (pod.get("status") or {}).get("resourceClaimStatuses") or ():
            if st.get("name") == ref.get("name"):
                name = st.get("resourceClaimName")
                return (str(name) if name is not None else None), True
        meta = pod["metadata"]
        raise ClaimNotFound(f'pod "{_ns(pod)}/{meta["name"]}": ResourceClaim not created yet')
    meta = pod["metadata"]
    raise APIUnsupported(f'pod "{_ns(pod)}/{meta["name"]}", spec.resourceClaim "{ref.get("name")}": '
                         "none of the supported fields are set")


def name_from_pod_group(pg: Obj, entry: Obj) -> tuple[str | None, bool]:
    """``resourceclaim.NameFromPodGroup``."""
    if entry.get("resourceClaimName") is not None:
        return str(entry["resourceClaimName"]), False
    name = pg["metadata"]["name"]
    if entry.get("resourceClaimTemplateName") is not None:
        for st in (pg.get("status") or {}).get("resourceClaimStatuses") or ():
            if st.get("name") == entry.get("name"):
                n = st.get("resourceClaimName")
                return (str(n) if n is not None else None), True
        raise ClaimNotFound(f"PodGroup {_ns(pg)}/{name}: ResourceClaim not created yet")
    raise APIUnsupported(f"PodGroup {_ns(pg)}/{name}, spec.resourceClaim {entry.get('name')}: "
                         "none of the supported fields are set")


def is_for_pod(pod: Obj, claim: Obj, accept_group_owner: bool) -> str | None:
    """``resourceclaim.IsForPod``: None when the claim is the pod's, else the error."""
    cns, cname = _ns(claim), claim["metadata"]["name"]
    pns, pname = _ns(pod), pod["metadata"]["name"]
    if cns != pns:
        return f"ResourceClaim {cns}/{cname} is not in the same namespace as Pod {pns}/{pname}"
    if is_controlled_by(claim, pod):
        return None
    group = _group_name(pod)
    if accept_group_owner and group:
        ref = get_controller_of(claim)
        if ref is not None and ref.get("name") == group and ref.get("kind") == "PodGroup" and str(
                ref.get("apiVersion", "")).startswith(SCHEDULING + "/"):
            return None
        return (f"ResourceClaim {cns}/{cname} was not created for Pod {pns}/{pname} "
                f"(neither Pod nor PodGroup {group} is the owner)")
    return f"ResourceClaim {cns}/{cname} was not created for Pod {pns}/{pname} (Pod is not owner)"


def is_for_pod_group(pg: Obj, claim: Obj) -> str | None:
    """``resourceclaim.IsForPodGroup``."""
    cns, cname = _ns(claim), claim["metadata"]["name"]
    gns, gname = _ns(pg), pg["metadata"]["name"]
    if cns != gns:
        return f"ResourceClaim {cns}/{cname} is not in the same namespace as PodGroup {gns}/{gname}"
    if not is_controlled_by(claim, pg):
        return f"ResourceClaim {cns}/{cname} was not created for PodGroup {gns}/{gname} (PodGroup is not owner)"
    return None


def is_pod_group_consumer(ref: Obj) -> bool:
    """``isPodGroupClaim``: a ``reservedFor`` entry naming a PodGroup."""
    return ref.get("apiGroup") == SCHEDULING and ref.get("resource") == "podgroups"


def is_reserved_for_pod(pod: Obj, claim: Obj, accept_group: bool) -> bool:
    """``resourceclaim.IsReservedForPod``: by pod UID, or (gate on) its PodGroup's name."""
    uid, group = pod["metadata"].get("uid"), _group_name(pod)
    for r in (claim.get("status") or {}).get("reservedFor") or ():
        if r.get("uid") == uid:
            return True
        if accept_group and is_pod_group_consumer(r) and group and r.get("name") == group:
            return True
    return False


def bind_to(pod: Obj, pg: Obj | None, ref: Obj) -> Obj:
    """``resourceclaim.BindTo``: the consumer to reserve a pod claim for."""
    pns, pname = _ns(pod), pod["metadata"]["name"]
    if ref.get("resourceClaimName") is None and ref.get("resourceClaimTemplateName") is None:
        raise APIUnsupported(f"Pod {pns}/{pname} claim {ref.get('name')}: none of the supported fields are set")
    if pg is not None:
        group = _group_name(pod)
        gns, gname = _ns(pg), pg["metadata"]["name"]
        if not group:
            raise SyncError(f"Pod {pns}/{pname} does not belong to a PodGroup")
        if pns != gns or group != gname:
            raise SyncError(f"Pod {pns}/{pname} belongs to PodGroup {pns}/{group}, not PodGroup {gns}/{gname}")
        for e in (pg.get("spec") or {}).get("resourceClaims") or ():
            if e.get("resourceClaimName") is None and e.get("resourceClaimTemplateName") is None:
                raise APIUnsupported(f"PodGroup {gns}/{gname} claim {e.get('name')}: "
                                     "none of the supported fields are set")
            if all(e.get(f) == ref.get(f) for f in ("name", "resourceClaimName", "resourceClaimTemplateName")):
                return {"apiGroup": SCHEDULING, "resource": "podgroups", "name": gname,
                        "uid": pg["metadata"].get("uid")}
    return {"resource": "pods", "name": pname, "uid": pod["metadata"].get("uid")}


def generate_name(owner: str, claim: str) -> str:
    """``<owner>-<claim>-``, both parts cut in proportion when longer than 57 (handleClaim)."""
    base = f"{owner}-{claim}-"
    if len(base) <= _MAX_BASE:
        return base
    return owner[: len(owner) * _MAX_BASE // len(base)] + "-" + claim[: len(claim) * _MAX_BASE // len(base)]


def is_pod_done(pod: Obj) -> bool:
    """``isPodDone``: terminal phase, or deleted before it was scheduled."""
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed") or bool(
        pod["metadata"].get("deletionTimestamp") and not (pod.get("spec") or {}).get("nodeName"))


def owning_pod(claim: Obj) -> tuple[str, str]:
    """``owningPod``: (name, uid) of the controlling v1 Pod owner, or ("", "")."""
    for r in claim["metadata"].get("ownerReferences") or ():
        if r.get("controller") and r.get("apiVersion") == "v1" and r.get("kind") == "Pod":
            return str(r.get("name", "")), str(r.get("uid", ""))
    return "", ""

"""PodGroup-level resource claims (KEP-5729, gate ``DRAWorkloadResourceClaims``).

Models the matching rule of core/v1 ``PodResourceClaim`` for pods in a PodGroup
(``pkg/apis/core/types.go`` + ``pkg/controller/resourceclaim``): a pod claim whose
``name``, ``resourceClaimName`` and ``resourceClaimTemplateName`` all equal one of the
PodGroup's ``spec.resourceClaims[]`` uses the group's single claim, reserved for the
PodGroup (``{apiGroup: scheduling.k8s.io, resource: podgroups, name, uid}``) instead of
per pod. Shared by the scheduler's DynamicResources plugin and the claim controller.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "POD_GROUP_VERSION",
    "WORKLOAD_CLAIM_GATES",
    "group_claim_entry",
    "group_claim_name",
    "group_consumer",
    "pod_group_key",
]

Obj = dict[str, Any]
POD_GROUP_VERSION: Final = "scheduling.k8s.io/v1beta1"
WORKLOAD_CLAIM_GATES: Final = ("DRAWorkloadResourceClaims", "GenericWorkload")
_FIELDS: Final = ("name", "resourceClaimName", "resourceClaimTemplateName")


def pod_group_key(pod: Obj) -> str | None:
    """``namespace/podGroupName`` of the pod's PodGroup, or None."""
    name = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
    return f"{pod['metadata'].get('namespace', 'default')}/{name}" if name else None


def group_claim_entry(ref: Obj, pg: Obj | None) -> Obj | None:
    """The PodGroup claim ``ref`` matches exactly on all three fields, or None."""
    if pg is None:
        return None
    for entry in (pg.get("spec") or {}).get("resourceClaims") or ():
        if all(entry.get(f) == ref.get(f) for f in _FIELDS):
            return dict(entry)
    return None


def group_claim_name(pg: Obj, entry: Obj) -> str | None:
    """The claim behind a PodGroup claim entry (None: not generated yet)."""
    if entry.get("resourceClaimName"):
        return str(entry["resourceClaimName"])
    for st in (pg.get("status") or {}).get("resourceClaimStatuses") or ():
        if st.get("name") == entry["name"] and st.get("resourceClaimName"):
            return str(st["resourceClaimName"])
    return None


def group_consumer(pg: Obj) -> Obj:
    """The ``reservedFor`` entry naming the PodGroup."""
    meta = pg["metadata"]
    return {
        "apiGroup": "scheduling.k8s.io",
        "resource": "podgroups",
        "name": meta["name"],
        "uid": meta["uid"],
    }

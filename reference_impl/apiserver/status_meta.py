"""The metadata of a /status write, as the kind's status strategy leaves it.

Most status strategies reset only the spec, so a /status write may change labels,
annotations, finalizers and owner references, which ``rest.BeforeUpdate`` then validates.
The strategies listed in ``RESETS_META`` call ``metav1.ResetObjectMetaForStatus`` (or copy
the stored ObjectMeta) and keep the stored metadata; a Deployment keeps its stored labels, a Pod its owner references.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.decode import carry_meta

__all__ = ["RESETS_META", "metadata_changed", "status_metadata"]

Obj = dict[str, Any]
RESETS_META: Final = frozenset(
    {
        "CSINode",
        "CompositePodGroup",
        "DeviceTaintRule",
        "Eviction",
        "EvictionRequest",
        # The flowcontrol status strategies copy the stored ObjectMeta over the body's.
        "FlowSchema",
        "PodCertificateRequest",
        "PodGroup",
        "PriorityLevelConfiguration",
        "ResourceClaim",
        "ResourcePoolStatusRequest",
        "ServiceCIDR",
        "StorageVersion",
        "StorageVersionMigration",
        "ValidatingAdmissionPolicy",
        "VolumeAttachment",
    }
)
# Fields a status strategy takes back from the stored object (deploymentStatusStrategy,
# podStatusStrategy: old kubelets corrupted owner references).
_KEPT: Final[dict[str, tuple[str, ...]]] = {"Deployment": ("labels",), "Pod": ("ownerReferences",)}


def status_metadata(kind: str, body: Obj, old: Obj) -> Obj:
    """The metadata a /status write of ``body`` (the decoded body's metadata) stores over
    ``old``: the stored identity and server-set fields, the rest from the body."""
    stored = old["metadata"]
    if kind in RESETS_META:
        return dict(stored)
    holder: Obj = {"metadata": dict(body)}
    carry_meta(old, holder)
    meta: Obj = holder["metadata"]
    for f in ("name", "namespace", *_KEPT.get(kind, ())):
        if f in stored:
            meta[f] = stored[f]
        else:
            meta.pop(f, None)
    return meta


def metadata_changed(new: Obj, old: Obj) -> bool:
    """Whether ``new``'s metadata differs from ``old``'s but for the resourceVersion."""
    a, b = new["metadata"], old["metadata"]
    return any(a.get(k) != b.get(k) for k in a.keys() | b.keys() if k != "resourceVersion")

"""A CustomResourceDefinition's first delete (``pkg/registry/customresourcedefinition/
etcd.go`` ``REST.Delete``): instead of the generic store's delete, one update marks it
deleting, adds the ``customresourcecleanup.apiextensions.k8s.io`` finalizer and sets the
Terminating condition; the CRD finalizer controller then removes its instances and the
finalizer. A later delete of the marked CRD is the generic store's."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import set_condition

__all__ = ["CLEANUP_FINALIZER", "TERMINATING", "is_crd", "mark_for_deletion"]

Obj = dict[str, Any]
CLEANUP_FINALIZER: Final = "customresourcecleanup.apiextensions.k8s.io"
TERMINATING: Final = "Terminating"


def is_crd(group: str, kind: str) -> bool:
    """Whether ``REST.Delete`` above serves this kind."""
    return group == "apiextensions.k8s.io" and kind == "CustomResourceDefinition"


def mark_for_deletion(crd: Obj, now: str) -> None:
    """The ``GuaranteedUpdate`` of a CRD not yet deleting: deletionTimestamp, the cleanup
    finalizer (once) and Terminating "InstanceDeletionPending". No garbage-collection
    finalizer is added: this path never reaches ``BeforeDelete``."""
    meta = crd["metadata"]
    meta.setdefault("deletionTimestamp", now)
    finalizers = list(meta.get("finalizers") or ())
    if CLEANUP_FINALIZER not in finalizers:
        meta["finalizers"] = [*finalizers, CLEANUP_FINALIZER]
    cond = {
        "type": TERMINATING, "status": "True", "reason": "InstanceDeletionPending",
        "message": "CustomResourceDefinition marked for deletion; CustomResource deletion "
        "will begin soon",
    }  # fmt: skip
    set_condition(crd.setdefault("status", {}), cond, now)

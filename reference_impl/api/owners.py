"""Owner references (``k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["get_controller_of", "is_controlled_by"]

Obj = dict[str, Any]


def get_controller_of(obj: Mapping[str, Any]) -> Obj | None:
    """``metav1.GetControllerOf``: the ownerReference with ``controller: true``, or None."""
    for ref in obj["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            out: Obj = ref
            return out
    return None


def is_controlled_by(obj: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    """``metav1.IsControlledBy``: the controller reference carries the owner's UID (a
    missing UID reads as Go's empty string)."""
    ref = get_controller_of(obj)
    return ref is not None and (ref.get("uid") or "") == (owner["metadata"].get("uid") or "")

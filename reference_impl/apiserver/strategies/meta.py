"""ObjectMeta validation shared by every kind (``apimachinery/pkg/api/validation``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.meta import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["meta_causes"]

# Kinds whose names must be DNS labels rather than subdomains.
_LABEL_NAMED: Final = frozenset({"Namespace", "Service"})
_ANNOTATIONS_MAX: Final = 256 * 1024


def meta_causes(info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> list[Cause]:
    """Field errors in ``metadata``; on update also the immutable fields."""
    meta = obj["metadata"]
    causes: list[Cause] = []
    name = str(meta.get("name", ""))
    check: Callable[[str], list[str]] = (
        dns1123_label_errors if info.kind in _LABEL_NAMED else dns1123_subdomain_errors
    )
    if info.kind == "ClusterTrustBundle":
        # ValidateClusterTrustBundleName depends on the signer: strategies/certificates.py.
        check = _no_errors
    causes += [
        Cause("metadata.name", "FieldValueInvalid", f"Invalid value: {name!r}: {e}")
        for e in check(name)
    ]
    for k, v in sorted((meta.get("labels") or {}).items()):
        causes += [
            Cause("metadata.labels", "FieldValueInvalid", f"Invalid value: {k!r}: {e}")
            for e in label_key_errors(k)
        ]
        # ValidateLabels reports a bad value at metadata.labels, naming the value.
        causes += [fe.invalid("metadata.labels", str(v), e) for e in label_value_errors(str(v))]
    annotations = meta.get("annotations") or {}
    for k in sorted(annotations):
        causes += [
            Cause("metadata.annotations", "FieldValueInvalid", f"Invalid value: {k!r}: {e}")
            for e in label_key_errors(k)
        ]
    if sum(len(k) + len(str(v)) for k, v in annotations.items()) > _ANNOTATIONS_MAX:
        causes.append(
            Cause(
                "metadata.annotations",
                "FieldValueTooLong",
                "Too long: must have at most 262144 bytes",
            )
        )
    causes += _finalizer_causes(meta.get("finalizers") or [])
    for i, ref in enumerate(meta.get("ownerReferences") or []):
        for f in ("apiVersion", "kind", "name", "uid"):
            if not ref.get(f):
                causes.append(
                    Cause(
                        f"metadata.ownerReferences[{i}].{f}", "FieldValueRequired", "Required value"
                    )
                )
    if sum(1 for r in meta.get("ownerReferences") or [] if r.get("controller")) > 1:
        causes.append(
            Cause(
                "metadata.ownerReferences",
                "FieldValueInvalid",
                "Only one reference can have Controller set to true",
            )
        )
    if old is not None:
        om = old["metadata"]
        for f in ("name", "namespace", "uid", "creationTimestamp"):
            if f in om and meta.get(f) != om.get(f):
                causes.append(Cause(f"metadata.{f}", "FieldValueInvalid", "field is immutable"))
    return causes


_STANDARD_FINALIZERS: Final = ("kubernetes", "orphan", "foregroundDeletion")


def _finalizer_causes(finalizers: list[Any]) -> list[Cause]:
    """ValidateFinalizers (qualified names; not both orphan and foregroundDeletion) and
    core's validateKubeFinalizerName (an unprefixed name must be a standard one)."""
    causes: list[Cause] = []
    for f in map(str, finalizers):
        causes += [fe.invalid("metadata.finalizers", f, e) for e in label_key_errors(f)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        causes.append(
            fe.invalid(
                "metadata.finalizers",
                finalizers,
                "finalizer orphan and foregroundDeletion cannot be both set",
            )
        )
    for i, f in enumerate(map(str, finalizers)):
        if "/" not in f and f not in _STANDARD_FINALIZERS:
            causes.append(
                fe.invalid(
                    f"metadata.finalizers[{i}]",
                    f,
                    "name is neither a standard finalizer name nor is it fully qualified",
                )
            )
    return causes


def _no_errors(name: str) -> list[str]:
    return []


def _path_segment_errors(name: str) -> list[str]:
    """``path.ValidatePathSegmentName``: not "." or "..", no "/" or "%"."""
    if name in (".", ".."):
        return [f"may not be {name!r}"]
    return [f"may not contain {c!r}" for c in "/%" if c in name]

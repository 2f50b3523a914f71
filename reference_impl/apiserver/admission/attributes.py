"""Admission audit annotations: apiserver pkg/admission/attributes.go
(``attributesRecord.AddAnnotation``, ``checkKeyFormat``), which the audit handler copies
into the request's audit event (audit.go ``logAnnotations``)."""

from __future__ import annotations

from reference_impl.api.formats import label_key_errors

__all__ = ["add_annotation"]


def add_annotation(annotations: dict[str, str], key: str, value: str) -> str:
    """Record ``key: value`` in ``annotations``; "" or the error upstream returns (and its
    callers only log): a key not ``<prefix>/<name>`` as a qualified name, or one already
    set to another value."""
    if len(key.split("/")) != 2:
        return (
            "annotation key has invalid format, the right format is a DNS subdomain prefix "
            "and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')"
        )
    errs = label_key_errors(key)
    if errs:
        return (
            f"annotation key has invalid format {','.join(errs)}. A qualified name like "
            "'podsecuritypolicy.admission.k8s.io/admit-policy' is required."
        )
    if annotations.get(key, value) != value:
        return (
            f'admission annotations are not allowd to be overwritten, key:"{key}", '
            f"old value: {annotations[key]}, new value: {value}"
        )
    annotations[key] = value
    return ""

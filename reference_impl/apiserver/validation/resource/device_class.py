"""DeviceClass spec (``validateDeviceClassSpec``) and the ResourceClaimTemplate's
template metadata (``ValidateTemplateObjectMeta``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import label_key_errors, label_value_errors
from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.claim import MAX_ITEMS, selectors
from reference_impl.apiserver.validation.resource.config import device_configuration
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list, validate_slice
from reference_impl.apiserver.validation.resource.names import extended_resource_name
from reference_impl.errors import Cause

__all__ = ["class_spec", "template_meta"]

_ANNOTATIONS_MAX: Final = 256 * 1024


def class_spec(spec: Any, old_spec: Any, path: str) -> list[Cause]:
    """Selectors and configs (stored when unchanged since the old object) and the
    extended resource name."""
    s, old = as_dict(spec), as_dict(old_spec) if old_spec is not None else None
    out = selectors(s.get("selectors"), f"{path}.selectors")
    stored = old is not None and as_list(old.get("config")) == as_list(s.get("config"))
    out += validate_slice(as_list(s.get("config")), MAX_ITEMS, lambda c, p: device_configuration(c, p, stored),
                          f"{path}.config")
    if s.get("extendedResourceName") is not None:
        out += extended_resource_name(str(s["extendedResourceName"]), f"{path}.extendedResourceName")
    return out


# ObjectMeta's JSON names and lowered Go field names, in struct order (labels and
# annotations are allowed in a template; keys ObjectMeta lacks are dropped on decode).
_OBJECT_META_FIELDS: Final = (
    ("name", "name"), ("generateName", "generateName"), ("namespace", "namespace"),
    ("selfLink", "selfLink"), ("uid", "uID"), ("resourceVersion", "resourceVersion"),
    ("generation", "generation"), ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("ownerReferences", "ownerReferences"), ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
)  # fmt: skip


def template_meta(meta: Any, path: str) -> list[Cause]:
    """Labels (key and value errors both at ``labels``) and annotation keys and size."""
    m, out = as_dict(meta), []
    for k, v in sorted(as_dict(m.get("labels")).items()):
        out += [f.invalid(f"{path}.labels", k, e) for e in label_key_errors(k)]
        out += [f.invalid(f"{path}.labels", v, e) for e in label_value_errors(str(v or ""))]
    ann = as_dict(m.get("annotations"))
    for k in sorted(ann):
        out += [f.invalid(f"{path}.annotations", k, e) for e in label_key_errors(k.lower())]
    if sum(len(k) + len(str(v or "")) for k, v in ann.items()) > _ANNOTATIONS_MAX:
        out.append(f.too_long(f"{path}.annotations", _ANNOTATIONS_MAX))
    # validateFieldAllowList: every other ObjectMeta field set (non-zero) is refused, named
    # by its Go field with the first letter lowered (so UID is "uID"), in struct order.
    for k, go_name in _OBJECT_META_FIELDS:
        if meta_field_set(k, m.get(k)):
            out.append(f.forbidden(f"{path}.{go_name}", "cannot be set"))
    return out


# ObjectMeta's slice and pointer fields: reflect.DeepEqual tells [] (or a pointer to 0)
# from nil, so any non-null value of these is set.
_NIL_ZERO_FIELDS: Final = frozenset(
    {"ownerReferences", "finalizers", "managedFields", "deletionGracePeriodSeconds", "deletionTimestamp"})


def meta_field_set(key: str, value: Any) -> bool:
    """Whether ObjectMeta field ``key`` (JSON name) differs from Go's zero value."""
    return value is not None if key in _NIL_ZERO_FIELDS else value not in (None, "", 0, {})

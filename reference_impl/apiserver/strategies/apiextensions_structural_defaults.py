"""``structuraldefaulting.ValidateDefaults`` (upstream v1.37.2
``apiextensions-apiserver/pkg/apiserver/schema/defaulting/validation.go``): every default
must be pruned, coerce as object metadata, pass the schema's value validations and its
x-kubernetes-validations rules. The rules are evaluated where the CEL module can (see
``apiextensions_cel.default_rule_causes``)."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors, dns1123_label_errors
from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.strategies.apiextensions_structural_values import value_causes
from reference_impl.apiserver.strategies.meta import annotations_causes, labels_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict
from reference_impl.errors import Cause

__all__ = ["defaults_causes"]

Obj = dict[str, Any]
Step = str | None  # a property name, or None for an array item
_META: Final = frozenset({"apiVersion", "kind", "metadata"})
_EMBEDDED: Final = "x-kubernetes-embedded-resource"
# ObjectMeta's string fields and other typed fields (a wrong JSON type fails decoding).
_META_STRINGS: Final = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_META_STRING_MAPS: Final = ("labels", "annotations")


def _embedded(s: Obj | None) -> bool:
    return bool(s and s.get(_EMBEDDED))


def _prune(x: Any, s: Obj | None) -> None:
    """``pruning.prune``: drop the fields ``s`` does not specify (in place)."""
    if s is not None and s.get("x-kubernetes-preserve-unknown-fields"):
        _skip_prune(x, s)
        return
    if isinstance(x, dict):
        if s is None:
            x.clear()
            return
        _prune_fields(x, s, drop=True)
    elif isinstance(x, list):
        for v in x:
            _prune(v, None if s is None else items_schema(s))


def _prune_fields(x: Obj, s: Obj, drop: bool) -> None:
    props = as_dict(s.get("properties"))
    ap = s.get("additionalProperties")
    for k in list(x):
        if _embedded(s) and k in _META:
            continue
        if k in props:
            _prune(x[k], as_dict(props[k]))
        elif isinstance(ap, bool | dict):
            _prune(x[k], ap if isinstance(ap, dict) else None)
        elif drop:
            del x[k]


def _skip_prune(x: Any, s: Obj) -> None:
    if isinstance(x, dict):
        _prune_fields(x, s, drop=False)
    elif isinstance(x, list):
        for v in x:
            if (items := items_schema(s)) is not None:
                _skip_prune(v, items)


def _meta_decode_error(meta: Any) -> str | None:
    """Why ``metadata`` does not decode into an ObjectMeta (the common fields)."""
    if not isinstance(meta, dict):
        return "json: cannot unmarshal into Go value of type v1.ObjectMeta"
    for k in _META_STRINGS:
        if k in meta and meta[k] is not None and not isinstance(meta[k], str):
            return f"json: cannot unmarshal into Go struct field ObjectMeta.{k} of type string"
    for k in _META_STRING_MAPS:
        v = meta.get(k)
        if v is not None and (not isinstance(v, dict) or any(not isinstance(x, str) for x in v.values() if x is not None)):
            return f"json: cannot unmarshal into Go struct field ObjectMeta.{k} of type map[string]string"
    return None


def _coerce(p: str, x: Any, s: Obj | None) -> Cause | None:
    """``objectmeta.Coerce`` (no dropping): the first malformed meta field."""
    if s is None:
        return None
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k, v in x.items():
            if _embedded(s) and k in ("apiVersion", "kind") and not isinstance(v, str):
                return fe.invalid(f"{p}.{k}", v, "must be a string")
            if _embedded(s) and k == "metadata" and (err := _meta_decode_error(v)):
                return fe.invalid(f"{p}.metadata", v, err)
            sub = as_dict(props[k]) if k in props else ap if isinstance(ap, dict) else None
            if (k in props or isinstance(ap, bool | dict)) and (c := _coerce(f"{p}.{k}" if k in props else f"{p}[{k}]", v, sub)):
                return c
    elif isinstance(x, list):
        for i, v in enumerate(x):
            if c := _coerce(f"{p}[{i}]", v, items_schema(s)):
                return c
    return None


def _embedded_causes(p: str, x: Obj) -> list[Cause]:
    """``validateEmbeddedResource``."""
    out = [fe.required(f"{p}.{k}") for k in ("apiVersion", "kind") if k not in x]
    av, kind = x.get("apiVersion"), x.get("kind")
    if "apiVersion" in x:
        if not isinstance(av, str):
            out.append(fe.invalid(f"{p}.apiVersion", av, "must be a string"))
        elif not av:
            out.append(fe.invalid(f"{p}.apiVersion", av, "must not be empty"))
        elif av.count("/") > 1:
            out.append(fe.invalid(f"{p}.apiVersion", av, f"unexpected GroupVersion string: {av}"))
    if "kind" in x:
        if not isinstance(kind, str):
            out.append(fe.invalid(f"{p}.kind", kind, "must be a string"))
        elif not kind:
            out.append(fe.invalid(f"{p}.kind", kind, "must not be empty"))
        elif errs := dns1035_label_errors(kind.lower()):
            out.append(fe.invalid(f"{p}.kind", kind, "may have mixed case, but should otherwise match: " + ",".join(errs)))
    if "metadata" in x:
        meta = x["metadata"]
        if (err := _meta_decode_error(meta)) is not None:
            out.append(fe.invalid(f"{p}.metadata", meta, err))
        else:
            out += _object_meta_causes(as_dict(meta), f"{p}.metadata")
    return out


def _object_meta_causes(meta: Obj, p: str) -> list[Cause]:
    """``ValidateObjectMeta`` on create, for the fields a default sets in practice."""
    out: list[Cause] = []
    name, gen, ns = meta.get("name") or "", meta.get("generateName") or "", meta.get("namespace") or ""
    if name in (".", ".."):
        out.append(fe.invalid(f"{p}.name", name, f"may not be '{name}'"))
    for field, value in (("name", name), ("generateName", gen)):
        out += [fe.invalid(f"{p}.{field}", value, f"may not contain '{c}'") for c in "/%" if c in value]
    if ns:
        out += [fe.invalid(f"{p}.namespace", ns, e) for e in dns1123_label_errors(ns)]
    out += labels_causes(as_dict(meta.get("labels")), f"{p}.labels")
    out += annotations_causes(as_dict(meta.get("annotations")), f"{p}.annotations")
    return out


def _meta_validate(p: str, x: Any, s: Obj | None) -> list[Cause]:
    """``objectmeta.Validate``: embedded resources' type and object meta."""
    if s is None:
        return []
    out: list[Cause] = []
    if isinstance(x, dict):
        if _embedded(s):
            out += _embedded_causes(p, x)
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k, v in x.items():
            if k in props:
                out += _meta_validate(f"{p}.{k}", v, as_dict(props[k]))
            elif isinstance(ap, dict):
                out += _meta_validate(f"{p}[{k}]", v, ap)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += _meta_validate(f"{p}[{i}]", v, items_schema(s))
    return out


def _surround(steps: list[Step], value: Any) -> Obj | None:
    """The resource object around a default (``SurroundingObjectFunc``), with
    ``validation/v1`` ``Validation`` as its type; None when its root is not an object."""
    for step in reversed(steps):
        value = [value] if step is None else {step: value}
    if not isinstance(value, dict):
        return None
    value.setdefault("kind", "Validation")
    value.setdefault("apiVersion", "validation/v1")
    return value


def _default_causes(p: str, s: Obj, root: Obj, steps: list[Step], inside_meta: bool, pruned: bool) -> list[Cause]:
    from reference_impl.apiserver.strategies.apiextensions_cel import default_rule_causes

    d = s["default"]
    dp = f"{p}.default"
    out: list[Cause] = []
    if inside_meta:
        obj = _surround(steps, copy.deepcopy(d))
        if obj is None:
            return []
        if _coerce("", obj, {**root, _EMBEDDED: True}) or _meta_validate("", obj, {**root, _EMBEDDED: True}):
            return [fe.invalid(dp, d, "must result in valid metadata")]
    else:
        if pruned:
            copied = copy.deepcopy(d)
            _prune(copied, {**s, _EMBEDDED: True} if _embedded(s) else s)
            if copied != d:
                out.append(fe.invalid(dp, d, "must not have unknown fields"))
        if c := _coerce(dp, d, s):
            return [*out, c]
        if errs := (_meta_validate(dp, d, s)):
            return out + errs
    if errs := value_causes(d, s, dp):
        return out + errs
    return out + default_rule_causes(s, d, dp, is_resource_root=s is root)


def _walk(p: str, s: Obj, root: Obj, steps: list[Step], inside_meta: bool, pruned: bool) -> list[Cause]:
    """``validate``: each default of ``s`` and below (not under additionalProperties)."""
    if _embedded(s):
        inside_meta, root, steps = False, s, []
    out: list[Cause] = []
    if s.get("default") is not None:
        out += _default_causes(p, s, root, steps, inside_meta, pruned)
    if (items := items_schema(s)) is not None:
        out += _walk(f"{p}.items", items, root, [*steps, None], inside_meta, pruned)
    for k, sub in as_dict(s.get("properties")).items():
        meta = inside_meta or (_embedded(s) and k in _META)
        out += _walk(f"{p}.properties[{k}]", as_dict(sub), root, [*steps, k], meta, pruned)
    return out


def defaults_causes(schema: Obj, path: str, require_pruned_defaults: bool) -> list[Cause]:
    """``ValidateDefaults`` of a CRD's ``openAPIV3Schema`` (the resource root)."""
    root = {**schema, _EMBEDDED: True}
    return _walk(path, root, root, [], False, require_pruned_defaults)

"""What a custom resource's structural schema does to a write: pruning
(``schema/pruning/algorithm.go`` ``PruneWithOptions``), defaulting
(``schema/defaulting/algorithm.go`` ``Default``), value validation with ratcheting
(``apiserver/validation`` ``ValidateCustomResource``/``ValidateCustomResourceUpdate``) and
the ``x-kubernetes-list-type`` invariants (``schema/listtype/validation.go``)."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.strategies.apiextensions_structural_values import value_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["apply_defaults", "list_causes", "prune", "prune_nulls", "prune_value", "schema_causes"]

Obj = dict[str, Any]
_ROOT_KEPT: Final = ("apiVersion", "kind", "metadata")
_EMBEDDED: Final = "x-kubernetes-embedded-resource"
_PRESERVE: Final = "x-kubernetes-preserve-unknown-fields"
# ObjectMeta's JSON fields: the decode into ObjectMeta drops any other.
_OBJECT_META: Final = frozenset({
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields",
})  # fmt: skip


def prune(obj: Obj, s: Obj) -> list[str]:
    """Drop what the schema does not specify, in place, and say where (``apply`` of
    ``unstructuredSchemaCoercer``): metadata keeps ObjectMeta's fields, then the object is
    pruned as a resource root (apiVersion, kind and metadata stay)."""
    meta = obj.get("metadata")
    unknown: list[str] = []
    if isinstance(meta, dict):
        unknown = [f"metadata.{k}" for k in sorted(meta) if k not in _OBJECT_META]
        for k in unknown:
            del meta[k.removeprefix("metadata.")]
    return unknown + prune_value(obj, s, is_resource_root=True)


def prune_value(x: Any, s: Obj | None, *, is_resource_root: bool = False) -> list[str]:
    """``PruneWithOptions``: prune ``x`` in place; the sorted paths of the dropped fields.
    A resource root is pruned as an embedded resource."""
    if is_resource_root:
        s = {**(s or {}), _EMBEDDED: True}
    dropped: list[str] = []
    _prune(x, s, "", dropped)
    return sorted(dropped)


def _join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def _prune(x: Any, s: Obj | None, at: str, dropped: list[str]) -> None:
    if s is not None and s.get(_PRESERVE):
        _skip_prune(x, s, at, dropped)
        return
    if isinstance(x, dict):
        if s is None:
            dropped.extend(_join(at, k) for k in x)
            x.clear()
            return
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k in list(x):
            if s.get(_EMBEDDED) and k in _ROOT_KEPT:
                continue
            if k in props:
                _prune(x[k], as_dict(props[k]), _join(at, k), dropped)
            elif ap is not None:
                _prune(x[k], ap if isinstance(ap, dict) else None, _join(at, k), dropped)
            else:
                if k not in _ROOT_KEPT or at:
                    dropped.append(_join(at, k))
                del x[k]
    elif isinstance(x, list):
        items = None if s is None else items_schema(s)
        for i, v in enumerate(x):
            _prune(v, items, f"{at}[{i}]", dropped)


def _skip_prune(x: Any, s: Obj | None, at: str, dropped: list[str]) -> None:
    """Under preserve-unknown-fields only the specified fields are pruned below."""
    if s is None:
        return
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k in list(x):
            if s.get(_EMBEDDED) and k in _ROOT_KEPT:
                continue
            if k in props:
                _prune(x[k], as_dict(props[k]), _join(at, k), dropped)
            elif ap is not None:
                _prune(x[k], ap if isinstance(ap, dict) else None, _join(at, k), dropped)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _skip_prune(v, items_schema(s), f"{at}[{i}]", dropped)


def _non_nullable_null(x: Any, s: Obj | None) -> bool:
    return x is None and s is not None and not s.get("nullable")


def _field_schema(k: str, s: Obj | None) -> Obj | None:
    if s is None:
        return None
    props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
    if k in props:
        return as_dict(props[k])
    return ap if isinstance(ap, dict) else None


def prune_nulls(x: Any, s: Obj | None) -> None:
    """``PruneNonNullableNullsWithoutDefaults``: drop a null the schema neither allows nor
    defaults (one with a default is defaulted later)."""
    if isinstance(x, dict):
        for k in list(x):
            sub = _field_schema(k, s)
            if _non_nullable_null(x[k], sub) and (sub or {}).get("default") is None:
                del x[k]
            else:
                prune_nulls(x[k], sub)
    elif isinstance(x, list):
        items = None if s is None else items_schema(s)
        for v in x:
            prune_nulls(v, items)


def apply_defaults(x: Any, s: Obj | None) -> None:
    """``structuraldefaulting.Default``: set each missing (or non-nullable null) property
    that has a ``default``, then recurse (in place)."""
    if s is None:
        return
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k, ps in props.items():
            ps = as_dict(ps)
            if ps.get("default") is None:
                continue
            if k not in x or _non_nullable_null(x[k], ps):
                x[k] = copy.deepcopy(ps["default"])
        for k in x:
            if k in props:
                apply_defaults(x[k], as_dict(props[k]))
            elif isinstance(ap, dict):
                if _non_nullable_null(x[k], ap):
                    x[k] = copy.deepcopy(ap.get("default"))
                apply_defaults(x[k], ap)
    elif isinstance(x, list):
        items = items_schema(s)
        for i in range(len(x)):
            if _non_nullable_null(x[i], items):
                x[i] = copy.deepcopy((items or {}).get("default"))
            apply_defaults(x[i], items)


def _shallow(s: Obj) -> Obj:
    return {
        k: v for k, v in s.items() if k not in ("properties", "items", "additionalProperties")
    } | (
        {"additionalProperties": s["additionalProperties"]}
        if isinstance(s.get("additionalProperties"), bool)
        else {}
    )


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def schema_causes(
    x: Any, s: Obj, old: Any = None, *, has_old: bool = False, name: str = "", path: str = ""
) -> list[Cause]:
    """kube-openapi's errors of ``x`` (``name`` relative to the root at ``path``); on update
    a value equal to its correlated old value is not validated again (ratcheting)."""
    if has_old and _same(x, old):
        return []
    out = [_strip(c) for c in value_causes(x, _shallow(s), path, name)]
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        o = old if isinstance(old, dict) else {}
        for k in sorted(x):
            sub = as_dict(props[k]) if k in props else ap if isinstance(ap, dict) else None
            if sub is not None:
                sub_name = f"{name}.{k}" if name else k
                out += schema_causes(
                    x[k], sub, o.get(k), has_old=has_old and k in o, name=sub_name, path=path
                )
    elif isinstance(x, list) and (items := items_schema(s)) is not None:
        olds = _correlated(x, old if isinstance(old, list) else None, s) if has_old else {}
        for i, v in enumerate(x):
            out += schema_causes(
                v, items, olds.get(i), has_old=i in olds, name=f"{name}[{i}]", path=path
            )
    return out


def _strip(c: Cause) -> Cause:
    return Cause(c.field[1:], c.reason, c.message) if c.field.startswith(".") else c


def _correlated(new: list[Any], old: list[Any] | None, s: Obj) -> dict[int, Any]:
    """Old items a new item corresponds to: by keys (map lists) or value (set lists);
    atomic lists correlate nothing (``common.CorrelatedObject``)."""
    if old is None:
        return {}
    kind = s.get("x-kubernetes-list-type")
    if kind == "map":
        keys = [str(k) for k in as_list(s.get("x-kubernetes-list-map-keys"))]
        by_key = {_map_key(o, keys): o for o in old if isinstance(o, dict)}
        return {
            i: by_key[k]
            for i, v in enumerate(new)
            if isinstance(v, dict) and (k := _map_key(v, keys)) in by_key
        }
    if kind == "set":
        return {i: v for i, v in enumerate(new) if any(_same(v, o) for o in old)}
    return {}


def _map_key(v: Obj, keys: list[str]) -> str:
    return repr([(k, v.get(k)) for k in keys])


def list_causes(x: Any, s: Obj, path: str = "") -> list[Cause]:
    """Duplicates in ``set`` and ``map`` lists (``ValidateListSetsAndMaps``)."""
    out: list[Cause] = []
    if isinstance(x, dict):
        props, ap = as_dict(s.get("properties")), s.get("additionalProperties")
        for k in sorted(x):
            sub = as_dict(props[k]) if k in props else ap if isinstance(ap, dict) else None
            if sub is not None:
                out += list_causes(x[k], sub, f"{path}.{k}" if path else k)
    elif isinstance(x, list):
        kind, items = s.get("x-kubernetes-list-type"), items_schema(s)
        if kind == "set":
            seen: list[Any] = []
            for i, v in enumerate(x):
                if any(_same(v, o) for o in seen):
                    out.append(fe.duplicate(f"{path}[{i}]", v))
                else:
                    seen.append(v)
        elif kind == "map":
            keys = [str(k) for k in as_list(s.get("x-kubernetes-list-map-keys"))]
            found: set[str] = set()
            for i, v in enumerate(x):
                if not isinstance(v, dict):
                    continue
                k = _map_key(v, keys)
                if k in found:
                    out.append(fe.duplicate(f"{path}[{i}]", {n: v[n] for n in keys if n in v}))
                found.add(k)
        if items is not None:
            for i, v in enumerate(x):
                out += list_causes(v, items, f"{path}[{i}]")
    return out

"""JSON ``null`` as upstream's decoder reads it, before the strict schema check.

Go's ``encoding/json`` (through ``sigs.k8s.io/json``) leaves a struct field untouched when
the body says ``null``, so a ``null`` field is the same as an absent one
(``resources: null`` is accepted). A ``null`` element of a list or a ``null`` value of a
map decodes to the element type's zero value (``containers: [null]`` is an empty
Container, which validation rejects field by field; a ``null`` label value is ``""``).
Free-form values (``RawExtension``, preserve-unknown-fields) keep their nulls, and a
``null`` under a field the schema does not know stays for the strict check to report.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver import schema

__all__ = ["normalize_nulls"]

Node = dict[str, Any]
_REF: Final = "#/$defs/"
# Zero values of the types whose schema is a oneOf rather than a type.
_ZERO_BY_DEF: Final[dict[str, Any]] = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": 0,
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "0",
    # A zero metav1.Time encodes as null again (its MarshalJSON), so the null stays.
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": None,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": None,
}
_ZERO_BY_TYPE: Final[dict[str, Any]] = {
    "string": "",
    "integer": 0,
    "number": 0,
    "boolean": False,
}


def normalize_nulls(obj: dict[str, Any], api_version: str, kind: str) -> None:
    """Rewrite ``obj`` in place as upstream would have decoded it (no-op without a schema)."""
    root = schema.kind_schema(api_version, kind)
    if root is not None:
        _walk_object(obj, root)


# Schema nodes (which live for the process) by id(), with what they resolve to.
_RESOLVED: Final[dict[int, tuple[Any, Node | None]]] = {}


def _resolve(node: Any) -> Node | None:
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        return _resolve(schema.definitions().get(ref[len(_REF) :]))
    # allOf: [{$ref}] wrappers carry a description beside the reference.
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        return _resolve(all_of[0])
    return node


def _types(node: Node) -> set[str]:
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    return {x for x in t if isinstance(x, str)} - {"null"} if isinstance(t, list) else set()


def _zero(node: Any) -> Any:
    """The Go zero value a ``null`` element of this schema decodes to; None when free-form."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref[len(_REF) :] in _ZERO_BY_DEF:
            return _ZERO_BY_DEF[ref[len(_REF) :]]
    r = _resolve(node)
    if r is None:
        return None
    types = _types(r)
    if "object" in types or (not types and "properties" in r):
        return {}
    if "array" in types:
        return []
    for t, z in _ZERO_BY_TYPE.items():
        if t in types:
            return z
    return None


def _walk(value: Any, node: Any) -> None:
    if not isinstance(value, dict | list):
        return  # a scalar holds no nulls to rewrite
    hit = _RESOLVED.get(id(node))
    if hit is not None and hit[0] is node:
        r = hit[1]
    else:
        r = _resolve(node)
        _RESOLVED[id(node)] = (node, r)  # holds ``node``, so its id is not reused
    if r is None:
        return
    if isinstance(value, dict):
        _walk_object(value, r)
    elif isinstance(value, list):
        items = r.get("items")
        if items is None:
            return
        for i, v in enumerate(value):
            if v is None:
                value[i] = _zero(items)
            else:
                _walk(v, items)


def _walk_object(obj: dict[str, Any], node: Node) -> None:
    props = node.get("properties")
    props = props if isinstance(props, dict) else {}
    extra = node.get("additionalProperties")
    for key in list(obj):
        v = obj[key]
        if key in props:
            if v is None:
                del obj[key]  # a struct field: null is absent
            else:
                _walk(v, props[key])
        elif isinstance(extra, dict):
            if v is None:
                obj[key] = _zero(extra)  # a map value: the zero value
            else:
                _walk(v, extra)

"""What protobuf storage gives back: an empty list or map reads back as nil.

Built-in kinds are stored as protobuf, where a repeated or map field without entries is
not written at all, so it decodes as nil, and the reply and every later read come from
that. An ``omitempty`` list or map left empty is therefore absent from then on: a
Service's ``selector: {}`` is no selector (which the endpoints controllers read as
"selects nothing"), empty ``labels`` or ``conditions`` are gone. Without ``omitempty``
Go writes such a field as ``null`` (``go_encoding``); the reference keeps its empty value,
which its own readers expect. Custom resources are stored as JSON and keep what was sent.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from reference_impl.apiserver.go_encoding import field_table, root_definition_of

__all__ = ["drop_empty_collections"]

Obj = dict[str, Any]
Names = frozenset[str]
# Per field: (dropped when empty, a list or map, the Go struct of the value or its items).
_Step = tuple[bool, bool, str]
_STRUCT: Final = "struct:"
# How a field written empty ends in compact JSON ("name":[] or "name":{}).
_EMPTIES: Final = (b'":[]', b'":{}')


def _fields(definition: str) -> list[tuple[str, bool, bool, str]]:
    """(name, omitempty, a list or map, the struct of the value or its items) per field."""
    table = field_table()
    out = []
    for name, (shape, omitempty, _omitzero) in table.get(definition, {}).items():
        base = shape.lstrip("*")
        collection = base.startswith(("[]", "{}"))
        inner = base.lstrip("[]{}")
        sub = inner[len(_STRUCT) :] if inner.startswith(_STRUCT) else ""
        out.append((name, omitempty, collection, sub if sub in table else ""))
    return out


@cache
def _droppable(definition: str) -> Names:
    """The names of the ``omitempty`` list and map fields of ``definition`` and of every
    struct reachable from it."""
    names: set[str] = set()
    seen, todo = {definition}, [definition]
    while todo:
        for name, omitempty, collection, sub in _fields(todo.pop()):
            if omitempty and collection:
                names.add(name)
            if sub and sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return frozenset(names)


@cache
def _plan(definition: str, names: Names) -> tuple[tuple[str, _Step], ...]:
    """The fields of ``definition`` to look at for empty fields called one of ``names``:
    such a field itself, or a struct from which one is reachable."""
    out = []
    for name, omitempty, collection, sub in _fields(definition):
        drop = omitempty and collection and name in names
        if sub and not names & _droppable(sub):
            sub = ""
        if drop or sub:
            out.append((name, (drop, collection, sub)))
    return tuple(out)


def _written_empty(data: bytes, definition: str) -> Names:
    """The names ``data`` (the object's compact JSON) writes as ``[]`` or ``{}`` that some
    struct of ``definition`` omits when empty (most objects write none; a pod's
    ``securityContext: {}`` is a struct)."""
    droppable = _droppable(definition)
    found: set[str] = set()
    for empty in _EMPTIES:
        at = data.find(empty)
        while at >= 0:
            name = data[data.rfind(b'"', 0, at) + 1 : at].decode("utf-8", "replace")
            if name in droppable:
                found.add(name)
            at = data.find(empty, at + 4)
    return frozenset(found)


def _walk(obj: Obj, definition: str, names: Names) -> bool:
    dropped = False
    for name, (drop, collection, sub) in _plan(definition, names):
        v = obj.get(name)
        if collection:
            if not isinstance(v, list | dict):
                continue
            if not v:
                if drop:
                    del obj[name]
                    dropped = True
                continue
            if sub:
                for item in v if isinstance(v, list) else v.values():
                    if isinstance(item, dict) and _walk(item, sub, names):
                        dropped = True
        elif isinstance(v, dict) and _walk(v, sub, names):
            dropped = True
    return dropped


def drop_empty_collections(obj: Obj, data: bytes) -> bool:
    """Drop, in place, the empty ``omitempty`` lists and maps of a built-in object, as a
    round trip through protobuf storage does (a custom resource is left as it is);
    ``data``: its compact JSON. Whether anything was dropped."""
    if _EMPTIES[0] not in data and _EMPTIES[1] not in data:
        return False  # nothing written empty: the common case, found without a lookup
    definition = root_definition_of(str(obj.get("apiVersion")), str(obj.get("kind")))
    if not definition:
        return False
    names = _written_empty(data, definition)
    return bool(names) and _walk(obj, definition, names)

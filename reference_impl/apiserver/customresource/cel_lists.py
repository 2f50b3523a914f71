"""Lists typed by ``x-kubernetes-list-type`` in CEL, after ``k8s.io/apiserver/pkg/cel/common``
``unstructuredSetList`` and ``unstructuredMapList``: a set compares as a set (order and
repeats aside) and ``X + Y`` is a union keeping X's order; a map list compares entry by
entry under its keys and ``X + Y`` merges, Y's entries overwriting X's in place and new
keys appended. Both keep their kind through ``+``. An object with properties
(``unstructuredMap``) is an ``ObjectMap``."""

from __future__ import annotations

from typing import Any

from celpy import celtypes

__all__ = ["MapList", "ObjectMap", "SetList", "UnknownPreserved"]


def _scalar_key(x: Any) -> Any:
    """``setElementKey``: sets hold scalars (a container has no key)."""
    if isinstance(x, celtypes.ListType | celtypes.MapType):
        raise TypeError("listSet operations are only supported on lists of scalar values")
    return (type(x).__name__ if isinstance(x, celtypes.BoolType) else "", x)


class SetList(celtypes.ListType):
    """A list with ``x-kubernetes-list-type: set``."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        mine = {_scalar_key(x) for x in self}
        theirs = {_scalar_key(x) for x in other}
        return len(self) == len(other) and mine == theirs

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __add__(self, other: Any) -> SetList:  # type: ignore[override]  # a union, not list +
        out, seen = list(self), {_scalar_key(x) for x in self}
        for x in other:
            if _scalar_key(x) not in seen:
                seen.add(_scalar_key(x))
                out.append(x)
        return SetList(out)


class MapList(celtypes.ListType):
    """A list with ``x-kubernetes-list-type: map`` keyed by ``keys`` (escaped names)."""

    __hash__ = None  # type: ignore[assignment]
    keys: tuple[str, ...]

    def __init__(self, items: Any, keys: tuple[str, ...]) -> None:
        super().__init__(items)
        self.keys = keys

    def _key(self, x: Any) -> Any:
        if not isinstance(x, celtypes.MapType):
            return None
        return tuple(x.get(celtypes.StringType(k)) for k in self.keys)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented
        if len(self) != len(other):
            return False
        mine = {self._key(x): x for x in self}
        seen = set()
        for x in other:
            k = self._key(x)
            if k not in mine or not bool(mine[k] == x):
                return False
            seen.add(k)
        return len(seen) == len(mine)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __add__(self, other: Any) -> MapList:  # type: ignore[override]  # a merge, not list +
        out = list(self)
        at = {self._key(x): i for i, x in enumerate(out)}
        for x in other:
            k = self._key(x)
            if k in at:
                out[at[k]] = x
            else:
                at[k] = len(out)
                out.append(x)
        return MapList(out, self.keys)


class ObjectMap(celtypes.MapType):
    """An object with properties (``unstructuredMap``): its size counts every field of the
    data (null and unknown ones too), and equality compares the declared fields as CEL
    values and the unknown ones as data."""

    raw: dict[str, Any]
    names: dict[str, str]  # declared property -> its CEL field name

    def __init__(self, fields: Any, raw: dict[str, Any], names: dict[str, str]) -> None:
        super().__init__(fields)
        self.raw, self.names = raw, names

    def __len__(self) -> int:
        return len(self.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, celtypes.MapType):
            return NotImplemented
        if len(self) != len(other):
            return False
        for key, value in self.raw.items():
            name = self.names.get(key)
            if name is None:  # an unknown field: compared as data
                if not isinstance(other, ObjectMap):
                    return False
                if key in other.raw and other.raw[key] != value:
                    return False
                continue
            k = celtypes.StringType(name)
            found, ofound = dict.__contains__(self, k), dict.__contains__(other, k)
            if found != ofound:
                return False
            if found and not bool(dict.__getitem__(self, k) == dict.__getitem__(other, k)):
                return False
        return True

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq


class UnknownPreserved:
    """Data of an untyped ``x-kubernetes-preserve-unknown-fields`` schema
    (``unknownPreserved``): it only compares, as data."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnknownPreserved) and other.value == self.value

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]

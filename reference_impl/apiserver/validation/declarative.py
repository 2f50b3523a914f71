"""A small engine for the ``+k8s:`` declarative validation tags of 1.37.

A ``Struct`` lists its fields' tags in the order the generated ``zz_generated.validations.go``
checks them, plus the type's union. Semantics follow ``apimachinery/pkg/api/validate``:

- ``required``: a zero or absent value is Required and nothing else is checked; an
  optional zero value is skipped. Declarative validation counts 0 as missing, so a
  required ``minCount: 0`` is Required, not Invalid.
- on update a field equal to the old one is not re-checked (ratcheting); ``immutable``,
  ``no_set``/``no_unset`` and ``no_add``/``no_remove`` compare against the old value and,
  failing, short-circuit: the field's formats, bounds and contents are then not checked.
- a list with a map key reports a repeated key as Duplicate at the later index, and
  ratchets each item against the old item with the same key.
- a union names its members: none set is ``must specify one of``, several is
  ``must specify exactly one of``, both at the struct's own path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.tag_formats import FORMATS
from reference_impl.errors import Cause

__all__ = ["Field", "Struct", "validate"]

Gates = Mapping[str, bool]


@dataclass(frozen=True, slots=True)
class Field:
    """The tags of one field (JSON name ``name``)."""

    name: str
    required: bool = False
    fmt: str = ""
    immutable: bool = False
    minimum: int | None = None
    maximum: int | None = None
    max_items: int | None = None
    map_key: str = ""  # listType=map with this listMapKey
    enum: tuple[str, ...] = ()
    no_add: bool = False
    no_remove: bool = False
    no_set: bool = False
    no_unset: bool = False
    gate: str = ""  # ifDisabled(gate)=forbidden
    ptr: bool = False  # a pointer: set (and checked) whenever not null, 0 and "" included
    value: bool = False  # a struct value: absent is its zero value, checked like ``{}``
    struct: Struct | Callable[[], Struct] | None = None  # the value's (or each item's) type


@dataclass(frozen=True, slots=True)
class Struct:
    """A type's fields and its union (member JSON names; empty when it has none)."""

    fields: tuple[Field, ...]
    union: tuple[str, ...] = ()
    extra: Callable[[dict[str, Any], dict[str, Any] | None, str], list[Cause]] | None = field(
        default=None
    )


def _zero(v: Any) -> bool:
    return v is None or v == "" or v == 0 and not isinstance(v, bool) or v == [] or v == {}


def _struct(f: Field) -> Struct | None:
    s = f.struct
    return s() if callable(s) else s


def validate(
    obj: Any, old: Any, spec: Struct, path: str, gates: Gates, *, update: bool
) -> list[Cause]:
    """The declarative errors of ``obj`` (a mapping of ``spec``'s type) at ``path``."""
    if not isinstance(obj, dict):
        return []
    o = old if isinstance(old, dict) else None
    if update and o is not None and obj == o:
        return []
    causes: list[Cause] = []
    for f in spec.fields:
        causes += _field(
            f,
            obj.get(f.name),
            o.get(f.name) if o is not None else None,
            f"{path}.{f.name}" if path else f.name,
            gates,
            update and o is not None,
        )
    if spec.union:
        ptrs = {f.name for f in spec.fields if f.ptr}  # a pointer member set to "" is set
        set_ = [
            m for m in spec.union
            if not _zero(obj.get(m)) or isinstance(obj.get(m), dict) or (m in ptrs and obj.get(m) is not None)
        ]  # fmt: skip
        names = ", ".join(f"`{m}`" for m in spec.union)
        unchanged = update and o is not None and all(obj.get(m) == o.get(m) for m in spec.union)
        if not unchanged and not set_:
            causes.append(fe.invalid(path, "", f"must specify one of: {names}"))
        elif not unchanged and len(set_) > 1:
            shown = "{" + ", ".join(set_) + "}"
            causes.append(fe.invalid(path, shown, f"must specify exactly one of: {names}"))
    if spec.extra is not None:
        causes += spec.extra(obj, o, path)
    return causes


def _field(f: Field, v: Any, ov: Any, path: str, gates: Gates, update: bool) -> list[Cause]:
    causes: list[Cause] = []
    if update:
        causes += _update_rules(f, v, ov, path)
        if v == ov:
            return causes  # ratcheting: unchanged values are not re-validated
    # The update rules (immutable, update=NoSet..., NoAddItem...) short-circuit like
    # required, maxItems and the gates: the other short-circuiting tags still report,
    # but nothing below the field (formats, bounds, its struct or items) is checked.
    stop = bool(causes)
    if f.gate and not gates.get(f.gate, False):
        return causes + ([fe.forbidden(path)] if v is not None else [])
    if f.value and v is None:
        v = {}
    present = v is not None if f.ptr else (not _zero(v) or isinstance(v, dict))
    if not present:
        if f.required:
            causes.append(fe.required(path))
        return causes
    if stop:
        too_many = isinstance(v, list) and f.max_items is not None and len(v) > f.max_items
        return causes + ([fe.too_many(path, len(v), f.max_items or 0)] if too_many else [])
    if f.fmt and isinstance(v, str):
        causes += [fe.invalid(path, v, e) for e in FORMATS[f.fmt](v)]
    if f.enum and v not in f.enum:
        causes.append(fe.not_supported(path, v, f.enum))
    if isinstance(v, int) and not isinstance(v, bool):
        if f.minimum is not None and v < f.minimum:
            causes.append(fe.invalid(path, v, f"must be greater than or equal to {f.minimum}"))
        if f.maximum is not None and v > f.maximum:
            causes.append(fe.invalid(path, v, f"must be less than or equal to {f.maximum}"))
    s = _struct(f)
    if isinstance(v, list):
        if f.max_items is not None and len(v) > f.max_items:
            # validate.MaxItems is short-circuiting: the items are then not validated.
            causes.append(fe.too_many(path, len(v), f.max_items))
        else:
            causes += _items(f, v, ov if isinstance(ov, list) else None, path, s, gates, update)
    elif s is not None:
        causes += validate(v, ov, s, path, gates, update=update)
    return causes


def _items(
    f: Field,
    v: list[Any],
    ov: list[Any] | None,
    path: str,
    s: Struct | None,
    gates: Gates,
    update: bool,
) -> list[Cause]:
    causes: list[Cause] = []
    seen: set[Any] = set()
    old_by_key = (
        {str(i.get(f.map_key)): i for i in ov or [] if isinstance(i, dict)} if f.map_key else {}
    )
    for i, item in enumerate(v):
        if f.map_key and isinstance(item, dict):
            key = item.get(f.map_key)
            key = "" if key is None else key  # an absent key is its zero value
            if key in seen:
                causes.append(fe.duplicate(f"{path}[{i}]", fe.OMIT))
            seen.add(key)
        if s is not None:
            old_item = (
                old_by_key.get(str(item.get(f.map_key)))
                if f.map_key and isinstance(item, dict)
                else None
            )
            causes += validate(
                item, old_item, s, f"{path}[{i}]", gates, update=update and old_item is not None
            )
    return causes


def _update_rules(f: Field, v: Any, ov: Any, path: str) -> list[Cause]:
    # Semantic.DeepEqual: an absent string is "", a nil slice is empty; a nil pointer is not 0.
    if f.immutable and v != ov and not (v in (None, "", []) and ov in (None, "", [])):
        return [fe.invalid(path, None, "field is immutable")]
    if f.no_set and ov is None and v is not None:
        return [fe.invalid(path, None, "field cannot be set once created")]
    if f.no_unset and ov is not None and v is None:
        return [fe.invalid(path, None, "field cannot be cleared once set")]
    causes: list[Cause] = []
    if (f.no_add or f.no_remove) and f.map_key:
        new_keys = [i.get(f.map_key) for i in v or [] if isinstance(i, dict)]
        old_keys = {i.get(f.map_key) for i in ov or [] if isinstance(i, dict)}
        if f.no_add:
            causes += [
                fe.forbidden(f"{path}[{i}]", "item may not be added")
                for i, k in enumerate(new_keys)
                if k not in old_keys
            ]
        if f.no_remove and old_keys - set(new_keys):
            causes.append(fe.forbidden(path, "item may not be removed"))
    return causes

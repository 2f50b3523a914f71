"""The OpenAPI value validation a CustomResourceDefinition default must pass
(``apiservervalidation.ValidateCustomResource`` with kube-openapi's ``SchemaValidator``
and ``strfmt.Default``), as field errors: ``kubeOpenAPIResultToFieldErrors``.

kube-openapi names a nested value ``a.b`` / ``a[0]``; the field path is the default's
path ``.Child`` that name (so an item of an array default reads ``default.[0]``). The
junctors report what kube-openapi reports for the common cases: an Invalid at the value
for a failed ``anyOf``/``oneOf``/``allOf``/``not`` plus the first failing clause's errors."""

from __future__ import annotations

import base64
import binascii
import datetime
import json
import math
import re
import uuid
from collections.abc import Callable
from typing import Any, Final

import re2

from reference_impl.api.formats import dns1123_subdomain_errors
from reference_impl.apiserver.strategies.apiextensions_structural import (
    RE2_OPTIONS,
    go_regexp_error,
    items_schema,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import parse_ip_sloppy
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["value_causes"]

Obj = dict[str, Any]


def _type_invalid(path: str, value: Any, detail: str) -> Cause:
    shown = json.dumps(value) if isinstance(value, str) or value is None else repr(value)
    return Cause(path, "FieldValueTypeInvalid", f"Invalid value: {shown}: {detail}")


def _kind(v: Any) -> str:
    """The OpenAPI type of a decoded JSON value (``schemaInfoForType``)."""
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _date(s: str) -> bool:
    try:
        datetime.date.fromisoformat(s)
    except ValueError:
        return False
    return re.fullmatch(r"\d{4}-\d{2}-\d{2}", s) is not None


def _datetime(s: str) -> bool:
    return re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?", s) is not None


def _byte(s: str) -> bool:
    try:
        base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _uuid(s: str) -> bool:
    try:
        uuid.UUID(s)
    except ValueError:
        return False
    return re.fullmatch(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", s) is not None


def _ipv4(s: str) -> bool:
    ip = parse_ip_sloppy(s)
    return ip is not None and ip.version == 4 and ":" not in s


# The ``strfmt.Default`` formats judged here; the others registered there are taken as
# valid (they are not modelled), unregistered ones are not checked at all.
_FORMATS: Final[dict[str, Callable[[str], bool]]] = {
    "date": _date,
    "date-time": _datetime,
    "datetime": _datetime,
    "byte": _byte,
    "uuid": _uuid,
    "ipv4": _ipv4,
    "ipv6": lambda s: ":" in s and parse_ip_sloppy(s) is not None,
    "hostname": lambda s: not dns1123_subdomain_errors(s.lower().rstrip(".")) and len(s) <= 255,
}


def _go_regexp_match(pattern: str, s: str) -> bool | None:
    if go_regexp_error(pattern) is not None:
        return None
    return re2.search(pattern, s, options=RE2_OPTIONS) is not None


def _type_ok(v: Any, typ: str) -> bool:
    k = _kind(v)
    if k == typ:
        return True
    if typ == "integer" and isinstance(v, float):
        return math.isfinite(v) and v == int(v)
    return typ == "number" and k == "integer"


def value_causes(v: Any, s: Obj, path: str, name: str = "") -> list[Cause]:
    """The errors of ``v`` against schema ``s``; ``name`` is kube-openapi's name of the
    value relative to the validated root."""
    here = f"{path}.{name}" if name else path
    out: list[Cause] = []
    typ, fmt = s.get("type") or "", s.get("format") or ""
    if v is None:
        if typ and not s.get("nullable"):
            out.append(_type_invalid(here, None, f"{name or '.'} in body must be of type {typ}"))
        out += _enum(v, s, here)
        return out
    k = _kind(v)
    if typ and not (fmt and k in ("string", "array") and typ not in ("number", "integer")) and not _type_ok(v, typ):
        out.append(_type_invalid(here, v, f"{name or '.'} in body must be of type {typ}: \"{k}\""))
    out += _junctors(v, s, path, name, here)
    if k == "string":
        out += _string(v, s, here, fmt)
    elif k in ("integer", "number"):
        out += _range(v, typ, fmt, path) + _number(float(v), s, here, v)
    elif k == "array":
        out += _array(v, s, path, name, here)
    out += _enum(v, s, here)
    if k == "object":
        out += _object(v, s, path, name, here)
    return out


def _string(v: str, s: Obj, here: str, fmt: str) -> list[Cause]:
    out: list[Cause] = []
    n = len(v)
    if isinstance(s.get("maxLength"), int) and n > s["maxLength"]:
        out.append(fe.too_long(here, s["maxLength"], "characters"))
    if isinstance(s.get("minLength"), int) and n < s["minLength"]:
        out.append(fe.invalid(here, v, f"should be at least {s['minLength']} chars long"))
    pattern = s.get("pattern")
    if isinstance(pattern, str) and pattern and _go_regexp_match(pattern, v) is False:
        out.append(fe.invalid(here, v, f"should match '{pattern}'"))
    check = _FORMATS.get(fmt)
    if check is not None and not check(v):
        out.append(_type_invalid(here, v, f"must be of type {fmt}"))
    return out


_INT_RANGES: Final = {"int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _range(v: float, typ: str, fmt: str, path: str) -> list[Cause]:
    """``IsValueValidAgainstRange``: an integer schema's value must convert to its format's
    Go integer type. Its error is a plain error: an Invalid at the validated root."""
    if typ != "integer":
        return []
    if isinstance(v, float) and not (math.isfinite(v) and v == int(v)):
        ok = False
    else:
        lo, hi = _INT_RANGES.get(fmt, (-(2**63), 2**63 - 1))
        ok = lo <= int(v) <= hi
    return [] if ok else [fe.invalid(path, "", f"Checked value must be of type integer with format {fmt or 'default'}")]


def _number(x: float, s: Obj, here: str, shown: Any = None) -> list[Cause]:
    """``shown``: the value as sent (kube-openapi reports it, not its float)."""
    out: list[Cause] = []
    shown = x if shown is None else shown
    m = s.get("multipleOf")
    if isinstance(m, int | float) and not isinstance(m, bool) and m > 0:
        q = x / m
        if not math.isfinite(q) or q != math.floor(q):
            out.append(fe.invalid(here, shown, f"should be a multiple of {m}"))
    lo, hi = s.get("minimum"), s.get("maximum")
    if isinstance(lo, int | float) and not isinstance(lo, bool):
        if x < lo or (s.get("exclusiveMinimum") and x == lo):
            out.append(fe.invalid(here, shown, f"should be greater than or equal to {lo}"))
    if isinstance(hi, int | float) and not isinstance(hi, bool):
        if x > hi or (s.get("exclusiveMaximum") and x == hi):
            out.append(fe.invalid(here, shown, f"should be less than or equal to {hi}"))
    return out


def _array(v: list[Any], s: Obj, path: str, name: str, here: str) -> list[Cause]:
    out: list[Cause] = []
    items = items_schema(s)
    if items is not None:
        for i, x in enumerate(v):
            out += value_causes(x, items, path, f"{name}[{i}]")
    if isinstance(s.get("minItems"), int) and len(v) < s["minItems"]:
        out.append(fe.invalid(here, len(v), f"should have at least {s['minItems']} items"))
    if isinstance(s.get("maxItems"), int) and len(v) > s["maxItems"]:
        out.append(fe.too_many(here, len(v), s["maxItems"]))
    return out


def _enum(v: Any, s: Obj, here: str) -> list[Cause]:
    enum = as_list(s.get("enum"))
    if not enum or any(_kind(e) == _kind(v) and e == v for e in enum) or any(
        isinstance(e, int | float) and isinstance(v, int | float) and not isinstance(v, bool) and e == v for e in enum
    ):
        return []
    shown = [e if isinstance(e, str) else str(e) for e in enum]
    return [fe.not_supported(here, v, shown)]


def _object(v: Obj, s: Obj, path: str, name: str, here: str) -> list[Cause]:
    out: list[Cause] = []
    n = len(v)
    if isinstance(s.get("minProperties"), int) and n < s["minProperties"]:
        out.append(fe.invalid(here, n, f"should have at least {s['minProperties']} properties"))
    if isinstance(s.get("maxProperties"), int) and n > s["maxProperties"]:
        out.append(fe.too_many(here, n, s["maxProperties"]))
    props = as_dict(s.get("properties"))
    ap = s.get("additionalProperties")
    for key in sorted(v):
        if ap is False and key not in props:
            out.append(fe.invalid(here, key, f"{name or '.'} in body is a forbidden property"))
        elif isinstance(ap, dict) and key not in props:
            out += value_causes(v[key], ap, path, f"{name}.{key}" if name else key)
    for key in sorted(props):
        if key in v:
            out += value_causes(v[key], as_dict(props[key]), path, f"{name}.{key}" if name else key)
    for key in as_list(s.get("required")):
        if key not in v:
            out.append(fe.required(f"{path}.{name}.{key}" if name else f"{path}.{key}"))
    return out


def _junctors(v: Any, s: Obj, path: str, name: str, here: str) -> list[Cause]:
    out: list[Cause] = []
    any_of = [as_dict(c) for c in as_list(s.get("anyOf"))]
    if any_of:
        fails = [value_causes(v, c, path, name) for c in any_of]
        if all(fails):
            out.append(fe.invalid(here, "", f"{name or '.'} in body must validate at least one schema (anyOf)"))
            out += fails[0]
    one_of = [as_dict(c) for c in as_list(s.get("oneOf"))]
    if one_of:
        fails = [value_causes(v, c, path, name) for c in one_of]
        if sum(1 for f in fails if not f) != 1:
            out.append(fe.invalid(here, "", f"{name or '.'} in body must validate one and only one schema (oneOf)"))
            out += next((f for f in fails if f), [])
    all_of = [as_dict(c) for c in as_list(s.get("allOf"))]
    if all_of:
        fails = [value_causes(v, c, path, name) for c in all_of]
        for f in fails:
            out += f
        if any(fails):
            out.append(fe.invalid(here, "", f"{name or '.'} in body must validate all the schemas (allOf)"))
    if isinstance(s.get("not"), dict) and not value_causes(v, s["not"], path, name):
        out.append(fe.invalid(here, "", f"{name or '.'} in body must not validate the schema (not)"))
    return out

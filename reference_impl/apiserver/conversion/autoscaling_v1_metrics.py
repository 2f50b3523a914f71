"""The autoscaling/v1 MetricSpec and MetricStatus shapes, to and from v2.

autoscaling/v1 serves no metric fields; these Go types exist only to encode the
``autoscaling.alpha.kubernetes.io/metrics`` and ``current-metrics`` annotations
(``pkg/apis/autoscaling/v1/conversion.go``). Each v1 source is a flat struct whose fields
map to paths in the nested v2 source, so one table per direction of the API (spec,
status) drives both conversions. Rows keep Go's field order, so the annotations marshal
byte-for-byte like a live apiserver's.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["go_fields", "spec_to_v1", "spec_to_v2", "status_to_v1", "status_to_v2"]

Obj = dict[str, Any]
_ZERO: Final = re.compile(r"^[+-]?0*\.?0*[a-zA-Z]*$")

# (v1 field, path in the v2 source, v1's zero value): None for an omitempty pointer, ""
# or "0" where Go marshals a plain string or Quantity even when unset.
_Row = tuple[str, tuple[str, ...], object]
_REF: Final = ("describedObject",)  # v1 calls this CrossVersionObjectReference "target"
_NAME: Final[_Row] = ("metricName", ("metric", "name"), "")
_SELECTOR: Final[_Row] = ("selector", ("metric", "selector"), None)
_CONTAINER: Final[_Row] = ("container", ("container",), "")


def _resource_rows(phase: str, zero_average: object) -> tuple[_Row, ...]:
    v1 = "target" if phase == "target" else "current"
    return (
        ("name", ("name",), ""),
        (f"{v1}AverageUtilization", (phase, "averageUtilization"), None),
        (f"{v1}AverageValue", (phase, "averageValue"), zero_average),
    )


_SPEC: Final[dict[str, tuple[_Row, ...]]] = {
    "Resource": _resource_rows("target", None),
    "ContainerResource": (*_resource_rows("target", None), _CONTAINER),
    "Pods": (_NAME, ("targetAverageValue", ("target", "averageValue"), "0"), _SELECTOR),
    "Object": (
        ("target", _REF, None),
        _NAME,
        ("targetValue", ("target", "value"), "0"),
        _SELECTOR,
        ("averageValue", ("target", "averageValue"), None),
    ),
    "External": (
        _NAME,
        ("metricSelector", ("metric", "selector"), None),
        ("targetValue", ("target", "value"), None),
        ("targetAverageValue", ("target", "averageValue"), None),
    ),
}
_STATUS: Final[dict[str, tuple[_Row, ...]]] = {
    "Resource": _resource_rows("current", "0"),
    "ContainerResource": (*_resource_rows("current", "0"), _CONTAINER),
    "Pods": (_NAME, ("currentAverageValue", ("current", "averageValue"), "0"), _SELECTOR),
    "Object": (
        ("target", _REF, None),
        _NAME,
        ("currentValue", ("current", "value"), "0"),
        _SELECTOR,
        ("averageValue", ("current", "averageValue"), None),
    ),
    "External": (
        _NAME,
        ("metricSelector", ("metric", "selector"), None),
        ("currentValue", ("current", "value"), "0"),
        ("currentAverageValue", ("current", "averageValue"), None),
    ),
}


def go_fields(d: Obj) -> Obj:
    """Drop None values (omitempty) but keep the insertion (Go struct) order."""
    return {k: v for k, v in d.items() if v is not None}


def _is_zero(q: object) -> bool:
    return q is None or (isinstance(q, int | float) and q == 0) or bool(_ZERO.match(str(q)))


def _member(kind: object) -> str:
    """The union member that holds a source of this type ("Pods" -> "pods")."""
    return str(kind)[:1].lower() + str(kind)[1:]


def _ref(value: object) -> Obj:
    ref = value if isinstance(value, dict) else {}
    return go_fields(
        {
            "kind": ref.get("kind", ""),
            "name": ref.get("name", ""),
            "apiVersion": ref.get("apiVersion"),
        }
    )


def _dig(src: Obj, path: tuple[str, ...]) -> object:
    value: object = src
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _source(m: Obj, table: dict[str, tuple[_Row, ...]]) -> tuple[tuple[_Row, ...], Obj] | None:
    rows, src = table.get(str(m.get("type"))), m.get(_member(m.get("type")))
    return (rows, src) if rows is not None and isinstance(src, dict) else None


def _to_v1(m: Obj, table: dict[str, tuple[_Row, ...]]) -> Obj:
    kind, found = m.get("type"), _source(m, table)
    if found is None:
        return {"type": kind}
    rows, src = found
    out: Obj = {}
    for key, path, zero in rows:
        value = _ref(src.get(path[0])) if path is _REF else _dig(src, path)
        out[key] = zero if value is None else value
    return {"type": kind, _member(kind): go_fields(out)}


def _to_v2(m: Obj, table: dict[str, tuple[_Row, ...]]) -> Obj:
    kind, found = m.get("type"), _source(m, table)
    if found is None:
        return {"type": kind}
    rows, src = found
    out: Obj = {}
    for key, path, zero in rows:
        value = src.get(key)
        value = _ref(value) if path is _REF else zero if value is None else value
        if value is None:
            continue
        parent = out
        for step in path[:-1]:
            parent = parent.setdefault(step, {})
        parent[path[-1]] = value
    if table is _SPEC:
        out["target"] = _typed_target(str(kind), out.get("target") or {})
    return {"type": kind, _member(kind): out}


def _typed_target(kind: str, target: Obj) -> Obj:
    """The v2 MetricTarget's type, which v1 implies by which fields are set."""
    value, average = target.get("value"), target.get("averageValue")
    if kind == "Object" and average is not None and _is_zero(value):
        value = None  # v1 cannot omit targetValue; a zero one is not kept
    if kind in ("Resource", "ContainerResource"):
        kind_of = "AverageValue" if target.get("averageUtilization") is None else "Utilization"
    elif kind == "Object":
        kind_of = "Value" if average is None else "AverageValue"
    elif kind == "External":
        kind_of = "AverageValue" if value is None else "Value"
    else:
        kind_of = "AverageValue"
    rest = {k: v for k, v in target.items() if k != "value"}
    return go_fields({"type": kind_of, "value": value, **rest})


def spec_to_v1(m: Obj) -> Obj:
    """A v2 MetricSpec in the v1 shape of the ``metrics`` annotation."""
    return _to_v1(m, _SPEC)


def spec_to_v2(m: Obj) -> Obj:
    """A v1 MetricSpec from the ``metrics`` annotation in the v2 shape."""
    return _to_v2(m, _SPEC)


def status_to_v1(m: Obj) -> Obj:
    """A v2 MetricStatus in the v1 shape of the ``current-metrics`` annotation."""
    return _to_v1(m, _STATUS)


def status_to_v2(m: Obj) -> Obj:
    """A v1 MetricStatus from the ``current-metrics`` annotation in the v2 shape."""
    return _to_v2(m, _STATUS)

"""The autoscaling/v1 MetricSpec and MetricStatus shapes, to and from v2.

autoscaling/v1 serves no metric fields; these Go types exist only to encode the
``autoscaling.alpha.kubernetes.io/metrics`` and ``current-metrics`` annotations
(``pkg/apis/autoscaling/v1/conversion.go``). Dicts keep Go's field order, so the
annotations marshal byte-for-byte like a live apiserver's.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["go_fields", "spec_to_v1", "spec_to_v2", "status_to_v1", "status_to_v2"]

Obj = dict[str, Any]
_ZERO: Final = re.compile(r"^[+-]?0*\.?0*[a-zA-Z]*$")


def go_fields(d: Obj) -> Obj:
    """Drop None values (omitempty) but keep the insertion (Go struct) order."""
    return {k: v for k, v in d.items() if v is not None}


def _is_zero(q: object) -> bool:
    return q is None or (isinstance(q, int | float) and q == 0) or bool(_ZERO.match(str(q)))


def _sub(src: Obj, key: str) -> Obj:
    value = src.get(key)
    return value if isinstance(value, dict) else {}


# -- metric specs ----------------------------------------------------------------------


def spec_to_v1(m: Obj) -> Obj:
    kind = m.get("type")
    if kind == "Resource" and isinstance(m.get("resource"), dict):
        r = m["resource"]
        v1: Obj = go_fields(
            {
                "name": r.get("name"),
                "targetAverageUtilization": _sub(r, "target").get("averageUtilization"),
                "targetAverageValue": _sub(r, "target").get("averageValue"),
            }
        )
        return {"type": kind, "resource": v1}
    if kind == "ContainerResource" and isinstance(m.get("containerResource"), dict):
        r = m["containerResource"]
        v1 = go_fields(
            {
                "name": r.get("name"),
                "targetAverageUtilization": _sub(r, "target").get("averageUtilization"),
                "targetAverageValue": _sub(r, "target").get("averageValue"),
                "container": r.get("container", ""),
            }
        )
        return {"type": kind, "containerResource": v1}
    if kind == "Pods" and isinstance(m.get("pods"), dict):
        p = m["pods"]
        v1 = go_fields(
            {
                "metricName": _sub(p, "metric").get("name", ""),
                "targetAverageValue": _sub(p, "target").get("averageValue", "0"),
                "selector": _sub(p, "metric").get("selector"),
            }
        )
        return {"type": kind, "pods": v1}
    if kind == "Object" and isinstance(m.get("object"), dict):
        o = m["object"]
        ref = o.get("describedObject") or {}
        v1 = go_fields(
            {
                "target": go_fields(
                    {
                        "kind": ref.get("kind", ""),
                        "name": ref.get("name", ""),
                        "apiVersion": ref.get("apiVersion"),
                    }
                ),
                "metricName": _sub(o, "metric").get("name", ""),
                "targetValue": _sub(o, "target").get("value", "0"),
                "selector": _sub(o, "metric").get("selector"),
                "averageValue": _sub(o, "target").get("averageValue"),
            }
        )
        return {"type": kind, "object": v1}
    if kind == "External" and isinstance(m.get("external"), dict):
        e = m["external"]
        v1 = go_fields(
            {
                "metricName": _sub(e, "metric").get("name", ""),
                "metricSelector": _sub(e, "metric").get("selector"),
                "targetValue": _sub(e, "target").get("value"),
                "targetAverageValue": _sub(e, "target").get("averageValue"),
            }
        )
        return {"type": kind, "external": v1}
    return {"type": kind}


def spec_to_v2(m: Obj) -> Obj:
    kind = m.get("type")
    for field in ("resource", "containerResource"):
        if kind == field[0].upper() + field[1:] and isinstance(m.get(field), dict):
            r = m[field]
            util, avg = r.get("targetAverageUtilization"), r.get("targetAverageValue")
            target = go_fields(
                {
                    "type": "AverageValue" if util is None else "Utilization",
                    "averageValue": avg,
                    "averageUtilization": util,
                }
            )
            out = go_fields(
                {"name": r.get("name"), "target": target, "container": r.get("container")}
            )
            return {"type": kind, field: out}
    if kind == "Pods" and isinstance(m.get("pods"), dict):
        p = m["pods"]
        metric = go_fields({"name": p.get("metricName", ""), "selector": p.get("selector")})
        target = {"type": "AverageValue", "averageValue": p.get("targetAverageValue", "0")}
        return {"type": kind, "pods": {"metric": metric, "target": target}}
    if kind == "Object" and isinstance(m.get("object"), dict):
        o = m["object"]
        avg, value = o.get("averageValue"), o.get("targetValue", "0")
        if avg is not None and _is_zero(value):
            value = None  # v1 cannot omit targetValue; a zero one is not kept
        target = go_fields(
            {
                "type": "Value" if avg is None else "AverageValue",
                "value": value,
                "averageValue": avg,
            }
        )
        ref = o.get("target") or {}
        described = go_fields(
            {
                "kind": ref.get("kind", ""),
                "name": ref.get("name", ""),
                "apiVersion": ref.get("apiVersion"),
            }
        )
        metric = go_fields({"name": o.get("metricName", ""), "selector": o.get("selector")})
        return {
            "type": kind,
            "object": {"describedObject": described, "metric": metric, "target": target},
        }
    if kind == "External" and isinstance(m.get("external"), dict):
        e = m["external"]
        value = e.get("targetValue")
        target = go_fields(
            {
                "type": "AverageValue" if value is None else "Value",
                "value": value,
                "averageValue": e.get("targetAverageValue"),
            }
        )
        metric = go_fields({"name": e.get("metricName", ""), "selector": e.get("metricSelector")})
        return {"type": kind, "external": {"metric": metric, "target": target}}
    return {"type": kind}


# -- metric statuses -------------------------------------------------------------------


def status_to_v1(m: Obj) -> Obj:
    kind = m.get("type")
    for field in ("resource", "containerResource"):
        if kind == field[0].upper() + field[1:] and isinstance(m.get(field), dict):
            r = m[field]
            v1 = go_fields(
                {
                    "name": r.get("name"),
                    "currentAverageUtilization": _sub(r, "current").get("averageUtilization"),
                    "currentAverageValue": _sub(r, "current").get("averageValue", "0"),
                    "container": r.get("container"),
                }
            )
            return {"type": kind, field: v1}
    if kind == "Pods" and isinstance(m.get("pods"), dict):
        p = m["pods"]
        v1 = go_fields(
            {
                "metricName": _sub(p, "metric").get("name", ""),
                "currentAverageValue": _sub(p, "current").get("averageValue", "0"),
                "selector": _sub(p, "metric").get("selector"),
            }
        )
        return {"type": kind, "pods": v1}
    if kind == "Object" and isinstance(m.get("object"), dict):
        o = m["object"]
        ref = o.get("describedObject") or {}
        v1 = go_fields(
            {
                "target": go_fields(
                    {
                        "kind": ref.get("kind", ""),
                        "name": ref.get("name", ""),
                        "apiVersion": ref.get("apiVersion"),
                    }
                ),
                "metricName": _sub(o, "metric").get("name", ""),
                "currentValue": _sub(o, "current").get("value", "0"),
                "selector": _sub(o, "metric").get("selector"),
                "averageValue": _sub(o, "current").get("averageValue"),
            }
        )
        return {"type": kind, "object": v1}
    if kind == "External" and isinstance(m.get("external"), dict):
        e = m["external"]
        v1 = go_fields(
            {
                "metricName": _sub(e, "metric").get("name", ""),
                "metricSelector": _sub(e, "metric").get("selector"),
                "currentValue": _sub(e, "current").get("value", "0"),
                "currentAverageValue": _sub(e, "current").get("averageValue"),
            }
        )
        return {"type": kind, "external": v1}
    return {"type": kind}


def status_to_v2(m: Obj) -> Obj:
    kind = m.get("type")
    for field in ("resource", "containerResource"):
        if kind == field[0].upper() + field[1:] and isinstance(m.get(field), dict):
            r = m[field]
            current = go_fields(
                {
                    "averageValue": r.get("currentAverageValue", "0"),
                    "averageUtilization": r.get("currentAverageUtilization"),
                }
            )
            return {
                "type": kind,
                field: go_fields(
                    {"name": r.get("name"), "current": current, "container": r.get("container")}
                ),
            }
    if kind == "Pods" and isinstance(m.get("pods"), dict):
        p = m["pods"]
        metric = go_fields({"name": p.get("metricName", ""), "selector": p.get("selector")})
        return {
            "type": kind,
            "pods": {
                "metric": metric,
                "current": {"averageValue": p.get("currentAverageValue", "0")},
            },
        }
    if kind == "Object" and isinstance(m.get("object"), dict):
        o = m["object"]
        ref = o.get("target") or {}
        described = go_fields(
            {
                "kind": ref.get("kind", ""),
                "name": ref.get("name", ""),
                "apiVersion": ref.get("apiVersion"),
            }
        )
        metric = go_fields({"name": o.get("metricName", ""), "selector": o.get("selector")})
        current = go_fields(
            {"value": o.get("currentValue", "0"), "averageValue": o.get("averageValue")}
        )
        return {
            "type": kind,
            "object": {"metric": metric, "current": current, "describedObject": described},
        }
    if kind == "External" and isinstance(m.get("external"), dict):
        e = m["external"]
        metric = go_fields({"name": e.get("metricName", ""), "selector": e.get("metricSelector")})
        current = go_fields(
            {"value": e.get("currentValue", "0"), "averageValue": e.get("currentAverageValue")}
        )
        return {"type": kind, "external": {"metric": metric, "current": current}}
    return {"type": kind}

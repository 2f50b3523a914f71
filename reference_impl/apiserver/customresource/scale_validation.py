"""The scale checks of a custom resource with a scale subresource, after
apiextensions-apiserver ``pkg/registry/customresource/validator.go``
(``ValidateScaleSpec``, ``ValidateScaleStatus``).

Each path is read as ``unstructured.NestedInt64`` / ``NestedString`` read it: a missing
value is the zero value and no error; a value of another type (a float, a string), or a
non-map on the way, is an accessor error, reported as ``field.Invalid`` at the path with
the zero value.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.customresource.cel_library import go_float
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["AccessorError", "nested", "validate_scale_spec", "validate_scale_status"]

Obj = dict[str, Any]
_INT32_MAX: Final = 2**31 - 1


class AccessorError(Exception):
    """The error ``unstructured.Nested*`` returns."""


def _go_type(v: Any) -> str:
    """``%T`` of a decoded JSON value."""
    if isinstance(v, bool):
        return "bool"
    return {int: "int64", float: "float64", str: "string", list: "[]interface {}",
            dict: "map[string]interface {}"}.get(type(v), "<nil>")  # fmt: skip


def _go_value(v: Any) -> str:
    """``%v`` of a decoded JSON value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{_go_value(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(_go_value(x) for x in v) + "]"
    return "<nil>" if v is None else str(v)


def nested(obj: Obj, path: str, want: str) -> tuple[Any, bool]:
    """``NestedInt64`` (``want`` "int64") or ``NestedString`` (``want`` "string") of
    ``path`` with its leading dot dropped: (value, found); AccessorError on a mistyped
    value or a non-map on the way (``NestedFieldNoCopy``)."""
    fields = path.removeprefix(".").split(".")
    v: Any = obj
    for i, f in enumerate(fields):
        if v is None:  # a null on the way: not found; a null at the end is mistyped
            return None, False
        if not isinstance(v, dict):
            where = "." + ".".join(fields[: i + 1])
            raise AccessorError(f"{where} accessor error: {_go_value(v)} is of the type "
                                f"{_go_type(v)}, expected map[string]interface{{}}")  # fmt: skip
        if f not in v:
            return None, False
        v = v[f]
    ok = isinstance(v, str) if want == "string" else isinstance(v, int) and not isinstance(v, bool)
    if not ok:
        raise AccessorError(f"{'.' + '.'.join(fields)} accessor error: {_go_value(v)} is of "
                            f"the type {_go_type(v)}, expected {want}")  # fmt: skip
    return v, True


def _replicas(obj: Obj, path: str) -> list[Cause]:
    try:
        v, _ = nested(obj, path, "int64")
    except AccessorError as e:
        return [fe.invalid(path, 0, str(e))]
    v = v or 0
    if v < 0:
        return [fe.invalid(path, v, "should be a non-negative integer")]
    if v > _INT32_MAX:
        return [fe.invalid(path, v, f"should be less than or equal to {_INT32_MAX}")]
    return []


def validate_scale_spec(obj: Obj, scale: Obj | None) -> list[Cause]:
    """``ValidateScaleSpec``: the replicas at specReplicasPath."""
    if not scale:
        return []
    return _replicas(obj, str(scale.get("specReplicasPath", "")))


def validate_scale_status(obj: Obj, scale: Obj | None) -> list[Cause]:
    """``ValidateScaleStatus``: the replicas at statusReplicasPath, and the selector
    string at labelSelectorPath when the CRD names one."""
    if not scale:
        return []
    causes = _replicas(obj, str(scale.get("statusReplicasPath", "")))
    sel = scale.get("labelSelectorPath")
    if sel is not None:
        try:
            nested(obj, str(sel), "string")
        except AccessorError as e:
            causes.append(fe.invalid(str(sel), "", str(e)))
    return causes

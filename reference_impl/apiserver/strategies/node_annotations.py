"""``ValidateNodeSpecificAnnotations`` (core validation 1.37.2): the taints annotation
(``ValidateTaintsInNodeAnnotations``) and the preferAvoidPods annotation
(``ValidateAvoidPodsInNodeAnnotations``) must decode, as Go's ``json.Unmarshal`` would,
into their types, and then hold valid taints and controller-backed pod signatures."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["TAINTS_KEY", "AVOID_PODS_KEY", "annotation_causes"]

Obj = dict[str, Any]
TAINTS_KEY: Final = "scheduler.alpha.kubernetes.io/taints"
AVOID_PODS_KEY: Final = "scheduler.alpha.kubernetes.io/preferAvoidPods"
_PATH: Final = "metadata.annotations"
_TIME: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\Z")
_TIME_T: Final = "time"  # a metav1.Time: null, or an RFC 3339 string

# A Go type as json.Unmarshal sees it: a struct (dict of fields), a slice ([elem]),
# str, bool, or a metav1.Time.
Schema = dict[str, Any] | list[Any] | type | str
_TAINT: Final[Schema] = {"key": str, "value": str, "effect": str, "timeAdded": _TIME_T}
_OWNER: Final[Schema] = {"apiVersion": str, "kind": str, "name": str, "uid": str,
                         "controller": bool, "blockOwnerDeletion": bool}  # fmt: skip
_AVOID: Final[Schema] = {"preferAvoidPods": [{
    "podSignature": {"podController": _OWNER}, "evictionTime": _TIME_T,
    "reason": str, "message": str}]}  # fmt: skip


class _DecodeError(ValueError):
    """What json.Unmarshal reports: bad syntax or a value of the wrong type."""


def _struct(value: Any, schema: dict[str, Any]) -> Obj:
    if not isinstance(value, dict):
        raise _DecodeError(f"json: cannot unmarshal {type(value).__name__} into a struct")
    fields = {k.lower(): k for k in schema}  # Go matches field names case-insensitively
    out: Obj = {}
    for k, v in value.items():
        name = k if k in schema else fields.get(k.lower())
        if name is not None:
            out[name] = _decode(v, schema[name])
    return out


def _decode(value: Any, schema: Schema) -> Any:
    """``value`` decoded into ``schema``; null leaves the zero value (None)."""
    if value is None:
        return None
    if isinstance(schema, dict):
        return _struct(value, schema)
    if isinstance(schema, list):
        if not isinstance(value, list):
            raise _DecodeError("json: cannot unmarshal into a slice")
        return [_decode(v, schema[0]) for v in value]
    if schema == _TIME_T:
        if not isinstance(value, str) or not _TIME.match(value):
            raise _DecodeError(f"parsing time {json.dumps(value)} as RFC 3339 failed")
        return value
    if not isinstance(value, schema) or (schema is not bool and isinstance(value, bool)):  # type: ignore[arg-type]
        raise _DecodeError(f"json: cannot unmarshal {type(value).__name__} into Go value")
    return value


def _unmarshal(text: str, schema: Schema) -> Any:
    try:
        return _decode(json.loads(text), schema)
    except json.JSONDecodeError as e:
        raise _DecodeError(str(e)) from e


def _taints_causes(text: str, taints_of: Callable[[list[Obj], str], list[Cause]]) -> list[Cause]:
    try:
        taints = _unmarshal(text, [_TAINT]) or []
    except _DecodeError as e:
        return [fe.invalid(_PATH, TAINTS_KEY, str(e))]
    plain = [{k: v or "" for k, v in (t or {}).items()} for t in taints]
    return taints_of(plain, f"{_PATH}.{TAINTS_KEY}") if plain else []


def _avoid_pods_causes(text: str) -> list[Cause]:
    try:
        avoid = _unmarshal(text, _AVOID) or {}
    except _DecodeError as e:
        return [fe.invalid(f"{_PATH}.AvoidPods", AVOID_PODS_KEY, str(e))]
    causes: list[Cause] = []
    for i, entry in enumerate(avoid.get("preferAvoidPods") or []):
        sig = f"{_PATH}.{AVOID_PODS_KEY}[{i}].PodSignature"
        owner = ((entry or {}).get("podSignature") or {}).get("podController")
        if owner is None:
            causes.append(fe.required(sig))
        # A podController without "controller" dereferences nil upstream; not modelled.
        elif owner.get("controller") is False:
            causes.append(fe.invalid(f"{sig}.PodController.Controller", False, "must point to a controller"))
    return causes


def annotation_causes(
    node: Obj, taints_of: Callable[[list[Obj], str], list[Cause]]
) -> list[Cause]:
    """Both annotations, each when set and not empty; ``taints_of`` is validateNodeTaints."""
    annotations = (node.get("metadata") or {}).get("annotations") or {}
    causes: list[Cause] = []
    if annotations.get(TAINTS_KEY):
        causes += _taints_causes(str(annotations[TAINTS_KEY]), taints_of)
    if annotations.get(AVOID_PODS_KEY):
        causes += _avoid_pods_causes(str(annotations[AVOID_PODS_KEY]))
    return causes

"""Defaulting and validation for core/v1 Nodes (``pkg/apis/core/validation`` ValidateNode):
taints, capacity and allocatable quantities, declared features; SetDefaults_NodeStatus."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import label_key_errors, label_value_errors, parse_quantity
from reference_impl.api.quantity import milli_value, quantity_string
from reference_impl.api.resource_names import is_integer_resource_name
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.core import TAINT_EFFECTS
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["resource_quantity_causes"]

Obj = dict[str, Any]
_DECLARED_FEATURE: Final = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*\Z")


def taint_causes(taints: list[Obj], path: str) -> list[Cause]:
    """Node taint rules: a qualified key, a known effect, no duplicate key+effect."""
    causes: list[Cause] = []
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(taints):
        p = f"{path}[{i}]"
        causes += [
            Cause(f"{p}.key", "FieldValueInvalid", e) for e in label_key_errors(t.get("key", ""))
        ]
        if t.get("value"):
            causes += [
                Cause(f"{p}.value", "FieldValueInvalid", e) for e in label_value_errors(t["value"])
            ]
        effect = t.get("effect")
        if not effect:
            causes.append(Cause(f"{p}.effect", "FieldValueRequired", "Required value"))
        elif effect not in TAINT_EFFECTS:
            causes.append(
                Cause(
                    f"{p}.effect",
                    "FieldValueNotSupported",
                    f'Unsupported value: "{effect}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
                )
            )
        pair = (t.get("key", ""), str(effect))
        if pair in seen:
            causes.append(
                Cause(
                    p,
                    "FieldValueDuplicate",
                    f"taints must be unique by key and effect pair: {pair}",
                )
            )
        seen.add(pair)
    return causes


@validator("Node")
def validate_node(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Taints and capacity quantities."""
    # Upstream reports node taint errors under "metadata.taints" (validateNodeTaints is
    # called with that path), and clients match on it, so the reference does too.
    spec = node.get("spec") or {}
    causes = taint_causes(spec.get("taints") or [], "metadata.taints")
    for field in ("capacity", "allocatable"):
        for name, v in sorted(((node.get("status") or {}).get(field) or {}).items()):
            causes += resource_quantity_causes(str(name), v, f"status.{field}.{name}")
    # validateNodeSwapStatus, called with the path "metadata.nodeSwapStatus" upstream.
    swap = (((node.get("status") or {}).get("nodeInfo") or {}).get("swap") or {}).get("capacity")
    if isinstance(swap, int) and swap < 0:
        causes.append(fe.invalid("metadata.nodeSwapStatus.capacity", swap, "must be greater than or equal to 0"))
    features = (node.get("status") or {}).get("declaredFeatures")
    if isinstance(features, list):
        causes += declared_feature_causes(["" if f is None else str(f) for f in features])
    return causes


def declared_feature_causes(features: list[str]) -> list[Cause]:
    """``validateNodeDeclaredFeatures``: UpperCamelCase names with "/"-separated segments,
    at most 253 characters, sorted and without duplicates."""
    path, causes = "status.declaredFeatures", []
    for i, feat in enumerate(features):
        if len(feat) > 253:
            causes.append(fe.invalid(f"{path}[{i}]", feat,
                                     f"invalid feature name {feat!r}: must be no more than 253 characters"))  # fmt: skip
        elif not _DECLARED_FEATURE.match(feat):
            causes.append(fe.invalid(f"{path}[{i}]", feat, (
                f"invalid feature name {feat!r}: must start with an UpperCamelCase segment, "
                "with subsequent segments separated by '/' (e.g., MyFeature or "
                "MyFeature/mySubFeature), and contain only alphanumeric characters and slashes")))
        if i + 1 < len(features):
            nxt = features[i + 1]
            if feat == nxt:
                causes.append(fe.duplicate(f"{path}[{i + 1}]", nxt))
            elif feat > nxt:
                causes.append(fe.invalid(f"{path}[{i + 1}]", nxt, "list must be sorted alphabetically"))
    return causes


def resource_quantity_causes(name: str, value: Any, path: str) -> list[Cause]:
    """``ValidateResourceQuantityValue``: not negative, and whole for an integer resource
    (pods and the other object counts, extended resources)."""
    try:
        canonical, milli = quantity_string(value), milli_value(value)
    except ValueError as e:
        return [Cause(path, "FieldValueInvalid", str(e))]
    causes: list[Cause] = []
    if parse_quantity(value) < 0:
        causes.append(fe.invalid(path, canonical, "must be greater than or equal to 0"))
    if is_integer_resource_name(name) and milli % 1000:
        causes.append(fe.invalid(path, canonical, "must be an integer"))
    return causes


@defaulter("Node")
def default_node(node: Obj, ctx: Context) -> None:
    """SetDefaults_NodeStatus: a node that states capacity but no allocatable can
    allocate all of its capacity."""
    status = node.get("status")
    if isinstance(status, dict) and isinstance(status.get("capacity"), dict):
        if status.get("allocatable") is None:
            status["allocatable"] = dict(status["capacity"])

"""Defaulting and validation for core/v1 Nodes (``pkg/apis/core/validation`` ValidateNode):
taints, capacity and allocatable quantities, declared features; SetDefaults_NodeStatus."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import label_key_errors, label_value_errors, parse_quantity
from reference_impl.api.quantity import milli_value, quantity_string
from reference_impl.api.resource_names import is_integer_resource_name
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.core import TAINT_EFFECTS
from reference_impl.apiserver.strategies.node_annotations import annotation_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["node_update_causes", "resource_quantity_causes"]

Obj = dict[str, Any]
_DECLARED_FEATURE: Final = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*\Z")


def taint_causes(taints: list[Obj], path: str) -> list[Cause]:
    """Node taint rules: a qualified key, a known effect, no duplicate key+effect."""
    causes: list[Cause] = []
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(taints):
        p = f"{path}[{i}]"
        key = str(t.get("key") or "")
        causes += [fe.invalid(f"{p}.key", key, e) for e in label_key_errors(key)]
        value_errors = label_value_errors(str(t.get("value") or ""))
        if value_errors:  # one error, the messages joined, as upstream
            causes.append(fe.invalid(f"{p}.value", t.get("value"), ";".join(value_errors)))
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
        pair = (key, str(effect or ""))
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


def _resources_causes(node: Obj) -> list[Cause]:
    """``ValidateNodeResources``: capacity and allocatable quantities."""
    causes: list[Cause] = []
    for field in ("capacity", "allocatable"):
        for name, v in sorted(((node.get("status") or {}).get(field) or {}).items()):
            causes += resource_quantity_causes(str(name), v, f"status.{field}.{name}")
    return causes


def _features_causes(node: Obj) -> list[Cause]:
    features = (node.get("status") or {}).get("declaredFeatures")
    if not isinstance(features, list):
        return []
    return declared_feature_causes(["" if f is None else str(f) for f in features])


def _common_causes(node: Obj) -> list[Cause]:
    """What ValidateNode and ValidateNodeUpdate both check: annotations, taints (under
    "metadata.taints", the path upstream passes), resources, declared features."""
    causes = annotation_causes(node, taint_causes)
    causes += taint_causes((node.get("spec") or {}).get("taints") or [], "metadata.taints")
    return causes + _resources_causes(node) + _features_causes(node)


def _swap_causes(node: Obj) -> list[Cause]:
    """``validateNodeSwapStatus`` (ValidatePositiveField), at "metadata.nodeSwapStatus"."""
    swap = (((node.get("status") or {}).get("nodeInfo") or {}).get("swap") or {}).get("capacity")
    if isinstance(swap, int) and swap <= 0:
        return [fe.invalid("metadata.nodeSwapStatus.capacity", swap, "must be greater than zero")]
    return []


def _addresses_causes(node: Obj) -> list[Cause]:
    """No address (type and address) twice in status.addresses."""
    causes: list[Cause] = []
    seen: set[tuple[str, str]] = set()
    for i, a in enumerate((node.get("status") or {}).get("addresses") or []):
        a = a if isinstance(a, dict) else {}
        pair = (str(a.get("type") or ""), str(a.get("address") or ""))
        if pair in seen:
            causes.append(fe.duplicate(f"status.addresses[{i}]", {"type": pair[0], "address": pair[1]}))
        seen.add(pair)
    return causes


def node_update_causes(node: Obj, old: Obj) -> list[Cause]:
    """``ValidateNodeUpdate`` less the podCIDRs and providerID rules (node_cidrs)."""
    causes = _common_causes(node) + _addresses_causes(node)
    ext = (node.get("spec") or {}).get("externalID") or ""
    if ext != ((old.get("spec") or {}).get("externalID") or ""):
        causes.append(fe.forbidden("spec.externalID", "may not be updated"))
    return causes


@validator("Node")
def validate_node(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateNode`` (less podCIDRs), then on update ``ValidateNodeUpdate``."""
    causes = _common_causes(node) + _swap_causes(node)
    return causes if old is None else causes + node_update_causes(node, old)


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
        alloc = status.get("allocatable")
        # An empty map is nil once read back from protobuf storage, and defaulted then:
        # upstream after validation, so here only when the capacity validates anyway.
        if alloc is None or (alloc == {} and not _resources_causes(node)):
            status["allocatable"] = dict(status["capacity"])


@preparer("Node", status=True)
def default_node_status_write(node: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """A /status body is decoded with the scheme's defaults too (SetDefaults_NodeStatus)."""
    default_node(node, ctx)


@preparer("Node")
def drop_config_source(node: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """nodeStrategy.PrepareForCreate/Update: the removed dynamic kubelet config
    (``spec.configSource``, ``status.config``) is dropped on create, and on update
    unless the stored node already had a config source."""
    spec, status = node.get("spec"), node.get("status")
    if old is None and isinstance(status, dict):
        status.pop("config", None)
    if isinstance(spec, dict) and (old is None or (old.get("spec") or {}).get("configSource") is None):
        spec.pop("configSource", None)

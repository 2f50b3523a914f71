"""RuntimeClass (node.k8s.io; ``pkg/apis/node/validation`` of upstream v1.37.2):
``ValidateRuntimeClass`` and ``ValidateRuntimeClassUpdate``."""

from __future__ import annotations

from typing import Any

from reference_impl.api.meta import dns1123_label_errors, parse_quantity
from reference_impl.api.resource_names import is_hugepage_resource_name, is_integer_resource_name
from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.strategies.autoscaling_metrics import container_resource_name_errors
from reference_impl.apiserver.strategies.core import toleration_causes
from reference_impl.apiserver.strategies.meta import labels_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.pod_spec_rules import hugepage_value_causes
from reference_impl.errors import Cause

__all__ = ["validate_runtime_class"]

Obj = dict[str, Any]


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _quantity_causes(name: str, value: Any, path: str) -> list[Cause]:
    """``ValidateResourceQuantityValue``: non-negative, whole for integer resources."""
    try:
        q = parse_quantity(value)
    except ValueError:
        return []  # a malformed quantity never decodes
    if q < 0:
        return [fe.invalid(path, str(value), "must be greater than or equal to 0")]
    if is_integer_resource_name(name) and (q * 1000) % 1000 != 0:
        return [fe.invalid(path, str(value), "must be an integer")]
    return []


def _overhead_causes(overhead: Obj, path: str) -> list[Cause]:
    """``validateOverhead``: podFixed as a container's limits (``ValidateContainerResourceRequirements``)."""
    out: list[Cause] = []
    limits = _o(overhead.get("podFixed"))
    for name, value in limits.items():
        p = f"{path}.limits[{name}]"
        out += [fe.invalid(p, name, e) for e in container_resource_name_errors(name)]
        out += _quantity_causes(name, value, p)
        out += hugepage_value_causes(name, value, p)
    if any(map(is_hugepage_resource_name, limits)) and not {"cpu", "memory"} & limits.keys():
        out.append(fe.forbidden(path, "HugePages require cpu or memory"))
    return out


def _toleration_key(t: Obj) -> tuple[str, ...]:
    return tuple(str(t.get(k) or "") for k in ("key", "operator", "value", "effect"))


def _scheduling_causes(scheduling: Obj, path: str) -> list[Cause]:
    """``validateScheduling``: node selector labels; tolerations, unique by their list keys."""
    out: list[Cause] = []
    if isinstance(scheduling.get("nodeSelector"), dict):
        out += labels_causes(scheduling["nodeSelector"], f"{path}.nodeSelector")
    tolerations = [_o(t) for t in scheduling.get("tolerations") or []]
    out += toleration_causes(tolerations, f"{path}.tolerations")
    seen: set[tuple[str, ...]] = set()
    for i, t in enumerate(tolerations):
        if _toleration_key(t) in seen:
            out.append(fe.duplicate(f"{path}.tolerations[{i}]", t))
        seen.add(_toleration_key(t))
    return out


@validator("RuntimeClass")
def validate_runtime_class(rc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The handler (a DNS label), overhead and scheduling; on update the handler is immutable."""
    out: list[Cause] = []
    handler = rc.get("handler") or ""
    if not handler:
        out.append(fe.required("handler"))
    out += [fe.invalid("handler", handler, e) for e in (dns1123_label_errors(handler) if handler else [])]
    if rc.get("overhead") is not None:
        out += _overhead_causes(_o(rc.get("overhead")), "overhead")
    if rc.get("scheduling") is not None:
        out += _scheduling_causes(_o(rc.get("scheduling")), "scheduling")
    if old is not None and handler != (old.get("handler") or ""):
        out.append(fe.invalid("handler", handler, "field is immutable"))
    return out

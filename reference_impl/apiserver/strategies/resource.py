"""Validation strategies for resource.k8s.io (``pkg/registry/resource/*/strategy.go``).

The rules are ported in ``apiserver/validation/resource``; this module only wires them
to the kinds as upstream's strategies do: a claim's or template's spec is checked on
create and only for immutability on update; a slice and a class are re-checked on
update (with what is unchanged treated as stored); /status has its own rules. CEL
compilation is ``reference_impl.dra.validation``'s. Taint times: ``resource_time.py``.
"""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.claim import device_claim, request_names
from reference_impl.apiserver.validation.resource.claim_status import claim_status
from reference_impl.apiserver.validation.resource.device_class import class_spec, template_meta
from reference_impl.apiserver.validation.resource.lists import as_dict
from reference_impl.apiserver.validation.resource.slice import slice_spec
from reference_impl.apiserver.validation.resource.taints import rule_spec, rule_status
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]


def _immutable(new: Any, old: Any, path: str) -> list[Cause]:
    return [] if (new or {}) == (old or {}) else [f.invalid(path, None, "field is immutable")]


def _consumable(ctx: Context) -> bool:
    return ctx.gates.enabled("DRAConsumableCapacity")


@validator("ResourceClaim")
def validate_claim(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourceClaim`` / ``ValidateResourceClaimUpdate``."""
    if old is not None:
        return _immutable(obj.get("spec"), old.get("spec"), "spec")
    devices = as_dict(obj.get("spec")).get("devices")
    return device_claim(devices, "spec.devices", False, _consumable(ctx))


@validator("ResourceClaimTemplate")
def validate_claim_template(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourceClaimTemplate``: the template's metadata and spec. Unlike a
    claim's, the template strategy's ValidateUpdate re-validates the whole new object
    before ``ValidateResourceClaimTemplateUpdate``'s immutability check."""
    spec = as_dict(obj.get("spec"))
    devices = as_dict(spec.get("spec")).get("devices")
    out = (template_meta(spec.get("metadata"), "spec.metadata")
           + device_claim(devices, "spec.spec.devices", False, _consumable(ctx)))
    if old is not None:
        out += _immutable(obj.get("spec"), old.get("spec"), "spec")
    return out


@validator("DeviceClass")
def validate_device_class(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDeviceClass`` / ``...Update``."""
    return class_spec(obj.get("spec"), (old or {}).get("spec") if old is not None else None, "spec")


@validator("ResourceSlice")
def validate_slice(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourceSlice`` / ``...Update``."""
    return slice_spec(obj.get("spec"), (old or {}).get("spec") if old is not None else None, "spec")


@validator("DeviceTaintRule")
def validate_rule(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDeviceTaintRule`` / ``...Update``."""
    return rule_spec(obj.get("spec"), (old or {}).get("spec") if old is not None else None, "spec")


@validator("ResourceClaim", status=True)
def validate_claim_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateResourceClaimStatusUpdate``."""
    names = request_names(as_dict(obj.get("spec")).get("devices"))
    deleted = bool(as_dict(obj.get("metadata")).get("deletionTimestamp"))
    return claim_status(obj.get("status"), (old or {}).get("status"), deleted, names, "status")


@validator("DeviceTaintRule", status=True)
def validate_rule_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDeviceTaintRuleStatusUpdate``."""
    return rule_status(obj.get("status"), "status")

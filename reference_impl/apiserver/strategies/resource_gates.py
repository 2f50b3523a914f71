"""Dropping gated resource.k8s.io fields (``dropDisabledFields`` of the DRA strategies).

A field whose gate is off is cleared on create, and on update unless the old object
already used the feature, so turning a gate off never breaks objects written with it on:

- ResourceSlice devices: ``bindingConditions``, ``bindingFailureConditions`` and
  ``bindsToNode`` (DRADeviceBindingConditions + DRAResourceClaimDeviceStatus); list
  attributes ``bools``/``ints``/``strings``/``versions`` (DRAListTypeAttributes). An
  attribute left empty is then rejected by validation ("exactly one value"). Alpha gates
  off by default in 1.37: devices'
  ``nodeAllocatableResources`` (DRANodeAllocatableResources), ``consumesCounters[].
  compatibilityGroups`` (DRADeviceCompatibilityGroups), ``spec.partitionTypeAttribute``
  (DRAPartitionableDevicesType) and ``spec.skipNodeOperations`` (DRAOptionalNodeOperations).
- ResourceClaim / ResourceClaimTemplate requests: ``resourceclaimspec.DropDisabledFields``
  (``resourceclaimspec`` module).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.strategies import resourceclaimspec

__all__ = ["LIST_ATTRIBUTE_FIELDS", "drop_claim_fields", "drop_slice_fields", "drop_template_fields"]

Obj = dict[str, Any]
LIST_ATTRIBUTE_FIELDS: Final = ("bools", "ints", "strings", "versions")
_BINDING: Final = ("bindingConditions", "bindingFailureConditions", "bindsToNode")


def _devices(obj: Obj | None) -> list[Obj]:
    return [d for d in ((obj or {}).get("spec") or {}).get("devices") or () if isinstance(d, dict)]


def _binding_in_use(obj: Obj | None) -> bool:
    return any(d.get("bindingConditions") or d.get("bindingFailureConditions")
               or d.get("bindsToNode") is not None for d in _devices(obj))


def _lists_in_use(obj: Obj | None) -> bool:
    return any(isinstance(a, dict) and any(f in a for f in LIST_ATTRIBUTE_FIELDS)
               for d in _devices(obj) for a in (d.get("attributes") or {}).values())


def _on(ctx: Context, gate: str) -> bool:
    return ctx.gates.enabled(gate)


def _drop_alpha_slice_fields(obj: Obj, old: Obj | None, ctx: Context) -> None:
    """``dropDisabledDRA{NodeAllocatableResources,DeviceCompatibilityGroups,
    PartitionableDevicesType,OptionalNodeOperations}Fields``."""
    spec, old_spec = obj.get("spec") or {}, (old or {}).get("spec") or {}
    if not (_on(ctx, "DRANodeAllocatableResources") or any(d.get("nodeAllocatableResources") for d in _devices(old))):
        for d in _devices(obj):
            d.pop("nodeAllocatableResources", None)
    if not (_on(ctx, "DRADeviceCompatibilityGroups") or any(
            isinstance(c, dict) and c.get("compatibilityGroups")
            for d in _devices(old) for c in d.get("consumesCounters") or ())):
        for d in _devices(obj):
            for c in d.get("consumesCounters") or ():
                if isinstance(c, dict):
                    c.pop("compatibilityGroups", None)
    for gate, key in (("DRAPartitionableDevicesType", "partitionTypeAttribute"),
                      ("DRAOptionalNodeOperations", "skipNodeOperations")):
        if isinstance(spec, dict) and not (_on(ctx, gate) or old_spec.get(key)):
            spec.pop(key, None)


@preparer("ResourceSlice")
def drop_slice_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Binding-condition fields and list attributes, when their gates are off."""
    g = ctx.gates
    _drop_alpha_slice_fields(obj, old, ctx)
    binding_on = g.enabled("DRADeviceBindingConditions") and g.enabled("DRAResourceClaimDeviceStatus")
    if not (binding_on or _binding_in_use(old)):
        for d in _devices(obj):
            for f in _BINDING:
                d.pop(f, None)
    if not (g.enabled("DRAListTypeAttributes") or _lists_in_use(old)):
        for d in _devices(obj):
            for a in (d.get("attributes") or {}).values():
                for f in LIST_ATTRIBUTE_FIELDS if isinstance(a, dict) else ():
                    a.pop(f, None)


def _drop_derived(spec: Obj | None, old_spec: Obj | None, ctx: Context) -> None:
    if isinstance(spec, dict):
        resourceclaimspec.drop_disabled_fields(spec, old_spec, ctx.gates)


@preparer("ResourceClaim")
def drop_claim_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``resourceclaimspec.DropDisabledFields`` (derivedAttributes, capacity, ...)."""
    _drop_derived(obj.get("spec"), (old or {}).get("spec"), ctx)


@preparer("ResourceClaimTemplate")
def drop_template_fields(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """As for a claim, under ``spec.spec``."""
    _drop_derived((obj.get("spec") or {}).get("spec"), ((old or {}).get("spec") or {}).get("spec"), ctx)

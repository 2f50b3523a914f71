"""The exact static cost of a DRA CEL expression: CRD rules' port of cel-go's estimator
(``apiextensions_cel_estimate``) over the DRA environment's declared types and size
bounds (``k8s.io/dynamic-resource-allocation/cel``'s ``newCompiler``: the ``device``
variable, its ``sizeEstimator`` and ``library.CostEstimator``; upstream v1.37.2).

Every attribute value has the same bound whether scalar or list (64 =
max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice)), and an
attribute selected by name (``device.attributes["d"].name``) has that bound too. Where
the estimator has no exact answer the caller keeps ``cel_check``'s rough one."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.strategies.apiextensions_cel_estimate import estimate
from reference_impl.apiserver.strategies.apiextensions_cel_sizes import Decl

__all__ = ["DRIVER_MAX", "cost"]

DRIVER_MAX: Final = 63  # DriverNameMaxLength
_DOMAIN: Final = Decl("string", 63)  # DeviceMaxDomainLength
_ID: Final = Decl("string", 32)  # DeviceMaxIDLength
_PER_DEVICE: Final = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
_ATTRIBUTE: Final = Decl("dyn", 64)
_INNER_ATTRIBUTES: Final = Decl("map", _PER_DEVICE, 2, elem=_ATTRIBUTE, by_name=True, key=_ID)
_QUANTITY: Final = Decl("quantity", 0, 8)
_INNER_CAPACITY: Final = Decl("map", _PER_DEVICE, 2, elem=_QUANTITY, key=_ID)


def _device(consumable_capacity: bool) -> Decl:
    fields = {
        "driver": Decl("string", DRIVER_MAX),
        "attributes": Decl("map", _PER_DEVICE, 2, elem=_INNER_ATTRIBUTES, key=_DOMAIN),
        "capacity": Decl("map", _PER_DEVICE, 2, elem=_INNER_CAPACITY, key=_DOMAIN),
    }
    if consumable_capacity:
        fields["allowMultipleAllocations"] = Decl("bool", 1)  # multiAllocType
    return Decl("object", 0, 2, fields)


_DEVICES: Final = {cc: _device(cc) for cc in (False, True)}


def cost(tree: Any, consumable_capacity: bool = True) -> int | None:
    """``EstimateCost(...).Max`` of a parsed expression in the DRA environment, or None."""
    device = _DEVICES[consumable_capacity]
    return estimate(tree, device, {"device": device}, extended=True)

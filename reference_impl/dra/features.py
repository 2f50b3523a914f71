"""The gated allocator features, after ``structured.Features`` (``internal/types.go``).

The scheduler builds them from its feature gates; tests may build them directly. Each
switch changes what the allocator accepts or writes, exactly where upstream checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Features", "features_from"]


@dataclass(frozen=True, slots=True)
class Features:
    """What the allocator may use (defaults: a default 1.37 cluster)."""

    # DRAListTypeAttributes (alpha): list attributes count in constraints as sets, and
    # selectors may call ``includes``.
    list_type_attributes: bool = False
    # DRADeviceBindingConditions + DRAResourceClaimDeviceStatus (beta, on): devices with
    # binding conditions may be allocated; results carry the conditions.
    binding_conditions: bool = True
    # DRADerivedAttributes (alpha): requests may compute attributes for constraints.
    derived_attributes: bool = False
    # DRAFractionalCapacityRange (beta, off on a default 1.37 cluster): capacity ranges
    # round requests in thousandths rather than whole units.
    fractional_capacity_range: bool = False
    # DRADeviceTaints (GA, on): NoSchedule/NoExecute device taints keep devices out
    # unless tolerated.
    device_taints: bool = True
    # DRADeviceCompatibilityGroups (alpha): slices whose devices declare compatibility
    # groups are allocatable; devices sharing a counter set must share a group.
    compatibility_groups: bool = False
    # DRAOptionalNodeOperations (alpha): devices of slices with skipNodeOperations fit
    # nodes declaring the feature; results carry the slice's skipNodeOperations.
    optional_node_operations: bool = False

    @property
    def experimental(self) -> bool:
        """Whether upstream's NewAllocator picks the ``experimental`` allocator (the only
        one supporting these alpha features); it alone checks skipNodeOperations."""
        return (self.list_type_attributes or self.derived_attributes or self.compatibility_groups
                or self.optional_node_operations)


def features_from(gates: Mapping[str, bool]) -> Features:
    """The allocator features a component with ``gates`` runs with."""
    return Features(
        list_type_attributes=bool(gates.get("DRAListTypeAttributes", False)),
        binding_conditions=bool(gates.get("DRADeviceBindingConditions", True))
        and bool(gates.get("DRAResourceClaimDeviceStatus", True)),
        derived_attributes=bool(gates.get("DRADerivedAttributes", False)),
        fractional_capacity_range=bool(gates.get("DRAFractionalCapacityRange", False)),
        device_taints=bool(gates.get("DRADeviceTaints", True)),
        compatibility_groups=bool(gates.get("DRADeviceCompatibilityGroups", False)),
        optional_node_operations=bool(gates.get("DRAOptionalNodeOperations", False)),
    )

"""The DRA structured-parameter allocator: pools, CEL selectors, taints, allocation."""

from reference_impl.dra import attribute_versions, validation  # validation registers the CEL checks
from reference_impl.dra.allocator import CANNOT_ALLOCATE, AllocationError, Allocator, for_pools
from reference_impl.dra.cel import CELError, compile_selector, device_activation
from reference_impl.dra.features import Features, features_from
from reference_impl.dra.pools import DeviceID, DeviceInfo, Pool, gather_pools
from reference_impl.dra.state import AllocatedState, allocated_state
from reference_impl.dra.taints import rule_matches, taints_for, tolerates, untolerated

__all__ = [
    "attribute_versions",
    "validation",
    "CANNOT_ALLOCATE",
    "AllocatedState",
    "AllocationError",
    "Allocator",
    "CELError",
    "DeviceID",
    "DeviceInfo",
    "Features",
    "Pool",
    "allocated_state",
    "compile_selector",
    "features_from",
    "for_pools",
    "device_activation",
    "gather_pools",
    "rule_matches",
    "taints_for",
    "tolerates",
    "untolerated",
]

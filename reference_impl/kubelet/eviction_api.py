"""The eviction manager's API types (upstream v1.37.2 pkg/kubelet/eviction/api): the
signals, thresholds and their values, and the node condition and resource each signal
maps to (``signalToNodeCondition``, ``signalToResource`` in helpers.go)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

__all__ = [
    "OP_LESS_THAN",
    "SIGNAL_TO_NODE_CONDITION",
    "SIGNAL_TO_RESOURCE",
    "Threshold",
    "ThresholdValue",
    "f32",
    "get_threshold_quantity",
]

MEMORY_AVAILABLE: Final = "memory.available"
NODEFS_AVAILABLE: Final = "nodefs.available"
NODEFS_INODES_FREE: Final = "nodefs.inodesFree"
IMAGEFS_AVAILABLE: Final = "imagefs.available"
IMAGEFS_INODES_FREE: Final = "imagefs.inodesFree"
CONTAINERFS_AVAILABLE: Final = "containerfs.available"
CONTAINERFS_INODES_FREE: Final = "containerfs.inodesFree"
ALLOCATABLE_MEMORY_AVAILABLE: Final = "allocatableMemory.available"
PID_AVAILABLE: Final = "pid.available"

OP_LESS_THAN: Final = "LessThan"

# resourceInodes and resourcePids: names internal to the eviction manager
RESOURCE_INODES: Final = "inodes"
RESOURCE_PIDS: Final = "pids"

SIGNAL_TO_NODE_CONDITION: Final = {
    MEMORY_AVAILABLE: "MemoryPressure",
    ALLOCATABLE_MEMORY_AVAILABLE: "MemoryPressure",
    IMAGEFS_AVAILABLE: "DiskPressure",
    CONTAINERFS_AVAILABLE: "DiskPressure",
    NODEFS_AVAILABLE: "DiskPressure",
    IMAGEFS_INODES_FREE: "DiskPressure",
    NODEFS_INODES_FREE: "DiskPressure",
    CONTAINERFS_INODES_FREE: "DiskPressure",
    PID_AVAILABLE: "PIDPressure",
}

SIGNAL_TO_RESOURCE: Final = {
    MEMORY_AVAILABLE: "memory",
    ALLOCATABLE_MEMORY_AVAILABLE: "memory",
    IMAGEFS_AVAILABLE: "ephemeral-storage",
    IMAGEFS_INODES_FREE: RESOURCE_INODES,
    CONTAINERFS_AVAILABLE: "ephemeral-storage",
    CONTAINERFS_INODES_FREE: RESOURCE_INODES,
    NODEFS_AVAILABLE: "ephemeral-storage",
    NODEFS_INODES_FREE: RESOURCE_INODES,
    PID_AVAILABLE: RESOURCE_PIDS,
}


def f32(x: float) -> float:
    """``float32(x)``: the percentage fields are float32 upstream."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


@dataclass(frozen=True, slots=True)
class ThresholdValue:
    """A quantity (bytes, inodes, pids) or, when ``quantity`` is None, a fraction of
    the capacity."""

    quantity: Decimal | None = None
    percentage: float = 0.0


@dataclass(frozen=True, slots=True)
class Threshold:
    """One eviction threshold; ``grace_period`` in ns (0: a hard threshold)."""

    signal: str
    operator: str
    value: ThresholdValue
    grace_period: int = 0
    min_reclaim: ThresholdValue | None = None


def get_threshold_quantity(value: ThresholdValue, capacity: Decimal) -> Decimal:
    """``GetThresholdQuantity``: the quantity, or the percentage of the capacity
    truncated to an integer (float64 arithmetic, as upstream)."""
    if value.quantity is not None:
        return value.quantity
    return Decimal(int(float(int(capacity)) * float(value.percentage)))

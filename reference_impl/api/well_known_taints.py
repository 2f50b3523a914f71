"""The taint keys Kubernetes itself puts on Nodes (k8s.io/api core/v1 well_known_taints.go)."""

from __future__ import annotations

from typing import Final

TAINT_NODE_NOT_READY: Final = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE: Final = "node.kubernetes.io/unreachable"
TAINT_NODE_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"
TAINT_NODE_MEMORY_PRESSURE: Final = "node.kubernetes.io/memory-pressure"
TAINT_NODE_DISK_PRESSURE: Final = "node.kubernetes.io/disk-pressure"
TAINT_NODE_NETWORK_UNAVAILABLE: Final = "node.kubernetes.io/network-unavailable"
TAINT_NODE_PID_PRESSURE: Final = "node.kubernetes.io/pid-pressure"
TAINT_NODE_OUT_OF_SERVICE: Final = "node.kubernetes.io/out-of-service"

# The node lifecycle controller's nodeConditionToTaintKeyStatusMap: the NoSchedule taint
# of each (condition type, status); it comes off once the condition changes.
CONDITION_TAINTS: Final = {
    ("Ready", "False"): TAINT_NODE_NOT_READY,
    ("Ready", "Unknown"): TAINT_NODE_UNREACHABLE,
    ("MemoryPressure", "True"): TAINT_NODE_MEMORY_PRESSURE,
    ("DiskPressure", "True"): TAINT_NODE_DISK_PRESSURE,
    ("NetworkUnavailable", "True"): TAINT_NODE_NETWORK_UNAVAILABLE,
    ("PIDPressure", "True"): TAINT_NODE_PID_PRESSURE,
}

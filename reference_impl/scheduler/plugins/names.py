"""Models pkg/scheduler/framework/plugins/names/names.go: the in-tree plugin names."""

from __future__ import annotations

from typing import Final

PRIORITY_SORT: Final = "PrioritySort"
DEFAULT_BINDER: Final = "DefaultBinder"
DEFAULT_PREEMPTION: Final = "DefaultPreemption"
DYNAMIC_RESOURCES: Final = "DynamicResources"
NODE_AFFINITY: Final = "NodeAffinity"
NODE_NAME: Final = "NodeName"
NODE_RESOURCES_FIT: Final = "NodeResourcesFit"
NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
SCHEDULING_GATES: Final = "SchedulingGates"
TAINT_TOLERATION: Final = "TaintToleration"
GANG_SCHEDULING: Final = "GangScheduling"
VOLUME_BINDING: Final = "VolumeBinding"
NODE_VOLUME_LIMITS: Final = "NodeVolumeLimits"
NODE_PORTS: Final = "NodePorts"
VOLUME_RESTRICTIONS: Final = "VolumeRestrictions"
VOLUME_ZONE: Final = "VolumeZone"
POD_TOPOLOGY_SPREAD: Final = "PodTopologySpread"
INTER_POD_AFFINITY: Final = "InterPodAffinity"
NODE_RESOURCES_BALANCED_ALLOCATION: Final = "NodeResourcesBalancedAllocation"
IMAGE_LOCALITY: Final = "ImageLocality"
NODE_DECLARED_FEATURES: Final = "NodeDeclaredFeatures"
TOPOLOGY_PLACEMENT_GENERATOR: Final = "TopologyPlacementGenerator"
POD_GROUP_PODS_COUNT: Final = "PodGroupPodsCount"

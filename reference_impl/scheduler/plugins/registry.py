"""Models pkg/scheduler/framework/plugins/registry.go (``NewInTreeRegistry``)."""

from __future__ import annotations

from types import MappingProxyType

from reference_impl.scheduler.framework.registry import PluginFactory, Registry
from reference_impl.scheduler.plugins import (
    balanced_allocation,
    default_binder,
    default_preemption,
    deferred_pod_scheduling,
    dynamic_resources,
    gang_scheduling,
    image_locality,
    inter_pod_affinity,
    names,
    node_affinity,
    node_declared_features,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    podgroup_pods_count,
    queue_sort,
    scheduling_gates,
    taint_toleration,
    topology_placement,
    volume_binding,
    volume_restrictions,
    volume_zone,
)

__all__ = ["in_tree_registry"]


def in_tree_registry() -> Registry:
    """Every in-tree plugin by name; out-of-tree plugins merge their own on top."""
    factories: dict[str, PluginFactory] = {
        names.PRIORITY_SORT: queue_sort.new,
        names.SCHEDULING_GATES: scheduling_gates.new,
        names.NODE_UNSCHEDULABLE: node_unschedulable.new,
        names.NODE_NAME: node_name.new,
        names.TAINT_TOLERATION: taint_toleration.new,
        names.NODE_AFFINITY: node_affinity.new,
        names.NODE_RESOURCES_FIT: node_resources_fit.new,
        names.DEFAULT_BINDER: default_binder.new,
        names.DYNAMIC_RESOURCES: dynamic_resources.new,
        names.GANG_SCHEDULING: gang_scheduling.new,
        names.DEFAULT_PREEMPTION: default_preemption.new,
        names.DEFERRED_POD_SCHEDULING: deferred_pod_scheduling.new,
        names.VOLUME_BINDING: volume_binding.new,
        names.NODE_VOLUME_LIMITS: node_volume_limits.new,
        names.NODE_PORTS: node_ports.new,
        names.VOLUME_RESTRICTIONS: volume_restrictions.new,
        names.VOLUME_ZONE: volume_zone.new,
        names.POD_TOPOLOGY_SPREAD: pod_topology_spread.new,
        names.INTER_POD_AFFINITY: inter_pod_affinity.new,
        names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation.new,
        names.IMAGE_LOCALITY: image_locality.new,
        names.NODE_DECLARED_FEATURES: node_declared_features.new,
        names.TOPOLOGY_PLACEMENT_GENERATOR: topology_placement.new,
        names.POD_GROUP_PODS_COUNT: podgroup_pods_count.new,
    }
    return MappingProxyType(factories)

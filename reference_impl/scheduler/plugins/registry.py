"""Models pkg/scheduler/framework/plugins/registry.go (``NewInTreeRegistry``)."""

from __future__ import annotations

from types import MappingProxyType

from reference_impl.scheduler.framework.registry import PluginFactory, Registry
from reference_impl.scheduler.plugins import (
    default_binder,
    default_preemption,
    dynamic_resources,
    gang_scheduling,
    names,
    node_affinity,
    node_name,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    queue_sort,
    scheduling_gates,
    taint_toleration,
    volume_binding,
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
        names.VOLUME_BINDING: volume_binding.new,
        names.NODE_VOLUME_LIMITS: node_volume_limits.new,
    }
    return MappingProxyType(factories)

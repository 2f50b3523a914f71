"""Models pkg/scheduler/framework/runtime/registry.go and plugins/feature/feature.go.

A Registry maps a plugin name to a factory ``(args, handle, features) -> Plugin``.
``SchedulerFeatures`` is a frozen struct of bools derived from the gates once, so plugins
never consult global feature gates (upstream's ``feature.Features``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from reference_impl.features import FeatureGates
from reference_impl.scheduler.framework.interface import Plugin
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.types import NodeIndex, NodeInfo

if TYPE_CHECKING:
    from reference_impl.apiserver.component import ComponentContext
    from reference_impl.scheduler.framework.waiting_pods import WaitingPod

__all__ = ["Handle", "PluginFactory", "Registry", "SchedulerFeatures", "SharedLister"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SchedulerFeatures:
    """The gates plugins may branch on (``feature.Features``)."""

    enable_scheduling_queue_hint: bool = True
    enable_in_place_pod_vertical_scaling: bool = True
    enable_dynamic_resource_allocation: bool = True
    enable_generic_workload: bool = False
    enable_topology_aware_workload_scheduling: bool = False
    enable_composite_pod_group: bool = False
    enable_in_place_pod_vertical_scaling_scheduler_preemption: bool = False
    enable_taint_toleration_comparison_operators: bool = False
    enable_pod_group_preemption_policy: bool = False
    enable_opportunistic_batching: bool = True  # Beta, on by default since 1.35

    @classmethod
    def from_gates(cls, gates: FeatureGates) -> SchedulerFeatures:
        """Read the relevant gates once."""
        return cls(
            enable_scheduling_queue_hint=gates["SchedulerQueueingHints"],
            enable_in_place_pod_vertical_scaling=gates["InPlacePodVerticalScaling"],
            enable_dynamic_resource_allocation=gates["DynamicResourceAllocation"],
            enable_generic_workload=gates["GenericWorkload"],
            enable_topology_aware_workload_scheduling=gates["TopologyAwareWorkloadScheduling"],
            enable_composite_pod_group=gates["CompositePodGroup"],
            enable_in_place_pod_vertical_scaling_scheduler_preemption=gates[
                "InPlacePodVerticalScalingSchedulerPreemption"
            ],
            enable_taint_toleration_comparison_operators=gates[
                "TaintTolerationComparisonOperators"
            ],
            enable_pod_group_preemption_policy=gates["PodGroupPreemptionPolicy"],
            enable_opportunistic_batching=gates["OpportunisticBatching"],
        )

    def defers(self, pod: Obj) -> bool:
        """Whether ``pod`` is a deferred resize the scheduler handles (KEP-5836)."""
        return self.enable_in_place_pod_vertical_scaling_scheduler_preemption and (
            is_pod_resize_deferred(pod)
        )


class SharedLister(Protocol):
    """The cycle's view of nodes (``framework.SharedLister`` over the snapshot)."""

    index: NodeIndex  # nodes with affinity pods, image existence

    def node_infos(self) -> Sequence[NodeInfo]:
        """Every node, sorted by name."""
        ...

    def get(self, node_name: str) -> NodeInfo | None:
        """One node, or None."""
        ...


class Handle(Protocol):
    """What plugins get from the framework (``framework.Handle``)."""

    @property
    def ctx(self) -> ComponentContext:
        """The apiserver, informers, clock, seed and trace."""
        ...

    @property
    def features(self) -> SchedulerFeatures:
        """The scheduler's feature switches."""
        ...

    def snapshot_shared_lister(self) -> SharedLister:
        """The node snapshot of the current cycle."""
        ...

    def get_waiting_pod(self, key: str) -> WaitingPod | None:
        """A pod parked at Permit, by ``namespace/name``."""
        ...

    def iterate_over_waiting_pods(self) -> Iterator[WaitingPod]:
        """Every pod parked at Permit, in key order."""
        ...


PluginFactory = Callable[[object | None, Handle, SchedulerFeatures], Plugin]
Registry = Mapping[str, PluginFactory]

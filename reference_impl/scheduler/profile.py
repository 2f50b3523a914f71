"""Models pkg/scheduler/apis/config/v1/default_plugins.go: the default profile.

Upstream enables every in-tree plugin at all the extension points it implements
("multiPoint") in this order, with its score weights, then ``applyFeatureGates``:
NodeDeclaredFeatures (GA) is appended, DynamicResources (GA, weight 2) goes before
DefaultPreemption, GangScheduling is appended, then TopologyPlacementGenerator and
PodGroupPodsCount (weight 1). Those three follow their gates (GenericWorkload,
TopologyAwareWorkloadScheduling) in the plugins and the pod-group cycle here, so the list
is fixed. DeferredPodScheduling follows its gate here (``default_profile``): with alpha
InPlacePodVerticalScalingSchedulerPreemption on it goes right before NodeResourcesFit,
so a node that disables resize preemption fails there first and its queueing hint
applies, as ``applyDeferredPodScheduling`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from reference_impl.features import FeatureGates
from reference_impl.scheduler.plugins import names

__all__ = [
    "DEFAULT_PLUGINS",
    "DEFAULT_SCHEDULER_NAME",
    "PluginConfig",
    "Profile",
    "default_profile",
]

DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"


@dataclass(frozen=True, slots=True)
class PluginConfig:
    """One enabled plugin: its name, Score weight and typed args (None = defaults)."""

    name: str
    weight: int = 1
    args: object | None = None


DEFAULT_PLUGINS: Final = (
    PluginConfig(names.SCHEDULING_GATES),
    PluginConfig(names.PRIORITY_SORT),
    PluginConfig(names.NODE_NAME),
    PluginConfig(names.NODE_UNSCHEDULABLE),
    PluginConfig(names.TAINT_TOLERATION, weight=3),
    PluginConfig(names.NODE_AFFINITY, weight=2),
    PluginConfig(names.NODE_PORTS),
    PluginConfig(names.NODE_RESOURCES_FIT, weight=1),
    PluginConfig(names.VOLUME_RESTRICTIONS),
    PluginConfig(names.NODE_VOLUME_LIMITS),
    PluginConfig(names.VOLUME_BINDING),
    PluginConfig(names.VOLUME_ZONE),
    PluginConfig(names.POD_TOPOLOGY_SPREAD, weight=2),
    PluginConfig(names.INTER_POD_AFFINITY, weight=2),
    PluginConfig(names.DYNAMIC_RESOURCES, weight=2),
    PluginConfig(names.DEFAULT_PREEMPTION),
    PluginConfig(names.NODE_RESOURCES_BALANCED_ALLOCATION, weight=1),
    PluginConfig(names.IMAGE_LOCALITY, weight=1),
    PluginConfig(names.DEFAULT_BINDER),
    PluginConfig(names.NODE_DECLARED_FEATURES),
    PluginConfig(names.GANG_SCHEDULING),
    PluginConfig(names.TOPOLOGY_PLACEMENT_GENERATOR),
    PluginConfig(names.POD_GROUP_PODS_COUNT, weight=1),
)


@dataclass(frozen=True, slots=True)
class Profile:
    """A KubeSchedulerProfile: which pods it serves and its multi-point plugins in order."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: tuple[PluginConfig, ...] = field(default=DEFAULT_PLUGINS)
    # None: the adaptive default (50% - nodes/125, at least 5% and 100 nodes).
    percentage_of_nodes_to_score: int | None = None

    def with_plugins(self, *extra: PluginConfig, before: str = "") -> Profile:
        """A copy with ``extra`` plugins inserted before ``before`` (appended if absent)."""
        plugins = list(self.plugins)
        at = next((i for i, p in enumerate(plugins) if p.name == before), len(plugins))
        return replace(self, plugins=tuple(plugins[:at]) + extra + tuple(plugins[at:]))

    def without(self, *plugin_names: str) -> Profile:
        """A copy with the named plugins disabled."""
        return replace(self, plugins=tuple(p for p in self.plugins if p.name not in plugin_names))


def default_profile(gates: FeatureGates) -> Profile:
    """The default profile after ``applyFeatureGates`` for the gates that change its list."""
    profile = Profile()
    if gates["InPlacePodVerticalScalingSchedulerPreemption"]:
        deferred = PluginConfig(names.DEFERRED_POD_SCHEDULING)
        profile = profile.with_plugins(deferred, before=names.NODE_RESOURCES_FIT)
    return profile

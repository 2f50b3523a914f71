"""Upstream's fake plugins (pkg/scheduler/testing/framework/fake_plugins.go and the ones in
schedule_one_test.go) and a small harness building a Framework and a PodScheduler from them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from reference_impl.api import make_node
from reference_impl.clock import Duration
from reference_impl.rng import Rng
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    NodeScore,
    Plugin,
    PreFilterResult,
    ScoreExtensions,
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import queue_sort
from reference_impl.scheduler.profile import PluginConfig, Profile
from reference_impl.scheduler.schedule_one import PodScheduler

Obj = dict[str, Any]
ERR_REASON_FAKE: Final = "Nodes failed the fake plugin"
ERR_PRIORITIZE: Final = "priority map encounters an error"


@dataclass
class TrueFilter:
    """``TrueFilterPlugin``: every node passes."""

    calls: int = 0

    def name(self) -> str:
        return "TrueFilter"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        self.calls += 1
        return OK


@dataclass
class FalseFilter:
    """``FalseFilterPlugin``: every node fails with ErrReasonFake."""

    def name(self) -> str:
        return "FalseFilter"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        return Status(Code.UNSCHEDULABLE, (ERR_REASON_FAKE,))


@dataclass
class MatchFilter:
    """``MatchFilterPlugin``: only the node named like the pod passes."""

    def name(self) -> str:
        return "MatchFilter"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        if node_info.node is None:
            return Status(Code.ERROR, ("node not found",))
        if pod["metadata"]["name"] == node_info.name:
            return OK
        return Status(Code.UNSCHEDULABLE, (ERR_REASON_FAKE,))


@dataclass
class NoPodsFilter:
    """``noPodsFilterPlugin``: a node with pods fails."""

    def name(self) -> str:
        return "NoPodsFilter"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        if not node_info.pods:
            return OK
        return Status(Code.UNSCHEDULABLE, (ERR_REASON_FAKE,))


@dataclass
class FakeFilter:
    """``FakeFilterPlugin``: the mapped nodes fail with their code; counts its calls."""

    failed: Mapping[str, Code] = field(default_factory=dict)
    plugin_name: str = "FakeFilter"
    calls: int = 0

    def name(self) -> str:
        return self.plugin_name

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        self.calls += 1
        code = self.failed.get(node_info.name)
        if code is None:
            return OK
        return Status(code, (f"injecting failure for pod {pod['metadata']['name']}",))


@dataclass
class FakePreFilter:
    """``FakePreFilterPlugin``: a fixed result and status."""

    plugin_name: str
    result: PreFilterResult | None = None
    status: Status = OK

    def name(self) -> str:
        return self.plugin_name

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        return self.result, self.status


@dataclass
class FakePreFilterAndFilter(FakeFilter):
    """``FakePreFilterAndFilterPlugin``: both halves, under one name."""

    result: PreFilterResult | None = None
    status: Status = OK

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        return self.result, self.status


@dataclass
class MapScore:
    """The score plugins of schedule_one_test.go: NumericMap (the node name as a number),
    ReverseNumericMap (the same, mirrored by NormalizeScore), TrueMap (1), FalseMap (error),
    and ``EqualPrioritizerPlugin`` (1)."""

    plugin_name: str

    def name(self) -> str:
        return self.plugin_name

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        if self.plugin_name == "FalseMap":
            return 0, Status(Code.ERROR, (ERR_PRIORITIZE,))
        if self.plugin_name in ("TrueMap", "EqualPrioritizerPlugin"):
            return 1, OK
        try:
            return int(node_info.name), OK
        except ValueError:
            return 0, Status(Code.ERROR, (f"Error converting nodename to int: {node_info.name}",))

    def score_extensions(self) -> ScoreExtensions | None:
        return self if self.plugin_name in ("ReverseNumericMap", "TrueMap") else None

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        if self.plugin_name == "TrueMap":
            if any(not s.name for s in scores):
                return Status(Code.ERROR, ("unexpected empty host name",))
            return OK
        hi = max(s.score for s in scores)
        lo = min(s.score for s in scores)
        for s in scores:
            s.score = hi + lo - s.score
        return OK


@dataclass
class FakePreScoreAndScore:
    """``FakePreScoreAndScorePlugin``: fixed PreScore status, score and Score status."""

    plugin_name: str
    fixed: int = 0
    pre_score_status: Status = OK
    score_status: Status = OK

    def name(self) -> str:
        return self.plugin_name

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        return self.pre_score_status

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        return self.fixed, self.score_status

    def score_extensions(self) -> ScoreExtensions | None:
        return None


@dataclass
class FakePermit:
    """``FakePermitPlugin``: a fixed status and timeout."""

    plugin_name: str
    status: Status = OK
    timeout: Duration = Duration(0)

    def name(self) -> str:
        return self.plugin_name

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status, Duration]:
        return self.status, self.timeout


Entry = tuple[Plugin, int]  # a plugin instance and its Score weight


def framework(
    plugins: Iterable[Plugin | Entry], cache: SchedulerCache, percentage: int | None = None
) -> Framework:
    """A Framework over ``cache`` with PrioritySort and ``plugins`` (weight 1 unless given),
    each enabled at every extension point it implements, as tf.NewFramework with
    RegisterPluginAsExtensions does."""
    entries = [p if isinstance(p, tuple) else (p, 1) for p in plugins]
    registry: dict[str, Callable[[object | None, Handle, SchedulerFeatures], Plugin]] = {
        queue_sort.NAME: queue_sort.new,
    }
    configs = [PluginConfig(queue_sort.NAME)]
    for plugin, weight in entries:
        registry[plugin.name()] = _const(plugin)
        configs.append(PluginConfig(plugin.name(), weight=weight))
    profile = Profile(plugins=tuple(configs), percentage_of_nodes_to_score=percentage)
    return Framework(profile, registry, cast(Any, None), cache, SchedulerFeatures())


def _const(plugin: Plugin) -> Callable[[object | None, Handle, SchedulerFeatures], Plugin]:
    return lambda _args, _handle, _features: plugin


def cache_of(node_names: Iterable[str], pods: Iterable[Obj] = ()) -> SchedulerCache:
    """A cache with one plain node per name (labelled with its hostname) and ``pods``."""
    cache = SchedulerCache()
    for name in node_names:
        cache.add_node(make_node(name).label("kubernetes.io/hostname", name).build())
    for pod in pods:
        cache.add_pod(pod)
    return cache


def scheduler(
    plugins: Iterable[Plugin | Entry],
    node_names: Iterable[str],
    pods: Iterable[Obj] = (),
    percentage: int | None = None,
    seed: int = 0,
) -> PodScheduler:
    """A PodScheduler over fake plugins and plain nodes."""
    cache = cache_of(node_names, pods)
    return PodScheduler(framework(plugins, cache, percentage), cache, Rng(seed))

"""Upstream's schedule_one_test.go tables against the reference PodScheduler.

Ported (pkg/scheduler/schedule_one_test.go): ``TestNumFeasibleNodesToFind``,
``Test_SelectHost`` (as a set of acceptable hosts: the reference breaks ties with a seeded
choice, in evaluation order), ``TestSchedulerSchedulePod`` (the rows without extenders or
the VolumeBinding plugin), ``TestFindFitAllError``,
``TestFindFitSomeError``, ``TestFindFitPredicateCallCounts``, ``TestFairEvaluationForNodes``, ``Test_prioritizeNodes``
(totals; the rows without extenders); and ``TestFitError_Error``
(pkg/scheduler/framework/types_test.go).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from upstream_core_fakes import (
    ERR_REASON_FAKE,
    FakeFilter,
    FakePreFilter,
    FakePreFilterAndFilter,
    FakePreScoreAndScore,
    FalseFilter,
    MapScore,
    MatchFilter,
    NoPodsFilter,
    TrueFilter,
    cache_of,
    scheduler,
)

from reference_impl.api import make_node, make_pod
from reference_impl.rng import Rng
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis, FitError, NodeToStatus
from reference_impl.scheduler.framework.interface import (
    Code,
    Plugin,
    PreFilterResult,
    Status,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.plugins import (
    balanced_allocation,
    image_locality,
    pod_topology_spread,
    queue_sort,
)
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from reference_impl.scheduler.profile import PluginConfig, Profile
from reference_impl.scheduler.schedule_one import PodScheduler, num_feasible_nodes_to_find

UN, UAU, ERR, SKIP = (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR,
                      Code.SKIP)


@pytest.mark.parametrize(
    ("profile", "n", "want"),
    [
        pytest.param(None, 10, 10, id="not set percentageOfNodesToScore and nodes number not more than 50"),
        pytest.param(40, 10, 10, id="set profile percentageOfNodesToScore and nodes number not more than 50"),
        pytest.param(None, 1000, 420, id="not set percentageOfNodesToScore and nodes number more than 50"),
        pytest.param(40, 1000, 400, id="set profile percentageOfNodesToScore and nodes number more than 50"),
        # The global percentage (100) loses to the profile's; the reference has only the latter.
        pytest.param(40, 1000, 400,
                     id="set global and profile percentageOfNodesToScore and nodes number more than 50"),
        pytest.param(None, 1000, 400, marks=pytest.mark.skip(
            reason="no global percentageOfNodesToScore in the reference (profile only)"),
            id="set global percentageOfNodesToScore and nodes number more than 50"),
        pytest.param(None, 6000, 300, id="not set profile percentageOfNodesToScore and nodes number more than 50*125"),
        pytest.param(40, 6000, 2400, id="set profile percentageOfNodesToScore and nodes number more than 50*125"),
    ],
)
def test_num_feasible_nodes_to_find(profile: int | None, n: int, want: int) -> None:
    assert num_feasible_nodes_to_find(profile, n) == want


@pytest.mark.parametrize(
    ("scores", "want"),
    [
        pytest.param([("node1", 1), ("node2", 2)], {"node2"}, id="unique properly ordered scores"),
        pytest.param([("node2.2", 2), ("node2.1", 2), ("node2.3", 2)],
                     {"node2.1", "node2.2", "node2.3"}, id="equal scores"),
        pytest.param([("node3.1", 3), ("node2.1", 2), ("node1.1", 1), ("node3.2", 3)],
                     {"node3.1", "node3.2"}, id="out of order scores"),
    ],
)
def test_select_host(scores: list[tuple[str, int]], want: set[str]) -> None:
    """The best-scored node wins; ties go to any of the best (seeded here)."""
    sched = scheduler([TrueFilter()], [])
    nodes = [NodeInfo(name) for name, _ in scores]
    totals = [s for _, s in scores]
    picks = {sched._select_host(nodes, totals) for _ in range(64)}
    assert picks == want  # every tied node is reachable, and only those


# -- TestSchedulerSchedulePod --------------------------------------------------------


@dataclass
class Want:
    """A FitError's diagnosis, or an error message, or acceptable hosts."""

    nodes: set[str] | None = None
    evaluated: int | None = None
    statuses: dict[str, tuple[Code, tuple[str, ...], str]] = field(default_factory=dict)
    absent: tuple[Code, tuple[str, ...], str] = (UAU, (), "")
    plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    num_all: int = 0
    error: str = ""
    fit_error: bool = False


def _fit(num_all: int, statuses: dict[str, tuple[Code, tuple[str, ...], str]], plugins: set[str],
         absent: tuple[Code, tuple[str, ...], str] = (UAU, (), ""), pre_filter_msg: str = "") -> Want:
    return Want(statuses=statuses, absent=absent, plugins=plugins, pre_filter_msg=pre_filter_msg,
                num_all=num_all, fit_error=True)


def _fake(failed: dict[str, Code]) -> FakeFilter:
    return FakeFilter(failed)


N12 = ["node1", "node2"]
N123 = ["node1", "node2", "node3"]
N321 = ["3", "2", "1"]
FAKE = (ERR_REASON_FAKE,)
INJ = ("injecting failure for pod test-filter",)
INJ_PRE = ("injecting failure for pod test-prefilter",)

SCHEDULE_POD_ROWS = [
    pytest.param([FalseFilter()], N12, "2", [],
                 _fit(2, {"node1": (UN, FAKE, "FalseFilter"), "node2": (UN, FAKE, "FalseFilter")},
                      {"FalseFilter"}), id="test 1"),
    pytest.param([TrueFilter(), MapScore("EqualPrioritizerPlugin")], N12, "ignore", [],
                 Want(nodes={"node1", "node2"}), id="test 2"),
    pytest.param([MatchFilter()], N12, "node2", [], Want(nodes={"node2"}, evaluated=2), id="test 3"),
    pytest.param([TrueFilter(), MapScore("NumericMap")], N321, "ignore", [], Want(nodes={"3"}),
                 id="test 4"),
    pytest.param([MatchFilter(), MapScore("NumericMap")], N321, "2", [], Want(nodes={"2"}),
                 id="test 5"),
    pytest.param([TrueFilter(), MapScore("NumericMap"), (MapScore("ReverseNumericMap"), 2)], N321,
                 "2", [], Want(nodes={"1"}), id="test 6"),
    pytest.param([TrueFilter(), FalseFilter(), MapScore("NumericMap")], N321, "2", [],
                 _fit(3, {n: (UN, FAKE, "FalseFilter") for n in N321}, {"FalseFilter"}),
                 id="test 7"),
    pytest.param([NoPodsFilter(), MatchFilter(), MapScore("NumericMap")], ["1", "2"], "2",
                 [make_pod("2", "default").node("2").build()],
                 _fit(2, {"1": (UN, FAKE, "MatchFilter"), "2": (UN, FAKE, "NoPodsFilter")},
                      {"MatchFilter", "NoPodsFilter"}), id="test 8"),
    pytest.param([TrueFilter(), MapScore("FalseMap"), (MapScore("TrueMap"), 2)], ["2", "1"], "2", [],
                 Want(error='running Score plugins: plugin "FalseMap" failed with: '
                            "priority map encounters an error"),
                 id="test error with priority map"),
    pytest.param([_fake({"3": UN}), MapScore("NumericMap")], ["3"], "test-filter", [],
                 _fit(1, {"3": (UN, INJ, "FakeFilter")}, {"FakeFilter"}),
                 id="test with filter plugin returning Unschedulable status"),
    pytest.param([_fake({"3": UAU}), MapScore("NumericMap")], ["3"], "test-filter", [],
                 _fit(1, {"3": (UAU, INJ, "FakeFilter")}, {"FakeFilter"}),
                 id="test with filter plugin returning UnschedulableAndUnresolvable status"),
    pytest.param([_fake({"1": UN}), MapScore("NumericMap")], ["1", "2"], "test-filter", [],
                 Want(evaluated=2), id="test with partial failed filter plugin"),
    pytest.param([FakePreFilter("FakePreFilter", None, Status(UAU, ("injected unschedulable status",)))],
                 N12, "test-prefilter", [],
                 _fit(2, {}, {"FakePreFilter"},
                      (UAU, ("injected unschedulable status",), "FakePreFilter"),
                      "injected unschedulable status"),
                 id="test prefilter plugin returning Unschedulable status"),
    pytest.param([FakePreFilter("FakePreFilter", None, Status(ERR, ("injected error status",)))],
                 N12, "test-prefilter", [],
                 Want(error='running PreFilter plugin "FakePreFilter": injected error status'),
                 id="test prefilter plugin returning error status"),
    pytest.param([FakePreFilter("FakePreFilter1"),
                  FakePreFilter("FakePreFilter2", PreFilterResult(frozenset({"node2"}))),
                  FakePreFilter("FakePreFilter3", PreFilterResult(frozenset({"node1", "node2"})))],
                 N123, "test-prefilter", [], Want(nodes={"node2"}, evaluated=1),
                 id="test prefilter plugin returning node"),
    pytest.param([FakePreFilter("FakePreFilter1"),
                  FakePreFilter("FakePreFilter2", PreFilterResult(frozenset({"node2"}))),
                  FakePreFilter("FakePreFilter3", PreFilterResult(frozenset({"node1"})))],
                 N123, "test-prefilter", [],
                 _fit(3, {}, {"FakePreFilter2", "FakePreFilter3"},
                      (UAU, ("node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] "
                             "simultaneously",), ""),
                      "node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously"),
                 id="test prefilter plugin returning non-intersecting nodes"),
    pytest.param([FakePreFilter("FakePreFilter1"),
                  FakePreFilter("FakePreFilter2", PreFilterResult(frozenset()))],
                 ["node1"], "test-prefilter", [],
                 _fit(1, {}, {"FakePreFilter2"},
                      (UAU, ("node(s) didn't satisfy plugin FakePreFilter2",), ""),
                      "node(s) didn't satisfy plugin FakePreFilter2"),
                 id="test prefilter plugin returning empty node set"),
    pytest.param([FakePreFilter("FakePreFilter", PreFilterResult(frozenset({"node2"}))),
                  _fake({"node2": UN})],
                 N12, "test-prefilter", [],
                 _fit(2, {"node2": (UN, INJ_PRE, "FakeFilter")}, {"FakePreFilter", "FakeFilter"},
                      (UAU, ("node(s) didn't satisfy plugin(s) [FakePreFilter]",), "")),
                 id="test some nodes are filtered out by prefilter plugin and other are filtered "
                    "out by filter plugin"),
    pytest.param([FakePreFilter("FakePreFilter1"), FakeFilter({"node1": UN}, "FakeFilter1"),
                  FakePreFilterAndFilter({n: ERR for n in N123}, "FakeFilter2", status=Status(SKIP)),
                  MapScore("EqualPrioritizerPlugin")],
                 N123, "test-prefilter", [], Want(nodes={"node2", "node3"}, evaluated=3),
                 id="test prefilter plugin returning skip"),
    pytest.param([TrueFilter(), FakePreScoreAndScore(
        "FakePreScoreAndScorePlugin", 0, Status(SKIP, ("fake skip",)),
        Status(ERR, ("this score function shouldn't be executed because this plugin returned "
                     "Skip in the PreScore",)))],
                 N12, "ignore", [], Want(nodes={"node1", "node2"}), id="test all prescore plugins return skip"),
    pytest.param([TrueFilter()], N123, "pod1", [], Want(nodes=set(N123), evaluated=1),
                 id="test without score plugin no extra nodes are evaluated"),
    pytest.param([FakePreFilter("FakePreFilter", PreFilterResult(frozenset({"node1", "node2"})))],
                 N123, "test-prefilter", [], Want(nodes={"node1", "node2"}, evaluated=1),
                 id="test no score plugin, prefilter plugin returning 2 nodes"),
    pytest.param([FakePreFilter("FakePreFilter", PreFilterResult(frozenset({"invalid-node"}))),
                  TrueFilter()],
                 N12, "test-prefilter", [],
                 _fit(2, {}, {"FakePreFilter"},
                      (UAU, ("node(s) didn't satisfy plugin(s) [FakePreFilter]",), "")),
                 id="test prefilter plugin returned an invalid node"),
]


def _triple(s: Status) -> tuple[Code, tuple[str, ...], str]:
    return s.code, s.reasons, s.plugin


@pytest.mark.parametrize(("plugins", "nodes", "pod_name", "pods", "want"), SCHEDULE_POD_ROWS)
def test_scheduler_schedule_pod(
    plugins: list[Plugin], nodes: list[str], pod_name: str, pods: list[dict[str, object]], want: Want
) -> None:
    sched = scheduler(plugins, nodes, pods)
    pod = make_pod(pod_name, "default").build()
    result = sched.schedule_pod(CycleState(), pod)
    if want.error:
        assert result.status.code is ERR
        assert result.status.message() == want.error
        return
    if want.fit_error:
        fit = result.fit_error
        assert fit is not None, result
        assert fit.num_all_nodes == want.num_all
        d = fit.diagnosis
        got = {n: _triple(s) for n, s in d.node_to_status.statuses.items()}
        assert got == want.statuses
        assert _triple(d.node_to_status.absent) == want.absent
        assert d.unschedulable_plugins == want.plugins
        assert d.pre_filter_msg == want.pre_filter_msg
        return
    assert result.status.is_success(), result.status
    if want.nodes is not None:
        assert result.node_name in want.nodes
    assert result.evaluated_nodes == (len(nodes) if want.evaluated is None else want.evaluated)


def _spread_pod(name: str, node: str = "", max_skew: int = 1) -> dict[str, Any]:
    builder = make_pod(name, "default").label("foo", "")
    pod = (builder.node(node) if node else builder).build()
    if not node:
        pod["spec"]["topologySpreadConstraints"] = [{
            "maxSkew": max_skew, "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}}]
    else:
        pod["status"] = {"phase": "Running"}
    return pod


@pytest.mark.parametrize(
    ("nodes", "max_skew", "existing", "equal_prioritizer", "want"),
    [
        pytest.param(N12, 1, [("pod1", "node1")], False, {"node2"},
                     id="test podtopologyspread plugin - 2 nodes with maxskew=1"),
        pytest.param(N123, 2, [("pod1a", "node1"), ("pod1b", "node1"), ("pod2", "node2")], True,
                     {"node2", "node3"}, id="test podtopologyspread plugin - 3 nodes with maxskew=2"),
    ],
)
def test_scheduler_schedule_pod_topology_spread(
    nodes: list[str], max_skew: int, existing: list[tuple[str, str]], equal_prioritizer: bool,
    want: set[str],
) -> None:
    """The PodTopologySpread rows. Upstream enables the plugin at PreFilter and Filter only;
    the reference enables it at every point, so its Score runs too: List defaulting (no
    default constraints) keeps that to the pod's own (DoNotSchedule only: none)."""
    cache = cache_of(nodes, [_spread_pod(n, node) for n, node in existing])
    args = PodTopologySpreadArgs(defaulting_type="List")
    registry: dict[str, Any] = {
        queue_sort.NAME: queue_sort.new,
        pod_topology_spread.NAME: lambda _a, h, f: pod_topology_spread.new(args, h, f),
    }
    configs = [PluginConfig(queue_sort.NAME), PluginConfig(pod_topology_spread.NAME)]
    if equal_prioritizer:
        registry["EqualPrioritizerPlugin"] = lambda *_: MapScore("EqualPrioritizerPlugin")
        configs.append(PluginConfig("EqualPrioritizerPlugin"))
    fw = Framework(Profile(plugins=tuple(configs)), registry, cast(Any, None), cache, SchedulerFeatures())
    sched = PodScheduler(fw, cache, Rng(0))
    result = sched.schedule_pod(CycleState(), _spread_pod("p", max_skew=max_skew))
    assert result.status.is_success(), result
    assert result.node_name in want
    assert result.evaluated_nodes == len(nodes)


def test_find_fit_all_error() -> None:
    sched = scheduler([TrueFilter(), MatchFilter()], N321)
    result = sched.schedule_pod(CycleState(), make_pod("p", "default").build())
    assert result.fit_error is not None
    d = result.fit_error.diagnosis
    assert {n: _triple(s) for n, s in d.node_to_status.statuses.items()} == {
        n: (UN, FAKE, "MatchFilter") for n in N321}
    assert _triple(d.node_to_status.absent) == (UAU, (), "")
    assert d.unschedulable_plugins == {"MatchFilter"}


def test_find_fit_some_error() -> None:
    """Upstream has no score plugin here and still sees both rejections: its 16 workers
    filter all 3 nodes at once. The sequential reference stops at the first feasible node
    without scoring, so a score plugin makes it visit every node, as upstream did."""
    sched = scheduler([TrueFilter(), MatchFilter(), MapScore("EqualPrioritizerPlugin")], N321)
    diagnosis = Diagnosis()
    feasible, status = sched._find_nodes_that_fit(
        CycleState(), make_pod("1", "default").build(), sched._cache.node_infos(), diagnosis)
    assert status.is_success() and [ni.name for ni in feasible] == ["1"]
    assert len(diagnosis.node_to_status) == 2
    assert diagnosis.unschedulable_plugins == {"MatchFilter"}
    for name in ("2", "3"):
        assert diagnosis.node_to_status.get(name).reasons == FAKE


@pytest.mark.parametrize(
    ("priority", "want_calls"),
    [
        pytest.param(1000, 1, id="nominated pods have lower priority, predicate is called once"),
        pytest.param(10, 2, id="nominated pods have higher priority, predicate is called twice"),
    ],
)
def test_find_fit_predicate_call_counts(priority: int, want_calls: int) -> None:
    """A node with a nominated pod of at least the pod's priority is filtered twice (with
    and without that pod); one of lower priority is ignored."""
    plugin = FakeFilter(plugin_name="FakeFilter")
    sched = scheduler([plugin], ["1"])
    nominator = Nominator(cast(Any, None))
    nominated = make_pod("nominated", "default").build()
    nominated["spec"]["priority"] = 100
    nominated["status"] = {"nominatedNodeName": "1"}
    nominator._track(nominated, deleted=False)
    sched.nominator = nominator
    pod = make_pod("1", "default").build()
    pod["spec"]["priority"] = priority
    feasible, status = sched._find_nodes_that_fit(CycleState(), pod, sched._cache.node_infos(), Diagnosis())
    assert status.is_success() and [ni.name for ni in feasible] == ["1"]
    assert plugin.calls == want_calls


def test_fair_evaluation_for_nodes() -> None:
    """Every pass visits the next ``nodesToFind`` nodes, wrapping around."""
    n = 500
    sched = scheduler([TrueFilter(), MapScore("EqualPrioritizerPlugin")], [str(i) for i in range(n)],
                      percentage=30)
    to_find = num_feasible_nodes_to_find(30, n)
    for i in range(2 * (n // to_find + 1)):
        feasible, status = sched._find_nodes_that_fit(
            CycleState(), make_pod("p", "default").build(), sched._cache.node_infos(), Diagnosis())
        assert status.is_success() and len(feasible) == to_find
        assert sched.next_start_node_index == (i + 1) * to_find % n


def test_next_start_node_index_advances_without_filter_plugins() -> None:
    """``findNodesThatFitPod`` moves nextStartNodeIndex past the nodes it took even when the
    profile has no Filter plugin (200 nodes: 100 are taken per pass)."""
    sched = scheduler([MapScore("EqualPrioritizerPlugin")], [f"n{i:03}" for i in range(200)])
    for want_start, want_next in ((0, 100), (100, 0)):
        feasible, _ = sched._find_nodes_that_fit(
            CycleState(), make_pod("p", "default").build(), sched._cache.node_infos(), Diagnosis())
        assert len(feasible) == 100 and feasible[0].name == f"n{want_start:03}"
        assert sched.next_start_node_index == want_next


def test_next_start_node_index_counts_all_nodes_when_pre_filter_narrows() -> None:
    """``findNodesThatFitPod``: nextStartNodeIndex advances by the processed nodes modulo
    all the cycle's nodes, not the PreFilter-narrowed candidates."""
    narrow = FakePreFilter("FakePreFilter", PreFilterResult(frozenset({"node2", "node3"})))
    sched = scheduler([narrow, TrueFilter(), MapScore("EqualPrioritizerPlugin")], N123)
    feasible, _ = sched._find_nodes_that_fit(
        CycleState(), make_pod("p", "default").build(), sched._cache.node_infos(), Diagnosis())
    assert [ni.name for ni in feasible] == ["node2", "node3"]
    assert sched.next_start_node_index == 2  # (0 + 2) % 3


# -- Test_prioritizeNodes --------------------------------------------------------------

MB = 1024 * 1024
IMAGES_1 = [(["gcr.io/40:latest", "gcr.io/40:v1"], 80 * MB), (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB)]
IMAGES_2 = [(["gcr.io/300:latest"], 300 * MB), (["gcr.io/40:latest", "gcr.io/40:v1"], 80 * MB)]
IMAGES_3 = [(["gcr.io/600:latest"], 600 * MB), (["gcr.io/40:latest"], 80 * MB),
            (["gcr.io/900:latest"], 900 * MB)]


def _prio_node(name: str, images: list[tuple[list[str], int]]) -> dict[str, Any]:
    """``makeNode(name, 1000, DefaultMemoryRequest*10, images...)``."""
    node = make_node(name).build()
    alloc = {"cpu": "1000m", "memory": str(200 * MB * 10), "pods": "100"}
    node["status"] = {"capacity": dict(alloc), "allocatable": dict(alloc),
                      "images": [{"names": n, "sizeBytes": size} for n, size in images]}
    return node


class Node2Prioritizer:
    """``node2PrioritizerPlugin``: 100 for node2, 10 elsewhere."""

    def name(self) -> str:
        return "Node2Prioritizer"

    def score(self, state: CycleState, pod: dict[str, Any], node_info: NodeInfo) -> tuple[int, Status]:
        return (100 if node_info.name == "node2" else 10), Status()

    def score_extensions(self) -> None:
        return None


SKIPPING = FakePreScoreAndScore(
    "FakePreScoreAndScorePlugin", 0, Status(SKIP, ("fake skip",)),
    Status(ERR, ("this score function shouldn't be executed because this plugin returned Skip "
                 "in the PreScore",)))


@pytest.mark.parametrize(
    ("builtin", "fakes", "image", "images", "want"),
    [
        pytest.param([balanced_allocation], [Node2Prioritizer()], "", [[], []], [10, 100],
                     id="the score from all plugins should be recorded in PluginToNodeScores"),
        pytest.param([balanced_allocation], [Node2Prioritizer(), SKIPPING], "", [[], []], [10, 100],
                     id="plugin which returned skip in preScore shouldn't be executed in the score phase"),
        pytest.param([], [SKIPPING], "", [[], []], [0, 0], id="all score plugins are skipped"),
        pytest.param([image_locality], [], "gcr.io/40", [IMAGES_1, IMAGES_2, IMAGES_3], [5, 5, 5],
                     id="the score from Image Locality plugin with image in all nodes"),
        pytest.param([image_locality], [], "gcr.io/300", [IMAGES_1, IMAGES_2, IMAGES_3], [18, 18, 0],
                     id="the score from Image Locality plugin with image in partial nodes"),
    ],
)
def test_prioritize_nodes(
    builtin: list[Any], fakes: list[Plugin], image: str, images: list[list[tuple[list[str], int]]],
    want: list[int],
) -> None:
    cache = SchedulerCache()
    for i, imgs in enumerate(images):
        cache.add_node(_prio_node(f"node{i + 1}", imgs))
    registry: dict[str, Any] = {queue_sort.NAME: queue_sort.new}
    configs = [PluginConfig(queue_sort.NAME)]
    for mod in builtin:
        registry[mod.NAME] = mod.new
        configs.append(PluginConfig(mod.NAME))
    for pl in fakes:
        registry[pl.name()] = (lambda p: lambda *_: p)(pl)
        configs.append(PluginConfig(pl.name()))
    fw = Framework(Profile(plugins=tuple(configs)), registry, cast(Any, None), cache, SchedulerFeatures())
    pod = make_pod("p", "default").build()
    if image:
        pod["spec"]["containers"][0]["image"] = image
    state = CycleState()
    nodes = list(cache.node_infos())
    assert fw.run_pre_score_plugins(state, pod, nodes).is_success()
    totals, status = fw.run_score_plugins(state, pod, nodes)
    assert status.is_success(), status
    assert totals == want


# -- TestFitError_Error ----------------------------------------------------------------

PF = "Node(s) failed PreFilter plugin FalsePreFilter"
F1, F2 = "Node(s) failed Filter plugin FalseFilter-1", "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"


@pytest.mark.parametrize(
    ("num_all", "pre", "reasons", "post", "want"),
    [
        pytest.param(3, PF, [PF, PF, PF], "",
                     "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.",
                     id="nodes failed Prefilter plugin"),
        pytest.param(3, PF, [PF, PF, PF], POST,
                     f"0/3 nodes are available: {PF}. {POST}",
                     id="nodes failed Prefilter plugin and the preemption also failed"),
        pytest.param(3, "", [F1, F1, F1], "", f"0/3 nodes are available: 3 {F1}.",
                     id="nodes failed one Filter plugin with an empty PostFilterMsg"),
        pytest.param(3, "", [F1, F1, F1], POST, f"0/3 nodes are available: 3 {F1}. {POST}",
                     id="nodes failed one Filter plugin with a non-empty PostFilterMsg"),
        pytest.param(3, "", [F1, F1, F2], "", f"0/3 nodes are available: 1 {F2}, 2 {F1}.",
                     id="nodes failed two Filter plugins with an empty PostFilterMsg"),
        pytest.param(3, "", [F1, F1, F2], POST, f"0/3 nodes are available: 1 {F2}, 2 {F1}. {POST}",
                     id="nodes failed two Filter plugins with a non-empty PostFilterMsg"),
        pytest.param(1, "", ["Node failed Permit plugin Permit-1"], "",
                     "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
                     id="failed to Permit on node"),
        pytest.param(1, "", ["Node failed Reserve plugin Reserve-1"], "",
                     "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
                     id="failed to Reserve on node"),
    ],
)
def test_fit_error_error(num_all: int, pre: str, reasons: list[str], post: str, want: str) -> None:
    statuses = {f"node{i + 1}": Status(UN, (r,)) for i, r in enumerate(reasons)}
    d = Diagnosis(NodeToStatus(statuses), pre_filter_msg=pre, post_filter_msg=post)
    assert FitError(num_all, d).message() == want

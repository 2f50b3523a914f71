"""More of upstream's framework runtime tables (pkg/scheduler/framework/runtime/
framework_test.go) against the reference Framework; test_upstream_core_framework.py has
the first nine.

Ported: ``TestInitFrameworkWithScorePlugins``, ``TestNewFrameworkErrors``,
``TestPreEnqueuePlugins``, ``TestRunRawScorePlugins``, ``TestNormalizeScores``,
``TestPreBindPlugins``, ``TestWaitOnPermit``, ``TestRunPlacementFeasiblePlugins``,
``TestRunPlacementGeneratePlugins``, ``TestFilterPluginsWithNominatedPods`` (through the
Nominator's "with nominated pods" pass).

``TestNewFrameworkMultiPointExpansion`` is in test_upstream_framework_multipoint.py.

Not ported, as the reference does not model them: per-extension-point plugin sets
(``TestNewFramework_PlacementFeasible``: a reference profile is a multi-point list), the PreFilter AddPod/RemovePod extensions
(``TestPreFilterPlugins``, ``TestRunPreFilterExtensionAddPod``/``RemovePod`` and one
nominated-pods row: ``Framework.refreshed`` recomputes PreFilter state instead), the PodGroupPostFilter runner (``TestPodGroupPostFilterPlugins``,
``TestRunPodGroupPostFilterPlugins``: part of workload_cycle), PreBind pre-flight groups,
metrics and ``Close``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from upstream_core_fakes import Entry, cache_of, framework

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Duration, SimClock, seconds
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    NodeScore,
    ScoreExtensions,
    Status,
)
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupInfo,
    run_placement_feasible_plugins,
    run_placement_generate_plugins,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.sorted_nodes import NodePluginScores, PluginScore
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.framework.waiting_pods import WaitingPod
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.plugins import queue_sort
from reference_impl.scheduler.profile import PluginConfig, Profile

Obj = dict[str, Any]
S, ERR, UN, UAU, SKIP, WAIT = (Code.SUCCESS, Code.ERROR, Code.UNSCHEDULABLE,
                               Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.SKIP, Code.WAIT)
INJECT = "injected status"
POD = make_pod("pod", "default").build()
P1, N1, N2 = "score-plugin-1", "score-with-normalize-plugin-1", "score-with-normalize-plugin-2"
WEIGHTS = {P1: 1, N1: 1, N2: 2}  # defaultWeights


def _fw(*plugins: Any) -> Framework:
    return framework(plugins, cache_of([]))


@dataclass
class ScorePlug:
    """``TestScorePlugin`` (no NormalizeScore) / ``TestScoreWithNormalizePlugin`` (sets
    every score to ``normalize_res``) with their injected results."""

    plugin_name: str
    score_res: int = 0
    normalize_res: int | None = None  # None: a plain Score plugin
    score_code: Code = S
    normalize_code: Code = S

    def name(self) -> str:
        return self.plugin_name

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        if self.score_code is not S:
            return 0, Status(self.score_code, ("injecting failure.",))
        return self.score_res, OK

    def score_extensions(self) -> ScoreExtensions | None:
        return self if self.normalize_res is not None else None

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        if self.normalize_code is not S:
            return Status(self.normalize_code, ("injecting failure.",))
        for s in scores:
            s.score = self.normalize_res or 0
        return OK


def _scored(*plugins: ScorePlug) -> list[Entry]:
    """``buildScoreConfigDefaultWeights``."""
    return [(p, WEIGHTS[p.plugin_name]) for p in plugins]


@dataclass
class NotScore:
    """``PluginNotImplementingScore``."""

    def name(self) -> str:
        return "plugin-not-implementing-score"


# -- TestInitFrameworkWithScorePlugins / TestNewFrameworkErrors -------------------------


@pytest.mark.parametrize(
    ("plugins", "init_err"),
    [
        pytest.param(["notExist"], True, id="enabled Score plugin doesn't exist in registry"),
        pytest.param([NotScore()], True, id="enabled Score plugin doesn't extend the ScorePlugin "
                                            "interface",
                     marks=pytest.mark.skip(reason="no per-extension-point sets: a multi-point "
                                                   "plugin is used where it fits")),
        pytest.param([], False, id="Score plugins are nil"),
        pytest.param([], False, id="enabled Score plugin list is empty"),
        pytest.param([ScorePlug(P1)], False, id="enabled plugin only implements ScorePlugin interface"),
        pytest.param([ScorePlug(N1, normalize_res=0)], False,
                     id="enabled plugin implements ScoreWithNormalizePlugin interface"),
    ],
)
def test_init_framework_with_score_plugins(plugins: list[Any], init_err: bool) -> None:
    if init_err:
        profile = Profile(plugins=(PluginConfig(queue_sort.NAME), PluginConfig("notExist")))
        with pytest.raises(ValueError, match="notExist"):
            Framework(profile, {queue_sort.NAME: queue_sort.new}, cast(Any, None), cache_of([]),
                      SchedulerFeatures())
        return
    fw = _fw(*_scored(*plugins))
    assert [p.name() for p in fw.score] == [p.name() for p in plugins]


@dataclass
class PreFilterPl:
    plugin_name: str

    def name(self) -> str:
        return self.plugin_name

    def pre_filter(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> tuple[None, Status]:
        return None, OK


@dataclass
class GeneratePl:
    """``TestPlacementGeneratePlugin`` with injected placements and status."""

    plugin_name: str
    placements: list[Placement] | None = None
    code: Code = S

    def name(self) -> str:
        return self.plugin_name

    def generate_placements(self, group: PodGroupInfo, parent: Placement) -> tuple[list[Placement], Status]:
        if self.code is not S:
            return [], Status(self.code, (INJECT,))
        return list(self.placements or ()), OK


@pytest.mark.parametrize(
    ("plugins", "want_err"),
    [
        pytest.param([PreFilterPl("duplicate-plugin"), PreFilterPl("duplicate-plugin")],
                     "already registered", id="duplicate plugin name"),
        pytest.param([], "repeated config for plugin", id="duplicate plugin config",
                     marks=pytest.mark.skip(reason="a reference PluginConfig carries its args: one "
                                                   "config per plugin by construction")),
        pytest.param([GeneratePl("test-plugin"), GeneratePl("placement-generate-plugin")],
                     "at most one placement generate plugin is allowed",
                     id="more than one PlacementGeneratePlugin"),
    ],
)
def test_new_framework_errors(plugins: list[Any], want_err: str) -> None:
    with pytest.raises(ValueError, match=want_err):
        _fw(*plugins)


# -- TestPreEnqueuePlugins ------------------------------------------------------------


@dataclass
class PreEnqueuePl:
    """``TestPreEnqueuePlugin``."""

    def name(self) -> str:
        return "preEnqueue-plugin"

    def pre_enqueue(self, pod: Obj) -> Status:
        return OK


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param([], [], id="no PreEnqueuePlugin registered"),
        pytest.param([PreEnqueuePl()], ["preEnqueue-plugin"], id="one PreEnqueuePlugin registered"),
    ],
)
def test_pre_enqueue_plugins(plugins: list[PreEnqueuePl], want: list[str]) -> None:
    fw = _fw(*plugins)
    assert [p.name() for p in fw.pre_enqueue] == want
    assert fw.run_pre_enqueue_plugins(POD) is OK


# -- TestRunRawScorePlugins / TestNormalizeScores -------------------------------------

NODE = NodeInfo("node1", make_node("node1").build())


@pytest.mark.parametrize(
    ("plugins", "skipped", "want", "err"),
    [
        pytest.param([], "", [], False, id="no score plugins"),
        pytest.param([ScorePlug(P1, 5)], "", [(P1, 5)], False,
                     id="single plugin returns raw score without weighting"),
        pytest.param([ScorePlug(N1, 7, 99)], "", [(N1, 7)], False,
                     id="NormalizeScore is not run, only raw Score is returned"),
        pytest.param([ScorePlug(P1, 3), ScorePlug(N1, 4, 99)], "", [(P1, 3), (N1, 4)], False,
                     id="multiple plugins, scores are not weighted"),
        pytest.param([ScorePlug(P1, score_code=ERR)], "", [], True, id="score fails"),
        pytest.param([ScorePlug(P1, 2), ScorePlug(N1, 0, 0, score_code=ERR)], N1, [(P1, 2)], False,
                     id="skipped plugin is excluded from results"),
        pytest.param([ScorePlug(P1)], P1, [], False, id="all plugins skipped"),
    ],
)
def test_run_raw_score_plugins(plugins: list[ScorePlug], skipped: str, want: list[PluginScore],
                               err: bool) -> None:
    fw = _fw(*_scored(*plugins))
    state = CycleState()
    if skipped:
        state.skip_score_plugins = {skipped}
    got, status = fw.run_raw_score_plugins(state, POD, NODE)
    if err:
        assert not status.is_success()
        assert status.message() == f'plugin "{P1}" failed with: injecting failure.'
        return
    assert status.is_success()
    assert got == want


def _nps(name: str, raw: list[PluginScore]) -> NodePluginScores:
    return NodePluginScores(name, list(raw))


@pytest.mark.parametrize(
    ("plugins", "skipped", "inputs", "want", "err"),
    [
        pytest.param([ScorePlug(P1)], "", [_nps("node1", [(P1, 5)])],
                     [("node1", [(P1, 5)], 5)], False, id="single plugin without NormalizeScore"),
        pytest.param([ScorePlug(N1, 7, 20)], "", [_nps("node1", [(N1, 7)])],
                     [("node1", [(N1, 20)], 20)], False, id="NormalizeScore overrides raw score"),
        pytest.param([ScorePlug(N2, 0, 10)], "", [_nps("node1", [(N2, 5)])],
                     [("node1", [(N2, 20)], 20)], False, id="weight is applied to normalized score"),
        pytest.param([ScorePlug(P1), ScorePlug(N1, 0, 8)], "",
                     [_nps("node1", [(P1, 3), (N1, 7)]), _nps("node2", [(P1, 5), (N1, 2)])],
                     [("node1", [(P1, 3), (N1, 8)], 11), ("node2", [(P1, 5), (N1, 8)], 13)], False,
                     id="multiple plugins across multiple nodes"),
        pytest.param([ScorePlug(P1)], P1, [_nps("node1", [(P1, 5)])], [("node1", [], 0)], False,
                     id="no active plugins zeroes scores and TotalScore"),
        pytest.param([ScorePlug(P1)], "", [_nps("node1", [(P1, 5), ("unknown-plugin", 99)])],
                     [("node1", [(P1, 5)], 5)], False,
                     id="unknown plugin name in RawScores is ignored"),
        pytest.param([ScorePlug(N1, 0, 0, normalize_code=ERR)], "", [_nps("node1", [(N1, 3)])], [],
                     True, id="normalize fails"),
    ],
)
def test_normalize_scores(plugins: list[ScorePlug], skipped: str, inputs: list[NodePluginScores],
                          want: list[tuple[str, list[PluginScore], int]], err: bool) -> None:
    fw = _fw(*_scored(*plugins))
    state = CycleState()
    if skipped:
        state.skip_score_plugins = {skipped}
    raws = [list(n.raw_scores) for n in inputs]
    status = fw.normalize_scores(state, POD, inputs)
    if err:
        assert not status.is_success()
        assert status.message() == (
            f'running Normalize on Score plugins: plugin "{N1}" failed with: injecting failure.')
        return
    assert status.is_success()
    assert [(n.name, n.scores, n.total_score) for n in inputs] == want
    assert [n.raw_scores for n in inputs] == raws  # RawScores are kept as given


# -- TestPreBindPlugins ---------------------------------------------------------------


@dataclass
class PreBindPl:
    plugin_name: str
    code: Code = S
    calls: int = 0

    def name(self) -> str:
        return self.plugin_name

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        self.calls += 1
        return Status(self.code, (INJECT,))


def _err(plugin: str) -> Status:
    return Status(ERR, (f'running PreBind plugin "{plugin}": {INJECT}',))


@pytest.mark.parametrize(
    ("codes", "want"),
    [
        pytest.param([], None, id="NoPreBindPlugin"),
        pytest.param([S], None, id="SuccessPreBindPlugins"),
        pytest.param([UN], Status(UN, (INJECT,), "TestPlugin"), id="UnschedulablePreBindPlugin"),
        pytest.param([ERR], _err("TestPlugin"), id="ErrorPreBindPlugin"),
        pytest.param([UAU], Status(UAU, (INJECT,), "TestPlugin"),
                     # upstream repeats "UnschedulablePreBindPlugin" for this row
                     id="UnschedulableAndUnresolvablePreBindPlugin"),
        pytest.param([S, ERR], _err("TestPlugin 1"), id="SuccessErrorPreBindPlugins"),
        pytest.param([ERR, S], _err("TestPlugin"), id="ErrorSuccessPreBindPlugin"),
        pytest.param([S, S], None, id="SuccessSuccessPreBindPlugin"),
        pytest.param([ERR, ERR], _err("TestPlugin"), id="ErrorAndErrorPlugins"),
        pytest.param([UN, S], Status(UN, (INJECT,), "TestPlugin"),
                     id="UnschedulableAndSuccessPreBindPlugin"),
    ],
)
def test_pre_bind_plugins(codes: list[Code], want: Status | None) -> None:
    plugins = [PreBindPl("TestPlugin" + (f" {i}" if i else ""), c) for i, c in enumerate(codes)]
    status = _fw(*plugins).run_pre_bind_plugins(CycleState(), POD, "")
    if want is None:
        assert status.is_success()
    elif want.code is ERR:
        assert (status.code, status.message()) == (ERR, want.message())  # statusCmpOpts: the error
    else:
        assert (status.code, status.plugin, status.message()) == (want.code, want.plugin, want.message())


# -- TestWaitOnPermit -----------------------------------------------------------------


@dataclass
class PermitPl:
    """``TestPermitPlugin``: Wait for 10s."""

    def name(self) -> str:
        return "permit-plugin"

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status, Duration]:
        return Status(WAIT), seconds(10)


@pytest.mark.parametrize(
    ("reject", "want"),
    [
        pytest.param(True, Status(UN, ("reject message",), "permit-plugin"), id="Reject Waiting Pod"),
        pytest.param(False, OK, id="Allow Waiting Pod"),
    ],
)
def test_wait_on_permit(reject: bool, want: Status) -> None:
    fw = _fw(PermitPl())
    status, waits = fw.run_permit_plugins(CycleState(), POD, "")
    assert status.code is WAIT
    got: list[Status] = []
    key = "default/pod"
    fw.waiting_pods[key] = WaitingPod(POD, "", waits, SimClock(), got.append)  # AddWaitingPod
    waiting = fw.get_waiting_pod(key)
    assert waiting is not None
    if reject:
        waiting.reject("permit-plugin", "reject message")
    else:
        waiting.allow("permit-plugin")
    assert len(got) == 1
    assert (got[0].code, got[0].plugin, got[0].message()) == (want.code, want.plugin, want.message())


# -- TestRunPlacementFeasiblePlugins --------------------------------------------------


@dataclass
class FeasiblePl:
    """``mockPlacementFeasiblePlugin``."""

    plugin_name: str
    status: Status = OK
    called: bool = False

    def name(self) -> str:
        return self.plugin_name

    def placement_feasible(self, group: Obj, remaining: int, scheduled: int, *,
                           composite: bool = False) -> Status:
        self.called = True
        return self.status


@pytest.mark.parametrize(
    ("statuses", "want", "called"),
    [
        pytest.param([OK, OK], OK, [True, True], id="All plugins succeed"),
        pytest.param([Status(WAIT, ("wait",)), OK], Status(WAIT, ("wait",), "p1"), [True, True],
                     id="First plugin returns Wait, continues"),
        pytest.param([Status(UN, ("unschedulable",)), OK], Status(UN, ("unschedulable",), "p1"),
                     [True, False], id="First plugin returns Unschedulable, breaks"),
        pytest.param([Status(WAIT, ("wait",)), Status(UN, ("unschedulable",))],
                     Status(UN, ("unschedulable",), "p2"), [True, True],
                     id="First plugin returns Wait, second returns Unschedulable, returns "
                        "Unschedulable"),
        pytest.param([Status(WAIT, ("wait1",)), Status(WAIT, ("wait2",))],
                     Status(WAIT, ("wait2",), "p2"), [True, True],
                     id="First plugin returns Wait, second returns Wait, returns last Wait"),
        pytest.param([Status(ERR, ("error",)), OK],
                     Status(ERR, ("running PlacementFeasible plugin: error",), "p1"), [True, False],
                     id="Plugin returns Error, breaks"),
        pytest.param([Status(SKIP, ("error",)), OK],
                     Status(ERR, ("unexpected status from PlacementFeasible plugin: Skip",), "p1"),
                     [True, False], id="Plugin returns unexpected status, breaks"),
    ],
)
def test_run_placement_feasible_plugins(statuses: list[Status], want: Status, called: list[bool]) -> None:
    plugins = [FeasiblePl(f"p{i + 1}", s) for i, s in enumerate(statuses)]
    got = run_placement_feasible_plugins(plugins, {}, 0, 0)
    if want.is_success():
        assert got.is_success()
    else:
        assert (got.code, got.message()) == (want.code, want.message())
        if want.code is not ERR:
            assert got.plugin == want.plugin
    assert [p.called for p in plugins] == called


# -- TestRunPlacementGeneratePlugins --------------------------------------------------

CLUSTER = [NodeInfo(n, make_node(n).build()) for n in ("node1", "node2", "node3")]
FOO = Placement("foo", CLUSTER[:2])
BAR = Placement("bar", CLUSTER[1:])


@pytest.mark.parametrize(
    ("plugins", "want", "want_code"),
    [
        pytest.param([], [("", CLUSTER)], S,
                     id="When no plugins provided, returns a single placement with initial nodes"),
        pytest.param([GeneratePl("plugin[0]", [FOO, BAR])], [("foo", CLUSTER[:2]), ("bar", CLUSTER[1:])],
                     S, id="When one plugin provided, returns placements generated by the plugin"),
        pytest.param([GeneratePl("plugin[0]", code=ERR)], [], ERR,
                     id="When plugin fails, returns error status"),
        pytest.param([GeneratePl("plugin[0]", [])], [], UN,
                     id="When plugin returns no placements, returns unschedulable"),
    ],
)
def test_run_placement_generate_plugins(plugins: list[GeneratePl],
                                        want: list[tuple[str, list[NodeInfo]]], want_code: Code) -> None:
    fw = _fw(*plugins)  # the framework keeps them as its PlacementGenerate plugins
    got, status = run_placement_generate_plugins(fw.placement_generate, PodGroupInfo({}), CLUSTER)
    assert status.code is want_code
    assert [(p.name, list(p.nodes)) for p in got] == want



# -- TestFilterPluginsWithNominatedPods -----------------------------------------------


@dataclass
class FilterPl:
    """``TestPlugin``'s Filter with its injected code."""

    plugin_name: str
    code: Code = S
    seen: list[int] = field(default_factory=list)  # pods on the node at each call

    def name(self) -> str:
        return self.plugin_name

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        self.seen.append(len(node_info.pods))
        return Status(self.code, ("injected filter status",))


def _prio(name: str, priority: int) -> Obj:
    pod = make_pod(name, "default").build()
    return {**pod, "spec": {**pod["spec"], "priority": priority}}


LOW, HIGH = _prio("low", 0), _prio("high", 1000)


@pytest.mark.parametrize(
    ("filter_code", "pod", "nominated", "want"),
    [
        pytest.param(None, LOW, None, OK, id="node has no nominated pod"),
        pytest.param(S, LOW, HIGH, OK, id="node has a high-priority nominated pod and all filters "
                                          "succeed"),
        pytest.param(None, LOW, HIGH, OK, id="node has a high-priority nominated pod and pre "
                                             "filters fail",
                     marks=pytest.mark.skip(reason="no PreFilter AddPod extension: the reference "
                                                   "recomputes PreFilter state (Framework.refreshed)")),
        pytest.param(ERR, LOW, HIGH,
                     Status(ERR, ('running "TestPlugin2" filter plugin: injected filter status',),
                            "TestPlugin2"),
                     id="node has a high-priority nominated pod and filters fail"),
        pytest.param(S, HIGH, LOW, OK, id="node has a low-priority nominated pod and pre filters "
                                          "return unschedulable"),
    ],
)
def test_filter_plugins_with_nominated_pods(filter_code: Code | None, pod: Obj, nominated: Obj | None,
                                            want: Status) -> None:
    plugins = [] if filter_code is None else [FilterPl("TestPlugin2", filter_code)]
    fw = _fw(*plugins)
    nominator = Nominator(cast(Any, None))
    if nominated is not None:  # AddNominatedPod(ModeOverride, testNode)
        nominator._track({**nominated, "status": {"nominatedNodeName": "testNode"}}, deleted=False)
    ni = NodeInfo("testNode", make_node("testNode").build())
    ni.add_pod(PodInfo(make_pod("p", "default").node("testNode").build()))
    got = nominator.run_filters_with_nominated(fw, CycleState(), pod, ni, fw.filter)
    if want.is_success():
        assert got.is_success()
    else:
        assert (got.code, got.message(), got.plugin) == (want.code, want.message(), want.plugin)
    assert list(ni.pods) == ["default/p"]  # the nominated pod is only added for the check
    if plugins:
        # Only a nominated pod of at least the pod's priority is counted on the node.
        added = nominated is not None and nominated["spec"]["priority"] >= pod["spec"]["priority"]
        assert plugins[0].seen == [2 if added else 1]

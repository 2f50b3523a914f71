"""Upstream's framework runtime tables against the reference Framework.

Ported (pkg/scheduler/framework/runtime/framework_test.go): ``TestRunPreFilterPlugins``,
``TestRunPreScorePlugins``, ``TestRunScorePlugins`` (totals, as the reference keeps no
per-plugin breakdown), ``TestFilterPlugins``, ``TestPostFilterPlugins``,
``TestReservePlugins``, ``TestPermitPlugins``, ``TestRunBindPlugins`` (their status codes
and messages) and ``TestRunPlacementScorePlugins`` (totals).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from upstream_core_fakes import Entry, cache_of, framework

from reference_impl.api import make_pod
from reference_impl.clock import Duration, seconds
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import NodeToStatus
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    NodeScore,
    PostFilterResult,
    PreFilterResult,
    ScoreExtensions,
    Status,
)
from reference_impl.scheduler.framework.placement import run_placement_score_plugins
from reference_impl.scheduler.framework.types import NodeInfo

Obj = dict[str, object]
S, ERR, UN, UAU, SKIP, WAIT = (Code.SUCCESS, Code.ERROR, Code.UNSCHEDULABLE,
                               Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.SKIP, Code.WAIT)
INJECT = "injected status"
INJECT_FILTER = "injected filter status"
POD = make_pod("p", "default").build()


def _st(code: Code, reason: str) -> Status:
    """``fwk.NewStatus(code, reason)``: a success keeps no reason that matters here."""
    return Status(code, (reason,))


@dataclass
class TestPlugin:
    """``TestPlugin``: every extension point answers its injected code."""

    __test__ = False
    plugin_name: str
    pre_filter_code: Code = S
    pre_filter_result: PreFilterResult | None = None
    filter_code: Code = S
    post_filter_code: Code = S
    pre_score_code: Code = S
    reserve_code: Code = S
    permit_code: Code = S
    permit_timeout: Duration = Duration(0)
    bind_code: Code = S

    def name(self) -> str:
        return self.plugin_name

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        return self.pre_filter_result, _st(self.pre_filter_code, INJECT)

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        return _st(self.filter_code, INJECT_FILTER)

    def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        return None, _st(self.post_filter_code, INJECT)

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        return _st(self.pre_score_code, INJECT)

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return _st(self.reserve_code, INJECT)

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        return None

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status, Duration]:
        return _st(self.permit_code, INJECT), self.permit_timeout

    def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return _st(self.bind_code, INJECT)


def _fw(*plugins: TestPlugin | Entry) -> object:
    return framework(plugins, cache_of([]))


# -- TestRunPreFilterPlugins --------------------------------------------------------


@pytest.mark.parametrize(
    ("plugins", "want_result", "want_skipped", "want_code"),
    [
        pytest.param([TestPlugin("success1"), TestPlugin("success2")], None, set(), S,
                     id="all PreFilter returned success"),
        pytest.param([TestPlugin("success"), TestPlugin("error", ERR)], None, set(), ERR,
                     id="one PreFilter plugin returned success, but another PreFilter plugin "
                        "returned non-success"),
        pytest.param([TestPlugin("skip", SKIP), TestPlugin("error", ERR)], None, {"skip"}, ERR,
                     id="one PreFilter plugin returned skip, but another PreFilter plugin "
                        "returned non-success"),
        pytest.param([TestPlugin("skip1", SKIP), TestPlugin("skip2", SKIP), TestPlugin("skip3", SKIP)],
                     None, {"skip1", "skip2", "skip3"}, S, id="all PreFilter plugins returned skip"),
        pytest.param([TestPlugin("skip1", SKIP), TestPlugin("success1"), TestPlugin("skip2", SKIP),
                      TestPlugin("success2")], None, {"skip1", "skip2"}, S,
                     id="some PreFilter plugins returned skip"),
        pytest.param([TestPlugin("unschedulable", UN), TestPlugin("skip", SKIP)], None, {"skip"}, UN,
                     id="one PreFilter plugin returned Unschedulable, but another PreFilter "
                        "plugin should be executed"),
        pytest.param([TestPlugin("unresolvable", UAU), TestPlugin("skip", SKIP)], None, set(), UAU,
                     id="one PreFilter plugin returned UnschedulableAndUnresolvable, and all "
                        "other plugins aren't executed"),
        pytest.param([TestPlugin("reject-all-nodes", pre_filter_result=PreFilterResult(frozenset())),
                      TestPlugin("skip", SKIP)], PreFilterResult(frozenset()), set(), UAU,
                     id="all nodes are filtered out by prefilter result, but other plugins aren't "
                        "executed because we consider all nodes are filtered out by "
                        "UnschedulableAndUnresolvable"),
    ],
)
def test_run_pre_filter_plugins(
    plugins: list[TestPlugin], want_result: PreFilterResult | None, want_skipped: set[str],
    want_code: Code,
) -> None:
    fw = framework(plugins, cache_of([]))
    state = CycleState()
    result, status, _ = fw.run_pre_filter_plugins(state, POD, [])
    assert result == want_result
    assert status.code is want_code
    assert state.skip_filter_plugins == want_skipped


def test_run_pre_filter_plugins_error_message() -> None:
    fw = framework([TestPlugin("error", ERR)], cache_of([]))
    _, status, _ = fw.run_pre_filter_plugins(CycleState(), POD, [])
    assert status.message() == f'running PreFilter plugin "error": {INJECT}'
    assert status.plugin == "error"


# -- TestRunPreScorePlugins ---------------------------------------------------------


@pytest.mark.parametrize(
    ("plugins", "want_skipped", "want_code"),
    [
        pytest.param([TestPlugin("success1"), TestPlugin("success2")], set(), S,
                     id="all PreScorePlugins returned success"),
        pytest.param([TestPlugin("success"), TestPlugin("error", pre_score_code=ERR)], set(), ERR,
                     id="one PreScore plugin returned success, but another PreScore plugin "
                        "returned non-success"),
        pytest.param([TestPlugin("skip", pre_score_code=SKIP), TestPlugin("error", pre_score_code=ERR)],
                     {"skip"}, ERR, id="one PreScore plugin returned skip, but another PreScore "
                                       "plugin returned non-success"),
        pytest.param([TestPlugin(f"skip{i}", pre_score_code=SKIP) for i in (1, 2, 3)],
                     {"skip1", "skip2", "skip3"}, S, id="all PreScore plugins returned skip"),
        pytest.param([TestPlugin("skip1", pre_score_code=SKIP), TestPlugin("success1"),
                      TestPlugin("skip2", pre_score_code=SKIP), TestPlugin("success2")],
                     {"skip1", "skip2"}, S, id="some PreScore plugins returned skip"),
    ],
)
def test_run_pre_score_plugins(plugins: list[TestPlugin], want_skipped: set[str], want_code: Code) -> None:
    fw = framework(plugins, cache_of([]))
    state = CycleState()
    status = fw.run_pre_score_plugins(state, POD, [])
    assert status.code is want_code
    assert state.skip_score_plugins == want_skipped
    if want_code is ERR:
        assert status.message() == f'running PreScore plugin "error": {INJECT}'


# -- TestRunScorePlugins ------------------------------------------------------------


@dataclass
class ScorePl:
    """``TestScorePlugin`` / ``TestScoreWithNormalizePlugin`` with injected results."""

    plugin_name: str
    score_res: int = 0
    normalize_res: int | None = None  # None: no NormalizeScore (a plain score plugin)
    score_code: Code = S
    normalize_code: Code = S
    calls: list[str] = field(default_factory=list)

    def name(self) -> str:
        return self.plugin_name

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        if self.score_code is not S:
            return 0, _st(self.score_code, "injecting failure.")
        return self.score_res, OK

    def score_extensions(self) -> ScoreExtensions | None:
        return self if self.normalize_res is not None else None

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        if self.normalize_code is not S:
            return _st(self.normalize_code, "injecting failure.")
        for s in scores:
            s.score = self.normalize_res or 0
        return OK


P1, N1, N2 = "score-plugin-1", "score-with-normalize-plugin-1", "score-with-normalize-plugin-2"


@pytest.mark.parametrize(
    ("plugins", "skipped", "want", "error"),
    [
        pytest.param([], set(), [0, 0], "", id="no Score plugins"),
        pytest.param([ScorePl(P1, 1)], set(), [1, 1], "", id="single Score plugin"),
        pytest.param([ScorePl(N1, 10, 5)], set(), [5, 5], "", id="single ScoreWithNormalize plugin"),
        pytest.param([ScorePl(P1, 1), ScorePl(N1, 3, 4), (ScorePl(N2, 4, 5), 2)], set(), [15, 15], "",
                     id="3 Score plugins, 2 NormalizeScore plugins"),
        pytest.param([ScorePl(P1), ScorePl(N1, 0, 0, score_code=ERR)], set(), None,
                     f'running Score plugins: plugin "{N1}" failed with: injecting failure.',
                     id="score fails"),
        pytest.param([ScorePl(P1), ScorePl(N1, 0, 0, normalize_code=ERR)], set(), None,
                     f'running Normalize on Score plugins: plugin "{N1}" failed with: '
                     "injecting failure.", id="normalize fails"),
        pytest.param([ScorePl(P1, 101)], set(), None,
                     f'applying score defaultWeights on Score plugins: plugin "{P1}" returns an '
                     "invalid score 101, it should in the range of [0, 100] after normalizing",
                     id="Score plugin return score greater than MaxNodeScore"),
        pytest.param([ScorePl(P1, -1)], set(), None,
                     f'applying score defaultWeights on Score plugins: plugin "{P1}" returns an '
                     "invalid score -1, it should in the range of [0, 100] after normalizing",
                     id="Score plugin return score less than MinNodeScore"),
        pytest.param([ScorePl(N1, 0, 101)], set(), None,
                     f'applying score defaultWeights on Score plugins: plugin "{N1}" returns an '
                     "invalid score 101, it should in the range of [0, 100] after normalizing",
                     id="ScoreWithNormalize plugin return score greater than MaxNodeScore"),
        pytest.param([ScorePl(N1, 0, -1)], set(), None,
                     f'applying score defaultWeights on Score plugins: plugin "{N1}" returns an '
                     "invalid score -1, it should in the range of [0, 100] after normalizing",
                     id="ScoreWithNormalize plugin return score less than MinNodeScore"),
        pytest.param([(ScorePl(P1, 1), 3)], set(), [3, 3], "",
                     id="single Score plugin with MultiPointExpansion"),
        pytest.param([ScorePl(P1, 1), ScorePl(N1, 0, 0, score_code=ERR)], {N1}, [1, 1], "",
                     id="one success plugin, one skip plugin"),
        pytest.param([ScorePl(P1, 0, None, score_code=ERR)], {P1}, [0, 0], "",
                     id="all plugins are skipped in prescore"),
        pytest.param([ScorePl(P1)], {P1, "score-plugin-unknown"}, [0, 0], "",
                     id="skipped prescore plugin number greater than the number of score plugins"),
    ],
)
def test_run_score_plugins(
    plugins: list[ScorePl | tuple[ScorePl, int]], skipped: set[str], want: list[int] | None,
    error: str,
) -> None:
    fw = framework(plugins, cache_of([]))
    state = CycleState()
    state.skip_score_plugins |= skipped
    nodes = [NodeInfo("node1"), NodeInfo("node2")]
    totals, status = fw.run_score_plugins(state, POD, nodes)
    if error:
        assert status.code is ERR and status.message() == error
        return
    assert status.is_success() and totals == want


# -- TestFilterPlugins --------------------------------------------------------------


def _filter_err(name: str) -> tuple[Code, tuple[str, ...], str]:
    return ERR, (f'running "{name}" filter plugin: {INJECT_FILTER}',), name


@pytest.mark.parametrize(
    ("codes", "skipped", "want"),
    [
        pytest.param([S], set(), None, id="SuccessFilter"),
        pytest.param([ERR], set(), _filter_err("TestPlugin1"), id="ErrorFilter"),
        pytest.param([UN], set(), (UN, (INJECT_FILTER,), "TestPlugin1"), id="UnschedulableFilter"),
        pytest.param([UAU], set(), (UAU, (INJECT_FILTER,), "TestPlugin1"),
                     id="UnschedulableAndUnresolvableFilter"),
        pytest.param([ERR, ERR], set(), _filter_err("TestPlugin1"), id="ErrorAndErrorFilters"),
        pytest.param([UN, UN], set(), (UN, (INJECT_FILTER,), "TestPlugin1"),
                     id="UnschedulableAndUnschedulableFilters"),
        pytest.param([UAU, UN], set(), (UAU, (INJECT_FILTER,), "TestPlugin1"),
                     id="UnschedulableAndUnschedulableAndUnresolvableFilters"),
        pytest.param([S, S], set(), None, id="SuccessAndSuccessFilters"),
        pytest.param([S, ERR], {"TestPlugin2"}, None, id="SuccessAndSkipFilters"),
        pytest.param([ERR, S], set(), _filter_err("TestPlugin1"), id="ErrorAndSuccessFilters"),
        pytest.param([S, ERR], set(), _filter_err("TestPlugin2"), id="SuccessAndErrorFilters"),
        pytest.param([S, UN], set(), (UN, (INJECT_FILTER,), "TestPlugin2"),
                     id="SuccessAndUnschedulableFilters"),
    ],
)
def test_filter_plugins(
    codes: list[Code], skipped: set[str], want: tuple[Code, tuple[str, ...], str] | None
) -> None:
    # Upstream's single-plugin rows name it "TestPlugin"; "TestPlugin1" here, same rule.
    plugins = [TestPlugin(f"TestPlugin{i + 1}", filter_code=c) for i, c in enumerate(codes)]
    fw = framework(plugins, cache_of([]))
    state = CycleState()
    state.skip_filter_plugins |= skipped
    got = fw.run_filter_plugins(state, POD, NodeInfo("node1"), fw.active_filters(state))
    if want is None:
        assert got.is_success()
    else:
        assert (got.code, got.reasons, got.plugin) == want


# -- TestPostFilterPlugins ----------------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "want"),
    [
        pytest.param([S], (S, (INJECT,), ""), id="a single plugin makes a Pod schedulable"),
        pytest.param([UN, S], (S, (INJECT,), ""),
                     id="plugin1 failed to make a Pod schedulable, followed by plugin2 which makes "
                        "the Pod schedulable"),
        pytest.param([S, UN], (S, (INJECT,), ""),
                     id="plugin1 makes a Pod schedulable, followed by plugin2 which cannot make the "
                        "Pod schedulable"),
        pytest.param([ERR, S], (ERR, (INJECT,), "TestPlugin1"),
                     id="plugin1 failed to make a Pod schedulable, followed by plugin2 which makes "
                        "the Pod schedulable"),
        pytest.param([UN, UAU], (UAU, (INJECT,), "TestPlugin2"),
                     id="plugin1 failed to make a Pod schedulable, followed by plugin2 which makes "
                        "the Pod unresolvable"),
        pytest.param([UN, UN], (UN, (INJECT, INJECT), "TestPlugin1"),
                     id="both plugins failed to make a Pod schedulable"),
        pytest.param([UN, S], None, marks=pytest.mark.skip(
            reason="the reference's CycleState has no SkipAllPostFilterPlugins switch"),
            id="skips all post filters if state has SkipAllPostFilterPlugins"),
    ],
)
def test_post_filter_plugins(codes: list[Code], want: tuple[Code, tuple[str, ...], str]) -> None:
    plugins = [TestPlugin(f"TestPlugin{i + 1}", post_filter_code=c) for i, c in enumerate(codes)]
    fw = framework(plugins, cache_of([]))
    _, got = fw.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert (got.code, got.reasons, got.plugin) == want


# -- TestReservePlugins / TestPermitPlugins ------------------------------------------

T, T1 = "TestPlugin", "TestPlugin 1"


def _reserve_err(name: str) -> tuple[Code, str, str]:
    return ERR, f'running Reserve plugin "{name}": {INJECT}', ""


@pytest.mark.parametrize(
    ("codes", "want"),
    [
        pytest.param([], None, id="NoReservePlugin"),
        pytest.param([S], None, id="SuccessReservePlugins"),
        pytest.param([UN], (UN, INJECT, T), id="UnschedulableReservePlugin"),
        pytest.param([ERR], _reserve_err(T), id="ErrorReservePlugin"),
        pytest.param([UAU], (UAU, INJECT, T), id="UnschedulableReservePlugin"),
        pytest.param([S, S], None, id="SuccessSuccessReservePlugins"),
        pytest.param([ERR, ERR], _reserve_err(T), id="ErrorErrorReservePlugins"),
        pytest.param([S, ERR], _reserve_err(T1), id="SuccessErrorReservePlugins"),
        pytest.param([ERR, S], _reserve_err(T), id="ErrorSuccessReservePlugin"),
        pytest.param([UN, S], (UN, INJECT, T), id="UnschedulableAndSuccessReservePlugin"),
    ],
)
def test_reserve_plugins(codes: list[Code], want: tuple[Code, str, str] | None) -> None:
    plugins = [TestPlugin([T, T1][i], reserve_code=c) for i, c in enumerate(codes)]
    fw = framework(plugins, cache_of([]))
    got = fw.run_reserve_plugins_reserve(CycleState(), POD, "node1")
    if want is None:
        assert got.is_success()
    elif want[0] is ERR:  # statusCmpOpts compares errors by message only
        assert (got.code, got.message()) == want[:2]
    else:
        assert (got.code, got.message(), got.plugin) == want


def _permit_err(name: str) -> tuple[Code, str, str]:
    return ERR, f'running Permit plugin "{name}": {INJECT}', name


WAIT_MSG = f"{INJECT}, one or more plugins asked to wait and no plugin rejected pod"


@pytest.mark.parametrize(
    ("plugins", "want", "want_waits"),
    [
        pytest.param([], None, {}, id="NilPermitPlugin"),
        pytest.param([TestPlugin(T)], None, {}, id="SuccessPermitPlugin"),
        pytest.param([TestPlugin(T, permit_code=UN)], (UN, INJECT, T), {},
                     id="UnschedulablePermitPlugin"),
        pytest.param([TestPlugin(T, permit_code=ERR)], _permit_err(T), {}, id="ErrorPermitPlugin"),
        pytest.param([TestPlugin(T, permit_code=UAU)], (UAU, INJECT, T), {},
                     id="UnschedulableAndUnresolvablePermitPlugin"),
        pytest.param([TestPlugin(T, permit_code=WAIT),
                      TestPlugin("TestPlugin2", permit_code=WAIT, permit_timeout=seconds(1))],
                     (WAIT, WAIT_MSG, ""), {T: Duration(0), "TestPlugin2": seconds(1)},
                     id="WaitPermitPlugin"),
        pytest.param([TestPlugin(T), TestPlugin(T1)], None, {}, id="SuccessSuccessPermitPlugin"),
        pytest.param([TestPlugin(T, permit_code=ERR), TestPlugin(T1, permit_code=ERR)],
                     _permit_err(T), {}, id="ErrorAndErrorPlugins"),
    ],
)
def test_permit_plugins(
    plugins: list[TestPlugin], want: tuple[Code, str, str] | None, want_waits: dict[str, Duration]
) -> None:
    fw = framework(plugins, cache_of([]))
    got, waits = fw.run_permit_plugins(CycleState(), POD, "node1")
    if want is None:
        assert got.is_success()
    elif want[0] is ERR:
        assert (got.code, got.message()) == want[:2]
    else:
        assert (got.code, got.message(), got.plugin) == want
    assert waits == want_waits


def test_permit_timeout_is_capped_at_max_timeout() -> None:
    """``RunPermitPlugins``: a wait longer than ``maxTimeout`` (15 minutes) is cut to it."""
    fw = framework([TestPlugin(T, permit_code=WAIT, permit_timeout=seconds(3600))], cache_of([]))
    _, waits = fw.run_permit_plugins(CycleState(), POD, "node1")
    assert waits == {T: seconds(900)}


@pytest.mark.parametrize(
    ("codes", "want"),
    [
        pytest.param([S], S, id="simple success"),
        pytest.param([SKIP, ERR, S], ERR, id="error on second"),
        pytest.param([SKIP, SKIP, SKIP], SKIP, id="all skip"),
        pytest.param([SKIP, S, ERR], S, id="error on third, but not reached"),
        # newFrameworkWithQueueSortAndBind adds the default binder when none is configured.
        pytest.param([], S, id="no bind plugin, returns default binder"),
        pytest.param([UN], UN, id="invalid status"),
        pytest.param([ERR], ERR, id="simple error"),
        pytest.param([SKIP, S], S, id="success on second, returns success"),
        pytest.param([SKIP, UAU], UAU, id="invalid status, returns error"),
        pytest.param([S, ERR], S, id="error after success status, returns success"),
        pytest.param([S, ERR], S, id="success before invalid status, returns success"),
        pytest.param([ERR, S], ERR, id="success after error status, returns error"),
    ],
)
def test_run_bind_plugins(codes: list[Code], want: Code) -> None:
    plugins = [TestPlugin(f"bind-{i}", bind_code=c) for i, c in enumerate(codes or [S])]
    fw = framework(plugins, cache_of([]))
    got = fw.run_bind_plugins(CycleState(), POD, "node1")
    assert got.code is want
    if want is ERR:
        name = f"bind-{codes.index(ERR)}"
        assert got.message() == f'running Bind plugin "{name}": {INJECT}'


# -- TestRunPlacementScorePlugins -----------------------------------------------------


@dataclass
class PlacementPl:
    """``testPlacementScorePlugin``: a score (and status) per placement, optional normaliser."""

    plugin_name: str
    results: list[tuple[int, Code]]
    normalize: str = ""  # "", "ratio" (score / last * 100) or "error"

    def name(self) -> str:
        return self.plugin_name

    def score_placement(self, group: object, assignments: object) -> tuple[int, Status]:
        score, code = self.results[cast(int, assignments)]
        return score, (OK if code is S else _st(code, "error for test"))

    def normalize_placement_scores(self, group: object, scores: list[int]) -> Status | None:
        if self.normalize == "error":
            return _st(ERR, "error for test")
        if self.normalize == "ratio":
            for i in range(len(scores)):  # in place, as upstream's loop (scores[2] changes last)
                scores[i] = int(scores[i] / scores[2] * 100)
        return None


OK3 = [(0, S), (50, S), (100, S)]


@pytest.mark.parametrize(
    ("plugins", "want", "error"),
    [
        pytest.param([(PlacementPl("plugin1", OK3), 1), (PlacementPl("plugin2", [(0, S), (50, S), (0, S)]), 2)],
                     [0, 150, 100], "", id="all success"),
        pytest.param([(PlacementPl("plugin1", OK3), 1), (PlacementPl("plugin2", [(0, S), (50, ERR), (0, S)]), 2)],
                     None, 'running PlacementScore plugins: plugin "plugin2" failed with: error for test',
                     id="any error"),
        pytest.param([], [0, 0, 0], "", id="no plugins"),
        pytest.param([(PlacementPl("plugin1", OK3), 1),
                      (PlacementPl("plugin2", [(100, S), (200, S), (400, S)], "ratio"), 2)],
                     [50, 150, 300], "", id="normalize success"),
        pytest.param([(PlacementPl("plugin1", OK3), 1), (PlacementPl("plugin2", OK3, "error"), 2)], None,
                     'running NormalizePlacementScore on PlacementScore plugins: plugin "plugin2" '
                     "failed with: error for test", id="normalize failure"),
        pytest.param([(PlacementPl("plugin1", [(0, S), (101, S), (100, S)]), 1)], None,
                     'applying score defaultWeights on PlacementScore plugins: plugin "plugin1" '
                     "returns an invalid score 101, it should in the range of [0, 100] after "
                     "normalizing", id="plugin result is greater than max score"),
        pytest.param([(PlacementPl("plugin1", [(0, S), (-1, S), (100, S)]), 1)], None,
                     'applying score defaultWeights on PlacementScore plugins: plugin "plugin1" '
                     "returns an invalid score -1, it should in the range of [0, 100] after "
                     "normalizing", id="plugin result is less than min score"),
    ],
)
def test_run_placement_score_plugins(
    plugins: list[tuple[PlacementPl, int]], want: list[int] | None, error: str
) -> None:
    weights = {p.name(): w for p, w in plugins}
    totals, status = run_placement_score_plugins(
        [p for p, _ in plugins], weights, cast(Any, None), cast(Any, [0, 1, 2]))
    if error:
        assert status.code is ERR and status.message() == error
    else:
        assert status.is_success() and totals == want

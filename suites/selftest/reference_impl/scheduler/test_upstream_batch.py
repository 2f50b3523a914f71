"""OpportunisticBatching (KEP-5598): upstream v1.37.2 rows for the batch and its signatures.

Ports pkg/scheduler/framework/runtime/batch_test.go (TestBatchBasic, TestBatchRescore,
TestBatchRescoreChain) and pkg/scheduler/framework/sorted_nodes_test.go
(TestSortedScoredNodes_Pop, TestSortedScoredNodes_Len, TestSortedScoredNodes_List).
Upstream observes flushes through metrics; the rows here also assert the reference's
``flushes`` / ``attempts`` counters, derived from batch.go. The SignPod rows and the
end-to-end cycle rows live in test_upstream_batch_sign.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

import pytest
from upstream_core_fakes import cache_of, framework

from reference_impl.api import make_pod
from reference_impl.clock import Instant, SimClock, millis
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    NodeScore,
    ScoreExtensions,
    Status,
)
from reference_impl.scheduler.framework.opportunistic_batch import OpportunisticBatch
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.sorted_nodes import NodePluginScores, SortedScoredNodes
from reference_impl.scheduler.framework.types import NodeInfo

Obj = dict[str, Any]
BLOCKING, NON_BLOCKING = "b", "a"


def _pod(name: str, uid: str, nominated: str = "") -> Obj:
    pod = make_pod(name, "default").build()
    pod["metadata"]["uid"] = uid
    if nominated:
        pod.setdefault("status", {})["nominatedNodeName"] = nominated
    return pod


@dataclass
class BatchTestPlugin:
    """``BatchTestPlugin``: a node holds one pod whose uid starts with "b"."""

    def name(self) -> str:
        return "batchTest"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        if pod["metadata"]["uid"][0] != BLOCKING:
            return OK
        if any(p.pod["metadata"].get("uid", "")[0:1] == BLOCKING for p in node_info.pods.values()):
            return Status(Code.UNSCHEDULABLE, ("unsched",))
        return OK


@dataclass
class ConfigurableFilter:
    """``configurableFilterPlugin``."""

    filter_err: bool = False

    def name(self) -> str:
        return "configurableFilter"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        return Status(Code.ERROR, ("injected filter error",)) if self.filter_err else OK


@dataclass
class _Seen:
    names: frozenset[str]

    def clone(self) -> Self:
        return self


_SEEN: StateKey[_Seen] = StateKey("configurableScorePlugin/preScoreSeenNodes")


@dataclass
class ConfigurableScore:
    """``configurableScorePlugin``: NormalizeScore checks PreScore saw every node."""

    score_value: int = 0
    pre_score_err: bool = False
    score_err: bool = False
    norm_err: bool = False

    def name(self) -> str:
        return "configurableScore"

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        if self.pre_score_err:
            return Status(Code.ERROR, ("injected prescore error",))
        state.write(_SEEN, _Seen(frozenset(n.name for n in nodes)))
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        if self.score_err:
            return 0, Status(Code.ERROR, ("injected score error",))
        return self.score_value, OK

    def score_extensions(self) -> ScoreExtensions | None:
        return self

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        if self.norm_err:
            return Status(Code.ERROR, ("injected normalize error",))
        seen = state.try_read(_SEEN)
        if seen is None:
            return Status(Code.ERROR, ("NormalizeScore: missing PreScore state",))
        for s in scores:
            if s.name not in seen.names:
                return Status(Code.ERROR, (f"NormalizeScore called for node {s.name!r} which was not passed to PreScore",))
        return OK


def _fw(score: ConfigurableScore | None = None, filt: ConfigurableFilter | None = None,
        nodes: Sequence[str] = (), pods: Sequence[Obj] = ()) -> Framework:
    """``newBatchTestFramework`` over a cache with ``nodes`` and (assigned) ``pods``."""
    plugins: list[Any] = [BatchTestPlugin()]
    if filt is not None:
        plugins.append(filt)
    if score is not None:
        plugins.append(score)
    return framework(plugins, cache_of(nodes, pods))


def _nodes(*names: str) -> SortedScoredNodes:
    """``newTestNodes``: equal scores pop in list order."""
    return SortedScoredNodes([NodePluginScores(n) for n in names])


def _names(nodes: SortedScoredNodes) -> list[str]:
    return [nodes.pop().name for _ in range(len(nodes))]


# name, first uid, first sig, first scheduled, first chosen, first others, same cycle,
# skip pod, second uid, nominated, second sig, second chosen, generic workload,
# expected hint, expected remaining (sig, nodes) or None, expected flushes
BASIC = [
    pytest.param("b-1", "sig", True, "n3", ("n1",), False, False, "b-2", "", "sig", "n1", False,
                 "n1", None, {}, id="a second pod with the same signature gets a hint"),
    pytest.param("a-1", "sig", True, "n3", ("n1",), False, False, "a-2", "", "sig2", "n1", False,
                 "", None, {"pod_incompatible": 1, "empty_list": 1},
                 id="a second pod with a different signature doesn't get a hint"),
    pytest.param("b-1", "sig", False, "n3", ("n1",), False, False, "b-2", "", "sig", "n1", False,
                 "", None, {"empty_list": 1}, id="pod doesn't get hint if previous pod didn't scheduled"),
    pytest.param("b-1", "sig", True, "n3", (), False, False, "b-2", "", "sig", "n4", False,
                 "", None, {"empty_list": 2}, id="empty list"),
    pytest.param("b-1", "sig", True, "n3", None, False, False, "b-2", "", "sig", "n4", False,
                 "", None, {"empty_list": 2}, id="nil list"),
    pytest.param("b-1", "sig", True, "n3", ("n1",), False, True, "b-2", "", "sig", "n1", False,
                 "", None, {"pod_skipped": 1, "empty_list": 1},
                 id="pod doesn't get hint because the previous pod is to a different profile"),
    pytest.param("b-1", "sig", True, "n3", ("n1",), True, False, "b-2", "", "sig", "n1", False,
                 "", None, {"pod_skipped": 1, "empty_list": 1},
                 id="pod doesn't use batch from preceding pod when they are from the same cycle "
                    "state, but GenericWorkload is disabled"),
    pytest.param("b-1", "sig", True, "n3", ("n1",), True, False, "b-2", "", "sig", "n1", True,
                 "n1", None, {},
                 id="pod uses batch from preceding pod when they are from the same cycle state "
                    "and GenericWorkload is enabled"),
    pytest.param("b-1", "sig", True, "n3", ("n1", "n2"), False, False, "b-2", "", "sig", "n1", False,
                 "n1", ("sig", ["n2"]), {},
                 id="pod uses batch from preceding pod and leaves remaining batch to next pod"),
    pytest.param("b-1", "sig", True, "n3", ("n1",), False, False, "b-2", "n1", "sig", "n1", False,
                 "", None, {"pod_nominated": 1, "empty_list": 1},
                 id="a second pod with a nominated node does not get a hint"),
]


@pytest.mark.parametrize(
    ("first_uid", "first_sig", "first_ok", "first_chosen", "first_others", "same_cycle", "skip_pod",
     "second_uid", "nominated", "second_sig", "second_chosen", "generic", "hint", "remaining",
     "flushes"),
    BASIC,
)
def test_batch_basic(
    first_uid: str, first_sig: str, first_ok: bool, first_chosen: str,
    first_others: tuple[str, ...] | None, same_cycle: bool, skip_pod: bool, second_uid: str,
    nominated: str, second_sig: str, second_chosen: str, generic: bool, hint: str,
    remaining: tuple[str, list[str]] | None, flushes: dict[str, int],
) -> None:
    pod1 = _pod("pod", first_uid)
    # The last chosen node holds the first pod (upstream: NewNodeInfo(pod) named firstChosenNode).
    fw = _fw(nodes=[first_chosen], pods=[{**pod1, "spec": {**pod1["spec"], "nodeName": first_chosen}}])
    batch = OpportunisticBatch(fw, generic)
    state = CycleState()
    assert batch.get_node_hint(pod1, first_sig, state, 1) == ""
    if first_ok:
        others = None if first_others is None else _nodes(*first_others)
        batch.store_schedule_results(first_sig, "", first_chosen, others, 1)
    cycle = 3 if skip_pod else 1 if same_cycle else 2
    pod2 = _pod("pod2", second_uid, nominated)
    got = batch.get_node_hint(pod2, second_sig, state, cycle)
    assert got == hint
    batch.store_schedule_results(second_sig, got, second_chosen, None, cycle)
    if remaining is None:
        assert batch.state is None or not batch.state.sorted_nodes
    else:
        assert batch.state is not None
        assert batch.state.signature == remaining[0]
        assert _names(batch.state.sorted_nodes) == remaining[1]
    assert dict(batch.flushes) == flushes
    assert batch.batched_pods == (1 if hint else 0)
    assert batch.attempts["hint_used"] == (1 if hint else 0)


N1_CACHED_SCORE = 50


@pytest.mark.parametrize(
    ("score", "filter_err", "pre_score_err", "score_err", "norm_err", "chosen_missing",
     "cached_missing", "hint", "remaining", "flush"),
    [
        pytest.param(100, False, False, False, False, False, False, "n2", ["n1"], None,
                     id="rescored node wins"),
        pytest.param(10, False, False, False, False, False, False, "n1", ["n2"], None,
                     id="rescored node loses"),
        pytest.param(100, True, False, False, False, False, False, "", ["n1"], "filter_error",
                     id="filter error gives no hint"),
        pytest.param(0, False, True, False, False, False, False, "", ["n1"], "prescore_error",
                     id="prescore error gives no hint"),
        pytest.param(0, False, False, True, False, False, False, "", ["n1"], "rescore_error",
                     id="score error gives no hint"),
        pytest.param(0, False, False, False, True, False, False, "", ["n1"], "normalize_error",
                     id="normalize error gives no hint"),
        pytest.param(0, False, False, False, False, True, False, "", ["n1"], "node_missing",
                     id="chosen node missing from lister gives no hint"),
        pytest.param(100, False, False, False, False, False, True, "", ["n1"], "node_missing",
                     id="cached node missing from lister gives no hint"),
    ],
)
def test_batch_rescore(
    score: int, filter_err: bool, pre_score_err: bool, score_err: bool, norm_err: bool,
    chosen_missing: bool, cached_missing: bool, hint: str, remaining: list[str], flush: str | None,
) -> None:
    pod1 = _pod("pod1", "a-1")
    on_n2 = {**pod1, "spec": {**pod1["spec"], "nodeName": "n2"}}
    nodes = [] if chosen_missing else ["n2"] if cached_missing else ["n1", "n2"]
    fw = _fw(ConfigurableScore(score, pre_score_err, score_err, norm_err),
             ConfigurableFilter(filter_err), nodes, [] if chosen_missing else [on_n2])
    batch = OpportunisticBatch(fw, False)
    cached = SortedScoredNodes([NodePluginScores("n1", [("configurableScore", N1_CACHED_SCORE)])])
    batch.get_node_hint(pod1, "sig", CycleState(), 1)
    batch.store_schedule_results("sig", "", "n2", cached, 1)
    got = batch.get_node_hint(_pod("pod2", "a-2"), "sig", CycleState(), 2)
    assert got == hint
    assert batch.state is not None
    assert _names(batch.state.sorted_nodes) == remaining
    assert dict(batch.flushes) == ({flush: 1} if flush else {})


def test_batch_rescore_chain() -> None:
    """``TestBatchRescoreChain``: n2 rescored to 100 wins twice; n1 stays for a fourth pod."""
    pod1 = _pod("pod1", "a-1")
    fw = _fw(ConfigurableScore(100), None, ["n1", "n2"],
             [{**pod1, "spec": {**pod1["spec"], "nodeName": "n2"}}])
    batch = OpportunisticBatch(fw, False)
    others = SortedScoredNodes([NodePluginScores("n1", [("configurableScore", N1_CACHED_SCORE)])])
    batch.get_node_hint(pod1, "sig", CycleState(), 1)
    batch.store_schedule_results("sig", "", "n2", others, 1)
    hint2 = batch.get_node_hint(_pod("pod2", "a-2"), "sig", CycleState(), 2)
    assert hint2 == "n2"
    batch.store_schedule_results("sig", hint2, "n2", None, 2)
    hint3 = batch.get_node_hint(_pod("pod3", "a-3"), "sig", CycleState(), 3)
    assert hint3 == "n2"
    assert batch.state is not None and len(batch.state.sorted_nodes) == 1
    assert batch.state.sorted_nodes.pop().name == "n1"
    assert batch.batched_pods == 1


def test_batch_expires_on_the_simulated_clock() -> None:
    """``maxBatchAge``: state older than 500ms (simulated) is not used (flush "expired")."""
    clock = SimClock()
    first = _pod("p1", "b-1")
    fw = _fw(nodes=["n1", "n2", "n3"], pods=[{**first, "spec": {**first["spec"], "nodeName": "n3"}}])
    batch = OpportunisticBatch(fw, False, clock)
    batch.store_schedule_results("sig", "", "n3", _nodes("n1", "n2"), 1)
    clock.run_until(Instant(clock.now() + millis(500)))
    assert batch.get_node_hint(_pod("p", "b-2"), "sig", CycleState(), 2) == "n1"
    batch.store_schedule_results("sig", "n1", "n1", None, 2)
    clock.run_until(Instant(clock.now() + millis(1)))
    assert batch.get_node_hint(_pod("q", "b-3"), "sig", CycleState(), 3) == ""
    assert dict(batch.flushes) == {"expired": 1}


def _nps(name: str, total: int, randomizer: int = 0) -> NodePluginScores:
    return NodePluginScores(name, total_score=total, randomizer=randomizer)


@pytest.mark.parametrize(
    ("given", "want"),
    [
        pytest.param([], [], id="empty"),
        pytest.param([("node1", 5, 0)], ["node1"], id="single node"),
        pytest.param([("node1", 1, 0), ("node3", 3, 0), ("node2", 2, 0)],
                     ["node3", "node2", "node1"], id="descending by TotalScore"),
        pytest.param([("nodeA", 5, 1), ("nodeB", 5, 3), ("nodeC", 5, 2)],
                     ["nodeB", "nodeC", "nodeA"], id="tie-break by Randomizer"),
        pytest.param([("node3.1", 3, 1), ("node2", 2, 0), ("node1", 1, 0), ("node3.2", 3, 2)],
                     ["node3.2", "node3.1", "node2", "node1"], id="mixed scores and tie-breaks"),
    ],
)
def test_sorted_scored_nodes_pop(given: list[tuple[str, int, int]], want: list[str]) -> None:
    assert _names(SortedScoredNodes([_nps(*g) for g in given])) == want


def test_sorted_scored_nodes_len() -> None:
    s = SortedScoredNodes([_nps("node1", 10), _nps("node2", 20), _nps("node3", 30)])
    for want in (3, 2, 1):
        assert len(s) == want
        s.pop()
    assert len(s) == 0


@pytest.mark.parametrize(
    ("given", "pops", "want"),
    [
        pytest.param([], 0, [], id="empty"),
        pytest.param([1, 2, 3], 0, ["node1", "node2", "node3"], id="all nodes before any pops"),
        pytest.param([1, 2, 3], 1, ["node1", "node2"], id="remaining nodes after a pop"),
        pytest.param([1, 2], 2, [], id="empty after all pops"),
    ],
)
def test_sorted_scored_nodes_list(given: list[int], pops: int, want: list[str]) -> None:
    s = SortedScoredNodes([_nps(f"node{t}", t) for t in given])
    for _ in range(pops):
        s.pop()
    assert sorted(n.name for n in s.unordered_list()) == want

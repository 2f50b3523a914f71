"""The batch Filter/Score fast paths vouch only for nodes the per-node calls accept."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.api import make_node, make_pod
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.controllers.resourceclaim_index import ClaimOwnerIndex
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import OK
from reference_impl.scheduler.framework.node_memo import memoised, rotated
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import (
    balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    taint_toleration,
)
from suites.selftest.reference_impl.scheduler.filter_oracle import per_node_search

Obj = dict[str, Any]

_node = st.tuples(
    st.sampled_from(["500m", "1", "2"]), st.sampled_from(["1Gi", "4Gi"]), st.sampled_from(["1", "2", "110"]),
    st.integers(0, 3), st.booleans(), st.sampled_from(["", "NoSchedule", "PreferNoSchedule"]),
)


def _infos(specs: list[tuple[str, str, str, int, bool, str]]) -> list[NodeInfo]:
    out = []
    for i, (cpu, mem, pods, existing, cordoned, taint) in enumerate(specs):
        m = make_node(f"n{i}").capacity(cpu=cpu, memory=mem, pods=pods).build()
        m["spec"]["unschedulable"] = cordoned
        if taint:
            m["spec"]["taints"] = [{"key": "k", "value": "v", "effect": taint}]
        ni = NodeInfo(f"n{i}", m)
        for j in range(existing):
            ni.add_pod(PodInfo(make_pod(f"e{i}-{j}", "default").req(cpu="300m", memory="1Gi").build()))
        out.append(ni)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(_node, min_size=1, max_size=12), st.sampled_from(["100m", "400m", "1500m"]),
       st.booleans())
def test_non_suspect_nodes_pass_filter_and_batch_scores_match(
    specs: list[tuple[str, str, str, int, bool, str]], cpu: str, tolerate: bool
) -> None:
    """Every node a plugin does not flag passes its Filter; score_nodes == per-node score."""
    nodes = _infos(specs)
    b = make_pod("p", "default").req(cpu=cpu, memory="500Mi")
    pod = b.build()
    if tolerate:
        pod["spec"]["tolerations"] = [{"operator": "Exists"}]
    none: Any = None
    plugins: list[Any] = [
        node_resources_fit.new(None, none, SchedulerFeatures()),
        node_unschedulable.new(None, none, SchedulerFeatures()),
        taint_toleration.new(None, none, SchedulerFeatures()),
    ]
    state = CycleState()
    fit = plugins[0]
    fit.pre_filter(state, pod, nodes)
    for pl in plugins:
        suspects = pl.filter_suspects(state, pod, nodes)
        assert suspects is not None
        for i, ni in enumerate(nodes):
            if i not in suspects:
                assert pl.filter(state, pod, ni) is OK
    assert fit.score_nodes(state, pod, nodes) == [fit.score(state, pod, ni)[0] for ni in nodes]


def _claim(name: str, owner: str, pod_claim: str | None) -> Obj:
    meta: Obj = {"name": name, "namespace": "default",
                 "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner,
                                      "controller": True}]}
    if pod_claim is not None:
        meta["annotations"] = {"resource.kubernetes.io/pod-claim-name": pod_claim}
    return {"metadata": meta}


def _found(idx: ClaimOwnerIndex, uid: str, pod_claim: str) -> str | None:
    claim = idx.find("default", uid, pod_claim)
    return None if claim is None else str(claim["metadata"]["name"])


def test_claim_owner_index_tracks_adds_updates_and_deletes() -> None:
    """The owner index finds the first claim by key, and forgets deleted or changed ones."""
    idx = ClaimOwnerIndex()
    idx.seed([_claim("b", "u1", "gpu"), _claim("a", "u1", "gpu"), _claim("c", "u2", None)])
    assert _found(idx, "u1", "gpu") == "a"
    assert _found(idx, "u2", "gpu") is None
    none: Any = None
    idx.on_event(ObjectEvent("DELETED", none, _claim("a", "u1", "gpu"), None))
    assert _found(idx, "u1", "gpu") == "b"
    idx.on_event(ObjectEvent("MODIFIED", none, _claim("b", "u1", "nic"), None))
    assert _found(idx, "u1", "gpu") is None
    assert _found(idx, "u1", "nic") == "b"


# (op, node, arg): add a pod of arg*100m to the node, set its taint effect / cordon, remove it.
_op = st.tuples(
    st.sampled_from(["pod", "taint", "cordon", "uncordon", "remove"]), st.integers(0, 5),
    st.integers(1, 9),
)  # fmt: skip


def _manifest(i: int, taint: str = "", cordoned: bool = False) -> Obj:
    m = make_node(f"n{i}").capacity(cpu="2", memory="4Gi", pods="110").build()
    m["spec"]["unschedulable"] = cordoned
    if taint:
        m["spec"]["taints"] = [{"key": "k", "value": "v", "effect": taint}]
    return m


@settings(max_examples=60, deadline=None)
@given(st.lists(_op, max_size=25), st.sampled_from(["100m", "700m"]))
def test_memoised_fast_paths_follow_the_cache_as_its_nodes_change(
    ops: list[tuple[str, int, int]], cpu: str
) -> None:
    """The same plugin instances (their generation memos and the cache's tainted/cordoned
    index kept between cycles) agree with the per-node Filter and Score after every change."""
    cache = SchedulerCache()
    for i in range(6):
        cache.add_node(_manifest(i))
    none: Any = None
    fit = node_resources_fit.new(None, none, SchedulerFeatures())
    balanced = balanced_allocation.new(None, none, SchedulerFeatures())
    filters: list[Any] = [
        fit, node_unschedulable.new(None, none, SchedulerFeatures()),
        taint_toleration.new(None, none, SchedulerFeatures()),
    ]  # fmt: skip
    pod = make_pod("p", "default").req(cpu=cpu, memory="500Mi").build()
    for step, (op, i, arg) in enumerate([("pod", 0, 0), *ops]):
        name = f"n{i}"
        if op == "pod" and arg:
            bound = make_pod(f"e{step}", "default").req(cpu=f"{arg * 100}m", memory="100Mi").build()
            bound["spec"]["nodeName"] = name
            cache.add_pod(bound)
        elif op in ("taint", "cordon", "uncordon"):
            effect = ["", "NoSchedule", "PreferNoSchedule"][arg % 3] if op == "taint" else ""
            cache.update_node(_manifest(i, effect, cordoned=op == "cordon"))
        elif op == "remove":
            cache.remove_node(_manifest(i))
        nodes = list(cache.node_infos())
        if not nodes:
            continue
        assert cache.index.tainted == {ni.name for ni in nodes if ni.taints}
        assert cache.index.cordoned == {ni.name for ni in nodes if ni.unschedulable}
        state = CycleState()
        fit.pre_filter(state, pod, nodes)
        for pl in filters:
            suspects = pl.filter_suspects(state, pod, nodes)
            assert suspects is not None
            assert all(pl.filter(state, pod, ni) is OK for k, ni in enumerate(nodes) if k not in suspects)
        assert fit.score_nodes(state, pod, nodes) == [fit.score(state, pod, ni)[0] for ni in nodes]
        if balanced.pre_score(state, pod, nodes).is_success():
            got = balanced.score_nodes(state, pod, nodes)
            assert got == [balanced.score(state, pod, ni)[0] for ni in nodes]


def test_memoised_computes_only_the_nodes_whose_generation_moved() -> None:
    nodes = _infos([("1", "1Gi", "110", 0, False, "")] * 3)
    calls: list[str] = []

    def pods(ni: NodeInfo) -> int:
        calls.append(ni.name)
        return len(ni.pods)

    memo: dict[int, int] = {}
    assert memoised(memo, nodes, pods) == [0, 0, 0] and calls == ["n0", "n1", "n2"]
    calls.clear()
    nodes[1].add_pod(PodInfo(make_pod("x", "default").req(cpu="100m").build()))
    assert memoised(memo, nodes, pods) == [0, 1, 0] and calls == ["n1"]
    calls.clear()
    assert memoised(memo, nodes[::-1], pods) == [0, 1, 0] and not calls


# (cpu, cordoned, taint effect, zone) of one node
_spec = st.tuples(
    st.sampled_from(["500m", "1", "2"]), st.booleans(),
    st.sampled_from(["", "NoSchedule", "PreferNoSchedule"]), st.sampled_from(["a", "b"]),
)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.lists(_spec, min_size=1, max_size=10), st.sampled_from(["300m", "800m", "1500m"]),
       st.booleans())
# Only NodeResourcesFit suspects a node (one filter list serves every suspect):
@example([("500m", False, "", "a"), ("2", False, "", "b"), ("1", False, "", "a")], "800m", False)
# Two plugins reject, each with its own status, on nodes next to each other:
@example([("2", True, "", "a"), ("500m", False, "", "a"), ("1", False, "NoSchedule", "b"),
          ("2", False, "", "a")], "800m", False)
@example([("500m", False, "", "b"), ("2", True, "", "a"), ("2", False, "", "a")], "800m", True)
def test_the_filter_pass_with_fast_paths_equals_the_per_node_pass(
    specs: list[tuple[str, bool, str, str]], cpu: str, zone_a: bool
) -> None:
    """The chunked search (batch plugins vouching, each suspect node running only the
    filters that did not vouch for it) finds the same nodes, and records the same first
    failing plugin per node, as running every Filter on every node in order."""
    c = Cluster(config=ClusterConfig(nodes=0))
    for i, (ncpu, cordoned, taint, zone) in enumerate(specs):
        m = make_node(f"n{i}").capacity(cpu=ncpu, memory="4Gi", pods="110").build()
        m["metadata"].setdefault("labels", {})["zone"] = zone
        m["spec"]["unschedulable"] = cordoned
        if taint:
            m["spec"]["taints"] = [{"key": "k", "value": "v", "effect": taint}]
        c.create(m)
    c.settle()
    pod = make_pod("p", "default").req(cpu=cpu, memory="100Mi").build()
    pod["metadata"]["uid"] = "u-p"
    if zone_a:  # NodeAffinity has no batch path: it runs on every node, in its place
        term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
        pod["spec"]["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
        }
    sched = c.scheduler
    nodes = list(sched.cache.node_infos())

    def search() -> tuple[list[str], dict[str, tuple[str, tuple[str, ...]]]]:
        sched.algorithm.next_start_node_index = 0
        d = Diagnosis()
        feasible, status = sched.algorithm._find_nodes_that_fit(CycleState(), pod, nodes, d)
        assert status.is_success()
        return [ni.name for ni in feasible], {
            n: (s.plugin, s.reasons) for n, s in d.node_to_status.statuses.items()
        }

    fast = search()
    fw = sched.framework
    saved, fw._batch_filter = fw._batch_filter, {}
    try:
        assert search() == fast
    finally:
        fw._batch_filter = saved
    assert fast == per_node_search(fw, pod, nodes)


def test_a_score_out_of_range_is_an_error_whoever_checks_it() -> None:
    """LeastAllocated over a node whose usage went negative (impossible, hence the check)
    scores above 100: the plugin's own check at computation and the framework's scan of
    every score report the same error."""
    c = Cluster(config=ClusterConfig(nodes=0))
    fw = c.scheduler.framework
    pod = make_pod("p", "default").req(cpu="100m", memory="100Mi").build()
    nodes = _infos([("2", "4Gi", "110", 0, False, "")] * 3)
    nodes[1].non_zero_requested.milli_cpu = -2000
    fit = next(p for p in fw.score if isinstance(p, node_resources_fit.NodeResourcesFit))
    want = ('applying score defaultWeights on Score plugins: plugin "NodeResourcesFit" returns an '
            "invalid score 146, it should in the range of [0, 100]")
    for checked in (True, False):
        if not checked:  # the framework scans the plugin's scores itself
            fw._range_checked.discard(id(fit))
            fit._scores.reset()
        state = CycleState()
        assert fw.run_pre_filter_plugins(state, pod, nodes)[1].is_success()
        assert fw.run_pre_score_plugins(state, pod, nodes).is_success()
        _, status = fw.run_score_plugins(state, pod, nodes)
        assert not status.is_success() and status.message().startswith(want), status.message()
    nodes[1].non_zero_requested.milli_cpu = 0
    fit._scores.reset()
    state = CycleState()
    fw.run_pre_filter_plugins(state, pod, nodes)
    fw.run_pre_score_plugins(state, pod, nodes)
    assert fw.run_score_plugins(state, pod, nodes)[1].is_success()


def test_default_spread_selectors_follow_services_and_owners() -> None:
    """The memoised default selector (PodTopologySpread's PreScore) changes as soon as a
    Service selecting the pod, or its ReplicaSet, appears, changes or goes."""
    from reference_impl.api.meta import Selector
    from reference_impl.scheduler.plugins.pod_topology_spread import PodTopologySpread
    from reference_impl.scheduler.plugins.pod_topology_spread_common import default_selector

    c = Cluster(config=ClusterConfig(nodes=0))
    c.settle()
    pts = next(p for p in c.scheduler.framework.plugins if isinstance(p, PodTopologySpread))
    pod = make_pod("p", "default").label("app", "web").build()
    owned = make_pod("q", "default").label("app", "web").build()
    owned["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-rs", "controller": True}]

    def selectors() -> list[Selector]:
        got = [pts.constraints(p, "ScheduleAnyway") for p in (pod, owned)]
        for p, cons in zip((pod, owned), got, strict=True):  # the memo answers as a fresh build
            fresh = default_selector(pts._h.ctx, p)  # noqa: SLF001
            assert [k.selector for k in cons] == ([fresh] * len(cons) if fresh.requirements else [])
        return [cons[0].selector if cons else Selector() for cons in got]

    assert selectors() == [Selector(), Selector()]
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}
    c.create(svc)
    c.settle()
    assert all(s.requirements for s in selectors())
    c.api.delete("v1", "Service", "web", "default")
    c.settle()
    assert selectors() == [Selector(), Selector()]
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
          "spec": {"selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}},
                                "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    c.create(rs)
    c.settle()
    plain, by_rs = selectors()
    assert plain == Selector() and by_rs.requirements


@settings(max_examples=40, deadline=None)
@given(st.lists(_op, max_size=20), st.integers(0, 5), st.integers(2, 6))
def test_score_totals_kept_by_node_equal_the_plugin_by_plugin_totals(
    ops: list[tuple[str, int, int]], at: int, count: int
) -> None:
    """The framework's weighted totals kept by node (every plugin that scores the pod a
    NodeScorer) equal the plugin-by-plugin totals and each node's own Score, over windows
    of the cache's list and over plain lists, for two pods of different requests asked in
    turn, as pods and nodes come and go."""
    c = Cluster(config=ClusterConfig(nodes=0))
    fw, cache = c.scheduler.framework, c.scheduler.cache
    for i in range(6):
        cache.add_node(_manifest(i))
    pods = [make_pod(f"p{cpu}", "default").req(cpu=cpu, memory="500Mi").build() for cpu in ("100m", "700m")]
    for step, (op, i, arg) in enumerate([("pod", 0, 0), *ops]):
        if op == "pod" and arg:
            bound = make_pod(f"e{step}", "default").req(cpu=f"{arg * 100}m", memory="100Mi").build()
            bound["spec"]["nodeName"] = f"n{i}"
            cache.add_pod(bound)
        elif op == "remove":
            cache.remove_node(_manifest(i))
        elif op != "pod":
            cache.update_node(_manifest(i, "PreferNoSchedule" if op == "taint" else "", op == "cordon"))
        nodes = cache.node_infos()
        if len(nodes) < 2:
            continue
        for pod, view in itertools.product(pods, (rotated(nodes, at, min(count, len(nodes))), nodes[::-1])):
            state = CycleState()
            assert fw.run_pre_filter_plugins(state, pod, view)[1].is_success()
            assert fw.run_pre_score_plugins(state, pod, view).is_success()
            scoring = [pl for pl in fw.score if pl.name() not in state.skip_score_plugins]
            # By node only while every plugin scoring the pod is a NodeScorer (a
            # PreferNoSchedule taint brings TaintToleration in, which is not).
            by_node = all(id(pl) in fw._node_scorers for pl in scoring)
            assert (fw._node_totals(state, pod, view) is not None) == by_node
            totals, status = fw.run_score_plugins(state, pod, view)
            plain, plain_status = fw.run_score_plugins(state, pod, view, {})  # raw_out: plugin by plugin
            assert status.is_success() and plain_status.is_success() and totals == plain
            assert not by_node or totals == [  # (TaintToleration normalises its scores)
                sum(fw.weights[pl.name()] * pl.score(state, pod, ni)[0] for pl in scoring) for ni in view
            ]

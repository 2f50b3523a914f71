"""The batch Filter/Score fast paths vouch only for nodes the per-node calls accept."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_node, make_pod
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.controllers.resourceclaim_index import ClaimOwnerIndex
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import (
    node_resources_fit,
    node_unschedulable,
    taint_toleration,
)

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
                 "ownerReferences": [{"kind": "Pod", "name": "p", "uid": owner}]}
    if pod_claim is not None:
        meta["annotations"] = {"resource.kubernetes.io/pod-claim-name": pod_claim}
    return {"metadata": meta}


def test_claim_owner_index_tracks_adds_updates_and_deletes() -> None:
    """The owner index finds the first claim by key, and forgets deleted or changed ones."""
    idx = ClaimOwnerIndex()
    idx.seed([_claim("b", "u1", "gpu"), _claim("a", "u1", "gpu"), _claim("c", "u2", None)])
    assert idx.find("u1", "gpu") == "default/a"
    assert idx.find("u2", "gpu") is None
    none: Any = None
    idx.on_event(ObjectEvent("DELETED", none, _claim("a", "u1", "gpu"), None))
    assert idx.find("u1", "gpu") == "default/b"
    idx.on_event(ObjectEvent("MODIFIED", none, _claim("b", "u1", "nic"), None))
    assert idx.find("u1", "gpu") is None
    assert idx.find("u1", "nic") == "default/b"

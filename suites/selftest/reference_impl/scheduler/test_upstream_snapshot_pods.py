"""Upstream's ``TestSnapshot_AddRemovePod`` (pkg/scheduler/backend/cache/snapshot_test.go)
against the reference cache, which is its own snapshot.

Upstream adds and removes pods in a snapshot mutation session and checks the state during
the session; here the same adds and removes go to the cache (``add_pod``/``remove_pod``)
and the same state is checked: the pods on each node, the affinity and anti-affinity node
lists, and nodes that must be gone. fastPath=false only (InterPodAffinityHostnameFastPath is
not modelled, and with it off upstream's non-host-scoped list is empty); the PVC ref counts
and pod-group rows are skipped (neither is kept by the reference cache). Ending the session
(restoring the snapshot) has no counterpart.
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_cache_builders import HOSTNAME, new_snapshot, node, pod

Obj = dict[str, Any]
KV = {"key": "value"}
P_AFF = pod("p-aff", "ns", "node-1", affinity=[("key", KV)])
P_ANTI = pod("p-anti", "ns", "node-1", anti=[("key", KV)])
P_ANTI_HOST = pod("p-anti-host", "ns", "node-1", anti=[(HOSTNAME, KV)])
N1 = node("node-1")
NO_PVC = pytest.mark.skip(reason="usedPVCRefCounts: the reference keeps no PVC ref counts")


def _on(p: Obj, node_name: str) -> Obj:
    return {**p, "spec": {**p["spec"], "nodeName": node_name}}


def _aff(name: str, uid: str, node_name: str, topo: str = "key", sel: Obj | None = None) -> Obj:
    p = pod(name, "", node_name, affinity=[(topo, KV if sel is None else sel)])
    p["metadata"]["uid"] = uid
    return p


def _plain(name: str, uid: str, node_name: str) -> Obj:
    p = pod(name, "", node_name)
    p["metadata"]["uid"] = uid
    return p


AFF_1, AFF_2 = _aff("p-aff-1", "uid-1", "node-1"), _aff("p-aff-2", "uid-2", "node-1")
MID = [_aff(f"p-aff-{i}", f"uid-{i}", f"node-{i}", "k", {}) for i in (1, 2, 3)]
P1, P2 = _plain("p1", "p1", "node-1"), _plain("p2", "p2", "node-2")
REAL, TEMP = _plain("p-real", "uid-real", "real-node"), _plain("p-temp", "uid-temp", "temp-node")

# (op, pod, expect an error)
Op = tuple[str, Obj, bool]


def add(p: Obj) -> Op:
    return ("add", p, False)


def rm(p: Obj, err: bool = False) -> Op:
    return ("remove", p, err)


@pytest.mark.parametrize(
    ("nodes", "initial", "ops", "want_aff", "want_anti", "on_nodes", "missing"),
    [
        pytest.param([N1], [], [add(P_AFF)], {"node-1"}, set(), {"node-1": ["p-aff"]}, [],
                     id="AddPod with affinity"),
        pytest.param([N1], [], [add(P_ANTI)], {"node-1"}, {"node-1"}, {"node-1": ["p-anti"]}, [],
                     id="AddPod with anti-affinity"),
        pytest.param([], [], [], set(), set(), {}, [], id="AddPod with PVC updates usedPVCRefCounts",
                     marks=NO_PVC),
        pytest.param([N1], [P_AFF], [rm(P_AFF)], set(), set(), {"node-1": []}, [],
                     id="RemovePod removes node from affinity list"),
        pytest.param([N1], [P_ANTI], [rm(P_ANTI)], set(), set(), {"node-1": []}, [],
                     id="RemovePod removes node from anti-affinity list"),
        pytest.param([], [], [], set(), set(), {}, [], id="RemovePod with PVC updates usedPVCRefCounts",
                     marks=NO_PVC),
        pytest.param([N1, node("node-2")], [P1], [add(P2), add(P_AFF), rm(P1)], {"node-1"}, set(),
                     {"node-1": ["p-aff"], "node-2": ["p2"]}, [], id="Multiple nodes and pods"),
        pytest.param([N1], [], [add(P_AFF), rm(P_AFF), add(P_AFF)], {"node-1"}, set(),
                     {"node-1": ["p-aff"]}, [], id="AddPod, RemovePod, AddPod sequence"),
        pytest.param([N1], [], [rm(P_AFF, True)], set(), set(), {"node-1": []}, [],
                     id="Remove non-existent pod"),
        pytest.param([N1], [], [add(P_ANTI_HOST)], {"node-1"}, {"node-1"}, {"node-1": ["p-anti-host"]},
                     [], id="AddPod with host-scoped anti-affinity"),
        pytest.param([N1], [P_ANTI_HOST], [add(P_ANTI)], {"node-1"}, {"node-1"},
                     {"node-1": ["p-anti-host", "p-anti"]}, [],
                     id="AddPod with anti-affinity, initial host-scoped anti-affinity"),
        pytest.param([N1], [P_AFF], [add(P_ANTI_HOST)], {"node-1"}, {"node-1"},
                     {"node-1": ["p-aff", "p-anti-host"]}, [],
                     id="AddPod with host-scoped anti-affinity, initial affinity"),
        pytest.param([N1], [P_ANTI, P_ANTI_HOST], [rm(P_ANTI)], {"node-1"}, {"node-1"},
                     {"node-1": ["p-anti-host"]}, [],
                     id="RemovePod with anti-affinity, leaving initial host-scoped anti-affinity"),
        pytest.param([N1], [], [rm(_on(P_AFF, "non-existent-node"), True)], set(), set(),
                     {"node-1": []}, [], id="Remove pod from non-existent node"),
        pytest.param([node("real-node")], [], [add(REAL), add(TEMP), rm(REAL), rm(TEMP)], set(), set(),
                     {"real-node": []}, ["temp-node"], id="Node lifecycle: temp node created and deleted"),
        pytest.param([N1], [], [add(AFF_1), add(AFF_2), rm(AFF_1)], {"node-1"}, set(),
                     {"node-1": ["p-aff-2"]}, [], id="Partial removal of affinity pods"),
        pytest.param([], [], [], set(), set(), {}, [], id="Shared PVC reference counting", marks=NO_PVC),
        pytest.param([N1, node("node-2"), node("node-3")], [], [*map(add, MID), rm(MID[1])],
                     {"node-1", "node-3"}, set(), {"node-1": ["p-aff-1"], "node-3": ["p-aff-3"]}, [],
                     id="Affinity list middle removal"),
        pytest.param([], [], [], set(), set(), {}, [], id="PodGroup state updates",
                     marks=pytest.mark.skip(reason="pod-group states are not kept in the cache")),
    ],
)
def test_snapshot_add_remove_pod(nodes: list[Obj], initial: list[Obj], ops: list[Op],
                                 want_aff: set[str], want_anti: set[str],
                                 on_nodes: dict[str, list[str]], missing: list[str]) -> None:
    cache = new_snapshot(initial, nodes)
    for kind, p, want_err in ops:
        err = cache.add_pod(p) if kind == "add" else cache.remove_pod(p)
        assert bool(err) is want_err, err
    for name in missing:
        assert cache.get(name) is None
    assert {ni.name for ni in cache.index.sorted_affinity()} == want_aff
    assert {ni.name for ni in cache.index.sorted_anti_affinity()} == want_anti
    for name, want in on_nodes.items():
        ni = cache.get(name)
        assert ni is not None
        assert [i.pod["metadata"]["name"] for i in ni.pods.values()] == want

"""Upstream's node tree tables (pkg/scheduler/backend/cache/node_tree_test.go) against the
reference ``NodeTree``, and the cache's node list following the tree's order.

Ported: ``TestNodeTree_AddNode``, ``TestNodeTree_RemoveNode``, ``TestNodeTree_UpdateNode``,
``TestNodeTree_List``, ``TestNodeTree_List_Exhausted``, ``TestNodeTreeMultiOperations``, and
cache_test.go's ``TestSchedulerCache_updateNodeInfoSnapshotList``.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.node_tree import NodeTree

Obj = dict[str, Any]
REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def node(name: str, **labels: str) -> Obj:
    return {"metadata": {"name": name, "labels": labels}}


def rz(name: str, region: str, zone: str) -> Obj:
    return node(name, **{REGION: region, ZONE: zone})


ALL_NODES = [
    node("node-0"),
    node("node-1", **{REGION: "region-1"}),
    node("node-2", **{ZONE: "zone-2"}),
    rz("node-3", "region-1", "zone-2"),
    rz("node-4", "region-1", "zone-2"),
    rz("node-5", "region-1", "zone-3"),
    rz("node-6", "region-2", "zone-2"),
    rz("node-7", "region-2", "zone-2"),
    rz("node-8", "region-2", "zone-2"),
    node("node-9", **{REGION: "region-2", ZONE: "zone-2", BETA_REGION: "region-2",
                      BETA_ZONE: "zone-2"}),
    node("node-10", **{BETA_REGION: "region-2", BETA_ZONE: "zone-3"}),
]


def verify(nt: NodeTree, expected: dict[str, list[str]]) -> None:
    """``verifyNodeTree``."""
    assert nt.num_nodes == sum(map(len, expected.values()))
    assert nt.tree == expected
    assert sorted(nt.zones) == sorted(expected)


@pytest.mark.parametrize(
    ("to_add", "expected"),
    [
        pytest.param(ALL_NODES[:1], {"": ["node-0"]}, id="single node no labels"),
        pytest.param([ALL_NODES[0], ALL_NODES[0]], {"": ["node-0"]}, id="same node specified twice"),
        pytest.param(ALL_NODES[:4], {"": ["node-0"], "region-1:\x00:": ["node-1"],
                                     ":\x00:zone-2": ["node-2"], "region-1:\x00:zone-2": ["node-3"]},
                     id="mix of nodes with and without proper labels"),
        pytest.param(ALL_NODES[:7], {"": ["node-0"], "region-1:\x00:": ["node-1"],
                                     ":\x00:zone-2": ["node-2"],
                                     "region-1:\x00:zone-2": ["node-3", "node-4"],
                                     "region-1:\x00:zone-3": ["node-5"],
                                     "region-2:\x00:zone-2": ["node-6"]},
                     id="mix of nodes with and without proper labels and some zones with multiple "
                        "nodes"),
        pytest.param(ALL_NODES[9:], {"region-2:\x00:zone-2": ["node-9"],
                                     "region-2:\x00:zone-3": ["node-10"]},
                     id="nodes also using deprecated zone/region label"),
    ],
)
def test_node_tree_add_node(to_add: list[Obj], expected: dict[str, list[str]]) -> None:
    nt = NodeTree()
    for n in to_add:
        nt.add_node(n)
    verify(nt, expected)


@pytest.mark.parametrize(
    ("existing", "to_remove", "expected", "expect_error"),
    [
        pytest.param(ALL_NODES[:7], ALL_NODES[:1],
                     {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                      "region-1:\x00:zone-2": ["node-3", "node-4"],
                      "region-1:\x00:zone-3": ["node-5"], "region-2:\x00:zone-2": ["node-6"]},
                     False, id="remove a single node with no labels"),
        pytest.param(ALL_NODES[:7], ALL_NODES[1:4],
                     {"": ["node-0"], "region-1:\x00:zone-2": ["node-4"],
                      "region-1:\x00:zone-3": ["node-5"], "region-2:\x00:zone-2": ["node-6"]},
                     False, id="remove a few nodes including one from a zone with multiple nodes"),
        pytest.param(ALL_NODES[:7], ALL_NODES[:7], {}, False, id="remove all nodes"),
        pytest.param([], ALL_NODES[:5], {}, True, id="remove non-existing node"),
    ],
)
def test_node_tree_remove_node(existing: list[Obj], to_remove: list[Obj],
                               expected: dict[str, list[str]], expect_error: bool) -> None:
    nt = NodeTree(existing)
    for n in to_remove:
        assert bool(nt.remove_node(n)) == expect_error
    verify(nt, expected)


@pytest.mark.parametrize(
    ("existing", "to_update", "expected"),
    [
        pytest.param(ALL_NODES[:7], rz("node-0", "region-1", "zone-2"),
                     {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                      "region-1:\x00:zone-2": ["node-3", "node-4", "node-0"],
                      "region-1:\x00:zone-3": ["node-5"], "region-2:\x00:zone-2": ["node-6"]},
                     id="update a node without label"),
        pytest.param(ALL_NODES[:1], rz("node-0", "region-1", "zone-2"),
                     {"region-1:\x00:zone-2": ["node-0"]}, id="update the only existing node"),
        pytest.param(ALL_NODES[:1], rz("node-new", "region-1", "zone-2"),
                     {"": ["node-0"], "region-1:\x00:zone-2": ["node-new"]},
                     id="update non-existing node"),
    ],
)
def test_node_tree_update_node(existing: list[Obj], to_update: Obj,
                               expected: dict[str, list[str]]) -> None:
    nt = NodeTree(existing)
    name = to_update["metadata"]["name"]
    old = next((n for n in ALL_NODES if n["metadata"]["name"] == name), node("nonexisting-node"))
    nt.update_node(old, to_update)
    verify(nt, expected)


@pytest.mark.parametrize(
    ("to_add", "expected"),
    [
        pytest.param([], [], id="empty tree"),
        pytest.param(ALL_NODES[:1], ["node-0"], id="one node"),
        pytest.param(ALL_NODES[:4], ["node-0", "node-1", "node-2", "node-3"], id="four nodes"),
        pytest.param(ALL_NODES[:9], ["node-0", "node-1", "node-2", "node-3", "node-5", "node-6",
                                     "node-4", "node-7", "node-8"], id="all nodes"),
    ],
)
def test_node_tree_list(to_add: list[Obj], expected: list[str]) -> None:
    assert NodeTree(to_add).list() == (expected, "")


def test_node_tree_list_exhausted() -> None:
    nt = NodeTree(ALL_NODES[:9])
    nt.num_nodes += 1
    assert nt.list()[1] == "all zones exhausted before reaching count of nodes expected"


@pytest.mark.parametrize(
    ("to_add", "to_remove", "ops", "expected"),
    [
        pytest.param(ALL_NODES[2:9], ALL_NODES[2:9],
                     ["add", "add", "add", "remove", "remove", "remove"], [],
                     id="add and remove all nodes"),
        pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], ["add", "add", "add", "remove"],
                     ["node-3", "node-4"], id="add and remove some nodes"),
        pytest.param(ALL_NODES[2:9], ALL_NODES[2:9],
                     ["add", "add", "add", "remove", "remove", "remove", "add"], ["node-5"],
                     id="remove three nodes"),
        pytest.param([*ALL_NODES[4:9], ALL_NODES[3]], [], ["add"] * 6,
                     ["node-4", "node-5", "node-6", "node-3", "node-7", "node-8"],
                     id="add more nodes to an exhausted zone"),
        pytest.param([*ALL_NODES[3:5], *ALL_NODES[6:8]], ALL_NODES[3:5],
                     ["add", "add", "remove", "add", "add", "remove"], ["node-6", "node-7"],
                     id="remove zone and add new"),
    ],
)
def test_node_tree_multi_operations(to_add: list[Obj], to_remove: list[Obj], ops: list[str],
                                    expected: list[str]) -> None:
    nt = NodeTree()
    adds, removes = iter(to_add), iter(to_remove)
    for op in ops:
        if op == "add":
            nt.add_node(next(adds))
        else:
            nt.remove_node(next(removes))
    assert nt.list() == (expected, "")


# -- the cache's node list (updateNodeInfoSnapshotList) ------------------------------


def test_cache_lists_nodes_in_tree_order() -> None:
    """The snapshot's node list is the tree's list: zone-interleaved, arrival order within
    a zone; a zone change alone keeps the list until a node is added or removed."""
    cache = SchedulerCache()
    for n in ALL_NODES[:9]:
        cache.add_node(n)
    want = ["node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4", "node-7", "node-8"]
    assert [ni.name for ni in cache.node_infos()] == want
    cache.update_node(rz("node-0", "region-2", "zone-2"))
    assert [ni.name for ni in cache.node_infos()] == want
    assert cache.tree.tree["region-2:\x00:zone-2"] == ["node-6", "node-7", "node-8", "node-0"]
    assert cache.remove_node(ALL_NODES[1]) == ""
    assert [ni.name for ni in cache.node_infos()] == [
        "node-2", "node-3", "node-5", "node-6", "node-4", "node-7", "node-8", "node-0"]
    # A ghost (deleted, pods still accounted) has no tree entry: removing it again fails.
    cache.add_pod({"metadata": {"name": "p", "namespace": "ns", "uid": "p"},
                   "spec": {"nodeName": "node-2", "containers": []}, "status": {}})
    assert cache.remove_node(ALL_NODES[2]) == ""
    assert cache.remove_node(ALL_NODES[2]) == 'node "node-2" in group ":\x00:zone-2" was not found'
    assert "node-2" not in [ni.name for ni in cache.node_infos()]


# -- TestSchedulerCache_updateNodeInfoSnapshotList (cache_test.go) --------------------

# Zone 0 holds node-0 and node-1, zone 1 node-2 .. node-7.
SNAP_NODES = [rz(f"node-{i}", f"region-{z}", f"zone-{z}")
              for i, z in enumerate([0, 0, 1, 1, 1, 1, 1, 1])]
SNAP = -1  # updateSnapshot in the middle of the operations


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        pytest.param([], [], id="Empty cache"),
        pytest.param([0], ["node-0"], id="Single node"),
        pytest.param([0, SNAP, 1], ["node-0", "node-1"], id="Two nodes"),
        pytest.param([2, 3, SNAP, 4, 0], ["node-2", "node-0", "node-3", "node-4"],
                     id="bug 91601, two nodes, update the snapshot and add two nodes in different "
                        "zones"),
        pytest.param([2, 3, 4, 5, SNAP, 6, 0],
                     ["node-2", "node-0", "node-3", "node-4", "node-5", "node-6"],
                     id="bug 91601, 6 nodes, one in a different zone"),
        pytest.param([2, SNAP, 3, 4, SNAP, 5, 6, 0, 1],
                     ["node-2", "node-0", "node-3", "node-1", "node-4", "node-5", "node-6"],
                     id="bug 91601, 7 nodes, two in a different zone"),
        pytest.param([2, 1, SNAP, 3, 4, SNAP, 5, 6, 0],
                     ["node-2", "node-1", "node-3", "node-0", "node-4", "node-5", "node-6"],
                     id="bug 91601, 7 nodes, two in a different zone, different zone order"),
    ],
)
def test_scheduler_cache_update_node_info_snapshot_list(ops: list[int], expected: list[str]) -> None:
    cache = SchedulerCache()

    def listed() -> list[str]:
        names = [ni.name for ni in cache.node_infos()]
        assert names == cache.tree.list()[0]  # compareCacheWithNodeInfoSnapshot
        assert len(names) == cache.num_nodes()
        return names

    for op in ops:
        if op == SNAP:
            listed()
        else:
            cache.add_node(SNAP_NODES[op])
    assert listed() == expected

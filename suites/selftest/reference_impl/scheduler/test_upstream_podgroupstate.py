"""Upstream's pod-group state tests against reference_impl/scheduler/podgroupstate.py.

Ported (pkg/scheduler/backend/cache/podgroupstate_test.go): ``TestPodGroupState_AssumeForget``,
``TestPodGroupState_Clone``, ``TestPodGroupState_PodCounts``,
``TestPodGroupState_ScheduledPods`` and ``TestCompositePodGroupState_Children``, step by
step. (test_upstream_podgroup_state.py checks the same counts through the pod-group cycle.)
"""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.api import make_pod
from reference_impl.scheduler.framework.workload_forest import (
    composite_pod_group_key,
    pod_group_key,
)
from reference_impl.scheduler.podgroupstate import (
    CompositePodGroupState,
    PodGroupState,
    next_pod_group_generation,
    pod_uid,
)

Obj = dict[str, Any]


def _pod(name: str, group: str, ns: str = "ns1", node: str = "") -> Obj:
    """``st.MakePod().Namespace(ns).Name(name).UID(name).PodGroupName(group)[.Node(node)]``."""
    b = make_pod(name, ns).pod_group(group)
    if node:
        b = b.node(node)
    pod = b.build()
    pod["metadata"]["uid"] = name
    return pod


def test_pod_group_state_assume_forget() -> None:
    pgs = PodGroupState()
    pod = _pod("p1", "pg1")
    pgs.add_pod(pod)
    assert "p1" not in pgs.assumed_pods()
    assert "p1" in pgs.unscheduled
    pgs.assume_pod(pod)
    assert "p1" in pgs.assumed_pods()
    assert "p1" not in pgs.unscheduled
    pgs.forget_pod("p1")
    assert "p1" not in pgs.assumed_pods()
    assert "p1" in pgs.unscheduled


def test_pod_group_state_clone() -> None:
    pgs = PodGroupState()
    pod1, pod2 = _pod("p1", "pg"), _pod("p2", "pg")
    pgs.add_pod(pod1)
    pgs.add_pod(pod2)
    pgs.assume_pod(pod2)
    snap = pgs.snapshot()
    assert snap.generation == pgs.generation
    assert {"p1", "p2"} <= snap.all_pods()
    assert "p1" in snap.unscheduled_pods()
    assert "p2" in snap.assumed_pods()
    # Mutating the clone does not affect the original.
    snap.assume_pod(pod1)
    assert "p1" not in pgs.assumed
    # Mutating the original does not affect the clone.
    pgs.add_pod(_pod("p3", "pg"))
    assert "p3" not in snap.all_pods()
    # A clone of the snapshot is independent too.
    again = snap.clone()
    again.forget_pod("p1")
    assert "p1" in snap.assumed_pods() and "p1" not in again.assumed_pods()


def _counts(pgs: PodGroupState) -> tuple[int, int]:
    return pgs.all_pods_count(), pgs.scheduled_pods_count()


def test_pod_group_state_pod_counts() -> None:
    pgs = PodGroupState()
    pod1, pod2 = _pod("p1", "pg1"), _pod("p2", "pg1")
    pod3, pod4 = _pod("p3", "pg1", node="node1"), _pod("p4", "pg1")
    assert _counts(pgs) == (0, 0)
    for p in (pod1, pod2, pod3):
        pgs.add_pod(p)
    assert _counts(pgs) == (3, 1)
    pgs.assume_pod(pod1)  # unscheduled -> assumed
    assert _counts(pgs) == (3, 2)
    pgs.assume_pod(pod3)  # already scheduled: no change
    assert _counts(pgs) == (3, 2)
    pgs.assume_pod(pod4)  # not in the state: no change
    assert _counts(pgs) == (3, 2)
    pgs.forget_pod(pod_uid(pod3))  # assigned: no change
    assert _counts(pgs) == (3, 2)
    pgs.forget_pod(pod_uid(pod1))  # assumed -> unscheduled
    assert _counts(pgs) == (3, 1)
    pgs.forget_pod(pod_uid(pod1))  # not assumed: no change
    assert _counts(pgs) == (3, 1)
    pgs.assume_pod(pod2)
    assert _counts(pgs) == (3, 2)
    pgs.forget_pod(pod_uid(pod4))  # not in the state: no change
    assert _counts(pgs) == (3, 2)


def test_pod_group_state_scheduled_pods() -> None:
    """Assumed and assigned pods together; a snapshot keeps what it saw."""
    pgs = PodGroupState()
    unscheduled, assumed = _pod("p1", "pg", ns="ns"), _pod("p2", "pg", ns="ns")
    assigned = _pod("p3", "pg", ns="ns", node="node1")
    for p in (assigned, unscheduled, assumed):
        pgs.add_pod(p)
    assumed_on_node = copy.deepcopy(assumed)
    assumed_on_node["spec"]["nodeName"] = "node2"
    pgs.assume_pod(assumed_on_node)
    scheduled = pgs.scheduled_pods()
    snapshot = pgs.snapshot()
    pgs.assume_pod(unscheduled)
    want = [assigned, assumed_on_node]
    assert scheduled == want
    assert snapshot.scheduled_pods() == want


def test_composite_pod_group_state_children() -> None:
    cpgs = CompositePodGroupState()
    assert cpgs.get_children() == []
    cpgs.add_child(pod_group_key("ns1", "child1"))
    cpgs.add_child(composite_pod_group_key("ns1", "child2"))
    got = sorted(str(c) for c in cpgs.get_children())
    assert got == ["compositepodgroup/ns1/child2", "podgroup/ns1/child1"]


def test_next_pod_group_generation_is_monotonic() -> None:
    """``nextPodGroupGeneration``: a recreated state never reuses a generation."""
    first = PodGroupState()
    first.add_pod(_pod("p1", "pg"))
    second = PodGroupState()
    second.add_pod(_pod("p1", "pg"))
    assert second.generation > first.generation
    assert next_pod_group_generation() > second.generation

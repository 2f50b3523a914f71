"""Upstream's pod-group state counts, as the reference's pod-group cycle sees them.

``TestPodGroupState_PodCounts`` and ``TestPodGroupState_ScheduledPods``
(backend/cache/podgroupstate_test.go) driven end to end: each step assumes or forgets on
the scheduler's cache and checks the members the cycle counts as scheduled
(``WorkloadCycle._bound_pods``, which reads the cache's ``podGroupState.ScheduledPods``).
Upstream's steps that assume an already-assigned pod or one outside the group cannot be
driven through the cache (it refuses to assume a pod it already holds), so they are left
out here; forgetting such pods is kept (a no-op in both). The state's own tables, step by
step, are in test_upstream_podgroupstate.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod, make_pod_group
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.types import PodInfo
from reference_impl.scheduler.scheduler import Scheduler

Obj = dict[str, Any]
NS = "default"
PG = "scheduling.k8s.io/v1beta1"


@pytest.fixture
def cluster() -> Cluster:
    """No nodes and a gang of minCount 10: the pods stay pending, held at PreEnqueue."""
    runtime = {"scheduling.k8s.io/v1beta1": "true"}
    c = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config=runtime))
    c.apply(make_pod_group("pg1", NS, min_count=10))
    for name in ("p1", "p2", "p4"):
        c.apply(make_pod(name, NS).pod_group("pg1" if name != "p4" else "other").build())
    c.apply(make_pod("p3", NS).pod_group("pg1").node("node1").build())
    c.settle()
    return c


def _sched(c: Cluster) -> Scheduler:
    return c.scheduler


def _scheduled(c: Cluster) -> set[tuple[str, str]]:
    pods = _sched(c).workload._bound_pods(f"{NS}/pg1")  # noqa: SLF001 - the rule under test
    return {(p["metadata"]["name"], p["spec"]["nodeName"]) for p in pods}


def _assume(c: Cluster, name: str, node: str) -> None:
    pod = c.get("v1", "Pod", name, NS)
    assert pod is not None
    _sched(c).cache.assume_pod(PodInfo(pod), node)


def _forget(c: Cluster, name: str) -> None:
    _sched(c).cache.forget_pod(f"{NS}/{name}")


def test_pod_group_state_pod_counts(cluster: Cluster) -> None:
    c = cluster
    assert len(_scheduled(c)) == 1  # p3 is assigned
    _assume(c, "p1", "node1")  # unscheduled -> assumed counts as scheduled
    assert len(_scheduled(c)) == 2
    _forget(c, "p3")  # forgetting an assigned pod changes nothing
    assert len(_scheduled(c)) == 2
    _forget(c, "p1")  # an assumed pod forgotten is unscheduled again
    assert len(_scheduled(c)) == 1
    _forget(c, "p1")  # forgetting a pod no longer assumed changes nothing
    assert len(_scheduled(c)) == 1
    _assume(c, "p2", "node1")
    assert len(_scheduled(c)) == 2
    _forget(c, "p4")  # a pod outside the group
    assert len(_scheduled(c)) == 2


def test_pod_group_state_scheduled_pods(cluster: Cluster) -> None:
    """Assigned and assumed pods together, an assumed one with the node it was assumed on
    (upstream returns [assigned, assumed]; the reference lists members by key)."""
    c = cluster
    _assume(c, "p2", "node2")
    assert _scheduled(c) == {("p3", "node1"), ("p2", "node2")}

"""Basic pod groups are scheduled as one entity, and ``skipPodSchedule``.

Upstream v1.37.2 pops every pod group as one entity whatever its policy and runs
``scheduleOnePodGroup`` on it (schedule_one.go ``ScheduleOne``): a basic PodGroup's pods are
tried in one attempt, those that fit bind, the others report their own failure, and the
PodGroup's ``PodGroupInitiallyScheduled`` follows the group status
(``submitPodGroupAlgorithmResult``; GangScheduling's PlacementFeasible asks a basic group for
one pod). An all-basic CompositePodGroup tree is popped from its root and placed as one.
``skipPodSchedule`` drops a popped pod that is being deleted or already assumed.
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import (
    condition,
    make_composite_pod_group,
    make_node,
    make_pod,
    make_pod_group,
)
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.types import PodInfo

Obj = dict[str, Any]
PG_V, CPG_V = "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"
RUNTIME = {PG_V: "true", CPG_V: "true"}
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
NS = "default"


def _cluster(nodes: int) -> Cluster:
    c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    for i in range(nodes):
        c.apply(make_node(f"n{i}").capacity(cpu="1", memory="8Gi", pods="10").build())
    c.settle()
    return c


def _arrive_together(c: Cluster, objs: list[Obj]) -> None:
    """The objects arrive before the scheduler runs, so the queue pops the group whole."""
    c.scheduler._armed = True  # noqa: SLF001
    for obj in objs:
        c.apply(obj)
    c.scheduler._armed = False  # noqa: SLF001
    c.scheduler._kick()  # noqa: SLF001
    c.settle()


def _pod(name: str, group: str) -> Obj:
    return make_pod(name, NS).req(cpu="1").pod_group(group).build()


def _bound(c: Cluster) -> set[str]:
    return {p["metadata"]["name"] for p in c.api.list("v1", "Pod", NS) if p["spec"].get("nodeName")}


def _pg_cond(c: Cluster, name: str) -> tuple[str, str] | None:
    pg = c.get(PG_V, "PodGroup", name, NS)
    cond = condition(pg, "PodGroupInitiallyScheduled") if pg is not None else None
    return (cond["status"], cond["reason"]) if cond is not None else None


def _pod_cond(c: Cluster, name: str) -> tuple[str, str]:
    cond = condition(c.api.get("v1", "Pod", name, NS), "PodScheduled") or {}
    return cond.get("reason", ""), cond.get("message", "")


def test_basic_pod_group_is_one_attempt_and_reports_scheduled() -> None:
    c = _cluster(nodes=2)
    _arrive_together(c, [make_pod_group("pg", NS), *(_pod(f"p{i}", "pg") for i in (1, 2, 3))])
    assert _bound(c) == {"p1", "p2"}
    assert c.scheduler.workload.group_attempts == 1
    # The group status is Success (one pod is enough for a basic group): Scheduled.
    assert _pg_cond(c, "pg") == ("True", "Scheduled")
    reason, message = _pod_cond(c, "p3")  # its own FitError, not the group's
    assert reason == "Unschedulable"
    assert message.startswith("0/2 nodes are available")


def test_basic_pod_group_with_no_pod_placed_is_unschedulable() -> None:
    c = _cluster(nodes=1)
    big = [make_pod(f"p{i}", NS).req(cpu="2").pod_group("pg").build() for i in (1, 2)]
    _arrive_together(c, [make_pod_group("pg", NS), *big])
    assert _bound(c) == set()
    assert c.scheduler.workload.group_attempts == 1
    assert _pg_cond(c, "pg") == ("False", "Unschedulable")
    for name in ("p1", "p2"):
        reason, message = _pod_cond(c, name)
        assert reason == "Unschedulable"
        assert message.startswith("0/1 nodes are available")


def test_basic_tree_is_placed_as_one() -> None:
    """A basic CompositePodGroup over basic pg1 and pg2, room for one pod: the tree is one
    attempt; the pod that fits binds, the other reports its own failure (also when it is
    retried alone later: its child places nothing, so the root is unschedulable)."""
    c = _cluster(nodes=1)
    objs: list[Obj] = [make_composite_pod_group("cpg", NS)]
    for pg in ("pg1", "pg2"):
        obj = make_pod_group(pg, NS)
        obj["spec"]["parentCompositePodGroupName"] = "cpg"
        obj["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "t"}
        objs.append(obj)
    _arrive_together(c, [*objs, _pod("p1", "pg1"), _pod("p2", "pg2")])
    assert _bound(c) == {"p1"}
    assert _pg_cond(c, "pg1") == ("True", "Scheduled")  # written by the tree's attempt
    reason, message = _pod_cond(c, "p2")
    assert reason == "Unschedulable"
    assert message.startswith("0/1 nodes are available")


def test_skip_pod_schedule() -> None:
    """``skipPodSchedule``: deleting or assumed pods are skipped, others are not."""
    c = _cluster(nodes=1)
    sched = c.scheduler
    pod = make_pod("p", NS).build()
    assert not sched.skip_pod_schedule(pod)
    deleting = {**pod, "metadata": {**pod["metadata"], "deletionTimestamp": "2026-01-01T00:00:00Z"}}
    assert sched.skip_pod_schedule(deleting)
    sched.cache.assume_pod(PodInfo(pod), "n0")
    assert sched.skip_pod_schedule(pod)

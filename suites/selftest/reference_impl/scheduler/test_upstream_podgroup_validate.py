"""Upstream's pod-group validation tables, row by row.

Ported (schedule_one_podgroup_test.go): ``TestValidatePodGroup`` (whether the group is
rejected) and ``TestScheduleOnePodGroup_SchedulerNameMismatchUpdatesStatus`` (the exact
error, which becomes the PodGroup's SchedulerError condition message). The rule is
``podgroup_rules.validate_pod_group``, which ``WorkloadCycle.schedule_group`` applies
before placing a gang. A row's pods are in the v1 wire shape with upstream's test
defaults: no schedulerName (""), no priority (0); the profiles default to {""}. For a
CompositePodGroup row the pods of every leaf group are checked against the root.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import (
    condition,
    make_child_pod_group,
    make_composite_pod_group,
    make_node,
    make_pod,
    make_pod_group,
    make_priority_class,
)
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.podgroup_rules import validate_pod_group

Obj = dict[str, Any]
NEVER, LOWER = "Never", "PreemptLowerPriority"


def _pod(name: str, sched: str | None = None, prio: int | None = None,
         policy: str | None = None, node: str | None = None) -> Obj:
    spec: Obj = {}
    if sched is not None:
        spec["schedulerName"] = sched
    if prio is not None:
        spec["priority"] = prio
    if policy is not None:
        spec["preemptionPolicy"] = policy
    if node is not None:
        spec["nodeName"] = node
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _group(prio: int | None = None, policy: str | None = None) -> Obj:
    spec: Obj = {}
    if prio is not None:
        spec["priority"] = prio
    if policy is not None:
        spec["preemptionPolicy"] = policy
    return {"metadata": {"name": "pg", "namespace": "default"}, "spec": spec}


def _row(name: str, root: Obj, pods: list[Obj], expect_error: bool, *,
         scheduled: tuple[Obj, ...] = (), profiles: tuple[str, ...] = ("",),
         gate: bool = False) -> Any:
    return pytest.param(root, pods, list(scheduled), profiles, gate, expect_error, id=name)


S1 = ("sched1",)
CASES = [
    _row("failure when no pods to evaluate", _group(), [], True, profiles=S1),
    _row("success for same scheduler name", _group(),
         [_pod("p1", "sched1"), _pod("p2", "sched1")], False, profiles=S1),
    _row("failure for different scheduler names", _group(),
         [_pod("p1", "sched1"), _pod("p2", "sched2")], True, profiles=("sched1", "sched2")),
    _row("failure when profile not found", _group(),
         [_pod("p1", "sched1"), _pod("p2", "sched1")], True, profiles=("other",)),
    _row("success when priorities match", _group(10),
         [_pod("p1", prio=10), _pod("p2", prio=10)], False),
    _row("failure when different priorities across pods", _group(10),
         [_pod("p1", prio=9), _pod("p2", prio=10)], True),
    _row("failure when different priorities across pods and pod group", _group(9),
         [_pod("p1", prio=10), _pod("p2", prio=10)], True),
    _row("success when new pods match scheduled pods scheduler name and priority", _group(10),
         [_pod("p1", "sched1", 10)], False, profiles=S1,
         scheduled=(_pod("p2", "sched1", 10, node="node1"),)),
    _row("failure when new pod has different scheduler name than scheduled pod", _group(10),
         [_pod("p1", "sched1", 10)], True, profiles=S1,
         scheduled=(_pod("p2", "sched2", 10, node="node1"),)),
    _row("failure when new pod has different priority than scheduled pod", _group(10),
         [_pod("p1", "sched1", 10)], True, profiles=S1,
         scheduled=(_pod("p2", "sched1", 9, node="node1"),)),
    _row("success when preemption policies match", _group(policy=NEVER),
         [_pod("p1", policy=NEVER), _pod("p2", policy=NEVER)], False, gate=True),
    _row("failure when different preemption policies across pods", _group(policy=NEVER),
         [_pod("p1", policy=LOWER), _pod("p2", policy=NEVER)], True, gate=True),
    _row("failure when different preemption policies across pods and pod group",
         _group(policy=NEVER), [_pod("p1", policy=LOWER), _pod("p2", policy=LOWER)], True,
         gate=True),
    _row("success when preemption policies between pods and podgroup do not match but "
         "PodGroupPreemptionPolicy is disabled", _group(policy=NEVER),
         [_pod("p1", policy=LOWER), _pod("p2", policy=LOWER)], False),
    _row("failure when preemption policies do not match across pods and "
         "PodGroupPreemptionPolicy is disabled", _group(policy=NEVER),
         [_pod("p1", policy=LOWER), _pod("p2", policy=NEVER)], True),
    # CompositePodGroup rows: the root is the CompositePodGroup (its priority and policy);
    # the leaf groups' own policies are not compared, only their pods'.
    _row("CPG success when all leaf groups and pods have PreemptNever with "
         "PodGroupPreemptionPolicy enabled", _group(10, NEVER),
         [_pod("p1", prio=10, policy=NEVER), _pod("p2", prio=10, policy=NEVER)], False,
         gate=True),
    _row("CPG success when all leaf groups and pods have PreemptNever with "
         "PodGroupPreemptionPolicy disabled", _group(10),
         [_pod("p1", prio=10, policy=NEVER), _pod("p2", prio=10, policy=NEVER)], False),
    _row("CPG success when all leaf groups and pods have PreemptLowerPriority with "
         "PodGroupPreemptionPolicy enabled", _group(10, LOWER),
         [_pod("p1", prio=10, policy=LOWER), _pod("p2", prio=10, policy=LOWER)], False,
         gate=True),
    _row("CPG failure when root CPG has PreemptLowerPriority but leaf group has PreemptNever "
         "with PodGroupPreemptionPolicy enabled", _group(10, LOWER),
         [_pod("p1", prio=10, policy=NEVER), _pod("p2", prio=10, policy=LOWER)], True,
         gate=True),
    _row("CPG failure when root CPG has PreemptNever but leaf group has PreemptLowerPriority "
         "with PodGroupPreemptionPolicy enabled", _group(10, NEVER),
         [_pod("p1", prio=10, policy=LOWER), _pod("p2", prio=10, policy=NEVER)], True,
         gate=True),
    _row("CPG failure when different preemption policies are used across pods in the CPG "
         "with PodGroupPreemptionPolicy enabled", _group(10, NEVER),
         [_pod("p1", prio=10, policy=NEVER), _pod("p2", prio=10, policy=LOWER)], True,
         gate=True),
    _row("CPG failure when different preemption policies are used across leaf groups in the "
         "CPG with PodGroupPreemptionPolicy enabled", _group(10, NEVER),
         [_pod("p1", prio=10, policy=NEVER), _pod("p2", prio=10, policy=LOWER)], True,
         gate=True),
    _row("CPG success in multi-level hierarchy when all levels have PreemptNever with "
         "PodGroupPreemptionPolicy enabled", _group(10, NEVER),
         [_pod("p1", prio=10, policy=NEVER)], False, gate=True),
    _row("CPG success in multi-level hierarchy when nested CPG has PreemptLowerPriority "
         "mismatch with PodGroupPreemptionPolicy enabled", _group(10, NEVER),
         [_pod("p1", prio=10, policy=NEVER)], False, gate=True),
]


@pytest.mark.parametrize(("root", "pods", "scheduled", "profiles", "gate", "expect_error"), CASES)
def test_validate_pod_group(root: Obj, pods: list[Obj], scheduled: list[Obj],
                            profiles: tuple[str, ...], gate: bool, expect_error: bool) -> None:
    err = validate_pod_group(pods, scheduled, root, profiles=profiles,
                             preemption_policy_gate=gate)
    assert (err is not None) == expect_error, err


def test_schedule_one_pod_group_scheduler_name_mismatch_updates_status() -> None:
    """The first popped pod's name is the reference; the error is the condition message."""
    err = validate_pod_group(
        [_pod("p1", "sched1"), _pod("p2", "sched2")],
        [_pod("p", "sched1", node="node1")],
        _group(),
        profiles=("sched1", "sched2"),
        preemption_policy_gate=False,
    )
    assert err == (
        "all pods in a single pod group should have the same .spec.schedulerName set, "
        'got: "sched2" and "sched1"'
    )


# -- through the reference's pod-group cycle --------------------------------------------


def _cluster_gang(bound_scheduler: str, pod_class: str) -> Obj:
    """A gang of minCount 2 whose one member is already bound with ``bound_scheduler`` and
    whose two pending members use ``pod_class``; returns the PodGroup after settling."""
    runtime = {"scheduling.k8s.io/v1beta1": "true"}
    c = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config=runtime))
    c.apply(make_priority_class("v-high", 1000))
    c.apply(make_node("n1").capacity(cpu="8", memory="8Gi", pods="10").build())
    c.apply(make_pod_group("pg", "default", min_count=2))
    bound = make_pod("pg-0", "default").pod_group("pg").node("n1").build()
    bound["spec"]["schedulerName"] = bound_scheduler
    c.apply(bound)
    for i in (1, 2):
        pod = make_pod(f"pg-{i}", "default").pod_group("pg")
        c.apply((pod.priority_class(pod_class) if pod_class else pod).build())
    c.settle()
    c.advance(1)
    pg = c.get("scheduling.k8s.io/v1beta1", "PodGroup", "pg", "default")
    assert pg is not None
    return pg


@pytest.mark.parametrize(
    ("bound_scheduler", "pod_class", "want"),
    [
        pytest.param("default-scheduler", "", None, id="valid gang is scheduled"),
        pytest.param(
            "other", "", "all pods in a single pod group should have the same "
            '.spec.schedulerName set, got: "other" and "default-scheduler"',
            id="bound member with another scheduler name",
        ),
        pytest.param(
            "default-scheduler", "v-high", "all pods in a single pod group should have the "
            "same priority as the pod group's priority, got 1000 and 0",
            id="pods with another priority than the pod group",
        ),
    ],
)
def test_workload_cycle_reports_scheduler_error(
    bound_scheduler: str, pod_class: str, want: str | None
) -> None:
    cond = condition(_cluster_gang(bound_scheduler, pod_class), "PodGroupInitiallyScheduled")
    assert cond is not None
    if want is None:
        assert (cond["status"], cond["reason"]) == ("True", "Scheduled")
    else:
        assert (cond["status"], cond["reason"], cond["message"]) == ("False", "SchedulerError", want)


@pytest.mark.parametrize(
    ("root_class", "want"),
    [
        pytest.param("v-high", None, id="composite: pods match the root's priority"),
        pytest.param(
            "", "all pods in a single pod group should have the same priority as the pod "
            "group's priority, got 1000 and 0",
            id="composite: pods differ from the root CompositePodGroup's priority",
        ),
    ],
)
def test_composite_cycle_validates_against_the_root(root_class: str, want: str | None) -> None:
    """A CompositePodGroup hierarchy is validated against its root (upstream's
    QueuedPodGroupInfo.GetPriority of the root); every PodGroup reports the error."""
    runtime = {"scheduling.k8s.io/v1beta1": "true", "scheduling.k8s.io/v1alpha3": "true"}
    # CompositePodGroup depends on TopologyAwareWorkloadScheduling (kube's gate dependencies).
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
    c = Cluster(gates, config=ClusterConfig(nodes=0, runtime_config=runtime))
    c.apply(make_priority_class("v-high", 1000))
    c.apply(make_node("n1").capacity(cpu="8", memory="8Gi", pods="10").build())
    root = make_composite_pod_group("root", "default", min_group_count=1)
    child = make_child_pod_group("ca", "default", "root", 2)
    child["spec"]["priorityClassName"] = "v-high"
    if root_class:
        root["spec"]["priorityClassName"] = root_class
    c.apply(root)
    c.apply(child)
    for i in range(2):
        c.apply(make_pod(f"ca-{i}", "default").pod_group("ca").priority_class("v-high").build())
    c.settle()
    pg = c.get("scheduling.k8s.io/v1beta1", "PodGroup", "ca", "default")
    assert pg is not None
    cond = condition(pg, "PodGroupInitiallyScheduled")
    assert cond is not None
    if want is None:
        assert (cond["status"], cond["reason"]) == ("True", "Scheduled")
    else:
        assert (cond["status"], cond["reason"], cond["message"]) == ("False", "SchedulerError", want)

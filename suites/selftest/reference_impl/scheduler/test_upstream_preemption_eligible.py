"""Upstream's preemption-eligibility tables against DefaultPreemption.

Ported: ``TestPodEligibleToPreemptOthers`` (plugins/defaultpreemption/
default_preemption_test.go), ``TestPodTerminatingByPreemption``
(framework/preemption/util_test.go) and ``TestNewPodGroupPreemptorResolvesPreemptionPolicy``
(framework/preemption/types_test.go). The plugin answers "" (eligible) or the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.scheduler.framework.diagnosis import NodeToStatus
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from reference_impl.scheduler.plugins.default_preemption_victims import (
    resolve_preemption_policy,
    terminating_by_preemption,
)

Obj = dict[str, Any]
LOW, HIGH, VERY_HIGH = 0, 1000, 10000
NOW = "2026-09-01T00:00:00Z"
PREEMPTED = ("DisruptionTarget", "True", "PreemptionByScheduler")


def _pod(
    name: str,
    *,
    ns: str = "default",
    priority: int | None = None,
    node: str | None = None,
    nominated: str | None = None,
    pg: str | None = None,
    never: bool = False,
    terminating: bool = False,
    condition: tuple[str, str, str] | None = None,
) -> Obj:
    pod = make_pod(name).build()
    pod["metadata"]["namespace"] = ns
    if priority is not None:
        pod["spec"]["priority"] = priority
    if node is not None:
        pod["spec"]["nodeName"] = node
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    if never:
        pod["spec"]["preemptionPolicy"] = "Never"
    if terminating:
        pod["metadata"]["deletionTimestamp"] = NOW
    status: Obj = {}
    if nominated is not None:
        status["nominatedNodeName"] = nominated
    if condition is not None:
        ctype, cstatus, reason = condition
        status["conditions"] = [{"type": ctype, "status": cstatus, "reason": reason}]
    pod["status"] = status
    return pod


def _group(name: str, priority: int, parent: str | None = None) -> Obj:
    spec: Obj = {"priority": priority}
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    return {"metadata": {"name": name, "namespace": "ns2"}, "spec": spec}


class _Informer:
    def __init__(self, objs: list[Obj]) -> None:
        self._objs = {f"{o['metadata']['namespace']}/{o['metadata']['name']}": o for o in objs}

    def get(self, key: str) -> Obj | None:
        return self._objs.get(key)


class _Informers:
    def __init__(self, pgs: list[Obj], cpgs: list[Obj]) -> None:
        self._by_kind = {"PodGroup": _Informer(pgs), "CompositePodGroup": _Informer(cpgs)}

    def informer(self, api_version: str, kind: str) -> _Informer:
        return self._by_kind[kind]


class _Lister:
    def __init__(self, nodes: list[NodeInfo]) -> None:
        self._nodes = nodes

    def get(self, name: str) -> NodeInfo | None:
        return next((n for n in self._nodes if n.name == name), None)

    def node_infos(self) -> list[NodeInfo]:
        return self._nodes


@dataclass
class _Ctx:
    informers: _Informers


class _Handle:
    def __init__(self, nodes: list[NodeInfo], informers: _Informers) -> None:
        self._lister = _Lister(nodes)
        self.ctx = _Ctx(informers)

    def snapshot_shared_lister(self) -> _Lister:
        return self._lister


PREEMPTOR_NOM = _pod("p_with_nominated_node", priority=HIGH, nominated="node1")
PG_PREEMPTOR = _pod("p", ns="ns1", priority=HIGH, pg="pg1", nominated="node1")


def _victim(pg: str = "pg1") -> Obj:
    return _pod("v1", ns="ns2", node="node1", priority=VERY_HIGH, pg=pg, terminating=True,
                condition=PREEMPTED)


WL = SchedulerFeatures(enable_generic_workload=True)
CPG = SchedulerFeatures(enable_generic_workload=True, enable_composite_pod_group=True,
                        enable_topology_aware_workload_scheduling=True)
UU = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint(s)",))
# (name, pod, pods, podGroups, compositePodGroups, nodes, features, nominated node status, want)
_ROWS: list[tuple[str, Obj, list[Obj], list[Obj], list[Obj], list[str], SchedulerFeatures,
                  Status | None, bool]] = [
    ("Pod with nominated node", PREEMPTOR_NOM,
     [_pod("p1", priority=LOW, node="node1", terminating=True)], [], [], ["node1"],
     SchedulerFeatures(), UU, True),
    ("Pod without nominated node", _pod("p_without_nominated_node", priority=HIGH), [], [], [],
     [], SchedulerFeatures(), None, True),
    ("Pod with 'PreemptNever' preemption policy",
     _pod("p_with_preempt_never_policy", priority=HIGH, never=True), [], [], [], [],
     SchedulerFeatures(), None, False),
    ("preemption victim pod terminating, as indicated by the dedicated DisruptionTarget "
     "condition", PREEMPTOR_NOM,
     [_pod("p1", priority=LOW, node="node1", terminating=True, condition=PREEMPTED)], [], [],
     ["node1"], SchedulerFeatures(), None, False),
    ("non-victim Pods terminating", PREEMPTOR_NOM,
     [_pod("p1", priority=LOW, node="node1", terminating=True)], [], [], ["node1"],
     SchedulerFeatures(), None, True),
    ("Preemptor with SchedulingGroup, victim priority overridden by PodGroup in victim "
     "namespace", PG_PREEMPTOR, [_victim()], [_group("pg1", LOW)], [], ["node1"], WL, None,
     False),
    ("Preemptor with SchedulingGroup, victim priority overridden by CompositePodGroup in "
     "victim namespace", PG_PREEMPTOR, [_victim()], [_group("pg1", LOW, "cpg1")],
     [_group("cpg1", LOW)], ["node1"], CPG, None, False),
    ("Preemptor with SchedulingGroup, CompositePodGroup not found in victim namespace, "
     "fallback to PodGroup priority", PG_PREEMPTOR, [_victim()], [_group("pg1", LOW, "cpg1")],
     [], ["node1"], CPG, None, False),
    ("Preemptor with SchedulingGroup, PodGroup not found in victim namespace, fallback to pod "
     "priority when CompositePodGroup is enabled", PG_PREEMPTOR, [_victim()], [], [], ["node1"],
     CPG, None, True),
    ("Preemptor with SchedulingGroup, victim priority overridden by root CompositePodGroup in "
     "multi-level CPG hierarchy", PG_PREEMPTOR, [_victim("leaf-pg")],
     [_group("leaf-pg", VERY_HIGH, "child-cpg")],
     [_group("child-cpg", VERY_HIGH, "root-cpg"), _group("root-cpg", LOW)], ["node1"], CPG,
     None, False),
]


@pytest.mark.parametrize(
    ("pod", "pods", "pgs", "cpgs", "nodes", "features", "nominated_status", "want"),
    [pytest.param(*r[1:], id=r[0]) for r in _ROWS],
)
def test_pod_eligible_to_preempt_others(
    pod: Obj, pods: list[Obj], pgs: list[Obj], cpgs: list[Obj], nodes: list[str],
    features: SchedulerFeatures, nominated_status: Status | None, want: bool,
) -> None:
    infos = {n: NodeInfo(n) for n in nodes}
    for p in pods:
        infos[p["spec"]["nodeName"]].add_pod(PodInfo(p))
    handle = _Handle(list(infos.values()), _Informers(pgs, cpgs))
    plugin = DefaultPreemption(handle, features)  # type: ignore[arg-type]
    # A nil status reads as Success: the nominated node passed the filters.
    statuses = NodeToStatus(absent=Status())
    if nominated_status is not None:
        statuses.set("node1", nominated_status)
    why = plugin.pod_eligible_to_preempt_others(pod, statuses)
    assert (why == "") is want
    if not want:
        assert why in (
            "not eligible due to preemptionPolicy=Never.",
            "not eligible due to a terminating pod on the nominated node.",
        )


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(_pod("p1"), False, id="pod without DeletionTimestamp"),
        pytest.param(_pod("p1", terminating=True), False,
                     id="pod with DeletionTimestamp but no DisruptionTarget condition"),
        pytest.param(_pod("p1", terminating=True,
                          condition=("DisruptionTarget", "False", "PreemptionByScheduler")),
                     False, id="pod with DeletionTimestamp, DisruptionTarget condition status False"),
        pytest.param(_pod("p1", terminating=True,
                          condition=("DisruptionTarget", "True", "SomeOtherReason")), False,
                     id="pod with DeletionTimestamp, DisruptionTarget condition reason not "
                        "PreemptionByScheduler"),
        pytest.param(_pod("p1", terminating=True, condition=PREEMPTED), True,
                     id="pod with DeletionTimestamp, DisruptionTarget condition status True and "
                        "reason PreemptionByScheduler"),
    ],
)
def test_pod_terminating_by_preemption(pod: Obj, want: bool) -> None:
    assert terminating_by_preemption(pod) is want


def _grp(kind: str, policy: str | None = None) -> Obj:
    spec: Obj = {"preemptionPolicy": policy} if policy else {}
    return {"kind": kind, "metadata": {"name": "g", "namespace": "default"}, "spec": spec}


_NEVER = _pod("p-never", never=True)
_LOWER = {**_pod("p-lower"), "spec": {**_pod("p-lower")["spec"],
                                      "preemptionPolicy": "PreemptLowerPriority"}}
_NIL = _pod("p-nil")
LP, NV = "PreemptLowerPriority", "Never"
_POLICY_ROWS = [
    ("PreemptionPolicy PreemptNever is resolved from PodGroup, ignoring policy in pod, with "
     "PodGroupPreemptionPolicy enabled", _grp("PodGroup", NV), [_LOWER], True, NV),
    ("PreemptionPolicy PreemptLowerPriority is resolved from PodGroup, ignoring different "
     "policies in pods, with PodGroupPreemptionPolicy enabled", _grp("PodGroup", LP),
     [_LOWER, _NIL], True, LP),
    ("PreemptionPolicy is resolved from pods with PodGroupPreemptionPolicy disabled",
     _grp("PodGroup", NV), [_LOWER], False, LP),
    ("PreemptionPolicy is resolved from pods when multiple pods have different policies, with "
     "PodGroupPreemptionPolicy disabled", _grp("PodGroup", LP), [_NEVER, _LOWER, _NIL], False,
     NV),
    ("PreemptionPolicy is resolved from pods when CompositePodGroup is active: "
     "PreemptLowerPriority when no pod is PreemptNever", _grp("CompositePodGroup"),
     [_LOWER, _NIL], False, LP),
    ("PreemptionPolicy is resolved from pods when CompositePodGroup is active: PreemptNever when "
     "any pod is PreemptNever", _grp("CompositePodGroup"), [_NEVER, _LOWER], False, NV),
    ("PreemptionPolicy PreemptNever is resolved from CompositePodGroup, ignoring policy in pod, "
     "with PodGroupPreemptionPolicy enabled", _grp("CompositePodGroup", NV), [_LOWER], True, NV),
    ("PreemptionPolicy PreemptLowerPriority is resolved from CompositePodGroup, ignoring "
     "different policies in pods, with PodGroupPreemptionPolicy enabled",
     _grp("CompositePodGroup", LP), [_LOWER, _NEVER], True, LP),
    ("PreemptionPolicy is resolved from pods when CompositePodGroup has policy but "
     "PodGroupPreemptionPolicy is disabled", _grp("CompositePodGroup", NV), [_LOWER, _NIL],
     False, LP),
    ("PreemptionPolicy defaults to PreemptLowerPriority when CompositePodGroup has no policy set "
     "with PodGroupPreemptionPolicy enabled, even if pods are PreemptNever",
     _grp("CompositePodGroup"), [_NEVER], True, LP),
]


@pytest.mark.parametrize(
    ("group", "pods", "gate", "want"), [pytest.param(*r[1:], id=r[0]) for r in _POLICY_ROWS]
)
def test_resolve_preemption_policy(group: Obj, pods: list[Obj], gate: bool, want: str) -> None:
    assert resolve_preemption_policy(group, pods, group_policy=gate) == want

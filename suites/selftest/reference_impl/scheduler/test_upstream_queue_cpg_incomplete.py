"""Upstream's CompositePodGroup queue tables: which pods wait in incompletePodGroupPods.

Ported (pkg/scheduler/backend/queue/scheduling_queue_test.go):
``TestPriorityQueue_AddCompositePodGroup``, ``TestPriorityQueue_DeleteCompositePodGroup``,
``TestPriorityQueue_AddPodGroup_Hierarchical`` and ``TestPriorityQueue_DeletePodGroup_Hierarchical``.
Upstream queues a root group as one entity; the reference queues its member pods one by
one, so a row's ``expectedActiveQ`` (root key -> pods) is read here as the pods in activeQ
grouped by the root the queue's workload forest finds for them, and ``expectedIncompletePods``
as the pods in the queue's incompletePodGroupPods, and ``expectedPendingPods`` as those in
its pendingPodGroupPods. Popping a root (``beforeAdd`` / ``beforeDelete``) pops a pod and
gathers the rest of its root, as ``WorkloadCycle`` does.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod, make_pod_group
from reference_impl.clock import SimClock
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.framework.types import pod_key
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import FakeQueueFramework

Obj = dict[str, Any]
NS = "ns1"
Tree = list[tuple[str, str]]  # (name, parent CompositePodGroup or "")

def _pg(name: str, parent: str) -> Obj:
    pg = make_pod_group(name, NS)
    if parent:
        pg["spec"]["parentCompositePodGroupName"] = parent
    return pg


def _cpg(name: str, parent: str) -> Obj:
    spec: Obj = {"parentCompositePodGroupName": parent} if parent else {}
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


def _pod(name: str, group: str) -> Obj:
    pod = make_pod(name, NS).build()
    pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


class Queue:
    """A reference queue with CompositePodGroup and GenericWorkload on."""

    def __init__(self, cpg_on: bool = True) -> None:
        self.q = SchedulingQueue(SimClock(), FakeQueueFramework(), lambda: None, composite_pod_group=cpg_on,
                                 pod_group_member=lambda pod: bool(pod["spec"].get("schedulingGroup")))
        self.pods: dict[str, Obj] = {}

    def add(self, name: str, group: str) -> None:
        self.pods[name] = _pod(name, group)
        self.q.add(self.pods[name])

    def pop_root(self) -> None:
        """``Pop``: the first pod and every queued pod under the same root."""
        first = self.q.pop()
        assert first is not None
        forest = self.q.workload_forest
        root = forest.get_root_lookup_info_for_pod(first.pod)
        for pod in self.pods.values():
            other = forest.get_root_lookup_info_for_pod(pod)
            if root is not None and other is not None and other.key == root.key:
                self.q.pop_member(pod_key(pod))

    def active(self) -> dict[str, list[str]]:
        """``getActivePodGroups``: root "type/name" -> the pods of it in activeQ."""
        out: dict[str, list[str]] = {}
        for name, pod in sorted(self.pods.items()):
            if self.q.where(pod_key(pod)) != "active":
                continue
            root = self.q.workload_forest.get_root_lookup_info_for_pod(pod)
            assert root is not None
            out.setdefault(f"{root.pod_group_info.type}/{root.pod_group_info.name}", []).append(name)
        return out

    def incomplete(self) -> list[str]:
        """``IncompletePodGroupPodsPods``, by name."""
        return sorted(n for n, p in self.pods.items() if self.q.where(pod_key(p)) == "incomplete")

    def pending(self) -> list[str]:
        """``pendingPodGroupPods``, by name."""
        return sorted(n for n, p in self.pods.items() if self.q.where(pod_key(p)) == "pending")


def _row(name: str, pgs: Tree, cpgs: Tree, pods: Tree, pop: str, target: tuple[str, str],
         active: dict[str, list[str]], incomplete: list[str], pending: tuple[str, ...] = (),
         cpg_on: bool = True) -> Any:
    return pytest.param(pgs, cpgs, pods, pop, target, active, incomplete, list(pending), cpg_on, id=name)


ROOT = "compositepodgroup/root-cpg"

# (name, PodGroups, CompositePodGroups, pods, before: "" | "pop" | "pop+<pod>:<group>",
#  the CompositePodGroup added, expectedActiveQ, expectedIncompletePods)
ADD_ROWS = [
    _row("Root with pods", [("pg1", "root-cpg")], [], [("pod1", "pg1")], "", ("root-cpg", ""),
         {ROOT: ["pod1"]}, []),
    _row("Root without pods", [("pg1", "root-cpg")], [], [], "", ("root-cpg", ""), {}, []),
    _row("Root when another root exists", [("pg1", "root-cpg"), ("pg2", "")], [],
         [("pod2", "pg2"), ("pod1", "pg1")], "", ("root-cpg", ""),
         {ROOT: ["pod1"], "podgroup/pg2": ["pod2"]}, []),
    _row("Non-root when parent is missing", [("pg1", "child-cpg")], [], [("pod1", "pg1")], "",
         ("child-cpg", "parent-cpg"), {}, ["pod1"]),
    _row("Non-root when parent is root", [("pg1", "child-cpg")], [("root-cpg", "")], [("pod1", "pg1")], "",
         ("child-cpg", "root-cpg"), {ROOT: ["pod1"]}, []),
    _row("Non-root when parent is root and is already in active queue with another pod",
         [("pg1", "child-cpg"), ("pg2", "root-cpg")], [("root-cpg", "")], [("pod2", "pg2"), ("pod1", "pg1")], "",
         ("child-cpg", "root-cpg"), {ROOT: ["pod1", "pod2"]}, []),
    _row("Non-root when parent exists but root is missing", [("pg1", "child-cpg")], [("parent-cpg", "root-cpg")],
         [("pod1", "pg1")], "", ("child-cpg", "parent-cpg"), {}, ["pod1"]),
    _row("Non-root when parent is root and is currently in-flight (popped)",
         [("pg1", "child-cpg"), ("pg2", "root-cpg")], [("root-cpg", "")], [("pod2", "pg2"), ("pod1", "pg1")], "pop",
         ("child-cpg", "root-cpg"), {}, [], ("pod1",)),
    _row("Root when another root is currently in-flight (popped)", [("pg1", "root-cpg"), ("pg2", "")], [],
         [("pod2", "pg2"), ("pod1", "pg1")], "pop", ("root-cpg", ""), {ROOT: ["pod1"]}, []),
]

DELETE_ROWS = [
    _row("Non-root when parent is root and is already in activeQ with another pod",
         [("pg1", "child-cpg"), ("pg2", "root-cpg")], [("root-cpg", ""), ("child-cpg", "root-cpg")],
         [("pod1", "pg1"), ("pod2", "pg2")], "", ("child-cpg", "root-cpg"), {ROOT: ["pod2"]}, ["pod1"]),
    _row("Root with pods", [("pg1", "child-cpg"), ("pg2", "root-cpg")], [("root-cpg", ""), ("child-cpg", "root-cpg")],
         [("pod1", "pg1"), ("pod2", "pg2")], "", ("root-cpg", ""), {}, ["pod1", "pod2"]),
    _row("Non-root when parent does not exist", [("pg1", "child-cpg")], [("child-cpg", "root-cpg")],
         [("pod1", "pg1")], "", ("child-cpg", "root-cpg"), {}, ["pod1"]),
    _row("Non-root when parent is root and is in-flight (popped)",
         [("pg1", "child-cpg"), ("pg2", "root-cpg")], [("root-cpg", ""), ("child-cpg", "root-cpg")],
         [("pod1", "pg1"), ("pod2", "pg2")], "pop", ("child-cpg", "root-cpg"), {}, []),
    _row("Non-root with pending pods when parent is root and is in-flight (popped)",
         [("pg1", "child-cpg"), ("pg2", "root-cpg")], [("root-cpg", ""), ("child-cpg", "root-cpg")],
         [("pod1", "pg1"), ("pod2", "pg2")], "pop+pod3:pg1", ("child-cpg", "root-cpg"), {}, ["pod3"]),
    _row("Root with pending pods when in-flight (popped)", [("pg1", "root-cpg")], [("root-cpg", "")],
         [("pod1", "pg1")], "pop+pod2:pg1", ("root-cpg", ""), {}, ["pod2"]),
    _row("Non-root with pods when root ancestor exists", [("pg1", "mid-cpg")], [("root-cpg", ""), ("mid-cpg", "root-cpg")],
         [("pod1", "pg1")], "", ("mid-cpg", "root-cpg"), {}, ["pod1"]),
    _row("Non-root when root ancestor is already in activeQ with another pod",
         [("pg1", "mid-cpg"), ("pg2", "root-cpg")], [("root-cpg", ""), ("mid-cpg", "root-cpg")],
         [("pod1", "pg1"), ("pod2", "pg2")], "", ("mid-cpg", "root-cpg"), {ROOT: ["pod2"]}, ["pod1"]),
]

PG1 = "podgroup/pg1"
ON_ROOT = [("root-cpg", "")]
TWO_UNDER_ROOT = [("pg1", "root-cpg"), ("pg2", "root-cpg")]
PODS_12 = [("pod1", "pg1"), ("pod2", "pg2")]

# (name, PodGroups, CompositePodGroups, pods, before, the PodGroup added or deleted,
#  expectedActiveQ, expectedIncompletePods); CompositePodGroups are added first.
ADD_PG_ROWS = [
    _row("Root with pods", [], [], [("pod1", "pg1")], "", ("pg1", ""), {PG1: ["pod1"]}, []),
    _row("Root without pods", [], [], [], "", ("pg1", ""), {}, []),
    _row("Root when another root exists", [("pg2", "")], [], [("pod2", "pg2"), ("pod1", "pg1")], "",
         ("pg1", ""), {PG1: ["pod1"], "podgroup/pg2": ["pod2"]}, []),
    _row("Non-root when parent is missing", [], [], [("pod1", "pg1")], "", ("pg1", "missing-cpg"), {}, ["pod1"]),
    _row("Non-root when parent is root", [], ON_ROOT, [("pod1", "pg1")], "", ("pg1", "root-cpg"),
         {ROOT: ["pod1"]}, []),
    _row("Non-root when parent is root and is already in active queue with another pod", [("pg2", "root-cpg")],
         ON_ROOT, [("pod2", "pg2"), ("pod1", "pg1")], "", ("pg1", "root-cpg"), {ROOT: ["pod1", "pod2"]}, []),
    _row("Non-root when parent exists but root is missing", [], [("parent-cpg", "root-cpg")], [("pod1", "pg1")], "",
         ("pg1", "parent-cpg"), {}, ["pod1"]),
    _row("Non-root with pending pods when parent is root and is currently in-flight (popped)", [("pg2", "root-cpg")],
         ON_ROOT, [("pod1", "pg2")], "pop+pod2:pg1", ("pg1", "root-cpg"), {}, [], ("pod2",)),
    _row("Non-root when parent is root and is currently in-flight (popped)", [("pg2", "root-cpg")], ON_ROOT,
         [("pod1", "pg2"), ("pod2", "pg1")], "pop", ("pg1", "root-cpg"), {}, [], ("pod2",)),
    _row("Root when another root is currently in-flight (popped)", [("pg2", "")], [],
         [("pod2", "pg2"), ("pod1", "pg1")], "pop", ("pg1", ""), {PG1: ["pod1"]}, []),
    _row("Non-root when CPG feature is disabled", [], [], [("pod1", "pg1")], "", ("pg1", "root-cpg"),
         {PG1: ["pod1"]}, [], cpg_on=False),
]

# The deleted PodGroup names no parent (upstream's rows): the forest's current object
# decides the root, as ``getRootLookupInfoForPodGroup``.
DELETE_PG_ROWS = [
    _row("Non-root when parent is root and is already in activeQ with another pod", TWO_UNDER_ROOT, ON_ROOT,
         PODS_12, "", ("pg1", ""), {ROOT: ["pod2"]}, ["pod1"]),
    _row("Root with pods", [("pg1", "")], [], [("pod1", "pg1")], "", ("pg1", ""), {}, ["pod1"]),
    _row("Non-root when parent is root and is in-flight (popped)", TWO_UNDER_ROOT, ON_ROOT, PODS_12, "pop",
         ("pg1", ""), {}, []),
    _row("Non-root with pending pods when parent is root and is in-flight (popped)", TWO_UNDER_ROOT, ON_ROOT,
         PODS_12, "pop+pod3:pg1", ("pg1", ""), {}, ["pod3"]),
    _row("Root when in-flight (popped)", [("pg1", "")], [], [("pod1", "pg1")], "pop", ("pg1", ""), {}, []),
    _row("Root with pending pods when in-flight (popped)", [("pg1", "")], [], [("pod1", "pg1")], "pop+pod2:pg1",
         ("pg1", ""), {}, ["pod2"]),
    _row("Root without pods", [("pg1", "")], [], [], "", ("pg1", ""), {}, []),
    _row("Non-root when CPG feature is disabled", [("pg1", "root-cpg")], [], [("pod1", "pg1")], "",
         ("pg1", "root-cpg"), {}, ["pod1"], cpg_on=False),
]

ARGS = ("pgs", "cpgs", "pods", "before", "target", "want_active", "want_incomplete", "want_pending", "cpg_on")


def _before(q: Queue, before: str) -> None:
    if not before:
        return
    q.pop_root()
    if "+" in before:  # a pod arriving while its root is in flight
        name, group = before.split("+", 1)[1].split(":")
        q.add(name, group)


def _setup(pgs: Tree, cpgs: Tree, pods: Tree, before: str, cpg_on: bool, *, cpgs_first: bool) -> Queue:
    """The row's objects in the table's order, then its ``before`` steps."""
    q = Queue(cpg_on)
    if not cpgs_first:
        for pg in pgs:
            q.q.add_pod_group(_pg(*pg))
    for cpg in cpgs:
        q.q.add_composite_pod_group(_cpg(*cpg))
    if cpgs_first:
        for pg in pgs:
            q.q.add_pod_group(_pg(*pg))
    for pod in pods:
        q.add(*pod)
    _before(q, before)
    return q


def _check(q: Queue, want_active: dict[str, list[str]], want_incomplete: list[str],
           want_pending: list[str]) -> None:
    assert q.active() == want_active
    assert q.incomplete() == want_incomplete
    assert q.pending() == want_pending


@pytest.mark.parametrize(ARGS, ADD_ROWS)
def test_add_composite_pod_group(pgs: Tree, cpgs: Tree, pods: Tree, before: str, target: tuple[str, str],
                                 want_active: dict[str, list[str]], want_incomplete: list[str],
                                 want_pending: list[str], cpg_on: bool) -> None:
    """``TestPriorityQueue_AddCompositePodGroup``: PodGroups, then CompositePodGroups,
    then pods, then the CompositePodGroup under test."""
    q = _setup(pgs, cpgs, pods, before, cpg_on, cpgs_first=False)
    q.q.add_composite_pod_group(_cpg(*target))
    _check(q, want_active, want_incomplete, want_pending)


@pytest.mark.parametrize(ARGS, DELETE_ROWS)
def test_delete_composite_pod_group(pgs: Tree, cpgs: Tree, pods: Tree, before: str, target: tuple[str, str],
                                    want_active: dict[str, list[str]], want_incomplete: list[str],
                                    want_pending: list[str], cpg_on: bool) -> None:
    """``TestPriorityQueue_DeleteCompositePodGroup``."""
    q = _setup(pgs, cpgs, pods, before, cpg_on, cpgs_first=True)
    q.q.delete_composite_pod_group(_cpg(*target))
    _check(q, want_active, want_incomplete, want_pending)


@pytest.mark.parametrize(ARGS, ADD_PG_ROWS)
def test_add_pod_group_hierarchical(pgs: Tree, cpgs: Tree, pods: Tree, before: str, target: tuple[str, str],
                                    want_active: dict[str, list[str]], want_incomplete: list[str],
                                    want_pending: list[str], cpg_on: bool) -> None:
    """``TestPriorityQueue_AddPodGroup_Hierarchical``."""
    q = _setup(pgs, cpgs, pods, before, cpg_on, cpgs_first=True)
    q.q.add_pod_group(_pg(*target))
    _check(q, want_active, want_incomplete, want_pending)


@pytest.mark.parametrize(ARGS, DELETE_PG_ROWS)
def test_delete_pod_group_hierarchical(pgs: Tree, cpgs: Tree, pods: Tree, before: str, target: tuple[str, str],
                                       want_active: dict[str, list[str]], want_incomplete: list[str],
                                       want_pending: list[str], cpg_on: bool) -> None:
    """``TestPriorityQueue_DeletePodGroup_Hierarchical``."""
    q = _setup(pgs, cpgs, pods, before, cpg_on, cpgs_first=True)
    q.q.delete_pod_group(_pg(*target))
    _check(q, want_active, want_incomplete, want_pending)

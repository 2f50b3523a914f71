"""Upstream ``pkg/controller/tainteviction/taint_eviction_test.go`` rows (v1.37.2).

A real APIServer and the taint eviction controller on a simulated clock. Upstream's
fake clientset holds the pods and its informer indexers are fed by hand; here pods and
nodes are created through the apiserver (clientset and informer at once), and an update
the apiserver would refuse (removing a toleration, moving a pod) goes to the informer only,
as upstream's ``podIndexer.Update`` + ``PodUpdated`` does. ``verifyPodActions`` polls for
5 s: rows advance 5 simulated seconds and read the pod actions seen (a DisruptionTarget
status write is upstream's "patch", a graceful delete its "delete").
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace, make_node, make_pod
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.controllers.taint_eviction import (
    TaintEvictionController,
    get_matching_tolerations,
    get_min_toleration_time,
    get_no_execute_taints,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
POLL = 5.0  # verifyPodActions' wait.Poll timeout


def taint(i: int) -> Obj:
    """``createNoExecuteTaint``."""
    return {"key": f"testTaint{i}", "value": f"test{i}", "effect": "NoExecute",
            "timeAdded": "2000-01-01T00:00:00Z"}  # fmt: skip


def pod(name: str, node: str = "", tol: tuple[int, int] | None = None) -> Obj:
    """``testutil.NewPod`` (Ready) with ``addToleration(index, seconds)``; seconds < 0:
    no tolerationSeconds."""
    p = make_pod(name, "default").build()
    if node:
        p["spec"]["nodeName"] = node
    if tol is not None:
        i, secs = tol
        t: Obj = {"key": f"testTaint{i}", "value": f"test{i}", "effect": "NoExecute"}
        if secs >= 0:
            t["tolerationSeconds"] = secs
        p["spec"]["tolerations"] = [t]
    p["status"] = {"conditions": [{"type": "Ready", "status": "True"}]}
    return p


def node(name: str = "node1", taints: list[int] = ()) -> Obj:  # type: ignore[assignment]
    """``testutil.NewNode`` with ``addTaintsToNode``."""
    n = make_node(name).build()
    if taints:
        n["spec"]["taints"] = [taint(i) for i in taints]
    return n


class Env:
    """One row's apiserver, informers and started controller."""

    def __init__(self) -> None:
        self.clock = SimClock(Instant(seconds(946684800)))
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        self.server.create(make_namespace("default").build())
        self.informers = InformerFactory(self.server)
        self.trace = Trace(self.clock)
        ctx = ComponentContext(self.server, self.informers, self.clock, rng, gates, self.trace)
        self.ctrl = TaintEvictionController(ctx)
        self.ctrl.start()
        self.actions: list[tuple[str, str]] = []
        self.server.add_event_handler(self._watch)
        self.clock.settle()

    def _watch(self, ev: ObjectEvent) -> None:
        if ev.info.kind != "Pod":
            return
        name = ev.obj["metadata"]["name"]
        old = ev.old or {"metadata": {}, "status": {}}
        if ev.type == "MODIFIED" and _disruption(ev.obj) and not _disruption(old):
            self.actions.append(("patch", name))
        marked = ev.obj["metadata"].get("deletionTimestamp")
        if ev.type == "DELETED" or (marked and not old["metadata"].get("deletionTimestamp")):
            self.actions.append(("delete", name))

    def create(self, *objs: Obj) -> list[Obj]:
        out = []
        for obj in objs:
            status = obj.get("status")
            made = self.server.create(copy.deepcopy(obj))
            if obj["kind"] == "Pod" and status:
                made = self.server.update_status({**made, "status": status})
            out.append(made)
        self.clock.settle()
        return out

    def inform(self, new: Obj | None, old: Obj | None) -> None:
        """An informer-only update or delete, as upstream's indexer + handler calls."""
        ref = new or old
        assert ref is not None
        info = self.server.resource("v1", ref["kind"])
        inf = self.informers.informer("v1", ref["kind"])
        cached = inf.get(_key(ref))
        if new is None:
            inf.dispatch(ObjectEvent("DELETED", info, cached or ref, cached))
            return
        meta = {**(cached or {}).get("metadata", {}), **new["metadata"]}
        inf.dispatch(ObjectEvent("MODIFIED" if cached else "ADDED", info,
                                 {**new, "metadata": meta}, cached))  # fmt: skip

    def advance(self, secs: float) -> None:
        self.clock.run_until(Instant(self.clock.now() + seconds(secs)))
        self.clock.settle()

    def verify(self, patch: bool, delete: bool, within: float = POLL) -> None:
        """``verifyPodActions``: what happened within the poll window."""
        self.advance(within)
        verbs = {v for v, _ in self.actions}
        assert ("patch" in verbs, "delete" in verbs) == (patch, delete), self.actions

    def scheduled(self, name: str) -> Instant | None:
        return self.ctrl.scheduled(f"default/{name}")


def _key(obj: Obj) -> str:
    ns = obj["metadata"].get("namespace")
    return f"{ns}/{obj['metadata']['name']}" if ns else str(obj["metadata"]["name"])


def _disruption(p: Obj) -> bool:
    return any(c.get("type") == "DisruptionTarget" and c.get("reason") == "DeletionByTaintManager"
               for c in (p.get("status") or {}).get("conditions") or ())  # fmt: skip


def test_filter_no_execute_taints() -> None:
    """TestFilterNoExecuteTaints."""
    taints = [{"key": "one", "value": "one", "effect": "NoExecute"},
              {"key": "two", "value": "two", "effect": "NoSchedule"}]  # fmt: skip
    assert [t["key"] for t in get_no_execute_taints(taints)] == ["one"]


# -- TestCreatePod ----------------------------------------------------------------------


@pytest.mark.parametrize(("p", "tainted", "patch", "delete"), [
    pytest.param(pod("pod1"), None, False, False, id="not scheduled - ignore"),
    pytest.param(pod("pod1", "node1"), None, False, False, id="scheduled on untainted Node"),
    pytest.param(pod("pod1", "node1"), [1], True, True, id="schedule on tainted Node"),
    pytest.param(pod("pod1", "node1", (1, 100)), [1], False, False,
                 id="schedule on tainted Node with finite toleration"),
    pytest.param(pod("pod1", "node1", (1, -1)), [1], False, False,
                 id="schedule on tainted Node with infinite toleration"),
    pytest.param(pod("pod1", "node1", (2, -1)), [1], True, True,
                 id="schedule on tainted Node with infinite invalid toleration"),
])  # fmt: skip
def test_create_pod(p: Obj, tainted: list[int] | None, patch: bool, delete: bool) -> None:
    env = Env()
    if tainted is not None:
        env.create(node("node1", tainted))
    env.create(p)
    env.verify(patch, delete)
    if patch:
        cond = next(c for c in env.server.get("v1", "Pod", "pod1", "default")["status"]["conditions"]
                    if c["type"] == "DisruptionTarget")  # fmt: skip
        assert (cond["status"], cond["reason"], cond["message"]) == (
            "True", "DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint")


def test_create_pod_finite_toleration_fires_at_its_seconds() -> None:
    """The finite-toleration row, carried on: the deletion falls due 100 s after it was
    planned, not before."""
    env = Env()
    env.create(node("node1", [1]))
    start = env.clock.now()
    env.create(pod("pod1", "node1", (1, 100)))
    assert env.scheduled("pod1") == Instant(start + seconds(100))
    env.advance(99)
    assert env.actions == []
    env.advance(1)
    assert env.actions == [("patch", "pod1"), ("delete", "pod1")]


def test_delete_pod() -> None:
    """TestDeletePod: a deleted pod on a tainted node is handled without harm."""
    env = Env()
    env.create(node("node1", [1]))
    env.inform(None, pod("pod1", "node1"))
    env.verify(False, False, within=0.02)


# -- TestUpdatePod ----------------------------------------------------------------------


@pytest.mark.parametrize(("prev", "new", "await_scheduled", "patch", "delete"), [
    pytest.param(pod("pod1"), pod("pod1", "node1"), False, True, True,
                 id="scheduling onto tainted Node"),
    pytest.param(pod("pod1", "", (1, -1)), pod("pod1", "node1", (1, -1)), False, False, False,
                 id="scheduling onto tainted Node with toleration"),
    pytest.param(pod("pod1", "node1", (1, 100)), pod("pod1", "node1"), True, True, True,
                 id="removing toleration"),
    pytest.param(pod("pod1", "node1", (1, 1)), pod("pod1", "node1", (1, 100)), True, True, True,
                 id="lengthening toleration shouldn't work"),
])  # fmt: skip
def test_update_pod(prev: Obj, new: Obj, await_scheduled: bool, patch: bool, delete: bool) -> None:
    env = Env()
    env.create(node("node1", [1]))
    env.create(prev)
    if await_scheduled:
        assert env.scheduled("pod1") is not None
        env.advance(0.01)  # the 10 ms poll interval: the update comes after the scheduling
    env.inform(new, prev)
    env.clock.settle()
    env.verify(patch, delete)


# -- TestCreateNode, TestDeleteNode, TestUpdateNode ---------------------------------------


@pytest.mark.parametrize(("p", "n", "patch", "delete"), [
    pytest.param(pod("pod1", "node1"), node("node1"), False, False,
                 id="Creating Node matching already assigned Pod"),
    pytest.param(pod("pod1", "node1"), node("node1", [1]), True, True,
                 id="Creating tainted Node matching already assigned Pod"),
    pytest.param(pod("pod1", "node1", (1, -1)), node("node1", [1]), False, False,
                 id="Creating tainted Node matching already assigned tolerating Pod"),
])  # fmt: skip
def test_create_node(p: Obj, n: Obj, patch: bool, delete: bool) -> None:
    env = Env()
    env.create(p)
    env.create(n)
    env.verify(patch, delete)


def test_delete_node() -> None:
    """TestDeleteNode: the node's NoExecute taints are forgotten."""
    env = Env()
    env.create(node("node1", [1]))
    env.clock.settle()
    assert "node1" in env.ctrl._tainted
    env.inform(None, node("node1"))
    env.clock.settle()
    assert "node1" not in env.ctrl._tainted


def _two_tolerations() -> Obj:
    p = pod("pod1", "node1")
    p["spec"]["tolerations"] = [
        {"key": "testTaint1", "value": "test1", "effect": "NoExecute", "tolerationSeconds": 1},
        {"key": "testTaint2", "value": "test2", "effect": "NoExecute", "tolerationSeconds": 100},
    ]
    return p


@pytest.mark.parametrize(("pods", "old", "new", "patch", "delete", "sleep"), [
    pytest.param([pod("pod1", "node1")], node(), node("node1", [1]), True, True, 0.0,
                 id="Added taint, expect node patched and deleted"),
    pytest.param([pod("pod1", "node1", (1, 100))], node(), node("node1", [1]), False, False, 0.0,
                 id="Added tolerated taint"),
    pytest.param([pod("pod1", "node1", (1, 100))], node(), node("node1", [1, 2]), True, True, 0.0,
                 id="Only one added taint tolerated"),
    pytest.param([pod("pod1", "node1", (1, 1))], node("node1", [1]), node(), False, False, 1.5,
                 id="Taint removed"),
    pytest.param([_two_tolerations()], node(), node("node1", [1, 2]), True, True, 0.0,
                 id="Pod with multiple tolerations are evicted when first one runs out"),
])  # fmt: skip
def test_update_node(
    pods: list[Obj], old: Obj, new: Obj, patch: bool, delete: bool, sleep: float
) -> None:
    env = Env()
    env.create(old)
    env.create(*pods)
    env.clock.settle()
    env.actions.clear()
    stored = env.server.get("v1", "Node", "node1")
    env.server.update({**stored, "spec": new["spec"]})
    env.clock.settle()
    env.advance(sleep)
    env.verify(patch, delete)


def test_update_node_with_multiple_taints() -> None:
    """TestUpdateNodeWithMultipleTaints: forever (taint 1) and 60 s (taint 2) tolerations."""
    env = Env()
    p = pod("pod1", "node1")
    p["spec"]["tolerations"] = [
        {"key": "testTaint1", "operator": "Exists", "effect": "NoExecute"},
        {"key": "testTaint2", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
    ]
    env.create(p)
    env.create(node("node1"))
    assert env.scheduled("pod1") is None, "pod queued for deletion with no taints"

    def set_taints(idx: list[int]) -> None:
        stored = env.server.get("v1", "Node", "node1")
        env.server.update({**stored, "spec": {**stored["spec"], "taints": [taint(i) for i in idx]}})
        env.clock.settle()

    set_taints([1])
    assert env.scheduled("pod1") is None, "queued with a permanently tolerated taint"
    set_taints([1, 2])
    assert env.scheduled("pod1") is not None, "not queued after a temporarily tolerated taint"
    set_taints([1])
    assert env.scheduled("pod1") is None, "still queued after the temporary taint went"
    env.advance(120)
    assert ("delete", "pod1") not in env.actions


@pytest.mark.parametrize(("pods", "taints", "deletes"), [
    pytest.param([pod("pod1", "node1"), pod("pod2", "node1", (1, 1)), pod("pod3", "node1", (1, -1))],
                 [1], [(["pod1"], 0.0), (["pod2"], 1.0)],
                 id="Pods with different toleration times are evicted appropriately"),
    pytest.param([pod("pod1", "node1"), pod("pod2", "node1", (1, 1)), pod("pod3", "node1", (1, -1))],
                 [1, 2], [(["pod1", "pod2", "pod3"], 0.0)],
                 id="Evict all pods not matching all taints instantly"),
])  # fmt: skip
def test_update_node_with_multiple_pods(
    pods: list[Obj], taints: list[int], deletes: list[tuple[list[str], float]]
) -> None:
    """TestUpdateNodeWithMultiplePods: deletions at their expected times, none else."""
    env = Env()
    env.create(node("node1"))
    env.create(*pods)
    env.clock.settle()
    stored = env.server.get("v1", "Node", "node1")
    start = env.clock.now()
    env.server.update({**stored, "spec": {"taints": [taint(i) for i in taints]}})
    env.clock.settle()
    for names, at in deletes:
        env.clock.run_until(Instant(start + seconds(at)))
        env.clock.settle()
        deleted = sorted(n for v, n in env.actions if v == "delete")
        assert deleted == sorted(names)
        env.actions.clear()
    env.advance(10)
    assert [a for a in env.actions if a[0] == "delete"] == []


@pytest.mark.parametrize(("tolerations", "expected"), [
    pytest.param([], 0.0, id="no tolerations"),
    pytest.param([{"tolerationSeconds": None}], None, id="nil seconds: forever"),
    pytest.param([{"tolerationSeconds": 1}, {"tolerationSeconds": 2}], 1.0, id="one and two"),
    pytest.param([{"tolerationSeconds": 1}, {"tolerationSeconds": None}], 1.0, id="one and nil"),
    pytest.param([{"tolerationSeconds": None}, {"tolerationSeconds": 1}], 1.0, id="nil and one"),
])  # fmt: skip
def test_get_min_toleration_time(tolerations: list[Obj], expected: float | None) -> None:
    """TestGetMinTolerationTime (upstream's -1 is None)."""
    got = get_min_toleration_time(tolerations)
    assert got == (None if expected is None else seconds(expected))


# -- TestEventualConsistency --------------------------------------------------------------


@pytest.mark.parametrize(("prev", "new"), [
    pytest.param(pod("pod2"), pod("pod2", "node1"), id="existing pod2 scheduled onto tainted Node"),
    pytest.param(pod("pod2", "", (1, 100)), pod("pod2", "node1", (1, 100)),
                 id="existing pod2 with taint toleration scheduled onto tainted Node"),
    pytest.param(None, pod("pod2", "node1"), id="new pod2 created on tainted Node"),
    pytest.param(None, pod("pod2", "node1", (1, 100)),
                 id="new pod2 with tait toleration created on tainted Node"),
])  # fmt: skip
def test_eventual_consistency(prev: Obj | None, new: Obj) -> None:
    """pod1 is deleted by the node update; pod2, which the node pass did not see on the
    node, is handled when its delayed update arrives."""
    env = Env()
    env.create(node("node1"), pod("pod1", "node1"))
    if prev is not None:
        env.create(prev)
    env.clock.settle()
    stored = env.server.get("v1", "Node", "node1")
    env.server.update({**stored, "spec": {"taints": [taint(1)]}})
    env.verify(True, True)
    assert {n for _, n in env.actions} == {"pod1"}
    env.actions.clear()
    if prev is None:
        env.create(new)
    else:
        env.server.bind("default", "pod2", "node1")
    env.clock.settle()
    tolerated = bool(new["spec"].get("tolerations"))
    if tolerated:
        assert env.scheduled("pod2") is not None
        env.advance(100)
    assert ("delete", "pod2") in env.actions


# -- the DisruptionTarget condition and TestPodDeletionEvent ------------------------------


def test_pod_deletion_events() -> None:
    """emitPodDeletionEvent / emitCancelPodDeletionEvent: reason TaintManagerEviction."""
    env = Env()
    env.create(node("node1", [1]))
    env.create(pod("pod1", "node1", (1, 30)), pod("pod2", "node1"))
    stored = env.server.get("v1", "Node", "node1")
    env.server.update({**stored, "spec": {}})
    env.clock.settle()
    events = [(r.event, r.object, r.detail) for r in env.trace.records
              if r.event == "TaintManagerEviction"]  # fmt: skip
    assert events == [
        ("TaintManagerEviction", "default/pod2", "Marking for deletion Pod default/pod2"),
        ("TaintManagerEviction", "default/pod1", "Cancelling deletion of Pod default/pod1"),
    ]
    p2 = env.server.get("v1", "Pod", "pod2", "default")
    assert p2["metadata"].get("deletionTimestamp")
    cond = next(c for c in p2["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert {k: cond[k] for k in ("type", "status", "reason", "message")} == {
        "type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager",
        "message": "Taint manager: deleting due to NoExecute taint"}  # fmt: skip


def test_matching_tolerations_take_the_first_match_per_taint() -> None:
    """``GetMatchingTolerations``: each taint uses its first tolerating toleration, so a
    forever toleration listed first wins over a later 60 s one (no deletion planned)."""
    ok, used = get_matching_tolerations(
        [taint(1)],
        [{"key": "testTaint1", "operator": "Exists", "effect": "NoExecute"},
         {"key": "testTaint1", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}],
    )  # fmt: skip
    assert ok and get_min_toleration_time(used) is None
    env = Env()
    env.create(node("node1", [1]))
    p = pod("pod1", "node1")
    p["spec"]["tolerations"] = [
        {"key": "testTaint1", "operator": "Exists", "effect": "NoExecute"},
        {"key": "testTaint1", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
    ]
    env.create(p)
    assert env.scheduled("pod1") is None
    env.advance(120)
    assert env.actions == []

"""Upstream's PreQueueingHint tables against the reference SchedulingQueue.

Ported (pkg/scheduler/backend/queue/scheduling_queue_test.go): ``TestPriorityQueue_PreQueueingHint``,
``TestPreQueueingHint_FlushRescue`` (no ``WasFlushedFromUnschedulable`` here),
``TestPreQueueingHint_PodGroupLookup``, ``TestPreQueueingHint_NilObjects``,
``TestPreQueueingHint_ErrorFallback``, ``TestPreQueueingHint_PodGroupPreCheck``,
``TestPreQueueingHint_CPGDisablesNarrowing``, ``TestPreQueueingHint_WildcardSkipsNarrowing``
and ``TestPreQueueingHint_PerPluginNarrowing``; ``TestPreQueueingHint_Metrics`` checks only
a metric and is not ported.

A PreQueueingHintFn is the reference's ``QueueIndex``: each pod is filed under its own key
and the event names the keys of the pods it may help (None: AllPods; an exception: the
error fallback). ``pre_queueing_hints`` is the SchedulerPreQueueingHints gate.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.scheduler.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from reference_impl.scheduler.framework.queue import MAX_IN_UNSCHEDULABLE_PODS, SchedulingQueue
from reference_impl.scheduler.framework.types import pod_key
from suites.selftest.reference_impl.scheduler.conftest import make_harness
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import (
    NODE_ADD,
    UNSCHEDULABLE_TIMEOUT,
    FakeQueueFramework,
)

Obj = dict[str, Any]
NODE = make_node("node1").build()
ALL = "all"  # a PreQueueingHintFn answering AllPods
ERROR = "error"  # a PreQueueingHintFn failing


class PreHint:
    """A plugin's PreQueueingHintFn as a pool index; records the events it saw."""

    def __init__(self, names: list[str] | str) -> None:
        self.names = names
        self.calls = 0

    def pod_index_keys(self, pod: Obj) -> Iterable[str] | None:
        return [pod_key(pod)]

    def event_index_keys(
        self, event: ClusterEvent, old: Obj | None, new: Obj | None
    ) -> Iterable[str] | None:
        self.calls += 1
        if self.names == ERROR:
            raise RuntimeError("intentional error")
        if self.names == ALL:
            return None
        return [f"ns1/{n}" for n in self.names]


class Recorder:
    """A QueueingHintFn answering ``hint`` and recording the pods it was asked about."""

    def __init__(self, hint: QueueingHint = QueueingHint.QUEUE) -> None:
        self.hint = hint
        self.pods: list[str] = []

    def __call__(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        self.pods.append(pod["metadata"]["name"])
        return self.hint


def _pod(name: str, *, group: str = "", labels: Obj | None = None) -> Obj:
    pod = make_pod(name, "ns1").build()
    if labels:
        pod["metadata"]["labels"] = dict(labels)
    if group:
        pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


def _queue(
    plugins: dict[str, tuple[Recorder, PreHint | None]], *, gate: bool = True
) -> tuple[SchedulingQueue, SimClock]:
    clock = SimClock()
    fw = FakeQueueFramework({n: [ClusterEventWithHint(NODE_ADD, h)] for n, (h, _) in plugins.items()})
    q = SchedulingQueue(clock, fw, lambda: None, pre_queueing_hints=gate)
    for name, (_, pre) in plugins.items():
        if pre is not None:
            q.register_index(name, pre)
    return q, clock


def _unschedulable(q: SchedulingQueue, pods: list[Obj], rejectors: set[str]) -> None:
    """Add, pop and return each pod as rejected by ``rejectors`` (the upstream setup)."""
    for pod in pods:
        q.add(pod)
        pinfo = q.pop()
        assert pinfo is not None and pinfo.key == pod_key(pod)
        pinfo.unschedulable_plugins = set(rejectors)
        q.add_unschedulable_if_not_present(pinfo, error=False)
        assert q.where(pinfo.key) == "unschedulable"


def _moved(q: SchedulingQueue, names: list[str]) -> set[str]:
    return {n for n in names if q.where(f"ns1/{n}") not in ("unschedulable", "gated")}


P123 = ["pod1", "pod2", "pod3"]

# (name, gate on, pods, {plugin: (QueueingHint answer, PreQueueingHint or None)}, moved)
PRE_QUEUEING_ROWS: list[Any] = [
    ("gate enabled, hint narrows to one pod", True, P123,
     {"foo": (QueueingHint.QUEUE, ["pod1"])}, {"pod1"}),
    ("gate enabled, hint AllPods evaluates all", True, ["pod1", "pod2"],
     {"foo": (QueueingHint.QUEUE, None)}, {"pod1", "pod2"}),
    ("gate enabled, one plugin AllPods means all pods evaluated", True, P123,
     {"foo": (QueueingHint.QUEUE, ["pod1"]), "bar": (QueueingHint.QUEUE, ALL)}, set(P123)),
    ("gate disabled, hint ignored, all pods evaluated", False, P123,
     {"foo": (QueueingHint.QUEUE, ["pod1"])}, set(P123)),
    ("single plugin narrows to subset (2 of 3)", True, P123,
     {"foo": (QueueingHint.QUEUE, ["pod1", "pod3"])}, {"pod1", "pod3"}),
    ("hint narrows but QueueingHint rejects", True, ["pod1", "pod2"],
     {"foo": (QueueingHint.QUEUE_SKIP, ["pod1"])}, set()),
    ("two plugins narrow to same pod", True, ["pod1", "pod2"],
     {"foo": (QueueingHint.QUEUE, ["pod1"]), "bar": (QueueingHint.QUEUE, ["pod1"])}, {"pod1"}),
    ("two plugins narrow to same two pods", True, P123,
     {"foo": (QueueingHint.QUEUE, ["pod1", "pod2"]), "bar": (QueueingHint.QUEUE, ["pod1", "pod2"])},
     {"pod1", "pod2"}),
    ("two plugins disjoint pods (union evaluated)", True, P123,
     {"foo": (QueueingHint.QUEUE, ["pod1"]), "bar": (QueueingHint.QUEUE, ["pod2"])},
     {"pod1", "pod2"}),
]


@pytest.mark.parametrize(
    ("gate", "names", "plugins", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in PRE_QUEUEING_ROWS],
)
def test_priority_queue_pre_queueing_hint(
    gate: bool, names: list[str], plugins: dict[str, tuple[QueueingHint, Any]], want: set[str]
) -> None:
    """``TestPriorityQueue_PreQueueingHint``: only the pods a PreQueueingHint names are
    evaluated (the union over plugins; AllPods from any plugin, or the gate off, means all)."""
    q, _ = _queue(
        {n: (Recorder(h), PreHint(pre) if pre is not None else None) for n, (h, pre) in plugins.items()},
        gate=gate,
    )
    _unschedulable(q, [_pod(n) for n in names], {"foo", "bar"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, NODE)
    assert _moved(q, names) == want


def test_pre_queueing_hint_flush_rescue() -> None:
    """``TestPreQueueingHint_FlushRescue``: a pod a PreQueueingHint missed stays pooled
    until the 5-minute leftover flush moves it to activeQ."""
    q, clock = _queue({"fakePlugin": (Recorder(), PreHint(["pod1"]))})
    _unschedulable(q, [_pod("pod1"), _pod("pod2")], {"fakePlugin"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, NODE)
    assert q.where("ns1/pod1") in ("active", "backoff")  # popped either way (PopFromBackoffQ)
    assert q.where("ns1/pod2") == "unschedulable"
    popped = q.pop()
    assert popped is not None and popped.key == "ns1/pod1"
    clock.run_until(Instant(clock.now() + MAX_IN_UNSCHEDULABLE_PODS + seconds(1)))
    assert q.where("ns1/pod2") == "active"
    popped = q.pop()
    assert popped is not None and popped.key == "ns1/pod2"


def test_pre_queueing_hint_pod_group_lookup() -> None:
    """``TestPreQueueingHint_PodGroupLookup``: the hint names one member of a pooled pod
    group and the group becomes schedulable; a standalone pod it does not name stays.

    Upstream keeps the group as one entity and moves it whole; the reference pools pods,
    so the named member goes to activeQ and, once popped, its cycle takes the other
    member out of the pool (``popGroupMembers`` as ``pop_member``)."""
    q, _ = _queue({"testPlugin": (Recorder(), PreHint(["pgpod1"]))})
    members = [_pod("pgpod1", group="test-pg", labels={"allow": ""}),
               _pod("pgpod2", group="test-pg", labels={"allow": ""})]
    standalone = _pod("standalone", labels={"allow": ""})
    _unschedulable(q, [*members, standalone], {"testPlugin"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, NODE)
    assert q.where("ns1/standalone") == "unschedulable"
    first = q.pop()
    assert first is not None and first.key == "ns1/pgpod1"
    assert q.pop_member("ns1/pgpod2") is not None


def test_pre_queueing_hint_nil_objects() -> None:
    """``TestPreQueueingHint_NilObjects``: an event with neither object never calls a
    PreQueueingHintFn."""
    pre = PreHint(["pod1"])
    q, _ = _queue({"testPlugin": (Recorder(), pre)})
    _unschedulable(q, [_pod("pod1"), _pod("pod2")], {"testPlugin"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, None)
    assert pre.calls == 0
    assert _moved(q, ["pod1", "pod2"]) == {"pod1", "pod2"}  # nothing narrowed


def test_pre_queueing_hint_error_fallback() -> None:
    """``TestPreQueueingHint_ErrorFallback``: a failing PreQueueingHintFn means every pod
    is evaluated."""
    q, _ = _queue({"fakePlugin": (Recorder(), PreHint(ERROR))})
    _unschedulable(q, [_pod("pod1"), _pod("pod2")], {"fakePlugin"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, NODE)
    assert _moved(q, ["pod1", "pod2"]) == {"pod1", "pod2"}


def test_pre_queueing_hint_pod_group_pre_check() -> None:
    """``TestPreQueueingHint_PodGroupPreCheck``: the narrowed member is still subject to
    the PreEnqueueCheck; when it rejects, the group stays in the pool."""
    q, _ = _queue({"testPlugin": (Recorder(), PreHint(["pgpod1"]))})
    members = [_pod(n, group="test-pg", labels={"block": ""}) for n in ("pgpod1", "pgpod2")]
    _unschedulable(q, members, {"testPlugin"})
    q.move_all_to_active_or_backoff(
        NODE_ADD, None, NODE, precheck=lambda pod: "block" not in (pod["metadata"].get("labels") or {})
    )
    assert _moved(q, ["pgpod1", "pgpod2"]) == set()


@pytest.mark.parametrize("cpg", [True, False], ids=["CompositePodGroup on", "CompositePodGroup off"])
def test_pre_queueing_hint_cpg_disables_narrowing(cpg: bool) -> None:
    """``TestPreQueueingHint_CPGDisablesNarrowing``: with CompositePodGroup on, the
    scheduler's queue narrows nothing (``collectEntitiesToEvaluate``), so both pods move;
    the "off" twin checks the narrowing is otherwise kept."""
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": cpg}
    sched_queue = make_harness(gates=gates).scheduler.queue
    narrows = getattr(sched_queue, "_pre_queueing_hints")  # noqa: B009 - the queue's wiring
    assert narrows is not cpg
    q, _ = _queue({"testPlugin": (Recorder(), PreHint(["pod1"]))}, gate=narrows)
    _unschedulable(q, [_pod("pod1"), _pod("pod2")], {"testPlugin"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, NODE)
    assert _moved(q, ["pod1", "pod2"]) == ({"pod1", "pod2"} if cpg else {"pod1"})


def test_pre_queueing_hint_wildcard_skips_narrowing() -> None:
    """``TestPreQueueingHint_WildcardSkipsNarrowing``: a wildcard event evaluates every
    pod and never calls a PreQueueingHintFn."""
    pre = PreHint(["pod1"])
    q, _ = _queue({"testPlugin": (Recorder(), pre)})
    _unschedulable(q, [_pod("pod1"), _pod("pod2")], {"testPlugin"})
    q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
    assert pre.calls == 0
    assert _moved(q, ["pod1", "pod2"]) == {"pod1", "pod2"}


def test_pre_queueing_hint_per_plugin_narrowing() -> None:
    """``TestPreQueueingHint_PerPluginNarrowing``: each plugin's QueueingHintFn runs only
    for the pods its own PreQueueingHintFn named."""
    a, b = Recorder(), Recorder()
    q, _ = _queue({"pluginA": (a, PreHint(["pod1"])), "pluginB": (b, PreHint(["pod2"]))})
    _unschedulable(q, [_pod("pod1"), _pod("pod2")], {"pluginA", "pluginB"})
    q.move_all_to_active_or_backoff(NODE_ADD, None, NODE)
    assert "pod1" in a.pods and "pod2" not in a.pods
    assert "pod2" in b.pods and "pod1" not in b.pods

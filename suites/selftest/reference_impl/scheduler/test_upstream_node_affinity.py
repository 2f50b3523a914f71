"""Ports nodeaffinity/node_affinity_test.go: TestNodeAffinity (PreFilter status and
result, Filter, added affinity), TestNodeAffinityPriority (PreScore, Score with
NormalizeScore) and TestNodeAffinity_DeferredResizeSkipped."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    NodeScore,
    PreFilterResult,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins.node_affinity import NAME, NodeAffinity, NodeAffinityArgs

Obj = dict[str, Any]
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
POD = Status(UU, ("node(s) didn't match Pod's node affinity/selector",), NAME)
ENFORCED = Status(UU, ("node(s) didn't match scheduler-enforced node affinity",), NAME)
CONFLICT = Status(UU, ("pod affinity terms conflict",), NAME)
SKIP = Status(Code.SKIP)


def expr(key: str, op: str, *values: str) -> Obj:
    out: Obj = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def term(*exprs: Obj, fields: tuple[Obj, ...] = ()) -> Obj:
    out: Obj = {"matchExpressions": list(exprs)}
    if fields:
        out["matchFields"] = list(fields)
    return out


def name_in(*names: str) -> Obj:
    return expr("metadata.name", "In", *names)


def required(*terms: Obj) -> Obj:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def pod(affinity: Obj | None = None, selector: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"containers": []}
    if affinity is not None:
        spec["affinity"] = {"nodeAffinity": affinity}
    if selector is not None:
        spec["nodeSelector"] = selector
    return {"metadata": {"name": "p", "namespace": "default"}, "spec": spec}


def node(name: str, labels: dict[str, str] | None = None) -> NodeInfo:
    return NodeInfo(name, {"metadata": {"name": name, "labels": dict(labels or {})}})


_ZONE_NODE2 = NodeAffinityArgs(required(term(fields=(name_in("node2"),))))
_GPU = (expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))
P = pytest.param
# (pod, node name, labels, args, PreFilter status or None when not run, PreFilter result, Filter)
_ROWS = [
    P(pod(selector={"foo": "bar"}), "", None, None, OK, None, POD, id="missing labels"),
    P(pod(selector={"foo": "bar"}), "", {"foo": "bar"}, None, OK, None, OK, id="same labels"),
    P(pod(selector={"foo": "bar"}), "", {"foo": "bar", "baz": "blah"}, None, OK, None, OK,
      id="node labels are superset"),
    P(pod(selector={"foo": "bar", "baz": "blah"}), "", {"foo": "bar"}, None, OK, None, POD,
      id="node labels are subset"),
    P(pod(required(term(expr("foo", "In", "bar", "value2")))), "", {"foo": "bar"}, None, OK, None, OK,
      id="Pod with matchExpressions using In operator that matches the existing node"),
    P(pod(required(term(expr("kernel-version", "Gt", "0204")))), "", {"kernel-version": "0206"}, None, OK,
      None, OK, id="Pod with matchExpressions using Gt operator that matches the existing node"),
    P(pod(required(term(expr("mem-type", "NotIn", "DDR", "DDR2")))), "", {"mem-type": "DDR3"}, None, OK,
      None, OK, id="Pod with matchExpressions using NotIn operator that matches the existing node"),
    P(pod(required(term(expr("GPU", "Exists")))), "", {"GPU": "NVIDIA-GRID-K1"}, None, OK, None, OK,
      id="Pod with matchExpressions using Exists operator that matches the existing node"),
    P(pod(required(term(expr("foo", "In", "value1", "value2")))), "", {"foo": "bar"}, None, OK, None, POD,
      id="Pod with affinity that don't match node's labels won't schedule onto the node"),
    P(pod(required(term())), "", {"foo": "bar"}, None, OK, None, POD,
      id="Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node"),
    P(pod(), "", {"foo": "bar"}, None, SKIP, None, OK, id="Pod with no Affinity will schedule onto a node"),
    P(pod({"requiredDuringSchedulingIgnoredDuringExecution": None}), "", {"foo": "bar"}, None, SKIP, None, OK,
      id="Pod with Affinity but nil NodeSelector will schedule onto a node"),
    P(pod(required(term(*_GPU))), "", {"GPU": "NVIDIA-GRID-K1"}, None, OK, None, OK,
      id="Pod with multiple matchExpressions ANDed that matches the existing node"),
    P(pod(required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")))), "",
      {"GPU": "NVIDIA-GRID-K1"}, None, OK, None, POD,
      id="Pod with multiple matchExpressions ANDed that doesn't match the existing node"),
    P(pod(required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2")))),
      "", {"foo": "bar"}, None, OK, None, OK,
      id="Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node"),
    P(pod(required(term(expr("foo", "Exists"))), {"foo": "bar"}), "", {"foo": "bar"}, None, OK, None, OK,
      id="Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node"),
    P(pod(required(term(expr("foo", "Exists"))), {"foo": "bar"}), "", {"foo": "barrrrrr"}, None, OK, None, POD,
      id="Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node"),
    P(pod(required(term(expr("foo", "NotIn", "invalid value: ___@#$%^")))), "", {"foo": "bar"}, None, OK, None,
      POD, id="Pod with an invalid value in Affinity term won't be scheduled onto the node"),
    P(pod(required(term(fields=(name_in("node1"),)))), "node1", None, None, OK, {"node1"}, OK,
      id="Pod with matchFields using In operator that matches the existing node"),
    P(pod(required(term(fields=(name_in("node1"),)))), "node2", None, None, OK, {"node1"}, POD,
      id="Pod with matchFields using In operator that does not match the existing node"),
    P(pod(required(term(fields=(name_in("node1"), name_in("node2"))), term(expr("foo", "In", "bar")))), "node2",
      {"foo": "bar"},
      None, OK, None, OK, id="Pod with two terms: matchFields does not match, but matchExpressions matches"),
    P(pod(required(term(expr("foo", "In", "bar"), fields=(name_in("node1"),)))), "node2", {"foo": "bar"}, None,
      OK, {"node1"}, POD, id="Pod with one term: matchFields does not match, but matchExpressions matches"),
    P(pod(required(term(expr("foo", "In", "bar"), fields=(name_in("node1"),)))), "node1", {"foo": "bar"}, None,
      OK, {"node1"}, OK, id="Pod with one term: both matchFields and matchExpressions match"),
    P(pod(required(term(fields=(name_in("node1"),)), term(expr("foo", "In", "not-match-to-bar")))), "node2",
      {"foo": "bar"}, None, OK, None, POD,
      id="Pod with two terms: both matchFields and matchExpressions do not match"),
    P(pod(required(term(fields=(name_in("node1"),)), term(fields=(name_in("node2"),)))), "node2", None, None,
      OK, {"node1", "node2"}, OK, id="Pod with two terms of node.Name affinity"),
    P(pod(required(term(fields=(name_in("node1"), name_in("node2"))))), "node2", {"foo": "bar"}, None,
      CONFLICT, None, POD, id="Pod with two conflicting mach field requirements"),
    P(pod(required(term(expr("zone", "In", "foo")))), "node2", {"zone": "foo"}, _ZONE_NODE2, OK, None, OK,
      id="Matches added affinity and Pod's node affinity"),
    P(pod(required(term(expr("zone", "In", "bar")))), "node2", {"zone": "foo"}, _ZONE_NODE2, OK, None, POD,
      id="Matches added affinity but not Pod's node affinity"),
    P(pod(), "node2", {"zone": "foo"}, NodeAffinityArgs(required(term(expr("zone", "In", "bar")))), OK, None,
      ENFORCED, id="Doesn't match added affinity"),
    P(pod(selector={"foo": "bar"}), "", {"foo": "bar", "baz": "blah"}, None, None, None, OK,
      id="Matches node selector correctly even if PreFilter is not called"),
    P(pod(required(term(*_GPU))), "", {"GPU": "NVIDIA-GRID-K1"}, None, None, None, OK,
      id="Matches node affinity correctly even if PreFilter is not called"),
]


@pytest.mark.parametrize(("p", "name", "labels", "args", "want_pre", "want_result", "want"), _ROWS)
def test_node_affinity(
    p: Obj, name: str, labels: dict[str, str] | None, args: NodeAffinityArgs | None,
    want_pre: Status | None, want_result: set[str] | None, want: Status,
) -> None:
    plugin = NodeAffinity(args=args)
    state = CycleState()
    ni = node(name, labels)
    if want_pre is not None:
        result, st = plugin.pre_filter(state, p, [ni])
        assert st == want_pre
        assert result == (None if want_result is None else PreFilterResult(frozenset(want_result)))
    assert plugin.filter(state, p, ni) == want


def preferred(*pairs: tuple[int, Obj]) -> Obj:
    return {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": t} for w, t in pairs]}


L1, L2, L3 = {"foo": "bar"}, {"key": "value"}, {"az": "az1"}
L4, L5 = {"abc": "az11", "def": "az22"}, {"foo": "bar", "key": "value", "az": "az1"}
AFF1 = preferred((2, term(expr("foo", "In", "bar"))))
AFF2 = preferred((2, term(expr("foo", "In", "bar"))), (4, term(expr("key", "In", "value"))),
                 (5, term(expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1"))))
_BROKEN_MSG = (
    '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of alphanumeric '
    "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
    "or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


@pytest.mark.parametrize(
    ("p", "nodes", "args", "run_pre_score", "want_pre", "want"),
    [
        P(pod(), [("node1", L1), ("node2", L2), ("node3", L3)], None, False, None, [0, 0, 0],
          id="all nodes are same priority as NodeAffinity is nil"),
        P(pod(), [("node1", L1)], None, True, SKIP, None, id="Skip is returned in PreScore when NodeAffinity is nil"),
        P(pod(preferred((2, term(expr("invalid key", "In", "bar"))))), [("node1", L1)], None, True,
          Status(Code.ERROR, (_BROKEN_MSG,), NAME), None,
          id="PreScore returns error when an incoming Pod has a broken affinity"),
        P(pod(AFF1), [("node1", L4), ("node2", L2), ("node3", L3)], None, True, OK, [0, 0, 0],
          id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero"),
        P(pod(AFF1), [("node1", L1), ("node2", L2), ("node3", L3)], None, True, OK, [100, 0, 0],
          id="only node1 matches the preferred scheduling requirements of pod"),
        P(pod(AFF2), [("node1", L1), ("node5", L5), ("node2", L2)], None, True, OK, [18, 100, 36],
          id="all nodes matches the preferred scheduling requirements of pod but with different priorities "),
        P(pod(), [("node1", L1), ("node2", L2)], NodeAffinityArgs(AFF1), True, OK, [100, 0], id="added affinity"),
        P(pod(AFF1), [("node1", L1), ("node2", L2), ("node3", L5)],
          NodeAffinityArgs(preferred((3, term(expr("key", "In", "value"))))), True, OK, [40, 60, 100],
          id="added affinity and pod has default affinity"),
        P(pod(AFF2), [("node1", L1), ("node5", L5), ("node2", L2)], None, False, None, [18, 100, 36],
          id="calculate the priorities correctly even if PreScore is not called"),
    ],
)
def test_node_affinity_priority(
    p: Obj, nodes: list[tuple[str, dict[str, str]]], args: NodeAffinityArgs | None, run_pre_score: bool,
    want_pre: Status | None, want: list[int] | None,
) -> None:
    plugin = NodeAffinity(args=args)
    infos = [node(n, labels) for n, labels in nodes]
    state = CycleState()
    if run_pre_score:
        st = plugin.pre_score(state, p, infos)
        assert st == want_pre
        if not st.is_success():
            return
    scores = []
    for ni in infos:
        s, st = plugin.score(state, p, ni)
        assert st.is_success()
        scores.append(NodeScore(ni.name, s))
    assert plugin.normalize_score(state, p, scores).is_success()
    assert [s.score for s in scores] == want


def test_node_affinity_deferred_resize_skipped() -> None:
    p = pod()
    p["status"] = {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]}
    plugin = NodeAffinity(resize_preemption=True)
    result, st = plugin.pre_filter(CycleState(), p, [])
    assert result is None and st.code is Code.SKIP
    assert plugin.filter(CycleState(), p, node("node1")).is_success()


_FOO_BAR = pod(required(term(expr("foo", "In", "bar"))))
_ADDED_FOO_BAR = NodeAffinityArgs(required(term(expr("foo", "In", "bar"))))
_WRONG_TYPE = pytest.mark.skip(reason="a non-Node object cannot reach the Python hint")


def mk(labels: dict[str, str] | None = None, capacity: bool = False) -> Obj:
    out: Obj = {"metadata": {"name": "", "labels": dict(labels or {})}}
    if capacity:
        out["status"] = {"capacity": {}}
    return out


@pytest.mark.parametrize(
    ("args", "old", "new", "want"),
    [
        P(None, None, None, QueueingHint.QUEUE, id="backoff-wrong-new-object", marks=_WRONG_TYPE),
        P(None, None, None, QueueingHint.QUEUE, id="backoff-wrong-old-object", marks=_WRONG_TYPE),
        P(None, None, mk(), QueueingHint.QUEUE_SKIP, id="skip-queue-on-add"),
        P(None, None, mk({"foo": "bar"}), QueueingHint.QUEUE, id="queue-on-add"),
        P(None, mk(), mk(capacity=True), QueueingHint.QUEUE_SKIP, id="skip-unrelated-changes"),
        P(None, mk(), mk({"k": "v"}), QueueingHint.QUEUE_SKIP, id="skip-unrelated-changes-on-labels"),
        P(None, mk({"foo": "bar"}), mk({"k": "v"}), QueueingHint.QUEUE_SKIP,
          id="skip-labels-changes-on-node-from-suitable-to-unsuitable"),
        P(None, mk(), mk({"foo": "bar"}), QueueingHint.QUEUE, id="queue-on-labels-change-makes-pod-schedulable"),
        P(None, mk({"foo": "bar"}), mk({"foo": "bar"}, capacity=True), QueueingHint.QUEUE_SKIP,
          id="skip-unrelated-change-that-keeps-pod-schedulable"),
        P(_ADDED_FOO_BAR, None, mk(), QueueingHint.QUEUE_SKIP,
          id="skip-queue-on-add-scheduler-enforced-node-affinity"),
        P(_ADDED_FOO_BAR, None, mk({"foo": "bar"}), QueueingHint.QUEUE,
          id="queue-on-add-scheduler-enforced-node-affinity"),
    ],
)
def test_is_schedulable_after_node_change(
    args: NodeAffinityArgs | None, old: Obj | None, new: Obj | None, want: QueueingHint
) -> None:
    (reg,) = NodeAffinity(args=args).events_to_register()
    assert reg.hint is not None
    assert reg.hint(_FOO_BAR, old, new) == want

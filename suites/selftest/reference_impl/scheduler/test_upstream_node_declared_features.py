"""Ports nodedeclaredfeatures/nodedeclaredfeatures_test.go: TestFilter,
TestEnqueueExtensionsNodeUpdate, TestEventsToRegister and
TestNodeDeclaredFeatures_DeferredResizeSkipped; TestPreFilter and
TestIsSchedulableAfterTargetPodUpdate through the real feature registry.

Upstream drives PreFilter and the pod-update hint with mock features (inference results
and MaxVersion chosen per row); the reference has only the registry's real features, so
those rows are skipped and real-feature rows check the same rules instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, QueueingHint, Status
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import node_declared_features as ndf
from reference_impl.scheduler.plugins.node_declared_features import (
    ERR_REASON,
    NAME,
    NodeDeclaredFeatures,
)

Obj = dict[str, Any]
REJECT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,), NAME)
_GATE = pytest.mark.skip(reason="NodeDeclaredFeatures is GA and locked on in 1.37; no disabled plugin")
_MOCK = pytest.mark.skip(reason="needs ndftesting mock features (per-row inference and MaxVersion)")
A, B, C = "FeatureA", "FeatureB", "FeatureC"


def pod() -> Obj:
    return {"metadata": {"name": "test-pod", "namespace": "default", "uid": "123"}, "spec": {"containers": []}}


def node(name: str, declared: list[str] | None = None) -> Obj:
    out: Obj = {"metadata": {"name": name}}
    if declared is not None:
        out["status"] = {"declaredFeatures": declared}
    return out


@pytest.mark.parametrize(
    ("n", "reqs", "want"),
    [
        pytest.param(node("node-1", [A, B]), None, OK, id="plugin disabled", marks=_GATE),
        pytest.param(node("node-1", [A, B]), [A], OK, id="Node matches requirements"),
        pytest.param(node("node-1", [B]), [A], REJECT, id="Node does not match requirements"),
        pytest.param(node("node-multi", [A, B, C]), [A, C], OK, id="Node with multiple features, pod requires subset"),
        pytest.param(node("node-1"), [A], REJECT, id="Node has no declared features"),
        pytest.param(node("node-1", [A]), [A, B], REJECT, id="Node with some but not all required features"),
        pytest.param(node("node-1"), None,
                     Status(Code.ERROR, ('error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found',),
                            NAME), id="Error getting pre-filter state"),
    ],
)
def test_filter(n: Obj, reqs: list[str] | None, want: Status) -> None:
    state = CycleState()
    if reqs is not None:
        state.write(ndf._PRE_FILTER, ndf._State(frozenset(reqs)))
    got = NodeDeclaredFeatures().filter(state, pod(), NodeInfo(n["metadata"]["name"], n))
    assert (got.code, got.message()) == (want.code, want.message())


@pytest.mark.parametrize(
    "name",
    ["plugin disabled", "Pod with feature requirements", "Pod with multiple feature requirements",
     "Pod with no requirements", "Feature not required, version > MaxVersion"],
)
@_MOCK
def test_pre_filter(name: str) -> None:
    raise AssertionError(name)


@pytest.mark.parametrize(
    ("spec", "want_required"),
    [
        pytest.param({"containers": []}, None, id="real registry: pod with no requirements skips"),
        pytest.param({"containers": [], "hostNetwork": True, "hostUsers": False},
                     frozenset({"UserNamespacesHostNetworkSupport"}),
                     id="real registry: pod with a feature requirement"),
    ],
)
def test_pre_filter_real_registry(spec: Obj, want_required: frozenset[str] | None) -> None:
    state = CycleState()
    result, st = NodeDeclaredFeatures().pre_filter(state, {"metadata": {"name": "p"}, "spec": spec}, [])
    assert result is None
    if want_required is None:
        assert st.code is Code.SKIP and state.try_read(ndf._PRE_FILTER) is None
    else:
        got = state.try_read(ndf._PRE_FILTER)
        assert st == OK and got is not None and got.required == want_required


def _hint(resource: str) -> Any:
    for reg in NodeDeclaredFeatures().events_to_register():
        if reg.event.resource.name == resource:
            return reg.hint
    raise AssertionError(resource)


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, node("node-1", ["FeatureA"]), QueueingHint.QUEUE, id="Node Add with feature"),
        pytest.param(node("node-1"), node("node-1", ["FeatureA"]), QueueingHint.QUEUE,
                     id="Node Update (Features Added)"),
        pytest.param(node("node-1", ["FeatureA"]), node("node-1", ["FeatureA"]), QueueingHint.QUEUE_SKIP,
                     id="Node Update (Features Unchanged)"),
    ],
)
def test_enqueue_extensions_node_update(old: Obj | None, new: Obj, want: QueueingHint) -> None:
    assert _hint("NODE")(pod(), old, new) == want


@pytest.mark.parametrize(
    "name",
    ["Pod Update adds requirement", "Pod Update removes requirement", "Infer returns error"],
)
@_MOCK
def test_is_schedulable_after_target_pod_update(name: str) -> None:
    raise AssertionError(name)


def test_is_schedulable_after_target_pod_update_no_change() -> None:
    """"Pod Update with no change in requirements": no feature inferred either way."""
    new = pod()
    new["metadata"]["labels"] = {"foo": "bar"}
    assert _hint("TARGET_POD")(pod(), pod(), new) == QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize(
    ("enabled", "want"),
    [pytest.param(False, 0, id="plugin disabled", marks=_GATE), pytest.param(True, 2, id="plugin enabled")],
)
def test_events_to_register(enabled: bool, want: int) -> None:
    assert len(NodeDeclaredFeatures().events_to_register()) == want


def test_node_declared_features_deferred_resize_skipped() -> None:
    p = pod()
    p["status"] = {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]}
    plugin = NodeDeclaredFeatures(resize_preemption=True)
    result, st = plugin.pre_filter(CycleState(), p, [])
    assert result is None and st.code is Code.SKIP
    assert plugin.filter(CycleState(), p, NodeInfo("node1", node("node1"))).is_success()

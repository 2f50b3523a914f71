"""Upstream pkg/kubelet/status/status_manager_test.go resize-condition rows (v1.37.2):
``TestPodResizeConditions``, ``TestClearPodResizeInProgressCondition`` and
``TestBackfillPodResizeConditions`` against reference_impl/kubelet/resize_conditions.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.kubelet.resize_conditions import ResizeConditions

Obj = dict[str, Any]
NOW = "2026-01-01T00:00:00Z"


def _c(ctype: str, gen: int, reason: str = "", message: str = "") -> Obj:
    c: Obj = {"type": ctype, "status": "True", "observedGeneration": gen}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def _ip(gen: int, reason: str = "", message: str = "") -> Obj:
    return _c("PodResizeInProgress", gen, reason, message)


def _pend(gen: int, reason: str, message: str) -> Obj:
    return _c("PodResizePending", gen, reason, message)


def _clear_and_set(r: ResizeConditions) -> bool:
    r.clear_in_progress()
    return r.set_in_progress("", "", 2, NOW)


def _clear_pending(r: ResizeConditions) -> bool:
    r.clear_pending()
    return False


Step = Callable[[ResizeConditions], bool] | None
# name, update, its return value, expected conditions, deferred, infeasible (each row
# runs on the state the rows before it left, as upstream's shared manager does)
STEPS: list[tuple[str, Step, bool, list[Obj], bool, bool]] = [
    ("initial empty conditions", None, False, [], False, False),
    ("set pod resize in progress condition with reason and message",
     lambda r: r.set_in_progress("some-reason", "some-message", 1, NOW), True,
     [_ip(1, "some-reason", "some-message")], False, False),
    ("set pod resize in progress condition without reason and message",
     lambda r: r.set_in_progress("", "", 1, NOW), False,
     [_ip(1, "some-reason", "some-message")], False, False),
    ("attempt to overwrite pod resize in progress condition with a new observedGeneration",
     lambda r: r.set_in_progress("", "", 2, NOW), False,
     [_ip(1, "some-reason", "some-message")], False, False),
    ("clear the pod resize in progress condition and set a new one", _clear_and_set, True,
     [_ip(2)], False, False),
    ("set pod resize pending condition to deferred with message",
     lambda r: r.set_pending("some-reason", "some-message", 1, NOW), True,
     [_pend(1, "Deferred", "some-message"), _ip(2)], True, False),
    ("change the deferred message",
     lambda r: r.set_pending("Deferred", "some-other-message", 1, NOW), False,
     [_pend(1, "Deferred", "some-other-message"), _ip(2)], True, False),
    ("set pod resize pending condition to infeasible with message",
     lambda r: r.set_pending("Infeasible", "some-message", 3, NOW), True,
     [_pend(3, "Infeasible", "some-message"), _ip(2)], False, True),
    ("clear pod resize in progress condition", lambda r: r.clear_in_progress()[1], True,
     [_pend(3, "Infeasible", "some-message")], False, True),
    ("clear pod resize pending condition", _clear_pending, False, [], False, False),
]


def _strip(conds: list[Obj]) -> list[Obj]:
    return [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in conds]


@pytest.mark.parametrize("upto", range(len(STEPS)), ids=[s[0] for s in STEPS])
def test_pod_resize_conditions(upto: int) -> None:
    """TestPodResizeConditions."""
    r = ResizeConditions()
    for i, (_, step, ret, want, deferred, infeasible) in enumerate(STEPS[: upto + 1]):
        got = step(r) if step is not None else False
        if i == upto:
            if step is not None:
                assert got is ret
            assert _strip(r.conditions()) == want
            assert r.is_deferred() is deferred and r.is_infeasible() is infeasible


@pytest.mark.parametrize(
    "existing,gen,ok",
    [
        pytest.param(None, 0, False, id="no existing conditions"),
        pytest.param(_ip(1), 1, True, id="existing pod resize in progress condition"),
    ],
)
def test_clear_pod_resize_in_progress_condition(existing: Obj | None, gen: int, ok: bool) -> None:
    """TestClearPodResizeInProgressCondition."""
    r = ResizeConditions(in_progress=existing)
    assert r.clear_in_progress() == (gen, ok)
    assert r.conditions() == []


def test_backfill_pod_resize_conditions() -> None:
    """TestBackfillPodResizeConditions: the stored resize conditions become the cache's;
    other conditions are ignored."""
    pods = {
        "pod-in-progress": [_ip(1)],
        "pod-in-progress-with-error": [_ip(1, "Error", "error-message")],
        "pod-in-progress-and-pending": [_ip(1), _pend(1, "Deferred", "error-message")],
        "pod-pending": [_pend(1, "Infeasible", "error-message")],
        "pod-no-resize-conditions": [{"type": "PodScheduled", "status": "True"}],
    }
    got = {}
    for uid, conds in pods.items():
        r = ResizeConditions()
        r.backfill(conds, NOW)
        if r.conditions():
            got[uid] = _strip(r.conditions())
    assert got == {
        "pod-in-progress": [_ip(1)],
        "pod-in-progress-with-error": [_ip(1, "Error", "error-message")],
        "pod-in-progress-and-pending": [_pend(1, "Deferred", "error-message"), _ip(1)],
        "pod-pending": [_pend(1, "Infeasible", "error-message")],
    }


def test_transition_time_moves_only_with_the_reason() -> None:
    """``updatedPodResizeCondition``: same reason keeps lastTransitionTime, a new one moves it."""
    r = ResizeConditions()
    r.set_pending("Deferred", "a", 1, "t1")
    r.set_pending("Deferred", "b", 2, "t2")
    assert r.pending is not None and r.pending["lastTransitionTime"] == "t1"
    r.set_pending("Infeasible", "c", 2, "t3")
    assert r.pending["lastTransitionTime"] == "t3"

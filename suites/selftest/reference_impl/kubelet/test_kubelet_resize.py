"""Unit tests of the kubelet's resize allocation (reference_impl/kubelet/resize.py)."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_pod
from reference_impl.clock import Duration, Instant, seconds
from reference_impl.kubelet.resize import DEFERRED, admitted, apply_resize, reconcile, retry_key

ALLOC = {"cpu": 4000, "memory": 8 * 2**30}


def _pod(cpu: str, policy: str = "NotRequired") -> dict[str, Any]:
    pod = make_pod("p", "default").req(cpu=cpu).build()
    pod["spec"]["containers"][0]["resizePolicy"] = [
        {"resourceName": "cpu", "restartPolicy": policy}
    ]
    return pod


def test_fitting_resize_is_in_progress_then_applied() -> None:
    """Allocated at once, actual after the actuation delay; InProgress in between."""
    st = admitted(_pod("1"))
    wake = reconcile(
        _pod("2"), st, {"cpu": 1000, "memory": 0}, ALLOC, Instant(0), Duration(seconds(1))
    )
    assert wake == Instant(seconds(1)) and st.allocated["main"]["requests"]["cpu"] == "2"
    status = apply_resize(_pod("2"), {"containerStatuses": [{"name": "main"}]}, st, "t")
    assert [c["type"] for c in status["conditions"]] == ["PodResizeInProgress"]
    assert (
        reconcile(
            _pod("2"), st, {"cpu": 1000, "memory": 0}, ALLOC, Instant(seconds(1)), Duration(0)
        )
        is None
    )
    assert st.actual == st.allocated and st.restarts == {}


def test_deferred_infeasible_and_restart() -> None:
    """Not next to others: Deferred; beyond allocatable: Deferred too (upstream v1.37.2,
    TestRetryPendingResizes "Request CPU increase beyond node capacity - expect Deferred");
    RestartContainer counts."""
    st = admitted(_pod("1"))
    reconcile(_pod("3"), st, {"cpu": 2000, "memory": 0}, ALLOC, Instant(0), Duration(0))
    assert st.pending is not None and st.pending[0] == DEFERRED
    reconcile(_pod("5"), st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(0))
    assert st.pending == (
        DEFERRED,
        "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000",
    )
    st = admitted(_pod("1", "RestartContainer"))
    reconcile(
        _pod("2", "RestartContainer"), st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(0)
    )
    assert st.restarts == {"main": 1} and st.pending is None


def test_retry_key_orders_like_sort_pending_resizes() -> None:
    """Deferred resizes retry non-increasing first, then by priority, then the oldest."""
    def pending(cpu: str, priority: int, since: str | None) -> dict[str, Any]:
        pod = _pod(cpu)
        pod["spec"]["priority"] = priority
        if since is not None:
            pod["status"] = {"conditions": [{"type": "PodResizePending", "reason": DEFERRED,
                                             "lastTransitionTime": since}]}
        return pod

    st = admitted(_pod("1"))
    pods = {
        "newest": pending("2", 0, None),
        "older": pending("2", 0, "2026-01-01T00:00:01Z"),
        "oldest": pending("2", 0, "2026-01-01T00:00:00Z"),
        "high": pending("2", 10, "2026-01-01T00:00:05Z"),
        "shrink": pending("500m", 0, None),
    }
    order = sorted(pods, key=lambda k: retry_key(pods[k], st))
    assert order == ["shrink", "high", "oldest", "older", "newest"]


def test_in_progress_keeps_the_allocated_generation_while_a_later_resize_waits() -> None:
    """TestRetryPendingResizesMultipleConditions' shape: InProgress keeps the generation it
    was allocated at; the Deferred condition carries the newer one."""
    st = admitted(_pod("1"))
    first = _pod("2")
    first["metadata"]["generation"] = 2
    reconcile(first, st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(seconds(10)))
    later = _pod("5")
    later["metadata"]["generation"] = 3
    reconcile(later, st, {"cpu": 0, "memory": 0}, ALLOC, Instant(seconds(1)), Duration(seconds(10)))
    status = apply_resize(later, {"containerStatuses": [{"name": "main"}]}, st, "t")
    assert [(c["type"], c.get("reason"), c["observedGeneration"]) for c in status["conditions"]] == [
        ("PodResizePending", DEFERRED, 3),
        ("PodResizeInProgress", None, 2),
    ]


def test_a_reverted_resize_clears_pending() -> None:
    """handlePodResourcesResize: spec back at the allocation clears PodResizePending."""
    st = admitted(_pod("1"))
    reconcile(_pod("5"), st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(0))
    deferred = st.pending
    reconcile(_pod("1"), st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(0))
    assert deferred is not None and st.pending is None
    status = apply_resize(_pod("1"), {"containerStatuses": [{"name": "main"}]}, st, "t")
    assert status["conditions"] == []

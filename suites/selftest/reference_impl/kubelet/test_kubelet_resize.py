"""Unit tests of the kubelet's resize allocation (reference_impl/kubelet/resize.py)."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_pod
from reference_impl.clock import Duration, Instant, seconds
from reference_impl.kubelet.resize import DEFERRED, INFEASIBLE, admitted, apply_resize, reconcile

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
    """Not next to others: Deferred; beyond allocatable: Infeasible; RestartContainer counts."""
    st = admitted(_pod("1"))
    reconcile(_pod("3"), st, {"cpu": 2000, "memory": 0}, ALLOC, Instant(0), Duration(0))
    assert st.pending is not None and st.pending[0] == DEFERRED
    reconcile(_pod("5"), st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(0))
    assert st.pending == (
        INFEASIBLE,
        "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000",
    )
    st = admitted(_pod("1", "RestartContainer"))
    reconcile(
        _pod("2", "RestartContainer"), st, {"cpu": 0, "memory": 0}, ALLOC, Instant(0), Duration(0)
    )
    assert st.restarts == {"main": 1} and st.pending is None

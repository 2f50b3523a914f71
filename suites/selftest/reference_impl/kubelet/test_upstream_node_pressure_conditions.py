"""The kubelet's node pressure condition setters (upstream v1.37.2
pkg/kubelet/nodestatus setters_test.go: TestMemoryPressureCondition,
TestPIDPressureCondition, TestDiskPressureCondition) against
``node_status.pressure_condition``, and the fake kubelet recording their events."""

from __future__ import annotations

from typing import Any

import pytest
from kubelet_harness import KubeletHarness

from reference_impl.api import make_node
from reference_impl.kubelet.node_status import pressure_condition

Obj = dict[str, Any]
NOW = "2026-09-01T00:00:01Z"
BEFORE = "2026-09-01T00:00:00Z"

# per setter: the condition type, then (reason, message, event) under pressure and not
SETTERS = {
    "TestMemoryPressureCondition": (
        "MemoryPressure",
        ("KubeletHasInsufficientMemory", "kubelet has insufficient memory available", "NodeHasInsufficientMemory"),
        ("KubeletHasSufficientMemory", "kubelet has sufficient memory available", "NodeHasSufficientMemory"),
    ),
    "TestPIDPressureCondition": (
        "PIDPressure",
        ("KubeletHasInsufficientPID", "kubelet has insufficient PID available", "NodeHasInsufficientPID"),
        ("KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"),
    ),
    "TestDiskPressureCondition": (
        "DiskPressure",
        ("KubeletHasDiskPressure", "kubelet has disk pressure", "NodeHasDiskPressure"),
        ("KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"),
    ),
}

# (desc, the old condition's pressure (None: no condition), pressure now, transition time
# expected (heartbeat is always now), event expected)
CASES = (
    ("new, no pressure", None, False, NOW, True),
    ("new, pressure", None, True, NOW, True),
    ("transition to pressure", False, True, NOW, True),
    ("transition to no pressure", True, False, NOW, True),
    ("pressure, no transition", True, True, BEFORE, False),
    ("no pressure, no transition", False, False, BEFORE, False),
)


def _make(ctype: str, texts: tuple[str, str, str], pressure: bool, transition: str, heartbeat: str) -> Obj:
    """make<X>PressureCondition."""
    return {
        "type": ctype,
        "status": "True" if pressure else "False",
        "reason": texts[0],
        "message": texts[1],
        "lastTransitionTime": transition,
        "lastHeartbeatTime": heartbeat,
    }


def _rows() -> list[Any]:
    out = []
    for test, (ctype, on, off) in SETTERS.items():
        for desc, old, pressure, transition, event in CASES:
            prev = None if old is None else _make(ctype, on if old else off, old, BEFORE, BEFORE)
            want = _make(ctype, on if pressure else off, pressure, transition, NOW)
            want_event = (on if pressure else off)[2] if event else None
            out.append(pytest.param(ctype, prev, pressure, want, want_event, id=f"{test}/{desc}"))
    return out


@pytest.mark.parametrize(("ctype", "prev", "pressure", "want", "event"), _rows())
def test_pressure_condition_setter(
    ctype: str, prev: Obj | None, pressure: bool, want: Obj, event: str | None
) -> None:
    assert pressure_condition(prev, ctype, pressure, NOW) == (want, event)


def test_without_heartbeat_an_unchanged_condition_is_kept_as_is() -> None:
    """The fake kubelet's re-syncs (heartbeat False): no transition, no write."""
    prev = _make("MemoryPressure", SETTERS["TestMemoryPressureCondition"][2], False, BEFORE, BEFORE)
    assert pressure_condition(prev, "MemoryPressure", False, NOW, heartbeat=False) == (prev, None)


def test_kubelet_records_the_setters_events(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    first = [r.event for r in k.trace.records if r.component == "kubelet" and r.object == "n1"]
    assert first == ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"]
    k.kubelet.set_pressure("n1", "PIDPressure")
    k.clock.settle()
    events = [r.event for r in k.trace.records if r.component == "kubelet" and r.object == "n1"]
    assert events[len(first):] == ["NodeHasInsufficientPID"]

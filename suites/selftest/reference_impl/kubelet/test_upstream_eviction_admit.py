"""The eviction manager's admit handler (``managerImpl.Admit``, upstream v1.37.2
pkg/kubelet/eviction): TestAdmitUnderNodeConditions and the admission steps of
TestMemoryPressure, TestAllocatableMemoryPressure, TestPIDPressure,
TestDiskPressureNodeFs and TestInodePressureFsInodes (their pressure comes from stats
there, from ``AdmitState.observe`` here; the 5 minute transition period is kept), then
the fake kubelet under a pressure it is told of."""

from __future__ import annotations

from typing import Any

import pytest
from kubelet_harness import KubeletHarness

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Instant, seconds
from reference_impl.kubelet.admit_handlers import AdmitState, eviction_admit

Obj = dict[str, Any]
MINUTE = 60 * 10**9
PERIOD = 5 * MINUTE  # the tests' PressureTransitionPeriod


def _pod(name: str, requests: Obj | None = None, limits: Obj | None = None, priority: int = 0) -> Obj:
    """newPod/newContainer: one container, the given resources, the priority."""
    res: Obj = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    return {
        "metadata": {"name": name, "uid": name},
        "spec": {"containers": [{"name": name, "resources": res}], "priority": priority},
    }


GUARANTEED = _pod("guaranteed-pod", {"cpu": "100m", "memory": "1Gi"}, {"cpu": "100m", "memory": "1Gi"})
BURSTABLE = _pod("burstable-pod", {"cpu": "100m", "memory": "1Gi"})
BEST_EFFORT = _pod("best-effort-pod")


# -- TestAdmitUnderNodeConditions ----------------------------------------------------------

_NONE: list[str] = []
_MEM = ["MemoryPressure"]
_MEM_DISK = ["MemoryPressure", "DiskPressure"]


@pytest.mark.parametrize(
    ("conditions", "pod", "want"),
    [
        pytest.param(_NONE, GUARANTEED, True, id="no conditions/guaranteed-pod"),
        pytest.param(_NONE, BURSTABLE, True, id="no conditions/burstable-pod"),
        pytest.param(_NONE, BEST_EFFORT, True, id="no conditions/best-effort-pod"),
        pytest.param(_MEM, GUARANTEED, True, id="MemoryPressure/guaranteed-pod"),
        pytest.param(_MEM, BURSTABLE, True, id="MemoryPressure/burstable-pod"),
        pytest.param(_MEM, BEST_EFFORT, False, id="MemoryPressure/best-effort-pod"),
        pytest.param(_MEM_DISK, GUARANTEED, False, id="MemoryPressure+DiskPressure/guaranteed-pod"),
        pytest.param(_MEM_DISK, BURSTABLE, False, id="MemoryPressure+DiskPressure/burstable-pod"),
        pytest.param(_MEM_DISK, BEST_EFFORT, False, id="MemoryPressure+DiskPressure/best-effort-pod"),
    ],
)
def test_admit_under_node_conditions(conditions: list[str], pod: Obj, want: bool) -> None:
    result = eviction_admit(pod, conditions)
    assert result.admit is want
    if not want:
        assert (result.reason, result.message) == (
            "Evicted", f"The node had condition: [{' '.join(conditions)}]. ",
        )  # fmt: skip
    else:
        assert (result.reason, result.message) == ("", "")


# -- the admission steps of the pressure tests ---------------------------------------------

BE_ADMIT = _pod("best-admit")
BURST_ADMIT = _pod("burst-admit", {"cpu": "100m", "memory": "100Mi"}, {"cpu": "200m", "memory": "200Mi"})
PID_ADMIT = _pod("pod-to-admit")  # TestPIDPressure's podMaker: no resources
DISK_ADMIT = _pod("pod-to-admit")

# Each test: the pressure, then per step (minutes since the start, the signal past its
# threshold or not) and the pods' expected admissions. The pressure is observed at 1,
# cleared at 2; a check at 3 is inside the transition period, at 8 past it.
_STEPS = (
    ("no pressure", 0, False),
    ("under pressure", 1, True),
    ("pressure reduced, transition period not met", 3, False),
    ("past the transition period", 8, False),
)
_MEMORY_EXPECT = ((True, True), (False, True), (False, True), (True, True))
_ALL_EXPECT = ((True,), (False,), (False,), (True,))


def _rows() -> list[Any]:
    tests = (
        ("TestMemoryPressure", "MemoryPressure", (BE_ADMIT, BURST_ADMIT), _MEMORY_EXPECT),
        ("TestAllocatableMemoryPressure", "MemoryPressure", (BE_ADMIT, BURST_ADMIT), _MEMORY_EXPECT),
        ("TestPIDPressure/eviction due to pid pressure", "PIDPressure", (PID_ADMIT,), _ALL_EXPECT),
        ("TestDiskPressureNodeFs", "DiskPressure", (DISK_ADMIT,), _ALL_EXPECT),
        ("TestInodePressureFsInodes", "DiskPressure", (DISK_ADMIT,), _ALL_EXPECT),
    )
    out = []
    for test, cond, pods, expect in tests:
        for (step, minute, _), wants in zip(_STEPS, expect, strict=True):
            for pod, want in zip(pods, wants, strict=True):
                name = pod["metadata"]["name"]
                out.append(pytest.param(cond, minute, pod, want, id=f"{test}/{step}/{name}"))
    return out


@pytest.mark.parametrize(("condition", "minute", "pod", "want"), _rows())
def test_admission_through_a_pressure(condition: str, minute: int, pod: Obj, want: bool) -> None:
    state = AdmitState()
    for _, at, active in _STEPS[1:]:
        if at > minute:
            break
        state.observe(condition, active, at * MINUTE if active else 2 * MINUTE)
    result = eviction_admit(pod, state.update_pressure(minute * MINUTE, PERIOD))
    assert result.admit is want
    if not want:
        assert result.message == f"The node had condition: [{condition}]. "


# -- the rules around it: critical pods and the memory-pressure toleration -------------------

def _tolerating(toleration: Obj) -> Obj:
    pod = _pod("best-effort-tolerating")
    pod["spec"]["tolerations"] = [toleration]
    return pod


MEMORY_TAINT = "node.kubernetes.io/memory-pressure"


@pytest.mark.parametrize(
    ("conditions", "pod", "want"),
    [
        pytest.param(_MEM_DISK, _pod("critical", priority=2_000_000_000), True,
                     id="system-critical priority is admitted under any pressure"),
        pytest.param(_MEM_DISK, _pod("below-critical", priority=1_999_999_999), False,
                     id="a priority below system-critical is not critical"),
        pytest.param(_MEM_DISK, {**_pod("static"), "metadata": {
            "name": "static", "annotations": {"kubernetes.io/config.source": "file"}}}, True,
                     id="a static pod is critical"),
        pytest.param(_MEM_DISK, {**_pod("mirror"), "metadata": {
            "name": "mirror", "annotations": {"kubernetes.io/config.mirror": "x"}}}, True,
                     id="a mirror pod is critical"),
        pytest.param(_MEM, _tolerating({"key": MEMORY_TAINT, "operator": "Exists", "effect": "NoSchedule"}),
                     True, id="best-effort tolerating the memory-pressure taint"),
        pytest.param(_MEM, _tolerating({"key": MEMORY_TAINT, "operator": "Exists"}), True,
                     id="best-effort tolerating the taint with any effect"),
        pytest.param(_MEM, _tolerating({"operator": "Exists"}), True,
                     id="best-effort tolerating everything"),
        pytest.param(_MEM, _tolerating({"key": MEMORY_TAINT, "operator": "Exists", "effect": "NoExecute"}),
                     False, id="best-effort tolerating another effect"),
        pytest.param(_MEM, _tolerating({"key": "node.kubernetes.io/disk-pressure", "operator": "Exists"}),
                     False, id="best-effort tolerating disk pressure"),
        pytest.param(_MEM_DISK, _tolerating({"operator": "Exists"}), False,
                     id="a toleration does not help under another pressure"),
        pytest.param(["PIDPressure"], GUARANTEED, False, id="PIDPressure alone rejects a guaranteed pod"),
    ],
)  # fmt: skip
def test_admit_rules(conditions: list[str], pod: Obj, want: bool) -> None:
    assert eviction_admit(pod, conditions).admit is want


def test_stored_qos_class_is_used() -> None:
    """GetPodQOS reads status.qosClass when it is set."""
    pod = {**BURSTABLE, "status": {"qosClass": "BestEffort"}}
    assert not eviction_admit(pod, _MEM).admit


# -- the fake kubelet ----------------------------------------------------------------------

def _status(k: KubeletHarness, name: str) -> Obj:
    p = k.pod(name)
    assert p is not None
    return dict(p.get("status") or {})


def _condition(k: KubeletHarness, ctype: str) -> Obj:
    node = k.server.get("v1", "Node", "n1")
    return next(c for c in node["status"]["conditions"] if c["type"] == ctype)


def _advance(k: KubeletHarness, secs: float) -> None:
    k.clock.run_until(Instant(k.clock.now() + seconds(secs)))


def test_kubelet_under_memory_pressure(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    k.kubelet.set_pressure("n1", "MemoryPressure")
    k.clock.settle()
    cond = _condition(k, "MemoryPressure")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available",
    )  # fmt: skip
    k.create(make_pod("be", "default").node("n1").build())
    k.create(make_pod("burst", "default").req(cpu="100m", memory="100Mi").node("n1").build())
    assert _status(k, "be") == {
        "phase": "Failed",
        "reason": "Evicted",
        "message": "Pod was rejected: The node had condition: [MemoryPressure]. ",
        "qosClass": "BestEffort",
        "startTime": _status(k, "be")["startTime"],
        "observedGeneration": 1,
    }
    k.wait(lambda: _status(k, "burst").get("phase") == "Running")
    k.kubelet.set_pressure("n1", "MemoryPressure", False)
    _advance(k, 60)
    k.create(make_pod("be2", "default").node("n1").build())
    assert _status(k, "be2")["reason"] == "Evicted"  # inside the transition period
    assert _condition(k, "MemoryPressure")["status"] == "True"
    _advance(k, 300)
    cond = _condition(k, "MemoryPressure")
    assert (cond["status"], cond["reason"]) == ("False", "KubeletHasSufficientMemory")
    k.create(make_pod("be3", "default").node("n1").build())
    k.wait(lambda: _status(k, "be3").get("phase") == "Running")


def test_kubelet_disk_pressure_rejects_every_pod_before_the_predicates(k: KubeletHarness) -> None:
    k.create(make_node("n1").capacity(cpu="1").build())
    k.kubelet.set_pressure("n1", "DiskPressure")
    k.kubelet.set_pressure("n1", "PIDPressure")
    k.clock.settle()
    assert _condition(k, "DiskPressure")["reason"] == "KubeletHasDiskPressure"
    assert _condition(k, "PIDPressure")["reason"] == "KubeletHasInsufficientPID"
    # too big for the node too: the eviction handler runs first
    k.create(make_pod("big", "default").req(cpu="2", memory="1Gi").lim(cpu="2", memory="1Gi").node("n1").build())
    assert _status(k, "big")["reason"] == "Evicted"
    assert _status(k, "big")["message"] == (
        "Pod was rejected: The node had condition: [DiskPressure PIDPressure]. "
    )


def test_unknown_pressure_condition_is_refused(k: KubeletHarness) -> None:
    with pytest.raises(ValueError, match="unknown pressure condition"):
        k.kubelet.set_pressure("n1", "NetworkUnavailable")


def _resize_pending(k: KubeletHarness, name: str) -> tuple[str | None, str | None] | None:
    pod = k.pod(name)
    assert pod is not None
    for c in pod["status"].get("conditions") or ():
        if c["type"] == "PodResizePending":
            return c.get("reason"), c.get("message")
    return None


def test_a_resize_under_disk_pressure_is_deferred(k: KubeletHarness) -> None:
    """handlePodResourcesResize runs canAdmitPod (ResizeOperation) through every
    handler: the eviction handler's rejection makes the resize Deferred (any reason but
    Infeasible), with its message."""
    k.create(make_node("n1").capacity(cpu="4", memory="8Gi").build())
    k.create(make_pod("p", "default").req(cpu="1", memory="1Gi").node("n1").build())
    k.wait(lambda: _status(k, "p").get("phase") == "Running")
    k.kubelet.set_pressure("n1", "DiskPressure")
    k.clock.settle()
    pod = k.pod("p")
    assert pod is not None
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    k.server.resize(pod)
    k.clock.settle()
    assert _resize_pending(k, "p") == ("Deferred", "The node had condition: [DiskPressure]. ")

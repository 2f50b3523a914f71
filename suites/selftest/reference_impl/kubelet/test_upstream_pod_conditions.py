"""Upstream pkg/kubelet/status/generate_test.go (v1.37.2) rows against
reference_impl/kubelet/pod_conditions.py: ``TestGenerateContainersReadyCondition``,
``TestGeneratePodReadyCondition`` (unnamed rows, ids ``case-<index>`` as upstream's
"On test case %v"), ``TestGeneratePodInitializedCondition`` (unnamed, same ids),
``TestGeneratePodReadyToStartContainersCondition`` and
``TestGenerateAllContainersRestartingCondition``; then the fake kubelet's
readiness-gate round trip (generateAPIPodStatus reading conditions others wrote)."""

from __future__ import annotations

from typing import Any

import pytest
from kubelet_harness import KubeletHarness

from reference_impl.api import make_node, make_pod
from reference_impl.kubelet import pod_conditions as pc
from reference_impl.kubelet.pod_conditions import (
    RuntimeContainerStatus,
    RuntimePodStatus,
    SandboxStatus,
)

Obj = dict[str, Any]
OLD: Obj = {}  # upstream passes &v1.PodStatus{}: non-nil, no conditions
ALWAYS = {"restartPolicy": "Always"}


def _c(name: str, **extra: Any) -> Obj:
    return {"name": name, **extra}


def _pod(containers: list[str] | None = None, inits: list[Obj] | None = None, gates: list[str] | None = None) -> Obj:
    spec: Obj = {"containers": [_c(n) for n in containers or []]}
    if inits:
        spec["initContainers"] = inits
    if gates:
        spec["readinessGates"] = [{"conditionType": g} for g in gates]
    return {"metadata": {}, "spec": spec}


def _ready(name: str) -> Obj:
    return {"name": name, "ready": True}


def _not_ready(name: str) -> Obj:
    return {"name": name, "ready": False}


def _cond(ctype: str, status: str, reason: str = "", message: str = "") -> Obj:
    c: Obj = {"type": ctype, "status": status}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


_R1 = _c("restartable-init-1", **ALWAYS)
_R2 = _c("restartable-init-2", **ALWAYS)

# (pod, containerStatuses, phase, status, reason, message); shared by the
# ContainersReady and PodReady tables, whose first seven rows are the same.
_CONTAINERS_READY_ROWS: list[tuple[Obj, list[Obj] | None, str, str, str, str]] = [
    (_pod(), None, "Running", "False", "UnknownContainerStatuses", ""),
    (_pod(), [], "Running", "True", "", ""),
    (_pod(["1234"]), [], "Running", "False", "ContainersNotReady", "containers with unknown status: [1234]"),
    (_pod(["1234", "5678"]), [_ready("1234"), _ready("5678")], "Running", "True", "", ""),
    (_pod(["1234", "5678"]), [_ready("1234")], "Running", "False", "ContainersNotReady",
     "containers with unknown status: [5678]"),
    (_pod(["1234", "5678"]), [_ready("1234"), _not_ready("5678")], "Running", "False", "ContainersNotReady",
     "containers with unready status: [5678]"),
    (_pod(["1234"]), [_not_ready("1234")], "Succeeded", "False", "PodCompleted", ""),
    (_pod(["regular-1"], [_R1]), [_ready("regular-1")], "Running", "False", "ContainersNotReady",
     "containers with unknown status: [restartable-init-1]"),
    (_pod(["regular-1"], [_R1, _R2]), [_ready("restartable-init-1"), _ready("restartable-init-2"), _ready("regular-1")],
     "Running", "True", "", ""),
    (_pod(["regular-1"], [_R1, _R2]), [_ready("restartable-init-1"), _ready("regular-1")], "Running", "False",
     "ContainersNotReady", "containers with unknown status: [restartable-init-2]"),
    (_pod(["regular-1"], [_R1, _R2]), [_ready("restartable-init-1"), _not_ready("restartable-init-2"),
                                       _ready("regular-1")],
     "Running", "False", "ContainersNotReady", "containers with unready status: [restartable-init-2]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "statuses", "phase", "status", "reason", "message"),
    [pytest.param(*row, id=f"case-{i}") for i, row in enumerate(_CONTAINERS_READY_ROWS)],
)
def test_generate_containers_ready_condition(
    pod: Obj, statuses: list[Obj] | None, phase: str, status: str, reason: str, message: str
) -> None:
    """TestGenerateContainersReadyCondition."""
    got = pc.generate_containers_ready_condition(pod, OLD, statuses, phase)
    assert got == _cond("ContainersReady", status, reason, message)


_GATE_NOT_EXIST = 'corresponding condition of pod readiness gate "{}" does not exist.'
_GATE_NOT_TRUE = 'the status of pod readiness gate "{}" is not "True", but False'

# (pod, conditions, containerStatuses, phase, status, reason, message)
_POD_READY_ROWS: list[tuple[Obj, list[Obj] | None, list[Obj] | None, str, str, str, str]] = [
    *[(p, None, s, ph, st, r, m) for p, s, ph, st, r, m in _CONTAINERS_READY_ROWS[:7]],
    (_pod(gates=["gate1"]), None, [], "Running", "False", "ReadinessGatesNotReady", _GATE_NOT_EXIST.format("gate1")),
    (_pod(gates=["gate1"]), [_cond("gate1", "False")], [], "Running", "False", "ReadinessGatesNotReady",
     _GATE_NOT_TRUE.format("gate1")),
    (_pod(gates=["gate1"]), [_cond("gate1", "True")], [], "Running", "True", "", ""),
    (_pod(gates=["gate1", "gate2"]), [_cond("gate1", "True")], [], "Running", "False", "ReadinessGatesNotReady",
     _GATE_NOT_EXIST.format("gate2")),
    (_pod(gates=["gate1", "gate2"]), [_cond("gate1", "True"), _cond("gate2", "False")], [], "Running", "False",
     "ReadinessGatesNotReady", _GATE_NOT_TRUE.format("gate2")),
    (_pod(gates=["gate1", "gate2"]), [_cond("gate1", "True"), _cond("gate2", "True")], [], "Running", "True", "", ""),
    (_pod(["1234"], gates=["gate1"]), [_cond("gate1", "True")], [_not_ready("1234")], "Running", "False",
     "ContainersNotReady", "containers with unready status: [1234]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "conditions", "statuses", "phase", "status", "reason", "message"),
    [pytest.param(*row, id=f"case-{i}") for i, row in enumerate(_POD_READY_ROWS)],
)
def test_generate_pod_ready_condition(
    pod: Obj, conditions: list[Obj] | None, statuses: list[Obj] | None, phase: str, status: str, reason: str,
    message: str,
) -> None:  # fmt: skip
    """TestGeneratePodReadyCondition."""
    got = pc.generate_pod_ready_condition(pod, OLD, conditions, statuses, phase)
    assert got == _cond("Ready", status, reason, message)


def test_generate_pod_ready_condition_joins_every_unready_gate() -> None:
    """Not an upstream row: two unready gates give both messages, joined by ", "."""
    pod = _pod(gates=["gate1", "gate2"])
    got = pc.generate_pod_ready_condition(pod, OLD, [_cond("gate2", "Unknown")], [], "Running")
    want = (_GATE_NOT_EXIST.format("gate1") + ", "
            + 'the status of pod readiness gate "gate2" is not "True", but Unknown')  # fmt: skip
    assert got == _cond("Ready", "False", "ReadinessGatesNotReady", want)


_NO_INIT = _pod()
_ONE_INIT = _pod(["regular"], [_c("1234")])
_TWO_INIT = _pod(["regular"], [_c("1234"), _c("5678")])
_ONE_SIDECAR = _pod(["regular"], [_c("1234", **ALWAYS)])

# (pod, containerStatuses, phase, status, reason)
_INITIALIZED_ROWS: list[tuple[Obj, list[Obj] | None, str, str, str]] = [
    (_TWO_INIT, None, "Running", "False", "UnknownContainerStatuses"),
    (_NO_INIT, [], "Running", "True", ""),
    (_ONE_INIT, [], "Running", "False", "ContainersNotInitialized"),
    (_TWO_INIT, [_ready("1234"), _ready("5678")], "Running", "True", ""),
    (_TWO_INIT, [_ready("1234")], "Running", "False", "ContainersNotInitialized"),
    (_TWO_INIT, [_ready("1234"), _not_ready("5678")], "Running", "False", "ContainersNotInitialized"),
    (_ONE_INIT, [_ready("1234")], "Succeeded", "True", "PodCompleted"),
    (_ONE_SIDECAR, [{"name": "1234", "started": False}], "Pending", "False", "ContainersNotInitialized"),
    (_ONE_SIDECAR, [{"name": "1234", "started": True}], "Running", "True", ""),
    (_ONE_SIDECAR, [{"name": "1234", "started": False}, {"name": "regular", "state": {"running": {}}}],
     "Running", "True", ""),
    (_ONE_INIT, [{"name": "1234", "state": {"waiting": {}}}, {"name": "regular", "state": {"terminated": {}}}],
     "Running", "True", ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "statuses", "phase", "status", "reason"),
    [pytest.param(*row, id=f"case-{i}") for i, row in enumerate(_INITIALIZED_ROWS)],
)
def test_generate_pod_initialized_condition(
    pod: Obj, statuses: list[Obj] | None, phase: str, status: str, reason: str
) -> None:
    """TestGeneratePodInitializedCondition (compares type, status and reason)."""
    got = pc.generate_pod_initialized_condition(pod, OLD, statuses, phase)
    assert (got["type"], got["status"], got.get("reason", "")) == ("Initialized", status, reason)


def test_an_initialized_pod_stays_initialized_while_init_containers_restart() -> None:
    """Not an upstream row: with RestartAllContainersOnContainerExits an old Initialized
    True is kept when the init containers go back to waiting (in-place restart)."""
    statuses = [{"name": "1234", "state": {"waiting": {}}}, {"name": "regular", "state": {"waiting": {}}}]
    old = {"conditions": [_cond("Initialized", "True")]}
    assert pc.generate_pod_initialized_condition(_ONE_INIT, old, statuses, "Pending") == _cond("Initialized", "True")
    got = pc.generate_pod_initialized_condition(_ONE_INIT, OLD, statuses, "Pending")
    assert got == _cond("Initialized", "False", "ContainersNotInitialized", "containers with incomplete status: [1234]")


_HOST_NETWORK: Obj = {"metadata": {}, "spec": {"hostNetwork": True}}

_SANDBOX_ROWS: list[tuple[str, Obj, RuntimePodStatus, str, str, str]] = [
    ("Empty pod status", {}, RuntimePodStatus(), "False", "PodSandboxNotReady", pc.MSG_NO_POD_SANDBOX),
    ("Pod sandbox status not ready", {}, RuntimePodStatus((SandboxStatus(pc.SANDBOX_NOTREADY),)),
     "False", "PodSandboxNotReady", pc.MSG_SANDBOX_NOT_READY),
    ("Pod with multiple ready sandboxes", {},
     RuntimePodStatus((SandboxStatus(pc.SANDBOX_READY, 1, "10.0.0.10"), SandboxStatus(pc.SANDBOX_READY, 0, "10.0.0.11"))),
     "False", "PodSandboxNotReady", pc.MSG_MULTIPLE_SANDBOXES),
    ("Pod sandbox status ready but network namespace mode changed", _HOST_NETWORK,
     RuntimePodStatus((SandboxStatus(pc.SANDBOX_READY, 0, "10.0.0.10", "POD"),)),
     "False", "PodSandboxNotReady", pc.MSG_NETWORK_NAMESPACE_MODE),
    ("Pod sandbox status ready but no IP configured", {}, RuntimePodStatus((SandboxStatus(pc.SANDBOX_READY, 0, ""),)),
     "False", "PodSandboxNotReady", pc.MSG_NO_IP_ADDRESS),
    ("Pod sandbox status ready and IP configured", {},
     RuntimePodStatus((SandboxStatus(pc.SANDBOX_READY, 0, "10.0.0.10"),)), "True", "", ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "runtime", "status", "reason", "message"),
    [pytest.param(*row[1:], id=row[0]) for row in _SANDBOX_ROWS],
)
def test_generate_pod_ready_to_start_containers_condition(
    pod: Obj, runtime: RuntimePodStatus, status: str, reason: str, message: str
) -> None:
    """TestGeneratePodReadyToStartContainersCondition."""
    got = pc.generate_pod_ready_to_start_containers_condition(pod, OLD, runtime)
    assert got == _cond("PodReadyToStartContainers", status, reason, message)


_RESTART_POD: Obj = {"metadata": {}, "spec": {"containers": [
    _c("container1"),
    _c("trigger", restartPolicy="Never", restartPolicyRules=[
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]),
]}}  # fmt: skip
_TRIGGERED = (
    RuntimeContainerStatus("container", pc.CONTAINER_RUNNING),
    RuntimeContainerStatus("trigger", pc.CONTAINER_EXITED, 42),
)
_CLEANING = (
    RuntimeContainerStatus("container", pc.CONTAINER_EXITED),
    RuntimeContainerStatus("trigger", pc.CONTAINER_EXITED, 42),
)
_WAS_RESTARTING: Obj = {"conditions": [{"type": "AllContainersRestarting", "status": "True"}]}
_STARTED = ("True", "RestartAllContainersStarted", "container exited with restart policy rule")

_RESTARTING_ROWS: list[tuple[str, RuntimePodStatus, Obj | None, str, tuple[str, str, str]]] = [
    ("pod pending", RuntimePodStatus(), None, "Pending", ("False", "", "")),
    ("pod failed", RuntimePodStatus(), None, "Failed", ("False", "PodFailed", "")),
    ("pod succeeded", RuntimePodStatus(), None, "Succeeded", ("False", "PodCompleted", "")),
    ("container triggers RestartAllContainers rule", RuntimePodStatus(container_statuses=_TRIGGERED), None,
     "Running", _STARTED),
    ("container triggres RestartAllContainers rule, cleaning up", RuntimePodStatus(container_statuses=_CLEANING),
     _WAS_RESTARTING, "Running", _STARTED),
    ("container triggres RestartAllContainers rule, cleaned up", RuntimePodStatus(), _WAS_RESTARTING, "Pending",
     ("False", "", "")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("runtime", "old", "phase", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in _RESTARTING_ROWS],
)
def test_generate_all_containers_restarting_condition(
    runtime: RuntimePodStatus, old: Obj | None, phase: str, want: tuple[str, str, str]
) -> None:
    """TestGenerateAllContainersRestartingCondition (whole-condition equality)."""
    got = pc.generate_all_containers_restarting_condition(_RESTART_POD, runtime, old, phase)
    assert got == _cond("AllContainersRestarting", *want)
    assert pc.all_containers_could_restart(_RESTART_POD["spec"])


def _conds(k: KubeletHarness, name: str) -> dict[str, Obj]:
    return {c["type"]: c for c in ((k.pod(name) or {}).get("status") or {}).get("conditions") or []}


def _set_condition(k: KubeletHarness, name: str, ctype: str, status: str) -> None:
    pod = k.pod(name)
    assert pod is not None
    conds = [c for c in pod["status"].get("conditions") or [] if c["type"] != ctype]
    conds.append({"type": ctype, "status": status, "lastTransitionTime": "2026-01-01T00:00:00Z"})
    k.server.update_status({**pod, "status": {**pod["status"], "conditions": conds}})
    k.clock.settle()


def test_the_fake_kubelet_recomputes_ready_when_a_gate_condition_is_written(k: KubeletHarness) -> None:
    """generateAPIPodStatus keeps conditions others own and re-evaluates readiness gates
    on the pod update: Ready False (ReadinessGatesNotReady) while the gate's condition is
    missing, True once another writer sets it True, False again once it goes False."""
    k.create(make_node("n1").build())
    pod = make_pod("g", "default").node("n1").build()
    pod["spec"]["readinessGates"] = [{"conditionType": "example.com/lb"}]
    k.create(pod)
    k.wait(lambda: _conds(k, "g").get("ContainersReady", {}).get("status") == "True")
    ready = _conds(k, "g")["Ready"]
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False", "ReadinessGatesNotReady", _GATE_NOT_EXIST.format("example.com/lb"))
    _set_condition(k, "g", "example.com/lb", "True")
    by = _conds(k, "g")
    assert by["Ready"]["status"] == "True" and "reason" not in by["Ready"]
    assert by["example.com/lb"]["status"] == "True"  # the kubelet keeps others' conditions
    _set_condition(k, "g", "example.com/lb", "False")
    ready = _conds(k, "g")["Ready"]
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False", "ReadinessGatesNotReady", 'the status of pod readiness gate "example.com/lb" is not "True", but False')


def test_the_fake_kubelet_lists_unready_containers_as_go_does(k: KubeletHarness) -> None:
    """fmt's %s of a []string: the unready containers space-separated in brackets."""
    k.create(make_node("n1").build())
    pod = make_pod("two", "default").node("n1").annotation("garhwal.dev/model-load-seconds", "60").build()
    pod["spec"]["containers"].append({**pod["spec"]["containers"][0], "name": "side"})
    k.create(pod)
    k.wait(lambda: (k.pod("two") or {}).get("status", {}).get("phase") == "Running")
    first = pod["spec"]["containers"][0]["name"]
    assert _conds(k, "two")["ContainersReady"]["message"] == f"containers with unready status: [{first} side]"


def test_the_fake_kubelet_writes_generated_conditions_through_a_pods_life(k: KubeletHarness) -> None:
    """generateAPIPodStatus on the fake kubelet: a completed init container is ready
    (prober_manager.UpdatePodStatus); a pod with a RestartAllContainers rule carries
    AllContainersRestarting; once Succeeded, Initialized says PodCompleted and, its
    sandbox stopped by syncTerminatingPod, PodReadyToStartContainers is False."""
    k.create(make_node("n1").build())
    pod = make_pod("r", "default").node("n1").restart_policy("Never").annotation("garhwal.dev/run-seconds", "5")
    built = pod.build()
    built["spec"]["initContainers"] = [{"name": "init", "image": "busybox"}]
    main = built["spec"]["containers"][0]
    main["restartPolicy"] = "Never"
    main["restartPolicyRules"] = [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]
    k.create(built)
    k.wait(lambda: (k.pod("r") or {}).get("status", {}).get("phase") == "Running")
    status = (k.pod("r") or {})["status"]
    assert status["initContainerStatuses"][0]["ready"] is True
    by = _conds(k, "r")
    assert {t: c["status"] for t, c in by.items()} == {
        "PodReadyToStartContainers": "True", "Initialized": "True", "Ready": "True", "ContainersReady": "True",
        "PodScheduled": "True", "AllContainersRestarting": "False"}
    k.wait(lambda: (k.pod("r") or {}).get("status", {}).get("phase") == "Succeeded")
    got = {t: (c["status"], c.get("reason", ""), c.get("message", "")) for t, c in _conds(k, "r").items()}
    assert got == {
        "PodReadyToStartContainers": ("False", "PodSandboxNotReady", "pod sandbox is not ready"),
        "Initialized": ("True", "PodCompleted", ""),
        "Ready": ("False", "PodCompleted", ""),
        "ContainersReady": ("False", "PodCompleted", ""),
        "PodScheduled": ("True", "", ""),
        "AllContainersRestarting": ("False", "PodCompleted", ""),
    }

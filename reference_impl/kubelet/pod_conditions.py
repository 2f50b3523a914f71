"""The kubelet's own pod conditions (upstream pkg/kubelet/status/generate.go, v1.37.2).

Pure functions on v1 wire dicts. Each returns a condition without
``lastTransitionTime`` (the status manager stamps it); empty reason, message and a
zero observedGeneration are left out, as omitempty does. ``container_statuses`` is
``None`` where upstream's slice is nil (no statuses known at all), unlike ``[]``.
The runtime's view (``kubecontainer.PodStatus``) is modelled only as far as these
functions read it: sandbox statuses and container states with exit codes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "ALL_CONTAINERS_RESTARTING",
    "CONTAINER_EXITED",
    "CONTAINER_RUNNING",
    "CONTAINERS_NOT_INITIALIZED",
    "CONTAINERS_NOT_READY",
    "MSG_MULTIPLE_SANDBOXES",
    "MSG_NETWORK_NAMESPACE_MODE",
    "MSG_NO_IP_ADDRESS",
    "MSG_NO_POD_SANDBOX",
    "MSG_SANDBOX_NOT_READY",
    "POD_COMPLETED",
    "POD_FAILED",
    "POD_SANDBOX_NOT_READY_REASON",
    "READINESS_GATES_NOT_READY",
    "RESTART_ALL_CONTAINERS_STARTED",
    "SANDBOX_NOTREADY",
    "SANDBOX_READY",
    "UNKNOWN_CONTAINER_STATUSES",
    "RuntimeContainerStatus",
    "RuntimePodStatus",
    "SandboxStatus",
    "all_containers_could_restart",
    "calculate_pod_condition_observed_generation",
    "generate_all_containers_restarting_condition",
    "generate_containers_ready_condition",
    "generate_pod_initialized_condition",
    "generate_pod_ready_condition",
    "generate_pod_ready_to_start_containers_condition",
    "matching_rule_action",
    "pod_sandbox_changed",
]

Obj = dict[str, Any]

UNKNOWN_CONTAINER_STATUSES: Final = "UnknownContainerStatuses"
POD_COMPLETED: Final = "PodCompleted"
POD_FAILED: Final = "PodFailed"
CONTAINERS_NOT_READY: Final = "ContainersNotReady"
CONTAINERS_NOT_INITIALIZED: Final = "ContainersNotInitialized"
READINESS_GATES_NOT_READY: Final = "ReadinessGatesNotReady"
RESTART_ALL_CONTAINERS_STARTED: Final = "RestartAllContainersStarted"
ALL_CONTAINERS_RESTARTING: Final = "AllContainersRestarting"
# kubetypes.PodSandboxNotReady*
POD_SANDBOX_NOT_READY_REASON: Final = "PodSandboxNotReady"
MSG_NO_POD_SANDBOX: Final = "no pod sandbox exists"
MSG_MULTIPLE_SANDBOXES: Final = "multiple pod sandboxes are ready and need to be reconciled"
MSG_SANDBOX_NOT_READY: Final = "pod sandbox is not ready"
MSG_NETWORK_NAMESPACE_MODE: Final = "network namespace mode changed and sandbox needs to be recreated"
MSG_NO_IP_ADDRESS: Final = "pod sandbox has no IP address"

SANDBOX_READY: Final = "SANDBOX_READY"
SANDBOX_NOTREADY: Final = "SANDBOX_NOTREADY"
CONTAINER_RUNNING: Final = "running"
CONTAINER_EXITED: Final = "exited"


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    """runtimeapi.PodSandboxStatus as PodSandboxChanged reads it. ``ip`` is None when
    the sandbox reports no network status; ``network_mode`` is the Linux network
    namespace mode (an absent one reads as POD, the zero value)."""

    state: str
    attempt: int = 0
    ip: str | None = None
    network_mode: str = "POD"


@dataclass(frozen=True, slots=True)
class RuntimeContainerStatus:
    """kubecontainer.Status: a container's name, runtime state and exit code."""

    name: str
    state: str
    exit_code: int = 0


@dataclass(frozen=True, slots=True)
class RuntimePodStatus:
    """kubecontainer.PodStatus, newest sandbox first as the runtime lists them."""

    sandbox_statuses: Sequence[SandboxStatus] = ()
    container_statuses: Sequence[RuntimeContainerStatus] = field(default_factory=tuple)

    def find_container_status_by_name(self, name: str) -> RuntimeContainerStatus | None:
        return next((c for c in self.container_statuses if c.name == name), None)


def calculate_pod_condition_observed_generation(
    old_status: Mapping[str, Any] | None, generation: int, ctype: str
) -> int:
    """podutil.CalculatePodConditionObservedGeneration with PodObservedGenerationTracking
    (GA): the pod's generation whenever there is an old status."""
    del ctype  # only read with the gate off
    return 0 if old_status is None else generation


def _cond(
    pod: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    ctype: str,
    status: str,
    reason: str = "",
    message: str = "",
) -> Obj:
    gen = int((pod.get("metadata") or {}).get("generation") or 0)
    c: Obj = {"type": ctype, "status": status}
    observed = calculate_pod_condition_observed_generation(old, gen, ctype)
    if observed:
        c["observedGeneration"] = observed
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def _go_list(names: Sequence[str]) -> str:
    # fmt's %s of a []string: "[a b]"
    return "[" + " ".join(names) + "]"


def _restartable(c: Mapping[str, Any]) -> bool:
    # podutil.IsRestartableInitContainer
    return c.get("restartPolicy") == "Always"


def _status_of(statuses: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    # podutil.GetContainerStatus: the first with the name
    return next((s for s in statuses if s.get("name") == name), None)


def _spec(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("spec") or {}


def _terminal_ready(pod: Mapping[str, Any], old: Mapping[str, Any] | None, ctype: str, phase: str) -> Obj:
    """generate{ContainersReady,PodReady}ConditionForTerminalPhase."""
    reason = POD_FAILED if phase == "Failed" else POD_COMPLETED if phase == "Succeeded" else ""
    return _cond(pod, old, ctype, "False", reason)


def generate_containers_ready_condition(
    pod: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    container_statuses: Sequence[Mapping[str, Any]] | None,
    phase: str,
) -> Obj:
    """GenerateContainersReadyCondition: True when every container and sidecar is ready."""
    if container_statuses is None:
        return _cond(pod, old, "ContainersReady", "False", UNKNOWN_CONTAINER_STATUSES)
    unknown: list[str] = []
    unready: list[str] = []
    spec = _spec(pod)
    sidecars = [c for c in spec.get("initContainers") or [] if _restartable(c)]
    for c in [*sidecars, *(spec.get("containers") or [])]:
        cs = _status_of(container_statuses, c["name"])
        if cs is None:
            unknown.append(c["name"])
        elif not cs.get("ready"):
            unready.append(c["name"])
    if (phase == "Succeeded" and not unknown) or phase == "Failed":
        # Failed: containers may still be terminating, so not ready regardless.
        return _terminal_ready(pod, old, "ContainersReady", phase)
    messages = []
    if unknown:
        messages.append(f"containers with unknown status: {_go_list(unknown)}")
    if unready:
        messages.append(f"containers with unready status: {_go_list(unready)}")
    if messages:
        return _cond(pod, old, "ContainersReady", "False", CONTAINERS_NOT_READY, ", ".join(messages))
    return _cond(pod, old, "ContainersReady", "True")


def _condition_from_list(conditions: Sequence[Mapping[str, Any]], ctype: str) -> Mapping[str, Any] | None:
    # podutil.GetPodConditionFromList
    return next((c for c in conditions if c.get("type") == ctype), None)


def generate_pod_ready_condition(
    pod: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    conditions: Sequence[Mapping[str, Any]] | None,
    container_statuses: Sequence[Mapping[str, Any]] | None,
    phase: str,
) -> Obj:
    """GeneratePodReadyCondition: ContainersReady's verdict, then every readiness gate's
    condition (in ``conditions``) must exist and be True."""
    ready = generate_containers_ready_condition(pod, old, container_statuses, phase)
    if ready["status"] != "True":
        return _cond(pod, old, "Ready", ready["status"], ready.get("reason", ""), ready.get("message", ""))
    messages = []
    for gate in _spec(pod).get("readinessGates") or []:
        ctype = str(gate.get("conditionType", ""))
        c = _condition_from_list(conditions or [], ctype)
        if c is None:
            messages.append(f'corresponding condition of pod readiness gate "{ctype}" does not exist.')
        elif c.get("status") != "True":
            messages.append(f'the status of pod readiness gate "{ctype}" is not "True", but {c.get("status", "")}')
    if messages:
        return _cond(pod, old, "Ready", "False", READINESS_GATES_NOT_READY, ", ".join(messages))
    return _cond(pod, old, "Ready", "True")


def _init_container_initialized(c: Mapping[str, Any], cs: Mapping[str, Any]) -> bool:
    # isInitContainerInitialized: a sidecar once started, a regular one once ready
    return bool(cs.get("started")) if _restartable(c) else bool(cs.get("ready"))


def _has_any_regular_container_started(
    spec: Mapping[str, Any], statuses: Sequence[Mapping[str, Any]] | None
) -> bool:
    # kubecontainer.HasAnyRegularContainerStarted
    names = {c["name"] for c in spec.get("containers") or []}
    return any(
        s.get("name") in names and ("running" in (s.get("state") or {}) or "terminated" in (s.get("state") or {}))
        for s in statuses or []
    )


def generate_pod_initialized_condition(
    pod: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    container_statuses: Sequence[Mapping[str, Any]] | None,
    phase: str,
) -> Obj:
    """GeneratePodInitializedCondition (RestartAllContainersOnContainerExits on: an
    initialized pod stays initialized while its init containers restart in place)."""
    spec = _spec(pod)
    inits = spec.get("initContainers") or []
    if container_statuses is None and inits:
        return _cond(pod, old, "Initialized", "False", UNKNOWN_CONTAINER_STATUSES)
    unknown: list[str] = []
    incomplete: list[str] = []
    for c in inits:
        cs = _status_of(container_statuses or [], c["name"])
        if cs is None:
            unknown.append(c["name"])
        elif not _init_container_initialized(c, cs):
            incomplete.append(c["name"])
    if phase == "Succeeded" and not unknown:
        return _cond(pod, old, "Initialized", "True", POD_COMPLETED)
    # A started regular container means the pod was initialized before (its
    # sidecars may be restarting).
    if _has_any_regular_container_started(spec, container_statuses):
        return _cond(pod, old, "Initialized", "True")
    messages = []
    if unknown:
        messages.append(f"containers with unknown status: {_go_list(unknown)}")
    if incomplete:
        messages.append(f"containers with incomplete status: {_go_list(incomplete)}")
    if messages:
        for c in (old or {}).get("conditions") or []:
            if c.get("type") == "Initialized" and c.get("status") == "True":
                return _cond(pod, old, "Initialized", "True")
        return _cond(pod, old, "Initialized", "False", CONTAINERS_NOT_INITIALIZED, ", ".join(messages))
    return _cond(pod, old, "Initialized", "True")


def pod_sandbox_changed(pod: Mapping[str, Any], status: RuntimePodStatus) -> tuple[bool, int, str]:
    """kuberuntime util.PodSandboxChanged: (a new sandbox is needed, its attempt, why)."""
    sandboxes = status.sandbox_statuses
    if not sandboxes:
        return True, 0, MSG_NO_POD_SANDBOX
    newest = sandboxes[0]
    if sum(1 for s in sandboxes if s.state == SANDBOX_READY) > 1:
        return True, newest.attempt + 1, MSG_MULTIPLE_SANDBOXES
    if newest.state != SANDBOX_READY:
        return True, newest.attempt + 1, MSG_SANDBOX_NOT_READY
    host_network = bool(_spec(pod).get("hostNetwork"))
    if newest.network_mode != ("NODE" if host_network else "POD"):
        return True, newest.attempt + 1, MSG_NETWORK_NAMESPACE_MODE
    if not host_network and newest.ip == "":
        return True, newest.attempt + 1, MSG_NO_IP_ADDRESS
    return False, newest.attempt, ""


def generate_pod_ready_to_start_containers_condition(
    pod: Mapping[str, Any], old: Mapping[str, Any] | None, status: RuntimePodStatus
) -> Obj:
    """GeneratePodReadyToStartContainersCondition: True while a ready sandbox with
    networking exists (no new sandbox needed)."""
    needed, _, why = pod_sandbox_changed(pod, status)
    if not needed:
        return _cond(pod, old, "PodReadyToStartContainers", "True")
    return _cond(pod, old, "PodReadyToStartContainers", "False", POD_SANDBOX_NOT_READY_REASON, why)


def matching_rule_action(c: Mapping[str, Any], exit_code: int) -> str | None:
    """podutil.FindMatchingContainerRestartRule: the action of the first rule whose exit
    codes match ``exit_code``; None if none does."""
    for rule in c.get("restartPolicyRules") or []:
        req = rule.get("exitCodes") or {}
        values = [int(v) for v in req.get("values") or []]
        if (req.get("operator") == "In") == (exit_code in values):
            return str(rule.get("action"))
    return None


def _all_spec_containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    # podutil.ContainerIter(InitContainers|Containers)
    return [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]


def all_containers_could_restart(spec: Mapping[str, Any]) -> bool:
    """podutil.AllContainersCouldRestart: some container has a RestartAllContainers rule."""
    return any(
        r.get("action") == "RestartAllContainers"
        for c in _all_spec_containers(spec)
        for r in c.get("restartPolicyRules") or []
    )


def _should_all_containers_restart(
    pod: Mapping[str, Any], status: RuntimePodStatus | None, api_status: Mapping[str, Any] | None
) -> bool:
    """kubecontainer.ShouldAllContainersRestart."""
    api = api_status or {}
    if any(c.get("type") == ALL_CONTAINERS_RESTARTING and c.get("status") == "True" for c in api.get("conditions") or []):
        return True
    by_name = {s["name"]: s for s in [*(api.get("initContainerStatuses") or []), *(api.get("containerStatuses") or [])]}
    for c in _all_spec_containers(_spec(pod)):
        if status is not None:
            rs = status.find_container_status_by_name(c["name"])
            if rs is not None and rs.state == CONTAINER_EXITED:
                if matching_rule_action(c, rs.exit_code) == "RestartAllContainers":
                    return True
        if api_status is not None:
            term = ((by_name.get(c["name"]) or {}).get("state") or {}).get("terminated")
            if term is not None and matching_rule_action(c, int(term.get("exitCode") or 0)) == "RestartAllContainers":
                return True
    return False


def _all_containers_restart_cleaned_up(pod: Mapping[str, Any], status: RuntimePodStatus) -> bool:
    # kubecontainer.AllContainersRestartCleanedUp: no runtime container is left
    return all(status.find_container_status_by_name(c["name"]) is None for c in _all_spec_containers(_spec(pod)))


def generate_all_containers_restarting_condition(
    pod: Mapping[str, Any], status: RuntimePodStatus, old: Mapping[str, Any] | None, phase: str
) -> Obj:
    """GenerateAllContainersRestartingCondition: True from a RestartAllContainers exit
    until every container is cleaned up. The kubelet adds it only with
    RestartAllContainersOnContainerExits on and all_containers_could_restart."""
    if phase == "Succeeded":
        return {"type": ALL_CONTAINERS_RESTARTING, "status": "False", "reason": POD_COMPLETED}
    if phase == "Failed":
        return {"type": ALL_CONTAINERS_RESTARTING, "status": "False", "reason": POD_FAILED}
    if not _should_all_containers_restart(pod, status, old) or _all_containers_restart_cleaned_up(pod, status):
        return {"type": ALL_CONTAINERS_RESTARTING, "status": "False"}
    return {
        "type": ALL_CONTAINERS_RESTARTING,
        "status": "True",
        "reason": RESTART_ALL_CONTAINERS_STARTED,
        "message": "container exited with restart policy rule",
    }


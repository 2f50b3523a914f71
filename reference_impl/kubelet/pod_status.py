"""Pod statuses for each fake-kubelet stage (KWOK's ``pod-ready``/``pod-complete`` templates).

Pure functions from a pod and the stage's facts to a full ``status`` dict, so the
kubelet's state machine stays small and every status shape is in one place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.kubelet import pod_conditions as pc
from reference_impl.kubelet.status_manager import pod_condition_by_kubelet

__all__ = ["Placement", "running_status", "terminated_status"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and when the pod runs: addresses and the stage instants (RFC 3339)."""

    host_ip: str
    pod_ip: str
    start_time: str
    started_at: str


def _digest(*parts: str) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()


def _resources(c: Mapping[str, Any]) -> tuple[Obj, Obj]:
    res = c.get("resources") or {}
    req, lim = dict(res.get("requests") or {}), dict(res.get("limits") or {})
    out: Obj = {}
    if req:
        out["requests"] = req
    if lim:
        out["limits"] = lim
    return req, out


def _container_status(pod: Mapping[str, Any], c: Mapping[str, Any], state: Obj, ready: bool) -> Obj:
    image = str(c.get("image", ""))
    cs: Obj = {
        "name": c["name"],
        "image": image,
        "imageID": f"{image.split(':')[0]}@sha256:{_digest('image', image)}",
        "containerID": f"containerd://{_digest(pod['metadata']['uid'], c['name'])}",
        "ready": ready,
        "started": "running" in state,
        "restartCount": 0,
        "state": state,
    }
    req, res = _resources(c)
    if req:
        cs["allocatedResources"] = req
    if res:
        cs["resources"] = res
    return cs


def _stamp(c: Obj, now: str) -> Obj:
    # generate.go's condition with the transition time the status manager stamps.
    out: Obj = {"type": c["type"], "status": c["status"], "lastTransitionTime": now}
    out.update((k, c[k]) for k in ("observedGeneration", "reason", "message") if k in c)
    return out


def _conditions(
    pod: Mapping[str, Any],
    status: Obj,
    runtime: pc.RuntimePodStatus,
    now: str,
) -> list[Obj]:
    """generateAPIPodStatus's kubelet-owned conditions; Ready reads the readiness-gate
    conditions others wrote (every condition the kubelet does not own)."""
    old: Obj = dict(pod.get("status") or {})
    phase = str(status["phase"])
    others = [c for c in old.get("conditions") or [] if not pod_condition_by_kubelet(c["type"])]
    statuses = [*(status.get("initContainerStatuses") or []), *status["containerStatuses"]]
    conds = [
        pc.generate_pod_ready_to_start_containers_condition(pod, old, runtime),
        pc.generate_pod_initialized_condition(pod, old, statuses, phase),
    ]
    conds.append(pc.generate_pod_ready_condition(pod, old, [*others, *conds], statuses, phase))
    conds.append(pc.generate_containers_ready_condition(pod, old, statuses, phase))
    gen = pc.calculate_pod_condition_observed_generation(
        old, int(pod["metadata"].get("generation") or 0), "PodScheduled"
    )
    scheduled: Obj = {"type": "PodScheduled", "status": "True"}  # always reported
    if gen:
        scheduled["observedGeneration"] = gen
    conds.append(scheduled)
    # RestartAllContainersOnContainerExits is on (beta) in v1.37
    if pc.all_containers_could_restart(pod["spec"]):
        conds.append(pc.generate_all_containers_restarting_condition(pod, runtime, old, phase))
    return _merge_conditions(old.get("conditions") or [], [_stamp(c, now) for c in conds])


def _merge_conditions(old: list[Obj], new: list[Obj]) -> list[Obj]:
    # Keep lastTransitionTime when a condition's status does not change, and keep
    # conditions others own (PodScheduled, DisruptionTarget, readiness gates).
    by_type = {c["type"]: c for c in old}
    out = []
    for c in new:
        prev = by_type.pop(c["type"], None)
        if prev is not None and prev.get("status") == c["status"]:
            c = {**c, "lastTransitionTime": prev.get("lastTransitionTime", c["lastTransitionTime"])}
        out.append(c)
    return out + list(by_type.values())


def _init_statuses(pod: Mapping[str, Any], p: Placement) -> list[Obj]:
    out = []
    for c in pod["spec"].get("initContainers") or []:
        if c.get("restartPolicy") == "Always":  # a sidecar keeps running
            state: Obj = {"running": {"startedAt": p.started_at}}
            out.append(_container_status(pod, c, state, True))
        else:
            done = {
                "exitCode": 0,
                "reason": "Completed",
                "startedAt": p.start_time,
                "finishedAt": p.started_at,
            }
            # prober_manager.UpdatePodStatus: an init container that exited 0 is ready
            out.append(_container_status(pod, c, {"terminated": done}, True))
    return out


def _base(pod: Mapping[str, Any], p: Placement, phase: str) -> Obj:
    old = dict(pod.get("status") or {})
    status: Obj = {
        k: v
        for k, v in old.items()
        if k in ("qosClass", "nominatedNodeName", "resourceClaimStatuses", "extendedResourceClaimStatus")
    }
    status.update(
        phase=phase,
        hostIP=p.host_ip,
        hostIPs=[{"ip": p.host_ip}],
        podIP=p.pod_ip,
        podIPs=[{"ip": p.pod_ip}],
        startTime=p.start_time,
        observedGeneration=int(pod["metadata"].get("generation", 1)),
    )
    inits = _init_statuses(pod, p)
    if inits:
        status["initContainerStatuses"] = inits
    return status


def running_status(
    pod: Mapping[str, Any], p: Placement, ready: bool, now: str
) -> Obj:
    """Running; containers started, and Ready once ``ready`` (after model load)."""
    status = _base(pod, p, "Running")
    containers = pod["spec"].get("containers") or []
    state = {"running": {"startedAt": p.started_at}}
    status["containerStatuses"] = [_container_status(pod, c, state, ready) for c in containers]
    sandbox = pc.SandboxStatus(pc.SANDBOX_READY, ip=p.pod_ip)
    runtime = pc.RuntimePodStatus(
        (sandbox,), tuple(pc.RuntimeContainerStatus(c["name"], pc.CONTAINER_RUNNING) for c in containers)
    )
    status["conditions"] = _conditions(pod, status, runtime, now)
    return status


def terminated_status(
    pod: Mapping[str, Any], p: Placement, exit_code: int, now: str
) -> Obj:
    """Succeeded (exit 0) or Failed: every container terminated with ``exit_code``."""
    status = _base(pod, p, "Succeeded" if exit_code == 0 else "Failed")
    reason = "Completed" if exit_code == 0 else "Error"
    term = {"exitCode": exit_code, "reason": reason, "startedAt": p.started_at, "finishedAt": now}
    containers = pod["spec"].get("containers") or []
    status["containerStatuses"] = [_container_status(pod, c, {"terminated": dict(term)}, False) for c in containers]
    # syncTerminatingPod has stopped the sandbox by the time the terminal status is final.
    runtime = pc.RuntimePodStatus(
        (pc.SandboxStatus(pc.SANDBOX_NOTREADY, ip=p.pod_ip),),
        tuple(pc.RuntimeContainerStatus(c["name"], pc.CONTAINER_EXITED, exit_code) for c in containers),
    )
    status["conditions"] = _conditions(pod, status, runtime, now)
    return status

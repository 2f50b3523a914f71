"""Pod statuses for each fake-kubelet stage (KWOK's ``pod-ready``/``pod-complete`` templates).

Pure functions from a pod and the stage's facts to a full ``status`` dict, so the
kubelet's state machine stays small and every status shape is in one place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


def _cond(
    ctype: str, ok: bool, now: str, gen: int, reason: str | None = None, msg: str | None = None
) -> Obj:
    # observedGeneration: CalculatePodConditionObservedGeneration, the pod's generation
    # (PodObservedGenerationTracking is GA).
    c: Obj = {"type": ctype, "status": "True" if ok else "False", "lastTransitionTime": now}
    if gen:
        c["observedGeneration"] = gen
    if reason:
        c["reason"] = reason
    if msg:
        c["message"] = msg
    return c


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
            out.append(_container_status(pod, c, {"terminated": done}, False))
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


def running_status(pod: Mapping[str, Any], p: Placement, ready: bool, now: str) -> Obj:
    """Running; containers started, and Ready once ``ready`` (after model load)."""
    status = _base(pod, p, "Running")
    containers = pod["spec"].get("containers") or []
    state = {"running": {"startedAt": p.started_at}}
    status["containerStatuses"] = [_container_status(pod, c, state, ready) for c in containers]
    names = ",".join(c["name"] for c in containers)
    why = None if ready else "ContainersNotReady"
    msg = None if ready else f"containers with unready status: [{names}]"
    gen = int(pod["metadata"].get("generation") or 0)
    conds = [
        _cond("PodReadyToStartContainers", True, now, gen),
        _cond("Initialized", True, now, gen),
        _cond("Ready", ready, now, gen, why, msg),
        _cond("ContainersReady", ready, now, gen, why, msg),
        _cond("PodScheduled", True, now, gen),  # generateAPIPodStatus always reports it
    ]
    status["conditions"] = _merge_conditions(
        (pod.get("status") or {}).get("conditions") or [], conds
    )
    return status


def terminated_status(pod: Mapping[str, Any], p: Placement, exit_code: int, now: str) -> Obj:
    """Succeeded (exit 0) or Failed: every container terminated with ``exit_code``."""
    status = _base(pod, p, "Succeeded" if exit_code == 0 else "Failed")
    reason = "Completed" if exit_code == 0 else "Error"
    term = {"exitCode": exit_code, "reason": reason, "startedAt": p.started_at, "finishedAt": now}
    status["containerStatuses"] = [
        _container_status(pod, c, {"terminated": dict(term)}, False)
        for c in pod["spec"].get("containers") or []
    ]
    gen = int(pod["metadata"].get("generation") or 0)
    # generate*ConditionForTerminalPhase: PodFailed for Failed, PodCompleted for Succeeded
    why = "PodCompleted" if exit_code == 0 else "PodFailed"
    conds = [
        _cond("PodReadyToStartContainers", True, now, gen),
        _cond("Initialized", True, now, gen),
        _cond("Ready", False, now, gen, why),
        _cond("ContainersReady", False, now, gen, why),
        _cond("PodScheduled", True, now, gen),
    ]
    status["conditions"] = _merge_conditions(
        (pod.get("status") or {}).get("conditions") or [], conds
    )
    return status

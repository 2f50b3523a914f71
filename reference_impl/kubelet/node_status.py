"""Fake node status and lease (KWOK's ``node-initialize`` stage and ``--node-lease``)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from reference_impl.kubelet.config import KubeletConfig

__all__ = ["initialized_status", "lease_manifest", "micro_time", "pressure_condition"]

Obj = dict[str, Any]

_HEALTHY = (
    (
        "MemoryPressure",
        "False",
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
    ),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)
# nodestatus setters' texts while the eviction manager reports the pressure
_PRESSURED = {
    "MemoryPressure": ("KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
    "DiskPressure": ("KubeletHasDiskPressure", "kubelet has disk pressure"),
    "PIDPressure": ("KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
}
# the Normal events the setters record on a transition: (to pressure, to none)
_EVENTS = {
    "MemoryPressure": ("NodeHasInsufficientMemory", "NodeHasSufficientMemory"),
    "DiskPressure": ("NodeHasDiskPressure", "NodeHasNoDiskPressure"),
    "PIDPressure": ("NodeHasInsufficientPID", "NodeHasSufficientPID"),
}
_HEALTHY_TEXTS = {ctype: (reason, msg) for ctype, _, reason, msg in _HEALTHY}


def micro_time(rfc: str) -> str:
    """An RFC 3339 second-precision stamp as a metav1.MicroTime."""
    return f"{rfc[:-1]}.000000Z"


def _node_info(name: str, cfg: KubeletConfig) -> Obj:
    h = hashlib.sha256(name.encode()).hexdigest()
    return {
        "architecture": "amd64",
        "bootID": "",
        "containerRuntimeVersion": "kwok-v0.8.0",
        "kernelVersion": "",
        "kubeProxyVersion": "",
        "kubeletVersion": cfg.kubelet_version,
        "machineID": h[:32],
        "operatingSystem": "linux",
        "osImage": "",
        "systemUUID": f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}",
    }


def pressure_condition(
    prev: Mapping[str, Any] | None, ctype: str, pressure: bool, now: str, heartbeat: bool = True
) -> tuple[Obj, str | None]:
    """``MemoryPressureCondition`` / ``DiskPressureCondition`` / ``PIDPressureCondition``:
    the condition after one status update and the event recorded, if any. A new one
    starts Unknown; a transition sets status, reason, message and the transition time.
    ``heartbeat`` False (the fake kubelet's re-syncs) leaves an unchanged condition
    as it was instead of refreshing ``lastHeartbeatTime``."""
    cond: Obj = dict(prev) if prev is not None else {"type": ctype, "status": "Unknown"}
    want = "True" if pressure else "False"
    if cond.get("status") == want:
        if heartbeat:
            cond["lastHeartbeatTime"] = now
        return cond, None
    reason, msg = _PRESSURED[ctype] if pressure else _HEALTHY_TEXTS[ctype]
    cond.update(status=want, reason=reason, message=msg, lastHeartbeatTime=now, lastTransitionTime=now)
    return cond, _EVENTS[ctype][0 if pressure else 1]


def initialized_status(
    node: Mapping[str, Any],
    host_ip: str,
    cfg: KubeletConfig,
    now: str,
    pressure: Collection[str] = (),
    events: list[str] | None = None,
    declared: Sequence[str] = (),
) -> Obj:
    """The node's status with healthy conditions, addresses and nodeInfo filled in;
    the conditions in ``pressure`` are True with the setters' texts (``events`` gets
    the setters' events). ``declared`` are the kubelet's node declared features
    (``setNodeStatus`` writes them unless the kubelet discovered none).

    Conditions already in the wanted state keep their timestamps, so re-applying this to
    an initialized node is a no-op write (which the apiserver skips).
    """
    status: Obj = {**(node.get("status") or {})}
    old = {c["type"]: c for c in status.get("conditions") or []}
    conds = []
    for ctype, cstatus, reason, msg in _HEALTHY:
        prev = old.pop(ctype, None)
        if ctype in _PRESSURED:
            cond, event = pressure_condition(prev, ctype, ctype in pressure, now, heartbeat=False)
            conds.append(cond)
            if event is not None and events is not None:
                events.append(event)
            continue
        if prev is not None and prev.get("status") == cstatus:
            conds.append(prev)
            continue
        conds.append(
            {
                "type": ctype,
                "status": cstatus,
                "reason": reason,
                "message": msg,
                "lastHeartbeatTime": now,
                "lastTransitionTime": now,
            }
        )
    status["conditions"] = conds + list(old.values())
    name = str(node["metadata"]["name"])
    status.setdefault(
        "addresses",
        [{"type": "InternalIP", "address": host_ip}, {"type": "Hostname", "address": name}],
    )
    status.setdefault("daemonEndpoints", {"kubeletEndpoint": {"Port": 10250}})
    status.setdefault("nodeInfo", _node_info(name, cfg))
    status["phase"] = "Running"
    if declared:
        status["declaredFeatures"] = list(declared)
    return status


def lease_manifest(node: Mapping[str, Any], renew: str) -> Obj:
    """The node's Lease in kube-node-lease, owned by the Node as the kubelet makes it."""
    name = node["metadata"]["name"]
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": "kube-node-lease",
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]}
            ],
        },
        "spec": {
            "holderIdentity": name,
            "leaseDurationSeconds": 40,
            "renewTime": micro_time(renew),
        },
    }

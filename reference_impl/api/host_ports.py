"""A pod's host ports as the scheduler and the kubelet read them (``util.GetHostPorts``)."""

from __future__ import annotations

from typing import Any

__all__ = ["HostPort", "host_ports"]

HostPort = tuple[str, str, int]  # (hostIP, protocol, hostPort), sanitised


def host_ports(pod: dict[str, Any]) -> tuple[HostPort, ...]:
    """Host ports of the containers and restartable init containers, with upstream's
    defaults (IP 0.0.0.0, protocol TCP)."""
    spec = pod.get("spec") or {}
    out: list[HostPort] = []
    inits = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
    for c in [*inits, *(spec.get("containers") or ())]:
        for p in c.get("ports") or ():
            port = int(p.get("hostPort") or 0)
            if port > 0:
                out.append((p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", port))
    return tuple(out)

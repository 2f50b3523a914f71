"""NodePorts: a hostPort (per IP and protocol) can be held by one pod per node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
HOST = "kubernetes.io/hostname"
PORTS = "node(s) didn't have free ports for the requested pod ports"


def _pod(namespace: str, name: str, port: int, protocol: str = "TCP", node: str = "", ip: str = "") -> Obj:
    pod = make_pool_pod(name, namespace, cpu="100m")
    if node:
        pod = pod.node_selector(**{HOST: node})
    spec: Obj = {"containerPort": 80, "hostPort": port, "protocol": protocol}
    if ip:
        spec["hostIP"] = ip
    return pod.set("spec.containers", [{**pod.build()["spec"]["containers"][0], "ports": [spec]}]).build()


def test_a_taken_host_port_sends_the_pod_elsewhere(
    target: Target, namespace: str, pool: Callable[..., str], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """Host port conflicts.

    With TCP hostPort 8080 taken on node A, a pod asking for it MUST be placed on node B;
    pinned to A it MUST stay Pending naming the free ports.
    """
    a, b = pool(cpu="4"), pool(cpu="4")
    target.apply(_pod(namespace, "holder", 8080, node=a))
    bound_node("holder")
    target.apply(_pod(namespace, "second", 8080))
    assert bound_node("second") == b
    target.apply(_pod(namespace, "pinned", 8080, node=a))
    assert PORTS in unschedulable("pinned")


def test_other_protocols_and_ports_do_not_conflict(
    target: Target, namespace: str, pool: Callable[..., str], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """Conflict key.

    Next to TCP 8080 on 10.0.0.1, UDP 8080 and TCP 8081 MUST fit the same node, as MUST
    TCP 8080 on another host IP; TCP 8080 on 0.0.0.0 (every IP) MUST NOT.
    """
    a = pool(cpu="4")
    target.apply(_pod(namespace, "holder", 8080, node=a, ip="10.0.0.1"))
    bound_node("holder")
    target.apply(_pod(namespace, "udp", 8080, "UDP", node=a))
    target.apply(_pod(namespace, "next", 8081, node=a))
    target.apply(_pod(namespace, "other-ip", 8080, node=a, ip="10.0.0.2"))
    for name in ("udp", "next", "other-ip"):
        assert bound_node(name) == a
    target.apply(_pod(namespace, "any-ip", 8080, node=a))
    assert PORTS in unschedulable("any-ip")

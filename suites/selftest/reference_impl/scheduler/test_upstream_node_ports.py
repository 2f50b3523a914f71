"""Ports nodeports/node_ports_test.go: TestNodePorts, TestPreFilterDisabled,
Test_isSchedulableAfterAssignedPodDeleted, TestFits and TestNodePorts_DeferredResizeSkipped."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, ActionType, Code, QueueingHint, Status
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, host_ports
from reference_impl.scheduler.plugins.node_ports import ERR_REASON, NAME, NodePorts, fits_ports

Obj = dict[str, Any]
REJECT = Status(Code.UNSCHEDULABLE, (ERR_REASON,), NAME)
_n = itertools.count()


def new_pod(host: str, *infos: str) -> Obj:
    """newPod: "PROTO/IP/port" host ports on one container."""
    ports = []
    for info in infos:
        proto, ip, port = info.split("/")
        ports.append({"hostIP": ip, "hostPort": int(port), "protocol": proto, "containerPort": int(port)})
    name = f"pp{next(_n)}"
    return {"metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"nodeName": host, "containers": [{"name": "c", "image": "i", "ports": ports}]}}


def node_info(*pods: Obj) -> NodeInfo:
    ni = NodeInfo("n", {"metadata": {"name": "n"}})
    for p in pods:
        ni.add_pod(PodInfo(p))
    return ni


def init_port_pod(sidecar: bool) -> Obj:
    init: Obj = {"name": "init", "image": "i",
                 "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}]}
    if sidecar:
        init["restartPolicy"] = "Always"
    name = f"pp{next(_n)}"
    return {"metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"containers": [], "initContainers": [init]}}


P = pytest.param
SKIP = Status(Code.SKIP)


@pytest.mark.parametrize(
    ("pod", "ni", "want_pre", "want"),
    [
        P({"metadata": {"name": "x"}, "spec": {}}, node_info(), SKIP, None, id="skip filter"),
        P(new_pod("m1", "UDP/127.0.0.1/8080"), node_info(new_pod("m1", "UDP/127.0.0.1/9090")), OK, OK,
          id="other port"),
        P(new_pod("m1", "UDP/127.0.0.1/8080"), node_info(new_pod("m1", "UDP/127.0.0.1/8080")), OK, REJECT,
          id="same udp port"),
        P(new_pod("m1", "TCP/127.0.0.1/8080"), node_info(new_pod("m1", "TCP/127.0.0.1/8080")), OK, REJECT,
          id="same tcp port"),
        P(new_pod("m1", "TCP/127.0.0.1/8080"), node_info(new_pod("m1", "TCP/127.0.0.2/8080")), OK, OK,
          id="different host ip"),
        P(new_pod("m1", "UDP/127.0.0.1/8080"), node_info(new_pod("m1", "TCP/127.0.0.1/8080")), OK, OK,
          id="different protocol"),
        P(new_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
          node_info(new_pod("m1", "UDP/127.0.0.1/8080")), OK, REJECT, id="second udp port conflict"),
        P(new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
          node_info(new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")), OK, REJECT,
          id="first tcp port conflict"),
        P(new_pod("m1", "TCP/0.0.0.0/8001"), node_info(new_pod("m1", "TCP/127.0.0.1/8001")), OK, REJECT,
          id="first tcp port conflict due to 0.0.0.0 hostIP"),
        P(new_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), node_info(new_pod("m1", "TCP/127.0.0.1/8001")),
          OK, REJECT, id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
        P(new_pod("m1", "TCP/127.0.0.1/8001"), node_info(new_pod("m1", "TCP/0.0.0.0/8001")), OK, REJECT,
          id="second tcp port conflict to 0.0.0.0 hostIP"),
        P(new_pod("m1", "UDP/127.0.0.1/8001"), node_info(new_pod("m1", "TCP/0.0.0.0/8001")), OK, OK,
          id="second different protocol"),
        P(new_pod("m1", "UDP/127.0.0.1/8001"), node_info(new_pod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")),
          OK, REJECT, id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
        P(init_port_pod(False), node_info(new_pod("m1", "TCP/0.0.0.0/8001")), SKIP, None,
          id="non-sidecar initContainer using hostPort"),
        P(init_port_pod(True), node_info(new_pod("m1", "TCP/0.0.0.0/8001")), OK, REJECT,
          id="TCP hostPort conflict from sidecar initContainer"),
    ],
)
def test_node_ports(pod: Obj, ni: NodeInfo, want_pre: Status, want: Status | None) -> None:
    plugin = NodePorts()
    state = CycleState()
    _, st = plugin.pre_filter(state, pod, [ni])
    assert st == want_pre
    if st.is_skip():
        return
    assert plugin.filter(state, pod, ni) == want


def test_pre_filter_disabled() -> None:
    got = NodePorts().filter(CycleState(), {"metadata": {"name": "x"}, "spec": {}}, node_info())
    assert got.code is Code.ERROR and got.message().endswith("not found")


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        P(new_pod("p", "TCP/127.0.0.1/80"), new_pod("p1", "TCP/127.0.0.1/9090"), True, id="non-conflicting ports"),
        P(new_pod("p", "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
          new_pod("p1", "TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"), True,
          id="multiple non-conflicting ports"),
        P(new_pod("m1", "TCP/127.0.0.1/80"), new_pod("p1", "UDP/127.0.0.1/80"), True,
          id="same ports on different protocols"),
        P(new_pod("m1", "TCP/127.0.0.1/80"), new_pod("p1", "TCP/127.0.0.1/80"), False, id="conflicting ports"),
        P(new_pod("p", "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
          new_pod("p1", "TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"), False,
          id="multiple ports, some conflicting"),
    ],
)
def test_fits(pod: Obj, existing: Obj, want: bool) -> None:
    ni = node_info(existing)
    assert fits_ports(host_ports(pod), (p.ports for p in ni.pods_with_ports.values())) is want


def test_node_ports_deferred_resize_skipped() -> None:
    pod = {"metadata": {"name": "p", "namespace": "default", "uid": "p"}, "spec": {"containers": []},
           "status": {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]}}
    plugin = NodePorts(resize_preemption=True)
    result, st = plugin.pre_filter(CycleState(), pod, [])
    assert result is None and st.code is Code.SKIP
    assert plugin.filter(CycleState(), pod, NodeInfo("node1", {"metadata": {"name": "node1"}})).is_success()


def host_port_pod(port: int | None = None, node: str = "") -> Obj:
    """st.MakePod().Node(node).HostPort(port)."""
    spec: Obj = {"containers": []}
    if port is not None:
        spec["containers"] = [{"name": "container", "image": "pause",
                               "ports": [{"hostPort": port, "containerPort": port}]}]
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": f"hp{next(_n)}", "namespace": "default"}, "spec": spec}


@pytest.mark.parametrize(
    ("old", "want"),
    [
        P(None, QueueingHint.QUEUE, id="backoff-wrong-old-object",
          marks=pytest.mark.skip(reason="a non-Pod object cannot reach the Python hint")),
        P(host_port_pod(), QueueingHint.QUEUE_SKIP, id="skip-queue-on-unscheduled"),
        P(host_port_pod(node="fake-node"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-non-hostport"),
        P(host_port_pod(8081, "fake-node"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-unrelated-hostport"),
        P(host_port_pod(8080, "fake-node"), QueueingHint.QUEUE, id="queue-on-released-hostport"),
    ],
)
def test_is_schedulable_after_assigned_pod_deleted(old: Obj, want: QueueingHint) -> None:
    reg = next(r for r in NodePorts().events_to_register() if r.event.action is ActionType.DELETE)
    assert reg.hint is not None and reg.hint(host_port_pod(8080), old, None) == want

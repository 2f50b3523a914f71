"""EndpointSlices of a selector Service (the EndpointSlice controller of
kube-controller-manager, pkg/controller/endpointslice).

Distributed training jobs find their peers through a headless Service: the controller
MUST publish the selected pods' IPs in EndpointSlices labelled with the managing
controller and the Service's name, ready while the pods are, with the Service's ports
resolved against the pods' (named) container ports, and MUST drop a deleted pod.

The pods need real IPs: KWOK gives its pods the node's loopback address, which an
EndpointSlice may not hold (upstream's validation refuses 127.0.0.0/8), so this needs
KUBELET and its pods run on a real node.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from fixtures import Capability, Target, eventually
from reference_impl.api import make_pod

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.KUBELET)]

API: Final = "discovery.k8s.io/v1"
MANAGED_BY: Final = "endpointslice.kubernetes.io/managed-by"
SERVICE_NAME: Final = "kubernetes.io/service-name"
CONTROLLER: Final = "endpointslice-controller.k8s.io"
WAIT_S: Final = 120


def _pod(name: str, namespace: str) -> dict[str, Any]:
    pod = make_pod(name, namespace).req(cpu="10m").label("app", "trainer").build()
    pod["spec"]["containers"][0]["ports"] = [
        {"name": "rdzv", "containerPort": 29400, "protocol": "TCP"}
    ]
    return pod


def _running_ips(target: Target, namespace: str, names: list[str]) -> dict[str, str]:
    """name -> pod IP of the pods that run, are Ready and have an IP."""
    out: dict[str, str] = {}
    for name in names:
        status = target.get("v1", "Pod", name, namespace).get("status") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                    for c in status.get("conditions") or [])  # fmt: skip
        if status.get("phase") == "Running" and ready and status.get("podIP"):
            out[name] = str(status["podIP"])
    return out


def _endpoints(target: Target, namespace: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(slice, endpoint) for the Service's controller-managed IPv4 slices."""
    selector = f"{SERVICE_NAME}=trainer,{MANAGED_BY}={CONTROLLER}"
    return [
        (s, ep)
        for s in target.list(API, "EndpointSlice", namespace, label_selector=selector)
        if s.get("addressType") == "IPv4"
        for ep in s.get("endpoints") or []
    ]


def test_a_headless_service_gets_endpoint_slices_of_its_ready_pods(
    target: Target, namespace: str
) -> None:
    """EndpointSlices of a headless Service.

    A headless Service selecting three running pods MUST get EndpointSlices labelled
    ``endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`` and
    ``kubernetes.io/service-name: <service>``, listing each pod's IP once with
    ``conditions.ready: true`` and a targetRef to the pod, and the Service's port resolved
    through the named container port; once a pod is deleted its endpoint MUST go.
    """
    target.apply({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "trainer", "namespace": namespace},
        "spec": {"clusterIP": "None", "selector": {"app": "trainer"},
                 "ports": [{"name": "rdzv", "port": 29400, "targetPort": "rdzv",
                            "protocol": "TCP"}]},
    })  # fmt: skip
    names = ["trainer-0", "trainer-1", "trainer-2"]
    for name in names:
        target.apply(_pod(name, namespace))
    ips: dict[str, str] = {}

    def running() -> str:
        ips.update(_running_ips(target, namespace, names))
        return "" if len(ips) == 3 else f"running and ready: {sorted(ips)}"

    eventually(target, running, WAIT_S, "three running pods with IPs")

    def published(expected: dict[str, str]) -> str:
        eps = _endpoints(target, namespace)
        got = {
            str((ep.get("targetRef") or {}).get("name")): tuple(ep.get("addresses") or [])
            for _, ep in eps
            if (ep.get("conditions") or {}).get("ready") is True
        }
        want = {n: (ip,) for n, ip in expected.items()}
        if got != want or len(eps) != len(expected):
            return f"ready endpoints {got}, want {want} ({len(eps)} endpoints)"
        for s, _ in eps:
            ports = [(p.get("name"), p.get("port"), p.get("protocol")) for p in s.get("ports") or []]
            if ports != [("rdzv", 29400, "TCP")]:
                return f"slice {s['metadata']['name']} ports {ports}"
        return ""

    eventually(target, lambda: published(ips), WAIT_S, "EndpointSlices of the three pods")
    for s, ep in _endpoints(target, namespace):
        assert s["metadata"]["labels"][MANAGED_BY] == CONTROLLER
        assert s["metadata"]["labels"][SERVICE_NAME] == "trainer"
        assert ep["targetRef"]["kind"] == "Pod"

    target.delete("v1", "Pod", "trainer-1", namespace)
    rest = {n: ip for n, ip in ips.items() if n != "trainer-1"}
    eventually(target, lambda: published(rest), WAIT_S, "the deleted pod's endpoint gone")

"""Endpoints of a selector Service (the Endpoints controller of kube-controller-manager,
pkg/controller/endpoint).

Clients that still read ``v1/Endpoints`` (older service meshes, DNS add-ons, training
launchers) see a Service's pods there: the controller MUST list each selected pod's IP
under ``addresses`` while the pod is Ready and under ``notReadyAddresses`` while it is
not, with a targetRef to the pod and the Service's port resolved through the pods' named
container port, label the object ``endpoints.kubernetes.io/managed-by:
endpoint-controller``, move a pod across as its readiness changes and drop a deleted pod.

A readiness gate holds one pod not Ready. The pods need real IPs (KWOK gives its pods the
node's loopback address, which Endpoints may not hold) and a kubelet that honours
readiness gates, so this needs KUBELET and its pods run on a real node.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from fixtures import Capability, Target, eventually
from fixtures.helpers.pod_conditions import set_pod_condition
from reference_impl.api import make_pod
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.KUBELET)]

MANAGED_BY: Final = "endpoints.kubernetes.io/managed-by"
GATE: Final = "example.com/peer-warm"
WAIT_S: Final = 120


def _pod(name: str, namespace: str, *, gated: bool) -> dict[str, Any]:
    pod = make_pod(name, namespace).req(cpu="10m").label("app", "trainer").build()
    pod["spec"]["containers"][0]["ports"] = [
        {"name": "rdzv", "containerPort": 29400, "protocol": "TCP"}
    ]
    if gated:
        pod["spec"]["readinessGates"] = [{"conditionType": GATE}]
    return pod


def _pod_ips(target: Target, namespace: str, names: list[str]) -> dict[str, str]:
    """name -> pod IP of the pods that run and have an IP."""
    out: dict[str, str] = {}
    for name in names:
        status = target.get("v1", "Pod", name, namespace).get("status") or {}
        if status.get("phase") == "Running" and status.get("podIP"):
            out[name] = str(status["podIP"])
    return out


def _listed(target: Target, namespace: str) -> tuple[dict[str, str], dict[str, str], list[Any], str]:
    """(ready name -> ip, not-ready name -> ip, ports, problem) of the Service's Endpoints."""
    try:
        ep = target.get("v1", "Endpoints", "trainer", namespace)
    except NotFound:
        return {}, {}, [], "no Endpoints yet"
    if (ep["metadata"].get("labels") or {}).get(MANAGED_BY) != "endpoint-controller":
        return {}, {}, [], f"labels {ep['metadata'].get('labels')}"
    ready: dict[str, str] = {}
    not_ready: dict[str, str] = {}
    ports: list[Any] = []
    for subset in ep.get("subsets") or []:
        ports += [(p.get("name"), p.get("port"), p.get("protocol")) for p in subset.get("ports") or []]
        for key, into in (("addresses", ready), ("notReadyAddresses", not_ready)):
            for a in subset.get(key) or []:
                ref = a.get("targetRef") or {}
                if ref.get("kind") != "Pod":
                    return {}, {}, [], f"address {a} has no Pod targetRef"
                into[str(ref.get("name"))] = str(a.get("ip"))
    return ready, not_ready, ports, ""


def test_a_service_gets_endpoints_of_its_pods_split_by_readiness(
    target: Target, namespace: str
) -> None:
    """Endpoints of a selector Service.

    A Service selecting a Ready pod and a running pod held not Ready by a readiness gate
    MUST get Endpoints labelled ``endpoints.kubernetes.io/managed-by:
    endpoint-controller`` listing the first pod's IP under ``addresses`` and the second's
    under ``notReadyAddresses``, each with a Pod targetRef, and the port ``rdzv`` 29400/TCP
    resolved through the named container port; once the gate opens both MUST be under
    ``addresses``; once a pod is deleted its address MUST go.
    """
    target.apply({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "trainer", "namespace": namespace},
        "spec": {"selector": {"app": "trainer"},
                 "ports": [{"name": "rdzv", "port": 29400, "targetPort": "rdzv",
                            "protocol": "TCP"}]},
    })  # fmt: skip
    target.apply(_pod("trainer-0", namespace, gated=False))
    target.apply(_pod("trainer-1", namespace, gated=True))
    names = ["trainer-0", "trainer-1"]
    ips: dict[str, str] = {}

    def running() -> str:
        ips.update(_pod_ips(target, namespace, names))
        return "" if len(ips) == 2 else f"running with IPs: {sorted(ips)}"

    eventually(target, running, WAIT_S, "two running pods with IPs")

    def listed(want_ready: list[str], want_not_ready: list[str]) -> str:
        ready, not_ready, ports, problem = _listed(target, namespace)
        if problem:
            return problem
        want = ({n: ips[n] for n in want_ready}, {n: ips[n] for n in want_not_ready})
        if (ready, not_ready) != want:
            return f"addresses {ready}, notReadyAddresses {not_ready}; want {want}"
        if set(ports) != {("rdzv", 29400, "TCP")}:
            return f"ports {ports}"
        return ""

    eventually(target, lambda: listed(["trainer-0"], ["trainer-1"]), WAIT_S,
               "the Ready pod in addresses, the gated one in notReadyAddresses")  # fmt: skip
    set_pod_condition(target, "trainer-1", namespace, GATE, "True", reason="Warm")
    eventually(target, lambda: listed(["trainer-0", "trainer-1"], []), WAIT_S,
               "both pods in addresses once the gate is open")  # fmt: skip
    target.delete("v1", "Pod", "trainer-0", namespace)
    eventually(target, lambda: listed(["trainer-1"], []), WAIT_S, "the deleted pod's address gone")

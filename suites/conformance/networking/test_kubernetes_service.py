"""The ``default/kubernetes`` Service (kube-apiserver's bootstrap controller,
pkg/controlplane/controller/kubernetesservice).

The apiserver MUST keep a Service "kubernetes" in namespace "default" with port 443
named "https", its ClusterIP the first address of the ServiceCIDR "kubernetes" and held
by an IPAddress referencing it. Its endpoints are not asserted here: they depend on
``--endpoint-reconciler-type`` (``none`` writes none; a loopback-only apiserver, as the
local cluster is, cannot use the lease reconciler, whose endpoints may not be loopback).
The reference models the default lease reconciler (model tests).
"""

from __future__ import annotations

import ipaddress
from typing import Final

import pytest

from fixtures import Target

pytestmark = [pytest.mark.conformance]

NET: Final = "networking.k8s.io/v1"


def test_the_kubernetes_service_holds_the_first_service_ip(target: Target) -> None:
    """The kubernetes Service.

    default/kubernetes MUST exist with a port 443 named https; its ClusterIP MUST be the
    first address of the ServiceCIDR "kubernetes"'s first CIDR, and an IPAddress named
    after it MUST reference the Service.
    """
    svc = target.get("v1", "Service", "kubernetes", "default")
    ports = {p.get("name"): p for p in svc["spec"].get("ports") or []}
    assert "https" in ports, svc["spec"].get("ports")
    assert ports["https"]["port"] == 443
    assert ports["https"].get("protocol", "TCP") == "TCP"

    cidr = target.get(NET, "ServiceCIDR", "kubernetes")["spec"]["cidrs"][0]
    first = ipaddress.ip_network(cidr).network_address + 1
    assert ipaddress.ip_address(svc["spec"]["clusterIP"]) == first, (svc["spec"], cidr)

    held = target.get(NET, "IPAddress", str(first))
    ref = held["spec"]["parentRef"]
    assert (ref.get("group", ""), ref["resource"], ref["namespace"], ref["name"]) == (
        "", "services", "default", "kubernetes",
    )  # fmt: skip

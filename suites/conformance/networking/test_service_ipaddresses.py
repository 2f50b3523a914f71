"""Service cluster IPs as IPAddress objects over ServiceCIDRs (MultiCIDRServiceAllocator,
GA and locked on: pkg/registry/core/service/ipallocator, the default ServiceCIDR of
pkg/controlplane/controller/defaultservicecidr).

The apiserver MUST keep the ServiceCIDR "kubernetes" built from
``--service-cluster-ip-range`` and Ready; a ClusterIP Service's address MUST lie in it
and be held by an IPAddress named after it, labelled ``ipaddress.kubernetes.io/ip-family``
and ``ipaddress.kubernetes.io/managed-by: ipallocator.k8s.io``, whose parentRef is the
Service; another Service asking that address MUST be refused as already allocated;
deleting the Service MUST delete its IPAddress.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

import pytest

from fixtures import Target, eventually
from reference_impl.errors import Invalid, NotFound

pytestmark = [pytest.mark.conformance]

NET: Final = "networking.k8s.io/v1"
WAIT_S: Final = 30


def _service(name: str, namespace: str, cluster_ip: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"app": name},
        "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
    }
    if cluster_ip is not None:
        spec["clusterIP"] = cluster_ip
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}  # fmt: skip


def _ready(obj: dict[str, Any]) -> str:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Ready":
            return str(cond.get("status"))
    return ""


def test_default_service_cidr_exists_and_is_ready(target: Target) -> None:
    """The default ServiceCIDR.

    The ServiceCIDR "kubernetes" MUST exist with one valid CIDR per family and a Ready
    condition of status True.
    """

    def ready() -> str:
        got = target.get(NET, "ServiceCIDR", "kubernetes")
        cidrs = [ipaddress.ip_network(c) for c in got["spec"]["cidrs"]]
        if not 1 <= len(cidrs) <= 2 or len({c.version for c in cidrs}) != len(cidrs):
            return f"cidrs {got['spec']['cidrs']}"
        return "" if _ready(got) == "True" else f"Ready is {_ready(got)!r}"

    eventually(target, ready, WAIT_S, 'the ServiceCIDR "kubernetes" Ready')


def test_a_cluster_ip_is_an_ip_address_object(target: Target, namespace: str) -> None:
    """A Service's cluster IP is an IPAddress.

    A ClusterIP Service's address MUST lie in the "kubernetes" ServiceCIDR and an
    IPAddress named after it MUST exist with the family and managed-by labels and the
    Service as parentRef (group "", resource services); a second Service asking the same
    address MUST be refused as already allocated; once the Service is deleted the
    IPAddress MUST be gone.
    """
    svc = target.apply(_service("web", namespace))
    ip = str(svc["spec"]["clusterIP"])
    addr = ipaddress.ip_address(ip)
    cidrs = target.get(NET, "ServiceCIDR", "kubernetes")["spec"]["cidrs"]
    assert any(addr in ipaddress.ip_network(c) for c in cidrs), (ip, cidrs)

    held = target.get(NET, "IPAddress", ip)
    assert held["metadata"]["labels"] == {
        "ipaddress.kubernetes.io/ip-family": f"IPv{addr.version}",
        "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
    }
    ref = held["spec"]["parentRef"]
    assert (ref.get("group") or "", ref.get("resource"), ref.get("namespace"), ref.get("name")) == (
        "",
        "services",
        namespace,
        "web",
    )

    with pytest.raises(Invalid) as refused:
        target.apply(_service("web-copy", namespace, cluster_ip=ip))
    assert "provided IP is already allocated" in str(refused.value)

    target.delete("v1", "Service", "web", namespace)

    def released() -> str:
        try:
            left = target.get(NET, "IPAddress", ip)
        except NotFound:
            return ""
        ref = left["spec"]["parentRef"]
        if (ref.get("namespace"), ref.get("name")) != (namespace, "web"):
            return ""  # taken again since, by another Service
        return f"IPAddress {ip} still held by {ref}"

    eventually(target, released, WAIT_S, f"the IPAddress {ip} deleted with its Service")

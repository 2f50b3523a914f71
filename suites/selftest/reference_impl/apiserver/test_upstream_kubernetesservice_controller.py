"""pkg/controlplane/controller/kubernetesservice/controller_test.go (v1.37.2):
TestCreateOrUpdateMasterService (its create, reconcile and non-reconcile tables: the
Service spec created or updated, or no write), and the reference's bootstrap: a fresh
Cluster holds default/kubernetes, its IPAddress, Endpoints and EndpointSlice."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver import kubernetes_service as ks
from reference_impl.cluster import Cluster
from reference_impl.errors import AlreadyExists, NotFound

Obj = dict[str, Any]


class FakeClient:
    """The fake clientset: objects by (kind, namespace, name); writes recorded."""

    def __init__(self, *objs: Obj) -> None:
        self.objs = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o
                     for o in objs}  # fmt: skip
        self.actions: list[tuple[str, Obj]] = []

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        try:
            return copy.deepcopy(self.objs[(kind, namespace, name)])
        except KeyError:
            raise NotFound(name) from None

    def create(self, manifest: Obj) -> Obj:
        self.actions.append(("create", manifest))
        key = (
            manifest["kind"],
            manifest["metadata"].get("namespace"),
            manifest["metadata"]["name"],
        )
        if key in self.objs:
            raise AlreadyExists(key[2])
        self.objs[key] = manifest
        return manifest

    def update(self, manifest: Obj) -> Obj:
        self.actions.append(("update", manifest))
        self.objs[(manifest["kind"], manifest["metadata"].get("namespace"),
                   manifest["metadata"]["name"])] = manifest  # fmt: skip
        return manifest

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Any:
        self.actions.append(("delete", {"kind": kind, "name": name}))
        return self.objs.pop((kind, namespace, name))


def _port(name: str, port: int, proto: str, target: int) -> Obj:
    return {"name": name, "port": port, "protocol": proto, "targetPort": target}


FOO = _port("foo", 8080, "TCP", 8080)


def _service(ports: list[Obj], typ: str = "ClusterIP") -> Obj:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"namespace": "default", "name": "foo"},
            "spec": {"ports": ports, "clusterIP": "1.2.3.4", "sessionAffinity": "None",
                     "type": typ}}  # fmt: skip


def test_create_or_update_master_service_service_does_not_exist() -> None:
    c = FakeClient()
    ks.create_or_update_master_service_if_needed(c, "foo", "1.2.3.4", [FOO], "ClusterIP", False)
    assert [v for v, _ in c.actions] == ["create"]
    assert c.actions[0][1]["spec"] == {
        "ports": [FOO], "clusterIP": "1.2.3.4", "ipFamilyPolicy": "SingleStack",
        "sessionAffinity": "None", "type": "ClusterIP",
    }  # fmt: skip


# (name, expected ports, expected type, stored ports, stored type, update expected)
RECONCILE_ROWS = [
    ("service definition wrong port", [FOO], "ClusterIP",
     [_port("foo", 8000, "TCP", 8080)], "ClusterIP", True),
    ("service definition missing port", [FOO, _port("baz", 1000, "TCP", 1000)], "ClusterIP",
     [FOO], "ClusterIP", True),
    ("service definition incorrect port", [FOO], "ClusterIP",
     [_port("bar", 1000, "UDP", 1000)], "ClusterIP", True),
    ("service definition incorrect port name", [FOO], "ClusterIP",
     [_port("foo", 1000, "UDP", 1000)], "ClusterIP", True),
    ("service definition incorrect target port", [FOO], "ClusterIP",
     [_port("foo", 8080, "TCP", 1000)], "ClusterIP", True),
    ("service definition incorrect protocol", [FOO], "ClusterIP",
     [_port("foo", 8080, "UDP", 8080)], "ClusterIP", True),
    ("service definition has incorrect type", [FOO], "ClusterIP", [FOO], "NodePort", True),
    ("service definition satisfies", [FOO], "ClusterIP", [FOO], "ClusterIP", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("want_ports", "want_type", "ports", "typ", "update"),
    [pytest.param(*r[1:], id=r[0]) for r in RECONCILE_ROWS],
)
def test_create_or_update_master_service_reconcile(
    want_ports: list[Obj], want_type: str, ports: list[Obj], typ: str, update: bool
) -> None:
    svc = _service(ports, typ)
    c = FakeClient(svc)
    ks.create_or_update_master_service_if_needed(c, "foo", "1.2.3.4", want_ports, want_type, True)
    updates = [o for v, o in c.actions if v == "update"]
    assert len(c.actions) == len(updates)
    if not update:
        assert updates == []
        return
    assert len(updates) == 1
    assert updates[0]["spec"] == {**svc["spec"], "ports": want_ports, "type": want_type}


def test_create_or_update_master_service_wrong_port_no_expected_update() -> None:
    """The non-reconcile table's row: ``reconcile`` false leaves a wrong port."""
    c = FakeClient(_service([_port("foo", 1000, "TCP", 1000)]))
    ks.create_or_update_master_service_if_needed(c, "foo", "1.2.3.4", [FOO], "ClusterIP", False)
    assert c.actions == []


def test_update_kubernetes_service_writes_service_endpoints_and_slice() -> None:
    """``UpdateKubernetesService(false)`` on an empty store: the Service, the Endpoints
    (skip-mirror) and its EndpointSlice; a second sync writes nothing."""
    c = FakeClient()
    cfg = ks.Config(public_ip="10.1.2.3", service_ip="10.0.0.1")
    ks.update_kubernetes_service(c, cfg, False)
    assert [(v, o["kind"]) for v, o in c.actions] == [
        ("create", "Service"),
        ("create", "Endpoints"),
        ("create", "EndpointSlice"),
    ]
    ep = c.actions[1][1]
    assert ep["metadata"]["labels"] == {ks.LABEL_SKIP_MIRROR: "true"}
    assert ep["subsets"] == [
        {
            "addresses": [{"ip": "10.1.2.3"}],
            "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}],
        }
    ]
    sl = c.actions[2][1]
    assert sl["metadata"]["labels"] == {ks.LABEL_SERVICE_NAME: "kubernetes"}
    assert sl["endpoints"] == [{"addresses": ["10.1.2.3"], "conditions": {"ready": True}}]
    c.actions.clear()
    ks.update_kubernetes_service(c, cfg, False)
    assert c.actions == []


def test_cluster_bootstraps_kubernetes_service() -> None:
    c = Cluster()
    svc = c.get("v1", "Service", "kubernetes", "default")
    assert svc["spec"]["clusterIP"] == "10.0.0.1"
    assert svc["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP",
                                     "targetPort": ks.SECURE_PORT}]  # fmt: skip
    ip = c.get("networking.k8s.io/v1", "IPAddress", "10.0.0.1")
    assert ip["spec"]["parentRef"]["name"] == "kubernetes"
    sl = c.get("discovery.k8s.io/v1", "EndpointSlice", "kubernetes", "default")
    assert sl["endpoints"][0]["addresses"] == [ks.PUBLIC_IP]
    # Deleted, it is back within one EndpointInterval.
    c.api.delete("v1", "Service", "kubernetes", "default")
    c.advance(ks.ENDPOINT_INTERVAL_SECONDS)
    assert c.get("v1", "Service", "kubernetes", "default")["spec"]["clusterIP"] == "10.0.0.1"

"""The claim and service evaluators, after upstream's ``persistent_volume_claims_test.go``
and ``services_test.go`` (usage, matching resources and scopes, handles)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import MakeEnv
from reference_impl.apiserver.quota import resources as r
from reference_impl.apiserver.quota.pvcs import PVCEvaluator
from reference_impl.apiserver.quota.services import ServiceEvaluator
from reference_impl.apiserver.quota.types import UsageStatsOptions
from reference_impl.apiserver.registry import Operation

Obj = dict[str, Any]
PVC_COUNT = {"count/persistentvolumeclaims": "1", "persistentvolumeclaims": "1"}
GOLD = "gold.storageclass.storage.k8s.io/"
VAC = "VolumeAttributesClass"


def pvc(storage: str, cls: str | None = None, allocated: str | None = None, **status: Any) -> Obj:
    spec: Obj = {"resources": {"requests": {"storage": storage}}, "accessModes": ["ReadWriteOnce"]}
    if cls:
        spec["storageClassName"] = cls
    if allocated:
        status["allocatedResources"] = {"storage": allocated}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "foo", "namespace": "ns"}, "spec": spec, "status": status}  # fmt: skip


@pytest.mark.parametrize(("claim", "usage"), [
    pytest.param(pvc("10Gi"), {"requests.storage": "10Gi", **PVC_COUNT}, id="pvc-usage"),
    pytest.param(pvc("10Gi", "gold"), {"requests.storage": "10Gi", **PVC_COUNT,
                                        GOLD + "requests.storage": "10Gi",
                                        GOLD + "persistentvolumeclaims": "1"}, id="pvc-usage-by-class"),
    pytest.param(pvc("1001m"), {"requests.storage": "2", **PVC_COUNT}, id="pvc-usage-rounded"),
    pytest.param(pvc("1001m", "gold"), {"requests.storage": "2", **PVC_COUNT,
                                         GOLD + "requests.storage": "2",
                                         GOLD + "persistentvolumeclaims": "1"},
                 id="pvc-usage-by-class-rounded"),
    pytest.param(pvc("5G", allocated="10G"), {"requests.storage": "10G", **PVC_COUNT},
                 id="pvc-usage-higher-allocated-resource"),
    pytest.param(pvc("10G", allocated="5G"), {"requests.storage": "10G", **PVC_COUNT},
                 id="pvc-usage-lower-allocated-resource"),
])  # fmt: skip
def test_pvc_usage(make_env: MakeEnv, claim: Obj, usage: dict[str, str]) -> None:
    assert r.to_wire(PVCEvaluator(make_env()).usage(claim)) == r.to_wire(r.from_wire(usage))


def test_pvc_beta_annotation_wins(make_env: MakeEnv) -> None:
    claim = pvc("1Gi", "gold")
    claim["metadata"]["annotations"] = {"volume.beta.kubernetes.io/storage-class": "silver"}
    got = PVCEvaluator(make_env()).usage(claim)
    assert "silver.storageclass.storage.k8s.io/requests.storage" in got


@pytest.mark.parametrize(("items", "want"), [
    (["count/persistentvolumeclaims", "requests.storage", "persistentvolumeclaims",
      GOLD + "requests.storage", GOLD + "persistentvolumeclaims"],
     ["count/persistentvolumeclaims", "requests.storage", "persistentvolumeclaims",
      GOLD + "requests.storage", GOLD + "persistentvolumeclaims"]),
    (["storage", "ephemeral-storage", "bronze.storageclass.storage.k8s.io/storage",
      "gold.storage.k8s.io/requests.storage"], []),
])  # fmt: skip
def test_pvc_matching_resources(make_env: MakeEnv, items: list[str], want: list[str]) -> None:
    assert PVCEvaluator(make_env()).matching_resources(items) == want


def sel(op: str, *values: str) -> Obj:
    return {"scopeName": VAC, "operator": op, **({"values": list(values)} if values else {})}


DNE, EX, IN1, IN2, IN3, IN4 = (
    sel("DoesNotExist"),
    sel("Exists"),
    sel("In", "c1"),
    sel("In", "c2"),
    sel("In", "c3"),
    sel("In", "c4"),
)
IN12, IN124, IN123, IN1234 = (
    sel("In", "c1", "c2"),
    sel("In", "c1", "c2", "c4"),
    sel("In", "c1", "c2", "c3"),
    sel("In", "c1", "c2", "c3", "c4"),
)
NOT4 = sel("NotIn", "c4")


def vac_pvc(spec: str | None = None, current: str | None = None, target: str | None = None) -> Obj:
    status: Obj = {"currentVolumeAttributesClassName": current} if current else {}
    if target:
        status["modifyVolumeStatus"] = {"targetVolumeAttributesClassName": target}
    return {"spec": {"volumeAttributesClassName": spec} if spec else {}, "status": status}


@pytest.mark.parametrize(("claim", "selectors", "want"), [
    pytest.param({}, [DNE, EX, IN1, NOT4], [DNE, NOT4], id="EmptyPVC"),
    pytest.param(vac_pvc("c1"), [DNE, EX, IN1, IN4, NOT4], [EX, IN1, NOT4], id="VolumeAttributesClass"),
    pytest.param(vac_pvc("c1", "c2"), [DNE, EX, IN1, IN2, IN12, IN124, IN4, NOT4],
                 [EX, IN1, IN2, IN12, IN124, NOT4], id="VolumeAttributesClassWithTarget"),
    pytest.param(vac_pvc("c1", "c2", "c3"), [DNE, EX, IN1, IN2, IN3, IN123, IN1234, IN4, NOT4],
                 [EX, IN1, IN2, IN3, IN123, IN1234, NOT4], id="VolumeAttributesClassWithModityStatus"),
])  # fmt: skip
def test_pvc_matching_scopes(
    make_env: MakeEnv, claim: Obj, selectors: list[Obj], want: list[Obj]
) -> None:
    assert PVCEvaluator(make_env()).matching_scopes(claim, selectors) == want


def test_pvc_usage_stats_scoped(make_env: MakeEnv) -> None:
    a = pvc("1Gi")
    b = {**pvc("2Gi"), "spec": {**pvc("2Gi")["spec"], "volumeAttributesClassName": "c1"}}
    b["metadata"] = {"name": "b", "namespace": "ns"}
    ev = PVCEvaluator(make_env([a, b]))
    got = ev.usage_stats(
        UsageStatsOptions("ns", [], ["requests.storage"], {"matchExpressions": [IN1]})
    )
    assert r.to_wire(got) == {"count/persistentvolumeclaims": "1", "persistentvolumeclaims": "1",
                              "requests.storage": "2Gi"}  # fmt: skip


@pytest.mark.parametrize(("op", "sub", "want"), [
    (Operation.CREATE, "", True), (Operation.UPDATE, "", True), (Operation.DELETE, "", False),
    (Operation.CREATE, "subresource", False), (Operation.UPDATE, "subresource", False),
    (Operation.UPDATE, "status", True),  # RecoverVolumeExpansionFailure: always (see pvcs.py)
])  # fmt: skip
def test_pvc_handles(make_env: MakeEnv, op: Operation, sub: str, want: bool) -> None:
    assert PVCEvaluator(make_env()).handles(op, sub, pvc("1Gi"), pvc("1Gi")) is want


SVC_ZERO = {
    "count/services": "1",
    "services": "1",
    "services.loadbalancers": "0",
    "services.nodeports": "0",
}


def svc(kind: str, ports: list[Obj], **spec: Any) -> Obj:
    return {"spec": {"type": kind, "ports": ports, **spec}}


P, NP = {"port": 27443}, {"port": 27443, "nodePort": 32001}


@pytest.mark.parametrize(("s", "usage"), [
    pytest.param(svc("LoadBalancer", []), {**SVC_ZERO, "services.loadbalancers": "1"}, id="loadbalancer"),
    pytest.param(svc("LoadBalancer", [P]), {**SVC_ZERO, "services.loadbalancers": "1",
                                           "services.nodeports": "1"}, id="loadbalancer_ports"),
    pytest.param(svc("LoadBalancer", [P, P]), {**SVC_ZERO, "services.loadbalancers": "1",
                                              "services.nodeports": "2"}, id="loadbalancer_2_ports"),
    pytest.param(svc("ClusterIP", []), SVC_ZERO, id="clusterip"),
    pytest.param(svc("NodePort", [P]), {**SVC_ZERO, "services.nodeports": "1"}, id="nodeports"),
    pytest.param(svc("NodePort", [P, P]), {**SVC_ZERO, "services.nodeports": "2"}, id="multi-nodeports"),
    pytest.param(svc("LoadBalancer", [P, P], allocateLoadBalancerNodePorts=False),
                 {**SVC_ZERO, "services.loadbalancers": "1"}, id="nodeports-disabled"),
    pytest.param(svc("LoadBalancer", [P, P]), {**SVC_ZERO, "services.loadbalancers": "1",
                                              "services.nodeports": "2"}, id="nodeports-default-enabled"),
    pytest.param(svc("LoadBalancer", [P, P], allocateLoadBalancerNodePorts=True),
                 {**SVC_ZERO, "services.loadbalancers": "1", "services.nodeports": "2"},
                 id="nodeports-explicitly-enabled"),
    pytest.param(svc("LoadBalancer", [NP, P], allocateLoadBalancerNodePorts=False),
                 {**SVC_ZERO, "services.loadbalancers": "1", "services.nodeports": "1"},
                 id="nodeports-disabled-but-specified"),
])  # fmt: skip
def test_service_usage(make_env: MakeEnv, s: Obj, usage: dict[str, str]) -> None:
    assert r.to_wire(ServiceEvaluator(make_env()).usage(s)) == r.to_wire(r.from_wire(usage))


def test_service_matching_and_handles(make_env: MakeEnv) -> None:
    ev = ServiceEvaluator(make_env())
    names = ["services.nodeports", "services.loadbalancers", "services", "count/services", "pods"]
    assert ev.matching_resources(names) == sorted(names[:4])
    assert ev.constraints(["services"], svc("NodePort", [P])) is None
    assert ev.handles(Operation.UPDATE, "", {}, {}) and not ev.handles(
        Operation.UPDATE, "status", {}, {}
    )
    assert not ev.handles(Operation.DELETE, "", {}, None)

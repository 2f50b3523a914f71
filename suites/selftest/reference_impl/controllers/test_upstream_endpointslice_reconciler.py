"""Upstream k8s.io/endpointslice@v0.37.2 reconciler_test.go rows, against the reference's
reconciler (reference_impl/controllers/endpointslice/reconciler.py) on a real APIServer.

Upstream's fake clientset names created slices ``<generateName>-<random>``; the reference
apiserver generates the suffix. Metrics expectations are not modelled (no metrics)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from endpointslice_upstream_env import (
    Env,
    endpoint,
    endpoint_meta_ports,
    new_empty_slice,
    new_pod,
    new_pods,
    new_service,
)

from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.endpointslice.reconciler import SyncError, _placeholder_equal
from reference_impl.controllers.endpointslice.utils import CONTROLLER_NAME, new_endpoint_slice

Obj = dict[str, Any]
SN = "kubernetes.io/service-name"
MB = "endpointslice.kubernetes.io/managed-by"
HL = "service.kubernetes.io/headless"
TRIGGER = "endpoints.kubernetes.io/last-change-trigger-time"


def test_reconcile_empty() -> None:
    """TestReconcileEmpty: no pods gives one placeholder slice."""
    env = Env()
    svc = new_service("foo", "test")
    env.reconcile(svc, [], [])
    assert env.actions == ["create"]
    [s] = env.slices()
    assert s["metadata"]["name"].startswith("foo")
    assert s["metadata"]["labels"][SN] == "foo"
    assert (s.get("ports") or [], s.get("endpoints") or []) == ([], [])
    assert env.written == {s["metadata"]["name"]: 1}


# -- TestReconcile1Pod ----------------------------------------------------------------------


def _svc(**spec: Any) -> Obj:
    svc = new_service("foo", "test")
    svc["spec"].update(spec)
    return svc


def _labels(headless: bool, **extra: str) -> dict[str, str]:
    out = {MB: CONTROLLER_NAME, SN: "foo", **extra}
    if headless:
        out[HL] = ""
    return out


def _ep1(addr: str) -> Obj:
    return {"addresses": [addr], "conditions": {"ready": True, "serving": True, "terminating": False},
            "zone": "us-central1-a", "nodeName": "node-1",
            "targetRef": {"kind": "Pod", "namespace": "test", "name": "pod1", "uid": ""}}  # fmt: skip


_V4, _V6 = "1.2.3.4", "1234::5678:0:0:9abc:def0"
_BAD = {SN: "bad", MB: "actor", HL: "invalid"}


@pytest.mark.parametrize(
    ("svc", "labels", "per_type"),
    [
        pytest.param(_svc(clusterIP="10.0.0.10", ipFamilies=None), _labels(False), {"IPv4": _V4},
                     id="no-family-service"),
        pytest.param(_svc(), _labels(True), {"IPv4": _V4}, id="ipv4"),
        pytest.param(_svc(clusterIP="1.1.1.1"), _labels(False), {"IPv4": _V4}, id="ipv4-clusterip"),
        pytest.param({**_svc(), "metadata": {**_svc()["metadata"], "labels": {"foo": "bar"}}},
                     _labels(True, foo="bar"), {"IPv4": _V4}, id="ipv4-labels"),
        pytest.param({**_svc(), "metadata": {**_svc()["metadata"], "labels": _BAD}},
                     _labels(True), {"IPv4": _V4}, id="ipv4-bad-labels"),
        pytest.param(_svc(ipFamilies=["IPv6"]), _labels(True), {"IPv6": _V6}, id="ipv6"),
        pytest.param(_svc(clusterIP="1234::5678:0000:0000:9abc:def1", ipFamilies=["IPv6"]),
                     _labels(False), {"IPv6": _V6}, id="ipv6-clusterip"),
        pytest.param(_svc(ipFamilies=["IPv4", "IPv6"], clusterIP="10.0.0.10",
                          clusterIPs=["10.0.0.10", "2000::1"]),
                     _labels(False), {"IPv4": _V4, "IPv6": _V6}, id="dualstack-service"),
    ],
)  # fmt: skip
def test_reconcile_1_pod(svc: Obj, labels: dict[str, str], per_type: dict[str, str]) -> None:
    node1 = {"metadata": {"name": "node-1", "labels": {
        "topology.kubernetes.io/zone": "us-central1-a", "topology.kubernetes.io/region": "us-central1"}}}  # fmt: skip
    pod1 = new_pod(1, "test", True)
    pod1["status"]["podIPs"] = [{"ip": "1.2.3.4"}, {"ip": "1234::5678:0000:0000:9abc:def0"}]
    pod1["spec"]["hostname"] = "example-hostname"
    env = Env([node1])
    trigger = Instant(7_000_000_000)
    env.reconcile(svc, [pod1], [], trigger)
    assert env.actions == ["create"] * len(per_type)
    slices = env.slices()
    assert sorted(s["addressType"] for s in slices) == sorted(per_type)
    for s in slices:
        assert s["metadata"]["name"].startswith("foo")
        assert s["metadata"]["labels"] == labels
        assert s["metadata"]["annotations"][TRIGGER] == rfc3339(trigger)
        assert s["endpoints"] == [_ep1(per_type[s["addressType"]])]
        assert env.written[s["metadata"]["name"]] == 1


# -- TestReconcile1EndpointSlice ---------------------------------------------------------


def _existing_same() -> Obj:
    svc = new_service("foo", "test")
    return new_endpoint_slice(svc, [], "IPv4")


def _existing_different() -> Obj:
    svc = new_service("foo", "test")
    s = new_empty_slice(1, "test", endpoint_meta_ports("foo"), svc)
    s["metadata"]["labels"] = {"bar": "baz"}
    return s


@pytest.mark.parametrize(
    ("existing", "want_update"),
    [
        pytest.param(None, True, id="No existing placeholder"),
        pytest.param(_existing_same(), False, id="Existing placeholder that's the same"),
        pytest.param(_existing_different(), True, id="Existing placeholder that's different"),
    ],
)  # fmt: skip
def test_reconcile_1_endpoint_slice(existing: Obj | None, want_update: bool) -> None:
    env = Env()
    svc = new_service("foo", "test")
    stored = env.create_slices(existing) if existing is not None else []
    env.reconcile(svc, [], stored)
    assert len(env.actions) == (1 if want_update else 0)
    slices = env.slices()
    assert len(slices) == 1
    if not want_update:
        s = slices[0]
        assert s["metadata"]["name"].startswith("foo")
        assert s["metadata"]["labels"][SN] == "foo"
        assert (s.get("ports") or [], s.get("endpoints") or []) == ([], [])


# -- TestPlaceHolderSliceCompare ----------------------------------------------------------


def _es(**kw: Any) -> Obj:
    meta = kw.pop("metadata", {})
    return {"metadata": meta, **kw}


@pytest.mark.parametrize(
    ("x", "y", "want"),
    [
        pytest.param(_es(), _es(), True, id="Both are empty and non-nil"),
        pytest.param(_es(metadata={"name": "foo"}), _es(metadata={"name": "bar"}), True,
                     id="Only ObjectMeta.Name has diff"),
        pytest.param(_es(metadata={"labels": {"foo": "true"}}),
                     _es(metadata={"labels": {"bar": "true"}}), False,
                     id="Only ObjectMeta.Labels has diff"),
        pytest.param(_es(metadata={"creationTimestamp": "1970-01-01T00:00:01Z"}),
                     _es(metadata={"creationTimestamp": "1970-01-01T00:00:02Z"}), True,
                     id="Creation time is different"),
        pytest.param(_es(addressType="IPv4"), _es(addressType="IPv6"), False,
                     id="Different except for ObjectMeta"),
        pytest.param(None, None, True, marks=pytest.mark.skip(
            reason="nil slices: the reference compares only stored slices"), id="Both nil"),
        pytest.param(_es(), None, False, marks=pytest.mark.skip(
            reason="nil slices: the reference compares only stored slices"), id="Y is nil"),
        pytest.param(None, _es(), False, marks=pytest.mark.skip(
            reason="nil slices: the reference compares only stored slices"), id="X is nil"),
    ],
)  # fmt: skip
def test_placeholder_slice_compare(x: Obj, y: Obj, want: bool) -> None:
    assert _placeholder_equal(x, y) is want


# -- single-function tests ---------------------------------------------------------------


def test_reconcile_1_endpoint_slice_publish_not_ready_addresses() -> None:
    """TestReconcile1EndpointSlicePublishNotReadyAddresses."""
    env = Env()
    svc = new_service("foo", "test")
    svc["spec"]["publishNotReadyAddresses"] = True
    env.reconcile(svc, new_pods(50), [])
    assert env.actions == ["create"]
    assert all(ep["conditions"]["ready"] for s in env.slices() for ep in s["endpoints"])
    assert env.lengths() == [50]


def test_reconcile_many_pods() -> None:
    """TestReconcileManyPods."""
    env = Env()
    env.reconcile(new_service("foo", "test"), new_pods(250), [])
    assert env.actions == ["create"] * 3
    assert env.lengths() == [50, 100, 100]


def _interleaved(pods: list[Obj], svc: Obj) -> tuple[Obj, Obj]:
    ports = endpoint_meta_ports("foo")
    s1, s2 = new_empty_slice(1, "test", ports, svc), new_empty_slice(2, "test", ports, svc)
    s1["endpoints"] = [endpoint(pods[i], svc) for i in range(1, len(pods) - 4, 4)]
    s2["endpoints"] = [endpoint(pods[i], svc) for i in range(3, len(pods) - 4, 4)]
    return s1, s2


def test_reconcile_endpoint_slices_some_preexisting() -> None:
    """TestReconcileEndpointSlicesSomePreexisting: one create, then one update."""
    env = Env()
    svc, pods = new_service("foo", "test"), new_pods(250)
    existing = env.create_slices(*_interleaved(pods, svc))
    before = copy.deepcopy(existing)
    env.reconcile(svc, pods, existing)
    assert env.actions == ["create", "update"]
    assert env.lengths() == [61, 89, 100]
    assert existing == before  # cacheMutationCheck


def test_reconcile_endpoint_slices_some_preexisting_worse_allocation() -> None:
    """TestReconcileEndpointSlicesSomePreexistingWorseAllocation."""
    env = Env()
    svc, pods = new_service("foo", "test"), new_pods(300)
    existing = env.create_slices(*_interleaved(pods, svc))
    before = copy.deepcopy(existing)
    env.reconcile(svc, pods, existing)
    assert env.actions == ["create", "create"]
    assert env.lengths() == [52, 74, 74, 100]
    assert existing == before


def test_reconcile_endpoint_slices_updating() -> None:
    """TestReconcileEndpointSlicesUpdating: a new target port updates all three slices."""
    env = Env()
    svc, pods = new_service("foo", "test"), new_pods(250)
    env.reconcile(svc, pods, [])
    assert env.actions == ["create"] * 3
    svc["spec"]["ports"][0]["targetPort"] = 81
    env.reconcile(svc, pods, env.slices())
    assert env.actions[3:] == ["update"] * 3
    assert env.lengths() == [50, 100, 100]


def test_reconcile_endpoint_slices_services_labels_updating() -> None:
    """TestReconcileEndpointSlicesServicesLabelsUpdating."""
    env = Env()
    svc, pods = new_service("foo", "test"), new_pods(250)
    env.reconcile(svc, pods, [])
    svc["metadata"]["labels"] = {"foo": "bar"}
    env.reconcile(svc, pods, env.slices())
    assert env.actions == ["create"] * 3 + ["update"] * 3
    assert env.lengths() == [50, 100, 100]
    assert all(s["metadata"]["labels"].get("foo") == "bar" for s in env.slices())


def test_reconcile_endpoint_slices_services_reserved_labels() -> None:
    """TestReconcileEndpointSlicesServicesReservedLabels: reserved labels change nothing."""
    env = Env()
    svc, pods = new_service("foo", "test"), new_pods(250)
    env.reconcile(svc, pods, [])
    svc["metadata"]["labels"] = dict(_BAD)
    env.reconcile(svc, pods, env.slices())
    assert env.actions == ["create"] * 3
    assert env.lengths() == [50, 100, 100]


def test_reconcile_endpoint_slices_recycling() -> None:
    """TestReconcileEndpointSlicesRecycling: 10 slices of 30 repack into 3 of 100 with 10
    writes (updates of recycled names and deletes)."""
    env = Env()
    svc, pods = new_service("foo", "test"), new_pods(300)
    ports = endpoint_meta_ports("foo")
    slices = [new_empty_slice(n, "test", ports, svc) for n in range(10)]
    for i, pod in enumerate(pods):
        slices[i // 30]["endpoints"].append(endpoint(pod, svc))
    existing = env.create_slices(*slices)
    before = copy.deepcopy(existing)
    env.reconcile(svc, pods, existing)
    assert env.actions == []
    svc["spec"]["ports"][0]["targetPort"] = 81
    env.reconcile(svc, pods, existing)
    assert len(env.actions) == 10
    assert env.lengths() == [100, 100, 100]
    assert existing == before


def test_reconcile_endpoint_slices_update_packing() -> None:
    """TestReconcileEndpointSlicesUpdatePacking: new endpoints fill the updated slice."""
    env = Env()
    svc = new_service("foo", "test")
    ports = endpoint_meta_ports("foo")
    s1, s2 = new_empty_slice(1, "test", ports, svc), new_empty_slice(2, "test", ports, svc)
    pods: list[Obj] = []
    for i in range(80):
        pods.append(new_pod(i, "test", True))
        s1["endpoints"].append(endpoint(pods[-1], svc))
    for i in range(100, 120):
        pods.append(new_pod(i, "test", True))
        s2["endpoints"].append(endpoint(pods[-1], svc))
    existing = env.create_slices(s1, s2)
    for i, pod in enumerate(pods):
        if i % 10 == 0:
            pod["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    pods += [new_pod(i, "test", True) for i in range(200, 215)]
    env.reconcile(svc, pods, existing)
    assert env.actions == ["update", "update"]
    assert env.lengths() == [20, 95]


@pytest.mark.skip(reason="addressType IP: the apiserver refuses to create such a slice, "
                  "and the reference stores only validated objects")  # fmt: skip
def test_reconcile_endpoint_slices_replace_deprecated() -> None:
    """TestReconcileEndpointSlicesReplaceDeprecated."""


@pytest.mark.parametrize(
    ("owned", "changes"),
    [pytest.param(True, False, id="slice owned by Service"),
     pytest.param(False, True, id="slice owned by other Service UID")],
)  # fmt: skip
def test_reconcile_endpoint_slices_recreation(owned: bool, changes: bool) -> None:
    """TestReconcileEndpointSlicesRecreation."""
    env = Env()
    svc = new_service("foo", "test")
    s = new_empty_slice(1, "test", endpoint_meta_ports("foo"), svc)
    pod = new_pod(1, "test", True)
    s["endpoints"].append(endpoint(pod, {"metadata": {"name": ""}, "spec": {}}))
    if not owned:
        s["metadata"]["ownerReferences"][0]["uid"] = "different"
    existing = env.create_slices(s)
    env.reconcile(svc, [pod], existing)
    if changes:
        assert env.actions == ["create", "delete"]
        assert len(env.slices()) == 1
    else:
        assert env.actions == []


def test_reconcile_endpoint_slices_named_ports() -> None:
    """TestReconcileEndpointSlicesNamedPorts: five port mappings, five slices of 60."""
    env = Env()
    # A uid: the reference apiserver requires one in owner references (the fake clientset not).
    svc = {"metadata": {"name": "named-port-example", "namespace": "test", "uid": "u1"},
           "spec": {"ports": [{"targetPort": "http", "protocol": "TCP"}],
                    "selector": {"foo": "bar"}, "ipFamilies": ["IPv4"]}}  # fmt: skip
    pods = new_pods(300)
    for i, pod in enumerate(pods):
        pod["spec"]["containers"][0]["ports"] = [
            {"name": "http", "containerPort": 8080 + i % 5, "protocol": "TCP"}]  # fmt: skip
    env.reconcile(svc, pods, [])
    assert env.actions == ["create"] * 5
    assert env.lengths() == [60] * 5
    got = sorted((s["addressType"], s["ports"][0]["port"], s["ports"]) for s in env.slices())
    assert [g[2] for g in got] == [[{"name": "", "protocol": "TCP", "port": 8080 + i}] for i in range(5)]
    assert {g[0] for g in got} == {"IPv4"}


@pytest.mark.parametrize(
    ("max_eps", "lengths"),
    [
        pytest.param(50, [50] * 5, id="maxEndpointsPerSlice: 50"),
        pytest.param(80, [10, 80, 80, 80], id="maxEndpointsPerSlice: 80"),
        pytest.param(150, [100, 150], id="maxEndpointsPerSlice: 150"),
        pytest.param(250, [250], id="maxEndpointsPerSlice: 250"),
        pytest.param(500, [250], id="maxEndpointsPerSlice: 500"),
    ],
)  # fmt: skip
def test_reconcile_max_endpoints_per_slice(max_eps: int, lengths: list[int]) -> None:
    env = Env(max_endpoints=max_eps)
    env.reconcile(new_service("foo", "test"), new_pods(250), [])
    assert env.lengths() == lengths


# -- TestReconcilerFinalizeSvcDeletionTimestamp -------------------------------------------


@pytest.mark.parametrize(
    ("deleting", "create", "update", "delete", "want_created", "want_updated", "want_deleted"),
    [
        pytest.param(False, True, True, False, True, True, True,
                     id="Attempt create and update, nil deletion timestamp"),
        pytest.param(True, True, True, False, False, True, True,
                     id="Attempt create and update, deletion timestamp set"),
        pytest.param(False, True, True, True, False, True, True,
                     id="Attempt create, update, and delete, nil deletion timestamp, recycling in action"),
        pytest.param(True, True, True, True, False, True, True,
                     id="Attempt create, update, and delete, deletion timestamp set, recycling in action"),
        pytest.param(True, False, True, True, False, True, False,
                     id="Attempt update delete, deletion timestamp set"),
    ],
)  # fmt: skip
def test_reconciler_finalize_svc_deletion_timestamp(
    deleting: bool, create: bool, update: bool, delete: bool,
    want_created: bool, want_updated: bool, want_deleted: bool,
) -> None:  # fmt: skip
    env = Env()
    svc = new_service("foo", "test")
    if deleting:
        svc["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    ports = endpoint_meta_ports("foo")

    def named(name: str) -> Obj:
        s = new_empty_slice(0, "test", ports, svc)
        s["metadata"]["name"] = name
        del s["endpoints"]
        return s

    to_update, to_delete = env.create_slices(named("to-update"), named("to-delete"))
    to_update = copy.deepcopy(to_update)
    to_update["endpoints"] = [{"addresses": ["10.2.3.4"]}]
    env.reconciler._finalize(svc, [named("to-create")] if create else [],
                             [to_update] if update else [], [to_delete] if delete else [], None)  # fmt: skip
    found = {s["metadata"]["name"]: s for s in env.slices()}
    assert ("to-create" in found, "to-update" in found, "to-delete" in found) == (
        want_created, want_updated, want_deleted)  # fmt: skip
    assert len(found["to-update"]["endpoints"]) == 1


# -- TestReconcilerPodMissingNode ------------------------------------------------------


def _missing_node_slice(svc: Obj, pods: list[Obj]) -> Obj:
    s = new_empty_slice(1, "test", endpoint_meta_ports("foo"), svc)
    s["endpoints"] = [endpoint(pods[0], svc, {"metadata": {"name": "node-0"}}),
                      endpoint(pods[1], svc, {"metadata": {"name": "node-1"}})]  # fmt: skip
    return s


@pytest.mark.parametrize(
    ("publish", "nodes", "existing", "actual_slices", "expect_error"),
    [
        pytest.param(False, ["node-0"], False, 1, True, id="Create and publishNotReady false"),
        pytest.param(True, ["node-0"], False, 1, False, id="Create and publishNotReady true"),
        pytest.param(False, ["node-0"], True, 1, True, id="Update and publishNotReady false"),
        pytest.param(True, [], True, 1, False,
                     id="Update and publishNotReady true and all nodes missing"),
        pytest.param(True, ["node-0"], True, 1, False, id="Update and publishNotReady true"),
        pytest.param(False, [], True, 1, True,
                     id="Update if publishNotReady false and no nodes are present"),
    ],
)  # fmt: skip
def test_reconciler_pod_missing_node(
    publish: bool, nodes: list[str], existing: bool, actual_slices: int, expect_error: bool
) -> None:
    env = Env([{"metadata": {"name": n}} for n in nodes])
    pods = [new_pod(0, "test", True), new_pod(1, "test", True)]
    pods[0]["spec"]["nodeName"] = "node-0"
    svc = new_service("foo", "test")
    svc["spec"]["publishNotReadyAddresses"] = publish
    stored = env.create_slices(_missing_node_slice(svc, pods)) if existing else []
    if expect_error:
        with pytest.raises(SyncError, match=r"skipping Pod pod1 for Service test/foo: Node node-1 Not Found"):
            env.reconcile(svc, pods, stored)
    else:
        env.reconcile(svc, pods, stored)
    assert len(env.slices()) == actual_slices


# -- TestReconcile_TrafficDistribution ----------------------------------------------------

_TD_NODES = [{"metadata": {"name": f"node-{i}", "labels": {"topology.kubernetes.io/zone": f"zone-{z}"}}}
             for i, z in enumerate("abc")]  # fmt: skip


@pytest.mark.parametrize(
    ("td", "annotation", "by_zone", "by_node"),
    [
        pytest.param("PreferClose", "Disabled", {"zone-a": 1, "zone-b": 3, "zone-c": 2}, None,
                     id="trafficDistribution=PreferClose, topologyAnnotation=Disabled"),
        pytest.param(None, "", {"": 6}, None,
                     id="trafficDistribution=nil, topologyAnnotation=<empty>"),
        pytest.param("PreferSameNode", "Disabled", {"zone-a": 1, "zone-b": 3, "zone-c": 2},
                     {"node-0": 1, "node-1": 3, "node-2": 2},
                     id="trafficDistribution=PreferSameNode, PSTD enabled"),
        pytest.param("PreferClose", "Auto", None, None, marks=pytest.mark.skip(
            reason="topology-aware hints (topology cache) are not modelled"),
            id="trafficDistribution=PreferClose, topologyAnnotation=Auto"),
        pytest.param("PreferSameZone", "Disabled", None, None, marks=pytest.mark.skip(
            reason="PreferSameTrafficDistribution is GA and locked on in v1.37"),
            id="trafficDistribution=PreferSameZone, PSTD disabled"),
    ],
)  # fmt: skip
def test_reconcile_traffic_distribution(
    td: str | None, annotation: str, by_zone: dict[str, int], by_node: dict[str, int] | None
) -> None:
    env = Env(_TD_NODES, namespaces=("ns1",))
    pods = [new_pod(i, "ns1", True) for i in range(6)]
    for pod, node in zip(pods, (0, 1, 1, 1, 2, 2), strict=True):
        pod["spec"]["nodeName"] = f"node-{node}"
    svc = new_service("foo", "ns1")
    if td is not None:
        svc["spec"]["trafficDistribution"] = td
    svc["metadata"]["annotations"] = {"service.kubernetes.io/topology-aware-hints": annotation}
    env.reconcile(svc, pods, [])
    zones: dict[str, int] = {}
    nodes: dict[str, int] = {}
    cross = 0
    for s in env.slices("ns1"):
        for ep in s["endpoints"]:
            hints = ep.get("hints") or {}
            fz = hints.get("forZones") or []
            z = fz[0]["name"] if len(fz) == 1 else ""
            zones[z] = zones.get(z, 0) + 1
            cross += bool(z and ep["zone"] != z)
            for n in hints.get("forNodes") or []:
                nodes[n["name"]] = nodes.get(n["name"], 0) + 1
    assert zones == by_zone
    assert cross == 0
    if by_node is not None:
        assert nodes == by_node


def test_reconcile_headless_service_no_ports() -> None:
    """TestReconcileHeadlessServiceNoPorts: nil and empty ports are the same mapping."""
    env = Env()
    svc = {"metadata": {"name": "headless-no-ports", "namespace": "test", "uid": "test-uid"},
           "spec": {"clusterIP": "None", "selector": {"foo": "bar"}, "ipFamilies": ["IPv4"]}}  # fmt: skip
    pod = new_pod(1, "test", True)
    env.reconcile(svc, [pod], [])
    assert env.actions == ["create"]
    existing = []
    for s in env.slices():
        c = copy.deepcopy(s)
        c["ports"] = None
        existing.append(c)
    assert len(existing) == 1
    env.reconcile(svc, [pod], existing)
    assert env.actions == ["create"]

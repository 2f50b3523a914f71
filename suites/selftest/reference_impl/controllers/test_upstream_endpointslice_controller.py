"""Upstream pkg/controller/endpointslice/endpointslice_controller_test.go rows, against the
reference's EndpointSliceController (reference_impl/controllers/endpointslice/controller.py).

As upstream adds objects to the informers' stores, these rows put Services and pods in the
informer caches and call ``syncService``; EndpointSlices the controller writes go through
a real APIServer, and its writes are read back from the trace."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from endpointslice_upstream_env import new_pod

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.controllers.endpointslice import EndpointSliceController
from reference_impl.controllers.endpointslice.controller import (
    drop_endpoint_slices_pending_deletion,
    pod_endpoints_changed,
)
from reference_impl.controllers.endpointslice.reconciler import SyncError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
API = "discovery.k8s.io/v1"
NS = "default"
SN = "kubernetes.io/service-name"
MB = "endpointslice.kubernetes.io/managed-by"
CONTROLLER = "endpointslice-controller.k8s.io"
TRIGGER = "endpoints.kubernetes.io/last-change-trigger-time"


class Ctl:
    """``newController``: one node, the controller, the informers' caches to fill."""

    def __init__(self, nodes: tuple[str, ...] = ("node-1",)) -> None:
        self.clock = SimClock()
        self.server = APIServer(MVCCStore(), self.clock, Rng(1).child("apiserver"), FeatureGates())
        self.server.create(make_namespace(NS).build())
        informers = InformerFactory(self.server)
        self.trace = Trace(self.clock)
        ctx = ComponentContext(self.server, informers, self.clock, Rng(1), FeatureGates(), self.trace)
        self.c = EndpointSliceController(ctx)
        self.c.start()
        assert self.c._nodes is not None
        for n in nodes:
            self.c._nodes.cache[n] = {"metadata": {"name": n}}

    def add_service(self, svc: Obj) -> Obj:
        assert self.c._services is not None
        self.c._services.cache[f"{NS}/{svc['metadata']['name']}"] = svc
        return svc

    def add_pod(self, pod: Obj) -> None:
        assert self.c._pods is not None
        self.c._pods.cache[f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"] = pod

    def sync(self, name: str) -> None:
        self.c._sync(f"{NS}/{name}")

    @property
    def actions(self) -> list[str]:
        return [r.event.removesuffix("-slice") for r in self.trace.records
                if r.component == "endpointslice-controller"]  # fmt: skip

    def slices(self) -> list[Obj]:
        return self.server.list(API, "EndpointSlice", NS)


def create_service(ctl: Ctl, name: str) -> Obj:
    """``createService``."""
    return ctl.add_service({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": NS, "uid": f"{NS}-{name}",
                     "creationTimestamp": "2026-09-01T00:00:00Z"},
        "spec": {"ports": [{"targetPort": 80}], "selector": {"foo": "bar"}, "ipFamilies": ["IPv4"]},
    })  # fmt: skip


def test_sync_service_no_selector() -> None:
    ctl = Ctl()
    ctl.add_service({"metadata": {"name": "testing-1", "namespace": NS},
                     "spec": {"ports": [{"targetPort": 80}]}})  # fmt: skip
    ctl.sync("testing-1")
    assert ctl.actions == []


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param({"selector": {"foo": "bar"}, "ports": [{"port": 80}], "type": "ExternalName"},
                     id="External name with selector and ports should not receive endpoint slices"),
        pytest.param({"ports": [{"port": 80}], "type": "ExternalName"},
                     id="External name with ports should not receive endpoint slices"),
        pytest.param({"selector": {"foo": "bar"}, "type": "ExternalName"},
                     id="External name with selector should not receive endpoint slices"),
        pytest.param({"type": "ExternalName"},
                     id="External name without selector and ports should not receive endpoint slices"),
    ],
)  # fmt: skip
def test_service_external_name_type_sync(spec: Obj) -> None:
    ctl = Ctl()
    ctl.add_pod(new_pod(1, NS, True))
    ctl.add_service({"metadata": {"name": "testing-1", "namespace": NS}, "spec": spec})
    ctl.sync("testing-1")
    assert ctl.actions == []
    assert ctl.slices() == []


def test_sync_service_pending_deletion() -> None:
    ctl = Ctl()
    ctl.add_service({"metadata": {"name": "testing-1", "namespace": NS,
                                  "deletionTimestamp": "2026-09-01T00:00:00Z"},
                     "spec": {"selector": {"foo": "bar"}, "ports": [{"targetPort": 80}]}})  # fmt: skip
    ctl.sync("testing-1")
    assert ctl.actions == []


def test_sync_service_with_selector() -> None:
    ctl = Ctl()
    create_service(ctl, "testing-1")
    ctl.sync("testing-1")
    assert ctl.actions == ["create"]
    [s] = ctl.slices()
    assert s["metadata"]["name"].startswith("testing-1")
    assert s["metadata"]["labels"][SN] == "testing-1"
    assert (s.get("ports") or [], s.get("endpoints") or []) == ([], [])
    assert s["metadata"]["annotations"][TRIGGER]


def test_sync_service_missing() -> None:
    ctl = Ctl()
    ctl.c._triggers._states[f"{NS}/stillthere"] = ({}, None)
    ctl.add_service({"metadata": {"name": "stillthere", "namespace": NS},
                     "spec": {"ports": [{"targetPort": 80}], "selector": {"foo": "bar"}}})  # fmt: skip
    ctl.c._triggers._states[f"{NS}/notthere"] = ({}, None)
    ctl.sync("notthere")
    assert ctl.actions == []
    assert f"{NS}/notthere" not in ctl.c._triggers._states
    assert f"{NS}/stillthere" in ctl.c._triggers._states


def test_sync_service_pod_selection() -> None:
    ctl = Ctl()
    pod1 = new_pod(1, NS, True)
    ctl.add_pod(pod1)
    pod2 = new_pod(2, NS, True)
    pod2["metadata"]["labels"]["foo"] = "boo"
    ctl.add_pod(pod2)
    create_service(ctl, "testing-1")
    ctl.sync("testing-1")
    assert ctl.actions == ["create"]
    [s] = ctl.slices()
    assert len(s["endpoints"]) == 1
    assert s["metadata"]["annotations"][TRIGGER]
    assert s["endpoints"][0]["targetRef"] == {"kind": "Pod", "namespace": NS, "name": "pod1", "uid": ""}


def _owner(svc: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "Service", "name": svc["metadata"]["name"],
            "uid": svc["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}  # fmt: skip


def test_sync_service_endpoint_slice_pending_deletion() -> None:
    ctl = Ctl()
    svc = create_service(ctl, "testing-1")
    ctl.sync("testing-1")
    pending = {"apiVersion": API, "kind": "EndpointSlice",
               "metadata": {"name": "epSlice-1", "namespace": NS, "ownerReferences": [_owner(svc)],
                            "labels": {SN: "testing-1", MB: CONTROLLER},
                            "deletionTimestamp": "2026-09-01T00:00:00Z"},
               "addressType": "IPv4", "endpoints": []}  # fmt: skip
    assert ctl.c._slices is not None
    ctl.c._slices.cache[f"{NS}/epSlice-1"] = pending
    before = len(ctl.actions)
    ctl.sync("testing-1")
    assert len(ctl.actions) == before


def test_sync_service_endpoint_slice_label_selection() -> None:
    """Two matching slices: one is updated to the placeholder, the other deleted; slices
    that do not carry both labels are left alone."""
    ctl = Ctl()
    svc = create_service(ctl, "testing-1")

    def es(name: str, labels: dict[str, str], owned: bool) -> Obj:
        meta: Obj = {"name": name, "namespace": NS, "labels": labels}
        if owned:
            meta["ownerReferences"] = [_owner(svc)]
        return {"apiVersion": API, "kind": "EndpointSlice", "metadata": meta,
                "addressType": "IPv4", "endpoints": []}  # fmt: skip

    slices = [
        es("matching-1", {SN: "testing-1", MB: CONTROLLER}, True),
        es("matching-2", {SN: "testing-1", MB: CONTROLLER}, True),
        es("partially-matching-1", {SN: "testing-1"}, False),
        es("not-matching-1", {SN: "something-else", MB: CONTROLLER}, False),
        es("not-matching-2", {SN: "testing-1", MB: "something-else"}, False),
    ]
    for s in slices:
        ctl.server.create(copy.deepcopy(s))
    before = len(ctl.actions)
    ctl.sync("testing-1")
    assert ctl.actions[before:] == ["update", "delete"]
    names = {s["metadata"]["name"] for s in ctl.slices()}
    assert names == {"matching-1", "partially-matching-1", "not-matching-1", "not-matching-2"}


def test_on_endpoint_slice_update() -> None:
    """A managed-by change queues the Service."""
    ctl = Ctl()
    s1: Obj = {"metadata": {"name": "matching-1", "namespace": NS,
                       "labels": {SN: "testing-1", MB: CONTROLLER}}, "addressType": "IPv4"}  # fmt: skip
    s2 = copy.deepcopy(s1)
    s2["metadata"]["labels"][MB] = "something else"
    queued: list[tuple[str, int]] = []
    ctl.c._queue.add_after = lambda key, delay: queued.append((key, delay))  # type: ignore[method-assign]
    info = ctl.server.resource(API, "EndpointSlice")
    ctl.c._on_slice(ObjectEvent("MODIFIED", info, s2, s1))
    # queueServiceForEndpointSlice: after endpointSliceChangeMinSyncDelay (1s).
    assert queued == [("default/testing-1", 1_000_000_000)]


# -- podEndpointsChanged (endpointslice util controller_utils_test.go) ------------------------


def test_pod_endpoints_changed_ready() -> None:
    old, new = new_pod(1, NS, True), new_pod(1, NS, False)
    assert pod_endpoints_changed(old, new) == (True, False)


def test_pod_endpoints_changed_labels_only() -> None:
    old = new_pod(1, NS, True)
    new = copy.deepcopy(old)
    new["metadata"]["labels"]["x"] = "y"
    assert pod_endpoints_changed(old, new) == (False, True)


def test_pod_endpoints_changed_ips() -> None:
    old = new_pod(1, NS, True)
    new = copy.deepcopy(old)
    new["status"]["podIPs"] = [{"ip": "1.2.3.9"}]
    assert pod_endpoints_changed(old, new) == (True, False)


# -- TestSyncService ---------------------------------------------------------------------

_V6 = "fd08::5678:0000:0000:9abc:def0"
_CREATED = "2026-09-01T00:00:00Z"


def _sync_pod(name: str, ips: list[str], ready: bool, deleting: bool = False) -> Obj:
    meta: Obj = {"namespace": NS, "name": name, "labels": {"foo": "bar"}}
    if deleting:
        meta["deletionTimestamp"] = "2026-09-01T00:00:05Z"
    status = "True" if ready else "False"
    return {"metadata": meta,
            "spec": {"containers": [{"name": "container-1"}], "nodeName": "node-1"},
            "status": {"podIP": ips[0], "podIPs": [{"ip": ip} for ip in ips],
                       "conditions": [{"type": "Initialized", "status": "True"},
                                      {"type": "Ready", "status": status},
                                      {"type": "ContainersReady", "status": status}]}}  # fmt: skip


def _want(name: str, addr: str, ready: bool, serving: bool, terminating: bool) -> Obj:
    return {"conditions": {"ready": ready, "serving": serving, "terminating": terminating},
            "addresses": [addr], "nodeName": "node-1",
            "targetRef": {"kind": "Pod", "namespace": NS, "name": name, "uid": ""}}  # fmt: skip


@pytest.mark.parametrize(
    ("family", "pods", "want"),
    [
        pytest.param("IPv4", [_sync_pod("pod0", ["10.0.0.1"], True),
                              _sync_pod("pod1", ["10.0.0.2", _V6], True)],
                     [_want("pod0", "10.0.0.1", True, True, False),
                      _want("pod1", "10.0.0.2", True, True, False)],
                     id="pods with multiple IPs and Service with ipFamilies=ipv4"),
        pytest.param("IPv6", [_sync_pod("pod0", ["10.0.0.1"], True),
                              _sync_pod("pod1", ["10.0.0.2", _V6], True)],
                     [_want("pod1", "fd08::5678:0:0:9abc:def0", True, True, False)],
                     id="pods with multiple IPs and Service with ipFamilies=ipv6"),
        pytest.param("IPv4", [_sync_pod("pod0", ["10.0.0.1"], True),
                              _sync_pod("pod1", ["10.0.0.2"], True, deleting=True)],
                     [_want("pod0", "10.0.0.1", True, True, False),
                      _want("pod1", "10.0.0.2", False, True, True)],
                     id="Terminating pods"),
        pytest.param("IPv4", [_sync_pod("pod0", ["10.0.0.1"], True),
                              _sync_pod("pod1", ["10.0.0.2"], False, deleting=True)],
                     [_want("pod0", "10.0.0.1", True, True, False),
                      _want("pod1", "10.0.0.2", False, False, True)],
                     id="Not ready terminating pods"),
        pytest.param("IPv4", [_sync_pod("pod0", ["10.0.0.1"], True),
                              _sync_pod("pod1", ["10.0.0.1"], False)],
                     [_want("pod0", "10.0.0.1", True, True, False),
                      _want("pod1", "10.0.0.1", False, False, False)],
                     id="Ready and Complete pods with same IPs"),
        pytest.param("IPv4", [_sync_pod("pod0", ["10.0.0.1"], True),
                              _sync_pod("pod1", ["10.0.0.1"], True)],
                     [_want("pod0", "10.0.0.1", True, True, False),
                      _want("pod1", "10.0.0.1", True, True, False)],
                     id="Two Ready pods with same IPs"),
    ],
)  # fmt: skip
def test_sync_service(family: str, pods: list[Obj], want: list[Obj]) -> None:
    ctl = Ctl()
    for pod in pods:
        ctl.add_pod(pod)
    # A uid: the reference apiserver requires one in owner references (the fake clientset not).
    ctl.add_service({
        "metadata": {"name": "foobar", "namespace": NS, "uid": "u1", "creationTimestamp": _CREATED},
        "spec": {"ports": [{"name": "tcp-example", "targetPort": 80, "protocol": "TCP"},
                           {"name": "udp-example", "targetPort": 161, "protocol": "UDP"},
                           {"name": "sctp-example", "targetPort": 3456, "protocol": "SCTP"}],
                 "selector": {"foo": "bar"}, "ipFamilies": [family]},
    })  # fmt: skip
    ctl.sync("foobar")
    assert ctl.actions[-1:] == ["create"]
    [s] = ctl.slices()
    assert s["metadata"]["annotations"][TRIGGER] == _CREATED
    ports = [{"name": "sctp-example", "protocol": "SCTP", "port": 3456},
             {"name": "udp-example", "protocol": "UDP", "port": 161},
             {"name": "tcp-example", "protocol": "TCP", "port": 80}]  # fmt: skip
    def key(o: Obj) -> str:
        return json.dumps(o, sort_keys=True)

    assert sorted(map(key, s["ports"])) == sorted(map(key, ports))
    assert sorted(map(key, s["endpoints"])) == sorted(map(key, want))


# -- TestSyncServiceStaleInformer / Test_dropEndpointSlicesPendingDeletion -----------------


@pytest.mark.parametrize(
    ("informer_gen", "tracker_gen", "stale"),
    [
        pytest.param(10, 12, True, id="informer cache outdated"),
        pytest.param(10, 10, False, id="cache and tracker synced"),
        pytest.param(10, 1, False, id="tracker outdated"),
    ],
)  # fmt: skip
def test_sync_service_stale_informer(informer_gen: int, tracker_gen: int, stale: bool) -> None:
    ctl = Ctl()
    ctl.add_service({"metadata": {"name": "testing-1", "namespace": NS},
                     "spec": {"selector": {"foo": "bar"}, "ports": [{"targetPort": 80}]}})  # fmt: skip
    s1: Obj = {"metadata": {"name": "matching-1", "namespace": NS, "generation": informer_gen,
                            "labels": {SN: "testing-1", MB: CONTROLLER}}, "addressType": "IPv4"}  # fmt: skip
    assert ctl.c._slices is not None
    ctl.c._slices.cache[f"{NS}/matching-1"] = s1
    s2 = copy.deepcopy(s1)
    s2["metadata"]["generation"] = tracker_gen
    ctl.c._tracker.update(s2)
    try:
        ctl.sync("testing-1")
        message = ""
    except SyncError as exc:
        message = exc.message
    # IsStaleInformerCacheErr: other errors (the slice is in no apiserver) do not count.
    assert (message == "EndpointSlice informer cache is out of date") is stale


def test_drop_endpoint_slices_pending_deletion() -> None:
    slices: list[Obj] = [
        {"metadata": {"name": "epSlice1", "deletionTimestamp": "2026-09-01T00:00:00Z"}},
        {"metadata": {"name": "epSlice2"}, "addressType": "IPv4",
         "endpoints": [{"addresses": ["172.18.0.2"]}]},
        {"metadata": {"name": "epSlice3"}, "addressType": "IPv6",
         "endpoints": [{"addresses": ["3001:0da8:75a3:0000:0000:8a2e:0370:7334"]}]},
    ]  # fmt: skip
    want = copy.deepcopy(slices[1:])
    assert drop_endpoint_slices_pending_deletion(slices) == want

"""Upstream pkg/controller/endpoint/endpoints_controller_test.go rows, against the
reference's EndpointController (reference_impl/controllers/endpoint/).

As upstream adds objects to the informers' stores and calls ``syncService``, these rows
fill the informer caches and call ``sync_service``; the requests go to a recorder in place
of upstream's fake HTTP server or fake clientset (endpoints_upstream_env.py). Upstream's
request bodies are JSON; here they are the wire dicts, with the namespace also in a POST's
metadata (the reference's create has no URL to carry it). The batching rows run the
controller on the simulated clock where upstream sleeps.

Ported: TestSyncEndpointsItemsPreserveNoSelector, TestSyncEndpointsExistingNilSubsets,
TestSyncEndpointsExistingEmptySubsets, TestSyncEndpointsWithPodResourceVersionUpdateOnly,
TestSyncEndpointsNewNoSubsets, TestCheckLeftoverEndpoints, TestSyncEndpointsProtocol{TCP,UDP,
SCTP,MultiProtocolSamePort}, TestSyncEndpointsHeadlessServiceLabel,
TestSyncServiceExternalNameType, TestSyncEndpointsItemsEmptySelectorSelectsAll{,NotReady,
Mixed}, TestSyncEndpointsItemsPreexisting{,Identical,IdenticalUnsorted,LabelsChange},
TestSyncEndpointsItems{,WithLabels}, TestWaitsForAllInformersToBeSynced2,
TestSyncEndpointsHeadlessService, TestSyncEndpointsItemsExcludeNotReadyPodsWith*,
TestSyncEndpointsHeadlessWithoutPort, TestPodToEndpointAddressForService{,EmptyIPFamilies},
TestLastTriggerChangeTimeAnnotation{,_AnnotationOverridden,_AnnotationCleared},
TestPod{Updates,Adds,Delete}Batching, TestSyncEndpointsServiceNotFound,
TestSyncServiceOverCapacity, TestTruncateEndpoints, TestEndpointPortFromServicePort,
TestMultipleServiceChanges, TestMultiplePodChanges, TestSyncServiceAddresses,
TestEndpointsDeletionEvents, TestEndpointSubsetsEqualIgnoreResourceVersion,
TestSyncEndpointsAddDeletePorts.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from endpoints_upstream_env import (
    IPV4,
    IPV4_IPV6,
    IPV6,
    IPV6_IPV4,
    OLD_TRIGGER_TIME,
    OVER_CAPACITY,
    TRIGGER,
    TRIGGER_TIME,
    Ctl,
    add_not_ready_pods,
    add_pods,
    addr,
    endpoints,
    make_pod,
    managed,
    service,
)

from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, millis, seconds
from reference_impl.controllers.endpoint.endpoints_controller import (
    MAX_CAPACITY,
    endpoint_port_from_service_port,
    endpoint_subsets_equal_ignore_resource_version,
    pod_to_endpoint_address_for_service,
    truncate_endpoints,
)
from reference_impl.controllers.endpoint.repack import repack_subsets, sort_subsets
from reference_impl.controllers.endpointslice.reconciler import SyncError

Obj = dict[str, Any]
NS = "default"
PORT_8080 = [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]


def _put(ns: str) -> str:
    return f"/api/v1/namespaces/{ns}/endpoints/foo"


def _post(ns: str) -> str:
    return f"/api/v1/namespaces/{ns}/endpoints"


def test_sync_endpoints_items_preserve_no_selector() -> None:
    ctl = Ctl()
    ctl.add_endpoints(
        endpoints(NS, [{"addresses": [addr("6.7.8.9", None, NS)], "ports": [{"port": 1000}]}])
    )
    ctl.add_service(service(NS, ports=[{"port": 80}]))
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == []


@pytest.mark.parametrize("subsets", [pytest.param(None, id="nil"), pytest.param([], id="empty")])
def test_sync_endpoints_existing_nil_or_empty_subsets(subsets: list[Obj] | None) -> None:
    """TestSyncEndpointsExistingNilSubsets / TestSyncEndpointsExistingEmptySubsets."""
    ctl = Ctl()
    ep = endpoints(NS, labels=managed(headless=False))
    if subsets is not None:
        ep["subsets"] = subsets
    ctl.add_endpoints(ep)
    ctl.add_service(service(NS, selector={"foo": "bar"}, ports=[{"port": 80}]))
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == []


def test_sync_endpoints_with_pod_resource_version_update_only() -> None:
    ctl = Ctl()
    pod0, pod1 = make_pod(NS, 0, 1, True, IPV4), make_pod(NS, 1, 1, False, IPV4)
    a0, a1 = addr("1.2.3.4", "pod0", NS), addr("1.2.3.5", "pod1", NS)
    a0["targetRef"]["resourceVersion"], a1["targetRef"]["resourceVersion"] = "1", "2"
    ctl.add_endpoints(endpoints(NS, [{"addresses": [a0], "notReadyAddresses": [a1],
                                      "ports": [{"port": 8080, "protocol": "TCP"}]}],
                                labels=managed(headless=False)))  # fmt: skip
    ctl.add_service(service(NS, selector={"foo": "bar"}, ports=PORT_8080, ipFamilies=["IPv4"]))
    pod0["metadata"]["resourceVersion"], pod1["metadata"]["resourceVersion"] = "3", "4"
    ctl.add_pod(pod0)
    ctl.add_pod(pod1)
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == []


def test_sync_endpoints_new_no_subsets() -> None:
    ctl = Ctl()
    ctl.add_service(service(NS, selector={"foo": "bar"}, ports=[{"port": 80}]))
    ctl.sync(f"{NS}/foo")
    assert len(ctl.requests) == 1


def test_check_leftover_endpoints() -> None:
    ctl = Ctl()
    ctl.add_endpoints(
        endpoints(NS, [{"addresses": [addr("6.7.8.9", None, NS)], "ports": [{"port": 1000}]}])
    )
    ctl.c.check_leftover_endpoints()
    assert ctl.c._queue._queue == [f"{NS}/foo"]


@pytest.mark.parametrize(
    "protocol",
    [pytest.param("TCP", id="TestSyncEndpointsProtocolTCP"),
     pytest.param("UDP", id="TestSyncEndpointsProtocolUDP"),
     pytest.param("SCTP", id="TestSyncEndpointsProtocolSCTP")],
)  # fmt: skip
def test_sync_endpoints_protocol(protocol: str) -> None:
    ns = "other"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, [{"addresses": [addr("6.7.8.9", None, ns)],
                                      "ports": [{"port": 1000, "protocol": protocol}]}]))  # fmt: skip
    add_pods(ctl, ns, 1, 1, 0)
    ctl.add_service(service(ns, selector={}, ipFamilies=["IPv4"],
                            ports=[{"port": 80, "targetPort": 8080, "protocol": protocol}]))  # fmt: skip
    ctl.sync(f"{ns}/foo")
    want = endpoints(ns, [{"addresses": [addr("1.2.3.4", "pod0", ns)],
                           "ports": [{"port": 8080, "protocol": protocol}]}], labels=managed())  # fmt: skip
    assert ctl.requests == [("PUT", _put(ns), want)]


def test_sync_endpoints_protocol_multi_protocol_same_port() -> None:
    ns = "other"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns))
    add_pods(ctl, ns, 1, 1, 0)
    ctl.add_service(service(ns, selector={}, ipFamilies=["IPv4"], ports=[
        {"port": 80, "targetPort": 8080, "protocol": "TCP"},
        {"port": 80, "targetPort": 8080, "protocol": "UDP"}]))  # fmt: skip
    ctl.sync(f"{ns}/foo")
    # Upstream's expected order: the ports sorted by their hash.
    want = endpoints(ns, [{"addresses": [addr("1.2.3.4", "pod0", ns)],
                           "ports": [{"port": 8080, "protocol": "UDP"},
                                     {"port": 8080, "protocol": "TCP"}]}], labels=managed())  # fmt: skip
    assert ctl.requests == [("PUT", _put(ns), want)]


def test_sync_endpoints_headless_service_label() -> None:
    ctl = Ctl()
    ctl.add_endpoints(endpoints(NS, [], labels=managed()))
    ctl.add_service(service(NS, selector={"foo": "bar"}, ports=[{"port": 80}]))
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == []


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param({"selector": {"foo": "bar"}, "ports": [{"port": 80}], "type": "ExternalName"},
                     id="External name with selector and ports should not receive endpoints"),
        pytest.param({"ports": [{"port": 80}], "type": "ExternalName"},
                     id="External name with ports should not receive endpoints"),
        pytest.param({"selector": {"foo": "bar"}, "type": "ExternalName"},
                     id="External name with selector should not receive endpoints"),
        pytest.param({"type": "ExternalName"},
                     id="External name without selector and ports should not receive endpoints"),
    ],
)  # fmt: skip
def test_sync_service_external_name_type(spec: Obj) -> None:
    ctl = Ctl()
    ctl.add_service(service(NS, "testing-1", **spec))
    ctl.sync(f"{NS}/testing-1")
    assert ctl.requests == []


@pytest.mark.parametrize(
    ("ready", "not_ready", "subset"),
    [
        pytest.param(1, 0, {"addresses": [addr("1.2.3.4", "pod0", "other")]},
                     id="TestSyncEndpointsItemsEmptySelectorSelectsAll"),
        pytest.param(0, 1, {"notReadyAddresses": [addr("1.2.3.4", "pod0", "other")]},
                     id="TestSyncEndpointsItemsEmptySelectorSelectsAllNotReady"),
        pytest.param(1, 1, {"addresses": [addr("1.2.3.4", "pod0", "other")],
                            "notReadyAddresses": [addr("1.2.3.5", "pod1", "other")]},
                     id="TestSyncEndpointsItemsEmptySelectorSelectsAllMixed"),
    ],
)  # fmt: skip
def test_sync_endpoints_items_empty_selector_selects_all(
    ready: int, not_ready: int, subset: Obj
) -> None:
    ns = "other"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, []))
    add_pods(ctl, ns, ready, 1, not_ready)
    ctl.add_service(service(ns, selector={}, ports=PORT_8080, ipFamilies=["IPv4"]))
    ctl.sync(f"{ns}/foo")
    want = endpoints(
        ns, [{**subset, "ports": [{"port": 8080, "protocol": "TCP"}]}], labels=managed()
    )
    assert ctl.requests == [("PUT", _put(ns), want)]


def test_sync_endpoints_items_preexisting() -> None:
    ns = "bar"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, [{"addresses": [addr("6.7.8.9", None, ns)], "ports": [{"port": 1000}]}],
                                labels=managed(headless=False)))  # fmt: skip
    add_pods(ctl, ns, 1, 1, 0)
    ctl.add_service(service(ns, selector={"foo": "bar"}, ports=PORT_8080, ipFamilies=["IPv4"]))
    ctl.sync(f"{ns}/foo")
    want = endpoints(ns, [{"addresses": [addr("1.2.3.4", "pod0", ns)],
                           "ports": [{"port": 8080, "protocol": "TCP"}]}], labels=managed())  # fmt: skip
    assert ctl.requests == [("PUT", _put(ns), want)]


def test_sync_endpoints_items_preexisting_identical() -> None:
    ctl = Ctl()
    ctl.add_endpoints(endpoints(NS, [{"addresses": [addr("1.2.3.4", "pod0", NS)],
                                      "ports": [{"port": 8080, "protocol": "TCP"}]}],
                                labels=managed(headless=False)))  # fmt: skip
    add_pods(ctl, NS, 1, 1, 0)
    ctl.add_service(service(NS, selector={"foo": "bar"}, ports=PORT_8080, ipFamilies=["IPv4"]))
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == []


def test_sync_endpoints_items_preexisting_identical_unsorted() -> None:
    ctl = Ctl()
    subsets = [{"addresses": [addr("1.2.3.5", "pod1", NS), addr("1.2.3.4", "pod0", NS)],
                "ports": [{"port": 8080, "protocol": "TCP"}]}]  # fmt: skip
    assert repack_subsets(copy.deepcopy(subsets)) != subsets  # not packed as the hash packs it
    ctl.add_endpoints(endpoints(NS, subsets, labels=managed(headless=False)))
    ctl.add_pod(make_pod(NS, 0, 1, True, IPV4))
    ctl.add_pod(make_pod(NS, 1, 1, True, IPV4))
    ctl.add_service(service(NS, selector={"foo": "bar"}, ports=PORT_8080, ipFamilies=["IPv4"]))
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == []  # a no-op


_TWO_PORTS = [{"name": "port0", "port": 80, "protocol": "TCP", "targetPort": 8080},
              {"name": "port1", "port": 88, "protocol": "TCP", "targetPort": 8088}]  # fmt: skip


def _three_pods_subsets(ns: str) -> list[Obj]:
    return sort_subsets([{
        "addresses": [addr("1.2.3.4", "pod0", ns), addr("1.2.3.5", "pod1", ns), addr("1.2.3.6", "pod2", ns)],
        "ports": [{"name": "port0", "port": 8080, "protocol": "TCP"},
                  {"name": "port1", "port": 8088, "protocol": "TCP"}],
    }])  # fmt: skip


def test_sync_endpoints_items() -> None:
    ns = "other"
    ctl = Ctl()
    add_pods(ctl, ns, 3, 2, 0)
    add_pods(ctl, "blah", 5, 2, 0)  # make sure these aren't found
    ctl.add_service(service(ns, selector={"foo": "bar"}, ports=_TWO_PORTS, ipFamilies=["IPv4"]))
    ctl.sync(f"{ns}/foo")
    want = endpoints(ns, _three_pods_subsets(ns), rv=None, labels=managed())
    assert ctl.requests == [("POST", _post(ns), want)]


def test_sync_endpoints_items_with_labels() -> None:
    ns = "other"
    ctl = Ctl()
    add_pods(ctl, ns, 3, 2, 0)
    ctl.add_service(service(ns, labels={"foo": "bar"}, selector={"foo": "bar"}, ports=_TWO_PORTS,
                            ipFamilies=["IPv4"]))  # fmt: skip
    ctl.sync(f"{ns}/foo")
    want = endpoints(ns, _three_pods_subsets(ns), rv=None, labels=managed(foo="bar"))
    assert ctl.requests == [("POST", _post(ns), want)]


def test_sync_endpoints_items_preexisting_labels_change() -> None:
    ns = "bar"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, [{"addresses": [addr("6.7.8.9", None, ns)], "ports": [{"port": 1000}]}],
                                labels={"foo": "bar"}))  # fmt: skip
    add_pods(ctl, ns, 1, 1, 0)
    ctl.add_service(service(ns, labels={"baz": "blah"}, selector={"foo": "bar"}, ports=PORT_8080,
                            ipFamilies=["IPv4"]))  # fmt: skip
    ctl.sync(f"{ns}/foo")
    want = endpoints(ns, [{"addresses": [addr("1.2.3.4", "pod0", ns)],
                           "ports": [{"port": 8080, "protocol": "TCP"}]}],
                     labels=managed(baz="blah"))  # fmt: skip
    assert ctl.requests == [("PUT", _put(ns), want)]


@pytest.mark.parametrize(
    "synced",
    [pytest.param((False, True, True), id="0", marks=pytest.mark.skip(reason="the reference's informers are synced when a controller starts; it has no HasSynced to withhold")),
     pytest.param((True, False, True), id="1", marks=pytest.mark.skip(reason="the reference's informers are synced when a controller starts; it has no HasSynced to withhold")),
     pytest.param((True, True, False), id="2", marks=pytest.mark.skip(reason="the reference's informers are synced when a controller starts; it has no HasSynced to withhold")),
     pytest.param((True, True, True), id="3")],
)  # fmt: skip
def test_waits_for_all_informers_to_be_synced2(synced: tuple[bool, bool, bool]) -> None:
    ns = "other"
    ctl = Ctl()
    add_pods(ctl, ns, 1, 1, 0)
    svc = ctl.add_service(service(ns, selector={}, ports=PORT_8080, ipFamilies=["IPv4"]))
    ctl.c._queue.add(f"{ns}/{svc['metadata']['name']}")  # onServiceUpdate
    ctl.advance(millis(150))
    assert len(ctl.requests) == 1


def test_sync_endpoints_headless_service() -> None:
    ns = "headless"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, [{"addresses": [addr("6.7.8.9", None, ns)],
                                      "ports": [{"port": 1000, "protocol": "TCP"}]}]))  # fmt: skip
    add_pods(ctl, ns, 1, 1, 0)
    svc = service(
        ns, labels={"a": "b"}, selector={}, clusterIP="None", ports=[], ipFamilies=["IPv4"]
    )
    original = copy.deepcopy(svc)
    ctl.add_service(svc)
    ctl.sync(f"{ns}/foo")
    want = endpoints(ns, [{"addresses": [addr("1.2.3.4", "pod0", ns)]}], labels=managed(a="b"))
    assert svc == original  # syncing does not change the Service
    assert ctl.requests == [("PUT", _put(ns), want)]


@pytest.mark.parametrize(
    ("restart", "phase", "labels"),
    [
        pytest.param("Never", "Failed", managed(headless=False, foo="bar"),
                     id="TestSyncEndpointsItemsExcludeNotReadyPodsWithRestartPolicyNeverAndPhaseFailed"),
        pytest.param("Never", "Succeeded", {"foo": "bar"},
                     id="TestSyncEndpointsItemsExcludeNotReadyPodsWithRestartPolicyNeverAndPhaseSucceeded"),
        pytest.param("OnFailure", "Succeeded", {"foo": "bar"},
                     id="TestSyncEndpointsItemsExcludeNotReadyPodsWithRestartPolicyOnFailureAndPhaseSucceeded"),
    ],
)  # fmt: skip
def test_sync_endpoints_items_exclude_not_ready_pods(
    restart: str, phase: str, labels: dict[str, str]
) -> None:
    ns = "other"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, [], labels=labels))
    add_not_ready_pods(ctl, ns, 1, 1, restart, phase)
    ctl.add_service(service(ns, selector={"foo": "bar"}, ports=PORT_8080, ipFamilies=["IPv4"]))
    ctl.sync(f"{ns}/foo")
    assert ctl.requests == [("PUT", _put(ns), endpoints(ns, [], labels=managed()))]


def test_sync_endpoints_headless_without_port() -> None:
    ctl = Ctl()
    ctl.add_service(service(NS, selector={"foo": "bar"}, clusterIP="None", ipFamilies=["IPv4"]))
    add_pods(ctl, NS, 1, 1, 0)
    ctl.sync(f"{NS}/foo")
    want = endpoints(NS, [{"addresses": [addr("1.2.3.4", "pod0", NS)]}], rv=None, labels=managed())
    assert ctl.requests == [("POST", _post(NS), want)]


def _bad_ip_pod(ns: str, families: tuple[str, ...]) -> Obj:
    """``addBadIPPod``: the first IP with a leading zero."""
    pod = make_pod(ns, 0, 1, True, families)
    pod["status"]["podIPs"][0]["ip"] = "0" + pod["status"]["podIPs"][0]["ip"]
    pod["status"]["podIP"] = pod["status"]["podIPs"][0]["ip"]
    return pod


@pytest.mark.parametrize(
    ("families", "cluster_ip", "svc_families", "want"),
    [
        pytest.param(IPV4, "10.0.0.1", ["IPv4"], "IPv4", id="v4 service, in a single stack cluster"),
        pytest.param(IPV4_IPV6, "10.0.0.1", ["IPv4"], "IPv4", id="v4 service, in a dual stack cluster"),
        pytest.param(IPV6_IPV4, "10.0.0.1", ["IPv4"], "IPv4", id="v4 service, in a dual stack ipv6-primary cluster"),
        pytest.param(IPV4, "None", ["IPv4"], "IPv4", id="v4 headless service, in a single stack cluster"),
        pytest.param(IPV4_IPV6, "None", ["IPv4"], "IPv4", id="v4 headless service, in a dual stack cluster"),
        pytest.param(IPV4_IPV6, "3000::1", ["IPv6"], "IPv6", id="v6 service, in a dual stack cluster"),
        pytest.param(IPV6, "None", ["IPv6"], "IPv6", id="v6 headless service, in a single stack cluster"),
        pytest.param(IPV4_IPV6, "None", ["IPv6"], "IPv6", id="v6 headless service, in a dual stack cluster"),
        pytest.param(IPV4, "3000::1", ["IPv6"], None, id="v6 service, in a v4 only cluster"),
    ],
)  # fmt: skip
def test_pod_to_endpoint_address_for_service(
    families: tuple[str, ...], cluster_ip: str, svc_families: list[str], want: str | None
) -> None:
    pod = _bad_ip_pod("test", families)
    svc = {"metadata": {}, "spec": {"clusterIP": cluster_ip, "ipFamilies": svc_families}}
    epa = pod_to_endpoint_address_for_service(svc, pod)
    if want is None:
        assert epa is None
        return
    assert epa is not None
    assert (":" in epa["ip"]) == (want == "IPv6")
    assert not epa["ip"].startswith("0")
    assert epa["nodeName"] == ""
    assert epa["targetRef"] == {"kind": "Pod", "namespace": "test", "name": "pod0"}


@pytest.mark.parametrize(
    ("cluster_ip", "pod_ips", "pod_ip", "want"),
    [
        pytest.param("10.0.0.1", ["10.244.0.1"], "", "IPv4", id="headful IPv4, IPv4 pod"),
        pytest.param("fd00::1", ["fd00::10"], "", "IPv6", id="headful IPv6, IPv6 pod"),
        pytest.param("10.0.0.1", ["fd00::10"], "", None, id="headful IPv4, no matching pod IP"),
        pytest.param("None", ["10.244.0.1"], "10.244.0.1", "IPv4", id="headless, IPv4 pod"),
        pytest.param("None", ["fd00::10"], "fd00::10", "IPv6", id="headless, IPv6 pod"),
    ],
)  # fmt: skip
def test_pod_to_endpoint_address_for_service_empty_ip_families(
    cluster_ip: str, pod_ips: list[str], pod_ip: str, want: str | None
) -> None:
    svc = {"metadata": {"name": "foo", "namespace": "bar"}, "spec": {"clusterIP": cluster_ip}}
    status: Obj = {"podIPs": [{"ip": ip} for ip in pod_ips]}
    if pod_ip:
        status["podIP"] = pod_ip
    pod = {"metadata": {"name": "foo-pod", "namespace": "bar", "uid": "uid-1"},
           "spec": {"nodeName": "node-1"}, "status": status}  # fmt: skip
    epa = pod_to_endpoint_address_for_service(svc, pod)
    if want is None:
        assert epa is None
        return
    assert epa is not None
    assert (":" in epa["ip"]) == (want == "IPv6")


@pytest.mark.parametrize(
    ("starting", "created", "want"),
    [
        pytest.param(None, TRIGGER_TIME, TRIGGER_TIME, id="TestLastTriggerChangeTimeAnnotation"),
        pytest.param(OLD_TRIGGER_TIME, TRIGGER_TIME, TRIGGER_TIME,
                     id="TestLastTriggerChangeTimeAnnotation_AnnotationOverridden"),
        pytest.param(TRIGGER_TIME, None, None, id="TestLastTriggerChangeTimeAnnotation_AnnotationCleared"),
    ],
)  # fmt: skip
def test_last_trigger_change_time_annotation(
    starting: str | None, created: str | None, want: str | None
) -> None:
    ns = "other"
    ctl = Ctl()
    ctl.add_endpoints(endpoints(ns, [{"addresses": [addr("6.7.8.9", None, ns)],
                                      "ports": [{"port": 1000, "protocol": "TCP"}]}],
                                annotations={TRIGGER: starting} if starting else None))  # fmt: skip
    add_pods(ctl, ns, 1, 1, 0)
    extra = {"creationTimestamp": created} if created else {}
    ctl.add_service(service(ns, selector={}, ports=PORT_8080, ipFamilies=["IPv4"], **extra))
    ctl.sync(f"{ns}/foo")
    want_ep = endpoints(ns, [{"addresses": [addr("1.2.3.4", "pod0", ns)],
                              "ports": [{"port": 8080, "protocol": "TCP"}]}],
                        labels=managed(), annotations={TRIGGER: want} if want else None)  # fmt: skip
    assert ctl.requests == [("PUT", _put(ns), want_ep)]


def _batching_ctl(batch: Duration) -> tuple[Ctl, str]:
    ns = "other"
    ctl = Ctl(batch=batch)
    add_pods(ctl, ns, 10, 1, 0)
    ctl.add_service(service(ns, selector={"foo": "bar"}, ports=[{"port": 80}], ipFamilies=["IPv4"]))
    return ctl, ns


_UPDATES = [
    (millis(200), "pod0", "10.0.0.0"),
    (millis(100), "pod1", "10.0.0.1"),
    (millis(100), "pod2", "10.0.0.2"),
]
_UPDATES_2 = [*_UPDATES[:2], (seconds(1), "pod2", "10.0.0.2")]


@pytest.mark.parametrize(
    ("batch", "updates", "want"),
    [pytest.param(Duration(0), _UPDATES, 3, id="three updates with no batching"),
     pytest.param(seconds(1), _UPDATES, 1, id="three updates in one batch"),
     pytest.param(seconds(1), _UPDATES_2, 2, id="three updates in two batches")],
)  # fmt: skip
def test_pod_updates_batching(
    batch: Duration, updates: list[tuple[Duration, str, str]], want: int
) -> None:
    ctl, ns = _batching_ctl(batch)
    for rv, (delay, name, ip) in enumerate(updates, start=1):
        ctl.advance(delay)
        old = ctl.pod(ns, name)
        new = copy.deepcopy(old)
        new["status"]["podIP"] = ip
        new["status"]["podIPs"][0]["ip"] = ip
        new["metadata"]["resourceVersion"] = str(rv)
        ctl.add_pod(new)
        ctl.pod_event("MODIFIED", new, old)
    ctl.advance(seconds(3))
    assert len(ctl.requests) == want


_ADDS = [(millis(200), "add-pod-0"), (millis(100), "add-pod-1"), (millis(100), "add-pod-2")]
_ADDS_2 = [*_ADDS[:2], (seconds(1), "add-pod-2")]


@pytest.mark.parametrize(
    ("batch", "adds", "want"),
    [pytest.param(Duration(0), _ADDS, 3, id="three adds with no batching"),
     pytest.param(seconds(1), _ADDS, 1, id="three adds in one batch"),
     pytest.param(seconds(1), _ADDS_2, 2, id="three adds in two batches")],
)  # fmt: skip
def test_pod_adds_batching(batch: Duration, adds: list[tuple[Duration, str]], want: int) -> None:
    ns = "other"
    ctl = Ctl(batch=batch)
    ctl.add_service(service(ns, selector={"foo": "bar"}, ports=[{"port": 80}], ipFamilies=["IPv4"]))
    for i, (delay, name) in enumerate(adds):
        ctl.advance(delay)
        pod = {"metadata": {"namespace": ns, "name": name, "labels": {"foo": "bar"}},
               "status": {"podIP": f"10.0.0.{i}", "podIPs": [{"ip": f"10.0.0.{i}"}]}}  # fmt: skip
        ctl.add_pod(pod)
        ctl.pod_event("ADDED", pod)
    ctl.advance(seconds(3))
    assert len(ctl.requests) == want


_DELETES = [(millis(200), "pod0"), (millis(100), "pod1"), (millis(100), "pod2")]
_DELETES_2 = [*_DELETES[:2], (seconds(1), "pod2")]


@pytest.mark.parametrize(
    ("batch", "deletes", "want"),
    [pytest.param(Duration(0), _DELETES, 3, id="three deletes with no batching"),
     pytest.param(seconds(1), _DELETES, 1, id="three deletes in one batch"),
     pytest.param(seconds(1), _DELETES_2, 2, id="three deletes in two batches")],
)  # fmt: skip
def test_pod_delete_batching(
    batch: Duration, deletes: list[tuple[Duration, str]], want: int
) -> None:
    ctl, ns = _batching_ctl(batch)
    for delay, name in deletes:
        ctl.advance(delay)
        old = ctl.pod(ns, name)
        ctl.delete_pod(old)
        ctl.pod_event("DELETED", old)
    ctl.advance(seconds(3))
    assert len(ctl.requests) == want


def test_sync_endpoints_service_not_found() -> None:
    ctl = Ctl()
    ctl.add_endpoints(endpoints(NS))
    ctl.sync(f"{NS}/foo")
    assert ctl.requests == [("DELETE", _put(NS), None)]


@pytest.mark.parametrize(
    ("starting", "existing", "desired", "desired_not_ready", "want_ready", "want_not_ready", "annotated"),
    [
        pytest.param(None, 0, 0, 0, 0, 0, False, id="empty"),
        pytest.param(None, MAX_CAPACITY - 1, MAX_CAPACITY - 3, 4, MAX_CAPACITY - 3, 3, True,
                     id="annotation added past capacity, < than maxCapacity of Ready Addresses"),
        pytest.param(None, MAX_CAPACITY - 1, MAX_CAPACITY, 10, MAX_CAPACITY, 0, True,
                     id="annotation added past capacity, maxCapacity of Ready Addresses "),
        pytest.param("truncated", MAX_CAPACITY - 1, MAX_CAPACITY - 1, 0, MAX_CAPACITY - 1, 0, False,
                     id="annotation removed below capacity"),
        pytest.param("warning", MAX_CAPACITY, MAX_CAPACITY, 0, MAX_CAPACITY, 0, False,
                     id="annotation was set to warning previously, annotation removed at capacity"),
        pytest.param("warning", MAX_CAPACITY + 1, MAX_CAPACITY + 1, 0, MAX_CAPACITY, 0, True,
                     id="annotation was set to warning previously but still over capacity"),
        pytest.param("truncated", MAX_CAPACITY, MAX_CAPACITY, 0, MAX_CAPACITY, 0, False,
                     id="annotation removed at capacity"),
        pytest.param("invalid", MAX_CAPACITY + 1, MAX_CAPACITY + 1, 0, MAX_CAPACITY, 0, True,
                     id="no endpoints change, annotation value corrected"),
    ],
)  # fmt: skip
def test_sync_service_over_capacity(
    starting: str | None, existing: int, desired: int, desired_not_ready: int,
    want_ready: int, want_not_ready: int, annotated: bool,
) -> None:  # fmt: skip
    ns = "test"
    ctl = Ctl(tracker=True)
    add_pods(ctl, ns, desired, 1, desired_not_ready)
    svc = ctl.add_service(
        service(ns, selector={"foo": "bar"}, ports=[{"port": 80}], ipFamilies=["IPv4"])
    )
    pods = [make_pod(ns, i, 1, i < desired, IPV4) for i in range(desired + desired_not_ready)]
    addresses = []
    for pod in pods[:existing]:
        epa = pod_to_endpoint_address_for_service(svc, pod)
        assert epa is not None
        addresses.append(epa)
    ep = endpoints(ns, [{"addresses": addresses}] if addresses else [],
                   annotations={OVER_CAPACITY: starting} if starting else None)  # fmt: skip
    ctl.add_endpoints(ep)
    ctl.fake.seed(ep)
    ctl.sync(f"{ns}/foo")
    got = ctl.fake.get(ns, "foo")
    ann = (got["metadata"].get("annotations") or {}).get(OVER_CAPACITY)
    assert ann == ("truncated" if annotated else None)
    subsets = got.get("subsets") or []
    assert sum(len(s.get("addresses") or []) for s in subsets) == want_ready
    assert sum(len(s.get("notReadyAddresses") or []) for s in subsets) == want_not_ready


@pytest.mark.parametrize(
    ("ready", "not_ready", "want_ready", "want_not_ready"),
    [
        pytest.param([], [], [], [], id="empty"),
        pytest.param([50, 100, 100, 100, 100], [50, 100, 100, 100, 100], [50, 100, 100, 100, 100],
                     [50, 100, 100, 100, 100], id="total endpoints < max capacity"),
        pytest.param([100] * 5, [100] * 5, [100] * 5, [100] * 5, id="total endpoints = max capacity"),
        pytest.param([90, 110, 50, 10, 20], [101, 200, 200, 201, 298], [90, 110, 50, 10, 20],
                     [73, 144, 144, 145, 214],
                     id="total ready endpoints < max capacity, but total endpoints > max capacity"),
        pytest.param([205, 400, 402, 400, 693], [100, 200, 200, 200, 300], [98, 191, 192, 191, 328],
                     [0] * 5, id="total ready endpoints > max capacity"),
    ],
)  # fmt: skip
def test_truncate_endpoints(
    ready: list[int], not_ready: list[int], want_ready: list[int], want_not_ready: list[int]
) -> None:
    subsets: list[Obj] = [{"addresses": [{} for _ in range(r)], "notReadyAddresses": [{} for _ in range(n)]}
               for r, n in zip(ready, not_ready, strict=True)]  # fmt: skip
    ep: Obj = {"subsets": subsets}
    truncate_endpoints(ep)
    assert [len(s.get("addresses") or []) for s in ep["subsets"]] == want_ready
    assert [len(s.get("notReadyAddresses") or []) for s in ep["subsets"]] == want_not_ready


@pytest.mark.parametrize(
    "app",
    [pytest.param(None, id="empty app protocol"), pytest.param("http", id="http app protocol")],
)
def test_endpoint_port_from_service_port(app: str | None) -> None:
    sp: Obj = {"name": "test"}
    if app is not None:
        sp["appProtocol"] = app
    assert endpoint_port_from_service_port(sp, 80).get("appProtocol") == app


def test_multiple_service_changes() -> None:
    """The Service is deleted and re-created while the informer still holds its Endpoints;
    once the Endpoints are gone from the cache (the server deleted them), the next sync
    creates them again. Upstream blocks its test server; the reference steps the syncs."""
    ctl = Ctl()
    add_pods(ctl, NS, 1, 1, 0)
    svc = service(NS, selector={"foo": "bar"}, clusterIP="None", ipFamilies=["IPv4"])
    ctl.add_service(svc)
    ctl.sync(f"{NS}/foo")
    assert [r[0] for r in ctl.requests] == ["POST"]
    created = endpoints(NS, [{"addresses": [addr("1.2.3.4", "pod0", NS)]}], labels=managed())
    ctl.add_endpoints(created)
    ctl.delete_service(svc)
    ctl.sync(f"{NS}/foo")
    assert [r[0] for r in ctl.requests] == ["POST", "DELETE"]
    ctl.add_service(svc)  # the informer still has the Endpoints: nothing to write
    ctl.sync(f"{NS}/foo")
    assert [r[0] for r in ctl.requests] == ["POST", "DELETE"]
    ctl.c._endpoints.cache.pop(f"{NS}/foo")  # type: ignore[union-attr]  # the delete arrives
    ctl.sync(f"{NS}/foo")
    assert [r[0] for r in ctl.requests] == ["POST", "DELETE", "POST"]


def test_multiple_pod_changes() -> None:
    """Ready -> NotReady -> Ready while the informer holds the replaced Endpoints: the
    second sync is refused as stale until the update reaches the cache."""
    ctl = Ctl()
    ready = endpoints(
        NS,
        [
            {
                "addresses": [addr("1.2.3.4", "pod0", NS)],
                "ports": [{"port": 8080, "protocol": "TCP"}],
            }
        ],
    )
    pod = make_pod(NS, 0, 1, True, IPV4)
    ctl.add_pod(pod)
    ctl.add_endpoints(ready)
    ctl.add_service(service(NS, selector={"foo": "bar"}, clusterIP="10.0.0.1", ports=PORT_8080,
                            ipFamilies=["IPv4"]))  # fmt: skip
    # The server answers the update with the not-ready Endpoints at resourceVersion 2.
    not_ready = endpoints(NS, [{"notReadyAddresses": [addr("1.2.3.4", "pod0", NS)],
                                "ports": [{"port": 8080, "protocol": "TCP"}]}], rv="2")  # fmt: skip
    ctl.fake.update_answer = not_ready
    pod2 = copy.deepcopy(pod)
    pod2["metadata"]["resourceVersion"] = "2"
    pod2["status"]["conditions"][0]["status"] = "False"
    ctl.add_pod(pod2)
    ctl.sync(f"{NS}/foo")
    assert len(ctl.requests) == 1
    pod3 = copy.deepcopy(pod)
    pod3["metadata"]["resourceVersion"] = "3"
    ctl.add_pod(pod3)
    with pytest.raises(SyncError, match="endpoints informer cache is out of date"):
        ctl.sync(f"{NS}/foo")
    assert len(ctl.requests) == 1
    ctl.add_endpoints(not_ready)  # the update reaches the cache
    ctl.sync(f"{NS}/foo")
    assert len(ctl.requests) == 2


@pytest.mark.parametrize(
    ("phase", "ready", "terminating", "tolerate", "want_ready", "want_unready"),
    [
        pytest.param("Running", True, False, False, 1, 0, id="pod running phase"),
        pytest.param("Running", True, True, False, 0, 0, id="pod running phase being deleted"),
        pytest.param("Unknown", True, False, False, 1, 0, id="pod unknown phase container ready"),
        pytest.param("Unknown", True, True, False, 0, 0, id="pod unknown phase container ready being deleted"),
        pytest.param("Pending", True, False, False, 1, 0, id="pod pending phase container ready"),
        pytest.param("Pending", True, True, False, 0, 0, id="pod pending phase container ready being deleted"),
        pytest.param("Unknown", False, False, False, 0, 1, id="pod unknown phase container not ready"),
        pytest.param("Pending", False, False, False, 0, 1, id="pod pending phase container not ready"),
        pytest.param("Failed", False, False, False, 0, 0, id="pod failed phase"),
        pytest.param("Succeeded", False, False, False, 0, 0, id="pod succeeded phase"),
        pytest.param("Running", True, False, True, 1, 0, id="pod running phase and tolerate unready"),
        pytest.param("Running", True, True, True, 1, 0, id="pod running phase and tolerate unready being deleted"),
        pytest.param("Unknown", True, False, True, 1, 0, id="pod unknown phase and tolerate unready"),
        pytest.param("Unknown", True, True, True, 1, 0, id="pod unknown phase and tolerate unready being deleted"),
        pytest.param("Pending", True, False, True, 1, 0, id="pod pending phase and tolerate unready"),
        pytest.param("Pending", True, True, True, 1, 0, id="pod pending phase and tolerate unready being deleted"),
        pytest.param("Failed", False, False, True, 0, 0, id="pod failed phase and tolerate unready"),
        pytest.param("Succeeded", False, False, True, 0, 0,
                     id="pod succeeded phase and tolerate unready endpoints"),
    ],
)  # fmt: skip
def test_sync_service_addresses(
    phase: str, ready: bool, terminating: bool, tolerate: bool, want_ready: int, want_unready: int
) -> None:
    ctl = Ctl(tracker=True)
    meta: Obj = {"namespace": "ns", "name": "fakepod", "labels": {"foo": "bar"}}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    ctl.add_pod({"metadata": meta,
                 "spec": {"containers": [{"ports": [{"name": "port1", "containerPort": 8080}]}]},
                 "status": {"phase": phase, "podIP": "10.1.1.1", "podIPs": [{"ip": "10.1.1.1"}],
                            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}})  # fmt: skip
    ctl.add_service(service("ns", selector={"foo": "bar"}, publishNotReadyAddresses=tolerate,
                            type="ClusterIP", clusterIP="1.1.1.1", ports=[{"port": 80}],
                            ipFamilies=["IPv4"]))  # fmt: skip
    ctl.sync("ns/foo")
    got = ctl.fake.get("ns", "foo")
    subsets = got.get("subsets") or []
    assert sum(len(s.get("addresses") or []) for s in subsets) == want_ready
    assert sum(len(s.get("notReadyAddresses") or []) for s in subsets) == want_unready


def test_endpoints_deletion_events() -> None:
    ctl = Ctl()
    ep = endpoints(NS, rv="rv1")
    ctl.c._on_endpoints(ObjectEvent("DELETED", ctl.real.resource("v1", "Endpoints"), ep, None))
    assert len(ctl.c._queue) == 1


def _es(n: int, ns: str) -> Obj:
    return {
        "addresses": [{"ip": f"{n}.{n}.{n}.1", "targetRef": {"kind": "Pod", "name": f"pod{n}-1", "namespace": "ns",
                                                              "resourceVersion": str(2 * n - 1)}}],
        "notReadyAddresses": [{"ip": f"{n}.{n}.{n}.2", "targetRef": {"kind": "Pod", "name": f"pod{n}-2",
                                                                       "namespace": "ns2",
                                                                       "resourceVersion": str(2 * n)}}],
        "ports": [{"port": 8080 + n, "protocol": "TCP"}],
    }  # fmt: skip


def _mut(es: Obj, fn: Any) -> Obj:
    out = copy.deepcopy(es)
    fn(out)
    return out


_ES1, _ES2 = _es(1, "ns"), _es(2, "ns")


@pytest.mark.parametrize(
    ("s1", "s2", "want"),
    [
        pytest.param([_ES1, _ES2], [_ES1], False, id="Subsets removed"),
        pytest.param([_ES1, _ES2], [_mut(_ES1, lambda e: e["addresses"][0].update(ip="1.1.1.10")), _ES2], False,
                     id="Ready Pod IP changed"),
        pytest.param([_ES1, _ES2], [_ES1, _mut(_ES2, lambda e: e["notReadyAddresses"][0].update(ip="2.2.2.10"))],
                     False, id="NotReady Pod IP changed"),
        pytest.param([_ES1, _ES2],
                     [_ES1, _mut(_ES2, lambda e: e["addresses"][0]["targetRef"].update(resourceVersion="100"))],
                     True, id="Pod ResourceVersion changed"),
        pytest.param([_ES1, _ES2],
                     [_ES1, _mut(_ES2, lambda e: e["addresses"][0]["targetRef"].pop("resourceVersion"))],
                     True, id="Pod ResourceVersion removed"),
        pytest.param([_ES1, _ES2], [_ES1, _mut(_ES1, lambda e: e["ports"][0].update(port=8082))], False,
                     id="Ports changed"),
    ],
)  # fmt: skip
def test_endpoint_subsets_equal_ignore_resource_version(
    s1: list[Obj], s2: list[Obj], want: bool
) -> None:
    assert endpoint_subsets_equal_ignore_resource_version(s1, s2) is want


def test_sync_endpoints_add_delete_ports() -> None:
    ctl = Ctl(tracker=True)
    svc = service("ns", selector={"foo": "bar"}, type="ClusterIP", clusterIP="1.1.1.1",
                  ports=[{"name": "portname1", "port": 80, "targetPort": "svc1"}], ipFamilies=["IPv4"])  # fmt: skip
    expect = endpoints("ns", [], labels=managed(headless=False))
    ctl.add_endpoints(copy.deepcopy(expect))
    ctl.fake.seed(expect)
    ctl.add_service(svc)

    def pod(name: str, ip: str, port_name: str, port: int) -> Obj:
        return {"metadata": {"namespace": "ns", "name": name, "labels": {"foo": "bar"}},
                "spec": {"containers": [{"ports": [{"name": port_name, "containerPort": port}]}]},
                "status": {"podIP": ip, "podIPs": [{"ip": ip}],
                           "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip

    ctl.add_pod(pod("pod1", "10.1.1.1", "svc1", 100))
    ctl.sync("ns/foo")
    sub1 = {
        "addresses": [addr("10.1.1.1", "pod1", "ns")],
        "ports": [{"name": "portname1", "port": 100}],
    }
    assert ctl.fake.get("ns", "foo") == endpoints("ns", [sub1], labels=managed(headless=False))

    svc["spec"]["ports"].append({"name": "portname2", "port": 81, "targetPort": "svc2"})
    ctl.add_pod(pod("pod2", "10.1.1.2", "svc2", 101))
    ctl.sync("ns/foo")
    sub2 = {
        "addresses": [addr("10.1.1.2", "pod2", "ns")],
        "ports": [{"name": "portname2", "port": 101}],
    }
    want = repack_subsets([sub1, sub2])
    assert ctl.fake.get("ns", "foo") == endpoints("ns", want, labels=managed(headless=False))

    svc["spec"]["ports"] = svc["spec"]["ports"][1:]
    ctl.sync("ns/foo")
    assert ctl.fake.get("ns", "foo") == endpoints("ns", want[:1], labels=managed(headless=False))

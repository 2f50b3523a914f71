"""Upstream k8s.io/endpointslice@v0.37.2 utils_test.go rows, against the reference's pure
helpers (reference_impl/controllers/endpointslice/utils.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from endpointslice_upstream_env import new_pod

from reference_impl.controllers.endpointslice.utils import (
    CONTROLLER_NAME,
    find_port,
    get_address_types_for_service,
    get_endpoint_ports,
    hints_enabled,
    new_endpoint_slice,
    pod_to_endpoint,
    service_controller_key,
    set_endpoint_slice_labels,
)

Obj = dict[str, Any]
SN = "kubernetes.io/service-name"
MB = "endpointslice.kubernetes.io/managed-by"
HL = "service.kubernetes.io/headless"
HINTS = "service.kubernetes.io/topology-aware-hints"
MODE = "service.kubernetes.io/topology-mode"


def new_service(name: str, ns: str) -> Obj:
    """utils_test.go ``newServiceAndEndpointMeta``'s Service."""
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": ns, "uid": f"{ns}-{name}"},
        "spec": {"ports": [{"targetPort": 80, "protocol": "TCP", "name": name}],
                 "selector": {"foo": "bar"}, "ipFamilies": ["IPv4"]},
    }  # fmt: skip


# -- TestPodToEndpoint ----------------------------------------------------------------------

_NS = "test"
_SVC = new_service("foo", _NS)
_SVC_PNR = new_service("publishnotready", _NS)
_SVC_PNR["spec"]["publishNotReadyAddresses"] = True
_NODE1 = {"metadata": {"name": "node-1", "labels": {"topology.kubernetes.io/zone": "us-central1-a",
                                                    "topology.kubernetes.io/region": "us-central1"}}}  # fmt: skip
_READY = new_pod(1, _NS, True)
_HOSTNAME = new_pod(1, _NS, True)
_HOSTNAME["spec"].update(subdomain="foo", hostname="example-hostname")
_MULTI = new_pod(1, _NS, True)
_MULTI["status"]["podIPs"] = [{"ip": "1.2.3.4"}, {"ip": "1234::5678:0000:0000:9abc:def0"}]


def _ep(addr: str, ready: bool, serving: bool, term: bool, zone: str | None = None,
        hostname: str | None = None) -> Obj:  # fmt: skip
    ep: Obj = {"addresses": [addr],
               "conditions": {"ready": ready, "serving": serving, "terminating": term},
               "nodeName": "node-1",
               "targetRef": {"kind": "Pod", "namespace": _NS, "name": "pod1", "uid": ""}}  # fmt: skip
    if zone:
        ep["zone"] = zone
    if hostname:
        ep["hostname"] = hostname
    return ep


@pytest.mark.parametrize(
    ("pod", "node", "svc", "expected"),
    [
        pytest.param(_READY, None, _SVC, _ep("1.2.3.5", True, True, False), id="Ready pod"),
        pytest.param(_READY, None, _SVC_PNR, _ep("1.2.3.5", True, True, False),
                     id="Ready pod + publishNotReadyAddresses"),
        pytest.param(new_pod(1, _NS, False), None, _SVC, _ep("1.2.3.5", False, False, False),
                     id="Unready pod"),
        pytest.param(new_pod(1, _NS, False), None, _SVC_PNR, _ep("1.2.3.5", True, False, False),
                     id="Unready pod + publishNotReadyAddresses"),
        pytest.param(_READY, _NODE1, _SVC, _ep("1.2.3.5", True, True, False, "us-central1-a"),
                     id="Ready pod + node labels"),
        pytest.param(_MULTI, _NODE1, _SVC, _ep("1.2.3.4", True, True, False, "us-central1-a"),
                     id="Multi IP Ready pod + node labels"),
        pytest.param(_HOSTNAME, _NODE1, _SVC,
                     _ep("1.2.3.5", True, True, False, "us-central1-a", "example-hostname"),
                     id="Ready pod + hostname"),
        pytest.param(_READY, None, _SVC, _ep("1.2.3.5", True, True, False), id="Ready pod (again)"),
        pytest.param(new_pod(1, _NS, True, True), None, _SVC, _ep("1.2.3.5", False, True, True),
                     id="Ready terminating pod"),
        pytest.param(new_pod(1, _NS, False, True), None, _SVC, _ep("1.2.3.5", False, False, True),
                     id="Not ready terminating pod"),
    ],
)  # fmt: skip
def test_pod_to_endpoint(pod: Obj, node: Obj | None, svc: Obj, expected: Obj) -> None:
    assert pod_to_endpoint(pod, node, svc, "IPv4") == expected


def test_pod_to_endpoint_ipv6_address_is_canonical() -> None:
    # getEndpointAddresses: ParseIPSloppy(...).String() compresses the IPv6 form.
    assert pod_to_endpoint(_MULTI, None, _SVC, "IPv6")["addresses"] == ["1234::5678:0:0:9abc:def0"]


# -- TestServiceControllerKey ---------------------------------------------------------------


def test_service_controller_key_nil() -> None:
    with pytest.raises(ValueError, match=r"^nil EndpointSlice passed to ServiceControllerKey\(\)$"):
        service_controller_key(None)


def test_service_controller_key_empty() -> None:
    with pytest.raises(ValueError, match="^EndpointSlice missing kubernetes.io/service-name label$"):
        service_controller_key({"metadata": {}})


def test_service_controller_key_valid() -> None:
    assert service_controller_key({"metadata": {"namespace": "ns", "labels": {SN: "svc"}}}) == "ns/svc"


# -- TestGetEndpointPorts -------------------------------------------------------------------


def _svc_ports(*ports: Obj) -> Obj:
    return {"metadata": {"name": "s", "namespace": "n"}, "spec": {"ports": list(ports)}}


_SIDECAR = {"ports": [{"name": "http-sidecar", "containerPort": 8080, "protocol": "TCP"}],
            "restartPolicy": "Always"}  # fmt: skip


@pytest.mark.parametrize(
    ("svc", "pod_spec", "expected"),
    [
        pytest.param(
            _svc_ports({"name": "http", "port": 80, "targetPort": 80, "protocol": "TCP",
                        "appProtocol": "example.com/custom-protocol"}),
            {"containers": [{"ports": []}]},
            [{"name": "http", "port": 80, "protocol": "TCP",
              "appProtocol": "example.com/custom-protocol"}],
            id="service with AppProtocol on one port"),
        pytest.param(
            _svc_ports({"name": "http", "port": 80, "targetPort": 80, "protocol": "TCP"},
                       {"name": "https", "protocol": "TCP", "targetPort": "https",
                        "appProtocol": "https"}),
            {"containers": [{"ports": [{"name": "https", "containerPort": 443, "protocol": "TCP"}]}]},
            [{"name": "http", "port": 80, "protocol": "TCP"},
             {"name": "https", "port": 443, "protocol": "TCP", "appProtocol": "https"}],
            id="service with named port and AppProtocol on one port"),
        pytest.param(
            _svc_ports({"name": "http-sidecar", "port": 8080, "targetPort": 8080, "protocol": "TCP"},
                       {"name": "http", "port": 8090, "targetPort": "http", "protocol": "TCP"}),
            {"initContainers": [_SIDECAR],
             "containers": [{"ports": [{"name": "http", "containerPort": 8090, "protocol": "TCP"}]}]},
            [{"name": "http-sidecar", "port": 8080, "protocol": "TCP"},
             {"name": "http", "port": 8090, "protocol": "TCP"}],
            id="service with named port for restartable init container"),
        pytest.param(
            _svc_ports({"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}),
            {"initContainers": [{"ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                                 "restartPolicy": "Always"}],
             "containers": [{"ports": [{"name": "http", "containerPort": 8090, "protocol": "TCP"}]}]},
            [{"name": "http", "port": 8090, "protocol": "TCP"}],
            id="service with same named port for regular and restartable init container"),
    ],
)  # fmt: skip
def test_get_endpoint_ports(svc: Obj, pod_spec: Obj, expected: list[Obj]) -> None:
    assert get_endpoint_ports(svc, {"metadata": {"name": "p"}, "spec": pod_spec}) == expected


# -- TestNewEndpointSlice -------------------------------------------------------------------

_BASE_SVC: Obj = {"metadata": {"name": "foo", "namespace": "test"},
             "spec": {"clusterIP": "1.1.1.1", "ports": [{"port": 80}], "selector": {"foo": "bar"}}}  # fmt: skip
_EP_PORTS = [{"name": "foo", "protocol": "TCP"}]


@pytest.mark.parametrize(
    ("labels", "annotations", "headless", "expected_labels"),
    [
        pytest.param(None, None, False, {SN: "foo", MB: CONTROLLER_NAME}, id="Service without labels"),
        pytest.param({"foo": "bar"}, None, False, {SN: "foo", MB: CONTROLLER_NAME, "foo": "bar"},
                     id="Service with labels"),
        pytest.param({"foo": "bar"}, None, True,
                     {SN: "foo", MB: CONTROLLER_NAME, HL: "", "foo": "bar"},
                     id="Headless Service with labels"),
        pytest.param({"foo": "bar", "foo2": "bar2"}, None, False,
                     {SN: "foo", MB: CONTROLLER_NAME, "foo": "bar", "foo2": "bar2"},
                     id="Service with multiple labels"),
        pytest.param({SN: "bad", MB: "actor", "foo": "bar"}, None, False,
                     {SN: "foo", MB: CONTROLLER_NAME, "foo": "bar"},
                     id="Evil service hijacking endpoint slices labels"),
        pytest.param(None, {"foo": "bar"}, False, {SN: "foo", MB: CONTROLLER_NAME},
                     id="Service with annotations"),
    ],
)  # fmt: skip
def test_new_endpoint_slice(
    labels: dict[str, str] | None, annotations: dict[str, str] | None, headless: bool,
    expected_labels: dict[str, str],
) -> None:  # fmt: skip
    svc = copy.deepcopy(_BASE_SVC)
    if labels is not None:
        svc["metadata"]["labels"] = labels
    if annotations is not None:
        svc["metadata"]["annotations"] = annotations
    if headless:
        svc["spec"]["clusterIP"] = "None"
    got = new_endpoint_slice(svc, _EP_PORTS, "IPv4")
    owner = {"apiVersion": "v1", "kind": "Service", "name": "foo", "uid": "",
             "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    assert got["metadata"] == {"labels": expected_labels, "generateName": "foo-",
                               "ownerReferences": [owner], "namespace": "test"}  # fmt: skip
    assert (got["ports"], got["addressType"], got["endpoints"]) == (_EP_PORTS, "IPv4", [])


# -- TestSetEndpointSliceLabels ------------------------------------------------------------

_MINE = {SN: "foo", MB: CONTROLLER_NAME}


@pytest.mark.parametrize(
    ("slice_labels", "svc_labels", "headless", "expected", "updated"),
    [
        pytest.param(None, None, False, _MINE, False,
                     id="Service without labels and empty endpoint slice"),
        pytest.param(None, {"foo": "bar"}, True, {**_MINE, HL: "", "foo": "bar"}, True,
                     id="Headless service with labels and empty endpoint slice"),
        pytest.param(None, None, True, {**_MINE, HL: ""}, False,
                     id="Headless service without labels and empty endpoint slice"),
        pytest.param(None, {HL: ""}, False, _MINE, False,
                     id="Non Headless service with Headless label and empty endpoint slice"),
        pytest.param({**_MINE, HL: ""}, {HL: ""}, False, _MINE, False,
                     id="Headless Service change to ClusterIP Service with headless label"),
        pytest.param({**_MINE, HL: ""}, None, False, _MINE, False,
                     id="Headless Service change to ClusterIP Service"),
        pytest.param({**_MINE, "foo": "bar"}, {"foo": "bar"}, True, {**_MINE, HL: "", "foo": "bar"},
                     False, id="Headless service and endpoint slice with same labels"),
        pytest.param(None, {"foo": "bar"}, False, {**_MINE, "foo": "bar"}, True,
                     id="Service with labels and empty endpoint slice"),
        pytest.param({**_MINE, "foo": "bar"}, None, False, _MINE, True,
                     id="Slice with labels and service without labels"),
        pytest.param({**_MINE, HL: ""}, None, False, _MINE, False,
                     id="Slice with headless label and service with ClusterIP"),
        pytest.param(_MINE, {"foo": "bar"}, False, {**_MINE, "foo": "bar"}, True,
                     id="Slice with reserved labels and service with labels"),
        pytest.param(_MINE, {SN: "bad", MB: "actor", HL: "invalid"}, False, _MINE, False,
                     id="Evil service trying to hijack slice labels only well-known slice labels"),
        pytest.param(_MINE, {SN: "bad", MB: "actor", "foo": "bar"}, False, {**_MINE, "foo": "bar"},
                     True, id="Evil service trying to hijack slice labels with updates"),
    ],
)  # fmt: skip
def test_set_endpoint_slice_labels(
    slice_labels: dict[str, str] | None, svc_labels: dict[str, str] | None, headless: bool,
    expected: dict[str, str], updated: bool,
) -> None:  # fmt: skip
    svc = copy.deepcopy(_BASE_SVC)
    if svc_labels is not None:
        svc["metadata"]["labels"] = dict(svc_labels)
    if headless:
        svc["spec"]["clusterIP"] = "None"
    slice_: Obj = {"metadata": {} if slice_labels is None else {"labels": dict(slice_labels)}}
    assert set_endpoint_slice_labels(slice_, svc, CONTROLLER_NAME) == (expected, updated)


# -- TestSupportedServiceAddressType --------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param({"clusterIP": "10.0.0.10"}, {"IPv4"},
                     id="v4 service with no ip families (cluster upgrade)"),
        pytest.param({"clusterIP": "2000::1"}, {"IPv6"},
                     id="v6 service with no ip families (cluster upgrade)"),
        pytest.param({"ipFamilies": ["IPv4"]}, {"IPv4"}, id="v4 service"),
        pytest.param({"ipFamilies": ["IPv6"]}, {"IPv6"}, id="v6 services"),
        pytest.param({"ipFamilies": ["IPv4", "IPv6"]}, {"IPv4", "IPv6"}, id="v4,v6 service"),
        pytest.param({"ipFamilies": ["IPv6", "IPv4"]}, {"IPv4", "IPv6"}, id="v6,v4 service"),
        pytest.param({"clusterIP": "None"}, {"IPv4", "IPv6"},
                     id="headless with no selector and no families (old api-server)"),
        pytest.param({"selector": {"foo": "bar"}, "clusterIP": "None"}, {"IPv4", "IPv6"},
                     id="headless with selector and no families (old api-server)"),
        pytest.param({"clusterIP": "None", "ipFamilies": ["IPv4", "IPv6"]}, {"IPv4", "IPv6"},
                     id="headless with no selector with families"),
        pytest.param({"selector": {"foo": "bar"}, "clusterIP": "None",
                      "ipFamilies": ["IPv4", "IPv6"]}, {"IPv4", "IPv6"},
                     id="headless with selector with families"),
    ],
)  # fmt: skip
def test_supported_service_address_type(spec: Obj, expected: set[str]) -> None:
    got = get_address_types_for_service({"metadata": {"name": "s"}, "spec": spec})
    assert len(got) == len(expected) and set(got) == expected


# -- Test_hintsEnabled ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotations", "enabled"),
    [
        pytest.param(None, False, id="empty annotations"),
        pytest.param({"topology-hints": "enabled"}, False, id="different annotations"),
        *(pytest.param({HINTS: v}, e, id=f"hints annotation == {v}") for v, e in
          (("enabled", False), ("aUto", False), ("auto", True), ("Auto", True), ("disabled", False))),
        *(pytest.param({MODE: v}, e, id=f"mode annotation == {v}") for v, e in
          (("enabled", False), ("aUto", False), ("auto", True), ("Auto", True), ("disabled", False))),
        pytest.param({MODE: "disabled", HINTS: "auto"}, True,
                     id="mode annotation == disabled, hints annotation == auto"),
        pytest.param({MODE: "auto", HINTS: "disabled"}, False,
                     id="mode annotation == auto, hints annotation == disabled"),
    ],
)  # fmt: skip
def test_hints_enabled(annotations: dict[str, str] | None, enabled: bool) -> None:
    assert hints_enabled(annotations) is enabled


# -- TestFindPort --------------------------------------------------------------------------


def _p(name: str, port: int, protocol: str = "TCP", **extra: Any) -> Obj:
    return {"name": name, "containerPort": port, "protocol": protocol, **extra}


_QPORTS = [_p("", 11, "UDP"), _p("p", 22), _p("q", 33)]


@pytest.mark.parametrize(
    ("containers", "init", "target", "expected"),
    [
        pytest.param([{}], [], 93, 93, id="valid int, no ports"),
        pytest.param([{"ports": [_p("", 11), _p("p", 22)]}], [], 93, 93, id="valid int, with ports"),
        pytest.param([{}], [], "p", None, id="valid str, no ports"),
        pytest.param([{"ports": _QPORTS}], [], "q", 33, id="valid str, one ctr with ports"),
        pytest.param([{}, {"ports": _QPORTS}], [], "q", 33, id="valid str, two ctr with ports"),
        pytest.param([{}, {"ports": [_p("", 11, "UDP"), _p("p", 22), _p("q", 22)]}], [], "q", 22,
                     id="valid str, two ctr with same port"),
        pytest.param([{}, {"ports": [_p("a", 11, "snmp")]}], [], "a", None,
                     id="valid str, invalid protocol"),
        pytest.param([{}, {"ports": [_p("a", 11, hostPort=81)]}], [], "a", 11, id="valid hostPort"),
        pytest.param([{}, {"ports": [_p("a", 11, hostPort=-1)]}], [], "a", 11, id="invalid hostPort"),
        pytest.param([{}, {"ports": [_p("a", -1)]}], [], "a", -1, id="invalid ContainerPort"),
        pytest.param([{}, {"ports": [_p("a", 11, hostIP="192.168.1.1")]}], [], "a", 11,
                     id="HostIP Address"),
        pytest.param([], [{"restartPolicy": "Always", "ports": [_p("a", 80, hostPort=-1)]}], "a", 80,
                     id="Sidecar initContainer named port"),
        pytest.param([], [{"ports": [_p("a", 80, hostPort=-1)]}], "a", None,
                     id="Invalid(restartPolicy != Always) initContainer named port"),
        pytest.param([{"ports": [_p("a", 81, hostPort=-1)]}, {"ports": [_p("a", 82, hostPort=-1)]}],
                     [{"restartPolicy": "Always", "ports": [_p("a", 80, hostPort=-1)]}], "a", 81,
                     id="App and sidecar containers have the same named port, first app container port will be used"),
    ],
)  # fmt: skip
def test_find_port(containers: list[Obj], init: list[Obj], target: int | str, expected: int | None) -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": containers, "initContainers": init}}
    assert find_port(pod, {"protocol": "TCP", "targetPort": target}) == expected

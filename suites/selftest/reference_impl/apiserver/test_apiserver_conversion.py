"""Version conversion in the apiserver model: storage versions, converters, reads and events."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_namespace, resources
from reference_impl.apiserver import conversion
from reference_impl.apiserver.conversion import resource_v1beta1 as rb
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.errors import BadRequest, Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
V1, B1, B2 = "resource.k8s.io/v1", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"


@pytest.fixture
def server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    return s


def _info(api_version: str, kind: str) -> resources.ResourceInfo:
    info = resources.lookup(api_version, kind)
    assert info is not None
    return info


@pytest.mark.parametrize(
    ("api_version", "kind", "stored"),
    [
        (B1, "ResourceSlice", V1),
        (B2, "ResourceClaim", V1),
        (V1, "DeviceTaintRule", B2),
        ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest", "resource.k8s.io/v1alpha3"),
        ("certificates.k8s.io/v1", "PodCertificateRequest", "certificates.k8s.io/v1beta1"),
        ("certificates.k8s.io/v1", "ClusterTrustBundle", "certificates.k8s.io/v1beta1"),
        ("certificates.k8s.io/v1", "CertificateSigningRequest", "certificates.k8s.io/v1"),
        ("autoscaling/v1", "HorizontalPodAutoscaler", "autoscaling/v2"),
        ("scheduling.k8s.io/v1alpha3", "PodGroup", "scheduling.k8s.io/v1beta1"),
        ("scheduling.k8s.io/v1alpha3", "CompositePodGroup", "scheduling.k8s.io/v1alpha3"),
        (
            "admissionregistration.k8s.io/v1alpha1",
            "MutatingAdmissionPolicy",
            "admissionregistration.k8s.io/v1",
        ),
        ("coordination.k8s.io/v1alpha2", "LeaseCandidate", "coordination.k8s.io/v1beta1"),
        ("v1", "Pod", "v1"),
    ],
)
def test_storage_versions_follow_upstream(api_version: str, kind: str, stored: str) -> None:
    assert conversion.storage_version(_info(api_version, kind)) == stored


def test_version_priority_orders_ga_beta_alpha() -> None:
    versions = ["v1alpha3", "v1beta1", "v2", "v1", "v1beta2", "v2beta1"]
    assert sorted(versions, key=conversion.scheme.version_priority, reverse=True) == [
        "v2",
        "v1",
        "v2beta1",
        "v1beta2",
        "v1beta1",
        "v1alpha3",
    ]


# -- the resource.k8s.io/v1beta1 converters, property-tested ------------------------------

_name = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)
_attr = st.one_of(
    st.fixed_dictionaries({"string": _name}),
    st.fixed_dictionaries({"int": st.integers(0, 64)}),
    st.fixed_dictionaries({"bool": st.booleans()}),
)
_device_fields = st.fixed_dictionaries(
    {},
    optional={
        "attributes": st.dictionaries(_name, _attr, max_size=3),
        "capacity": st.dictionaries(
            _name, st.fixed_dictionaries({"value": st.just("1Gi")}), max_size=2
        ),
        "allowMultipleAllocations": st.booleans(),
        "bindsToNode": st.booleans(),
        "bindingConditions": st.lists(_name, max_size=2),
        "taints": st.lists(
            st.fixed_dictionaries({"key": _name, "effect": st.just("NoSchedule")}), max_size=2
        ),
        "consumesCounters": st.lists(
            st.fixed_dictionaries({"counterSet": _name, "counters": st.just({})}), max_size=1
        ),
    },
)
v1_devices = st.builds(lambda n, f: {"name": n, **f}, _name, _device_fields)
_selector = st.fixed_dictionaries({"cel": st.fixed_dictionaries({"expression": st.just("true")})})
_exact = st.fixed_dictionaries(
    {"deviceClassName": _name},
    optional={
        "selectors": st.lists(_selector, max_size=2),
        "allocationMode": st.sampled_from(["ExactCount", "All"]),
        "count": st.integers(1, 4),
        "adminAccess": st.booleans(),
        "tolerations": st.lists(
            st.fixed_dictionaries({"key": _name, "operator": st.just("Exists")}), max_size=2
        ),
        "capacity": st.just({"requests": {"memory": "1Gi"}}),
        "derivedAttributes": st.lists(
            st.fixed_dictionaries({"name": st.just("x.dev/a"), "expression": st.just("1")}),
            max_size=1,
        ),
    },
)
_sub = st.builds(
    lambda n, e: {"name": n, **e},
    _name,
    _exact.map(lambda e: {k: v for k, v in e.items() if k != "adminAccess"}),
)
v1_requests = st.one_of(
    st.builds(lambda n, e: {"name": n, "exactly": e}, _name, _exact),
    st.builds(
        lambda n, s: {"name": n, "firstAvailable": s}, _name, st.lists(_sub, min_size=1, max_size=3)
    ),
)


def _slice(api_version: str, devices: list[Obj]) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "d.dev",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "n",
            "devices": devices,
        },
    }


def _claim(api_version: str, requests: list[Obj]) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": requests}},
    }


def _from_storage(obj: Obj, api_version: str) -> Obj:
    return conversion.convert(copy.deepcopy(obj), api_version)


def _to_storage(obj: Obj) -> Obj:
    return conversion.to_storage(copy.deepcopy(obj), _info(obj["apiVersion"], obj["kind"]))


@settings(max_examples=80, deadline=None)
@given(st.lists(v1_devices, max_size=4))
def test_v1_slices_round_trip_through_v1beta1(devices: list[Obj]) -> None:
    stored = _slice(V1, devices)
    beta = _from_storage(stored, B1)
    for d, b in zip(devices, beta["spec"]["devices"], strict=True):
        assert set(b) == {"name", "basic"} and b["basic"] == {
            k: v for k, v in d.items() if k != "name"
        }
    assert _to_storage(beta) == stored


@settings(max_examples=80, deadline=None)
@given(st.lists(v1_requests, max_size=4))
def test_v1_claims_round_trip_through_v1beta1(requests: list[Obj]) -> None:
    stored = _claim(V1, requests)
    beta = _from_storage(stored, B1)
    for r, b in zip(requests, beta["spec"]["devices"]["requests"], strict=True):
        assert "exactly" not in b
        assert b.get("firstAvailable") == r.get("firstAvailable")
        assert {k: v for k, v in b.items() if k in rb.EXACT_FIELDS and v != ""} == r.get(
            "exactly", {}
        )
    assert _to_storage(beta) == stored
    assert _from_storage(stored, B2)["spec"] == stored["spec"]  # v1beta2 has the v1 shapes


@settings(max_examples=60, deadline=None)
@given(st.lists(v1_requests, max_size=3))
def test_v1beta1_claims_convert_to_v1_idempotently(requests: list[Obj]) -> None:
    beta = _from_storage(_claim(V1, requests), B1)
    once = _to_storage(beta)
    assert _to_storage(_from_storage(once, B1)) == once


def test_flat_request_zero_values_mean_unset() -> None:
    req = {
        "name": "r",
        "deviceClassName": "",
        "count": 0,
        "allocationMode": "",
        "firstAvailable": [{"name": "a", "deviceClassName": "x"}],
    }
    assert rb.request_to_v1(copy.deepcopy(req)) == {
        "name": "r",
        "firstAvailable": req["firstAvailable"],
    }
    # Any flat field set creates `exactly`, even without a class (v1 validation rejects it).
    assert rb.request_to_v1({"name": "r", "count": 2}) == {"name": "r", "exactly": {"count": 2}}


def test_slice_node_access_zero_values_are_dropped() -> None:
    beta = _slice(B1, [])
    beta["spec"].update({"nodeName": "", "allNodes": True})
    assert "nodeName" not in _to_storage(beta)["spec"]
    stored = _slice(V1, [])
    stored["spec"]["allNodes"] = False
    assert "allNodes" not in _from_storage(stored, B1)["spec"]


# -- through the server --------------------------------------------------------------------


def test_v1beta1_write_is_stored_as_v1(server: APIServer) -> None:
    beta = _slice(B1, [{"name": "g", "basic": {"attributes": {"m": {"string": "a"}}}}])
    reply = server.create(beta)
    assert reply["apiVersion"] == B1 and reply["spec"]["devices"][0]["basic"]
    kv = server.store.get("/registry/resourceslices.resource.k8s.io/s")
    assert kv is not None
    raw = kv.decode()
    assert raw["apiVersion"] == V1
    assert raw["spec"]["devices"] == [{"name": "g", "attributes": {"m": {"string": "a"}}}]
    assert server.get(V1, "ResourceSlice", "s")["spec"]["devices"] == raw["spec"]["devices"]


def test_v1beta1_errors_keep_v1beta1_schema_paths(server: APIServer) -> None:
    bad = _claim(B1, [{"name": "r", "deviceClassName": "x", "bogus": 1}])
    with pytest.raises(BadRequest) as e:
        server.create(bad)
    assert "spec.devices.requests[0].bogus" in e.value.fields
    assert 'ResourceClaim in version "v1beta1" cannot be handled' in e.value.message
    with pytest.raises(Invalid) as e2:
        server.create(_claim(B1, [{"name": "r", "deviceClassName": "x", "allocationMode": "Some"}]))
    assert any(f.startswith("spec.devices.requests[0]") for f in e2.value.fields)


def test_update_in_another_version_keeps_generation(server: APIServer) -> None:
    server.create(_slice(V1, [{"name": "g"}]))
    beta = server.get(B1, "ResourceSlice", "s")
    again = server.update(beta)  # same content in the other shape: a no-op write
    assert again["metadata"]["resourceVersion"] == beta["metadata"]["resourceVersion"]
    assert again["metadata"]["generation"] == 1
    beta["spec"]["devices"][0]["basic"]["attributes"] = {"m": {"int": 1}}
    changed = server.update(beta)
    assert changed["metadata"]["generation"] == 2 and changed["apiVersion"] == B1


def test_watch_and_events_are_converted(server: APIServer) -> None:
    seen: list[ObjectEvent] = []
    server.add_event_handler(seen.append)
    server.resource(V1, "ResourceSlice")
    w = server.watch(B1, "ResourceSlice")
    server.create(_slice(V1, [{"name": "g", "attributes": {}}]))
    (ev,) = list(w)
    # The empty attributes map is not stored (protobuf), so the v1beta1 BasicDevice has none.
    assert ev.object["apiVersion"] == B1 and ev.object["spec"]["devices"] == [
        {"name": "g", "basic": {}}
    ]
    assert seen[-1].obj["apiVersion"] == V1 and seen[-1].info.api_version == V1


def test_informers_convert_events_to_their_version(server: APIServer) -> None:
    informers = InformerFactory(server)
    beta = informers.informer(B1, "ResourceSlice")
    server.create(_slice(V1, [{"name": "g"}]))
    obj = beta.get("s")
    assert (
        obj is not None
        and obj["apiVersion"] == B1
        and obj["spec"]["devices"] == [{"name": "g", "basic": {}}]
    )
    server.delete(V1, "ResourceSlice", "s")
    assert beta.get("s") is None


def test_pod_certificate_request_v1_read_drops_v1beta1_only_fields() -> None:
    stored = {
        "apiVersion": "certificates.k8s.io/v1beta1",
        "kind": "PodCertificateRequest",
        "metadata": {"name": "x", "namespace": "default"},
        "spec": {"signerName": "a/b", "pkixPublicKey": "AA==", "proofOfPossession": "AA=="},
    }
    v1 = _from_storage(stored, "certificates.k8s.io/v1")
    assert v1["spec"] == {"signerName": "a/b"}
    assert _from_storage(stored, "certificates.k8s.io/v1beta1") == stored


def test_every_registered_spoke_is_served() -> None:
    for group, version, kind in conversion.registered():
        api_version = f"{group}/{version}" if group else version
        info = _info(api_version, kind)
        assert conversion.storage_version(info) != api_version, (group, version, kind)
        json.dumps(kind)

"""DRA-CORE: resource.k8s.io objects read and write the same in every served version.

v1 is the storage version; v1beta1 keeps the older shapes (``Device.basic`` and a flat
``DeviceRequest`` without ``exactly``), v1beta2 has the v1 shapes. The apiserver MUST
convert every write to storage and every read, list and watch to the version asked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import DRA_API
from reference_impl.errors import BadRequest, Invalid, NotFound

V1BETA1 = "resource.k8s.io/v1beta1"
V1BETA2 = "resource.k8s.io/v1beta2"
DRIVER = "conv.garhwal.dev"
Obj = dict[str, Any]

# Upstream serves the resource.k8s.io betas only when --runtime-config enables them (the
# local cluster does); the reference enables them for these tests, a live cluster without
# them skips, naming the flag.
pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-4381"),
    pytest.mark.runtime_config("resource.k8s.io/v1beta1=true", "resource.k8s.io/v1beta2=true"),
]


@pytest.fixture
def cluster_objects(target: Target) -> Iterator[list[tuple[str, str]]]:
    """Cluster-scoped (kind, name) pairs a test created; deleted afterwards."""
    made: list[tuple[str, str]] = []
    yield made
    for kind, name in made:
        try:
            target.delete(DRA_API, kind, name)
        except NotFound:
            pass


def _slice(api_version: str, name: str, devices: list[Obj]) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "allNodes": True,
            "devices": devices,
        },
    }


def _claim(api_version: str, name: str, namespace: str, requests: list[Obj]) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": requests}},
    }


ATTRS = {"model": {"string": "a100"}, "index": {"int": 0}}
CAPACITY = {"memory": {"value": "40Gi"}}
SELECTORS = [{"cel": {"expression": 'device.attributes["conv.garhwal.dev"].model == "a100"'}}]


def test_v1beta1_slice_reads_as_v1_with_flat_devices(
    target: Target, cluster_objects: list[tuple[str, str]]
) -> None:
    """DRA-CORE, v1beta1 ResourceSlice.

    A ResourceSlice written as v1beta1 with ``devices[].basic`` MUST read back through v1
    with the BasicDevice fields directly on each device and no ``basic``, and through
    v1beta1 again with them under ``basic``.
    """
    cluster_objects.append(("ResourceSlice", "conv-beta1-slice"))
    dev = {"name": "gpu-0", "basic": {"attributes": ATTRS, "capacity": CAPACITY}}
    target.apply(_slice(V1BETA1, "conv-beta1-slice", [dev]))
    got = target.get(DRA_API, "ResourceSlice", "conv-beta1-slice")
    assert got["apiVersion"] == DRA_API
    (d,) = got["spec"]["devices"]
    assert "basic" not in d
    assert (d["name"], d["attributes"], d["capacity"]) == ("gpu-0", ATTRS, CAPACITY)
    assert got["spec"]["allNodes"] is True
    back = target.get(V1BETA1, "ResourceSlice", "conv-beta1-slice")
    (b,) = back["spec"]["devices"]
    assert (b["name"], b["basic"]["attributes"], b["basic"]["capacity"]) == (
        "gpu-0",
        ATTRS,
        CAPACITY,
    )


def test_v1_slice_reads_as_v1beta1_with_basic(
    target: Target, cluster_objects: list[tuple[str, str]]
) -> None:
    """DRA-CORE, v1 ResourceSlice in v1beta1.

    A ResourceSlice written as v1 MUST read through v1beta1 with every device field but
    ``name`` under ``basic`` (an empty ``basic`` for a device with only a name), and through
    v1beta2 in the v1 shape.
    """
    cluster_objects.append(("ResourceSlice", "conv-v1-slice"))
    devices = [{"name": "gpu-0", "attributes": ATTRS}, {"name": "gpu-1"}]
    target.apply(_slice(DRA_API, "conv-v1-slice", devices))
    beta1 = target.get(V1BETA1, "ResourceSlice", "conv-v1-slice")
    assert beta1["apiVersion"] == V1BETA1
    d0, d1 = beta1["spec"]["devices"]
    assert d0 == {"name": "gpu-0", "basic": {"attributes": ATTRS}}
    assert d1 == {"name": "gpu-1", "basic": {}}
    beta2 = target.get(V1BETA2, "ResourceSlice", "conv-v1-slice")
    assert beta2["spec"]["devices"] == devices


def test_v1_claim_with_exactly_reads_as_v1beta1_flat(target: Target, namespace: str) -> None:
    """DRA-CORE, v1 request in v1beta1.

    A v1 ResourceClaim request with ``exactly`` MUST read through v1beta1 as a flat
    request: deviceClassName, selectors, allocationMode and count on the request itself
    and no ``exactly``.
    """
    exactly = {"deviceClassName": "conv-gpu", "selectors": SELECTORS, "count": 2}
    target.apply(_claim(DRA_API, "c", namespace, [{"name": "gpu", "exactly": exactly}]))
    got = target.get(V1BETA1, "ResourceClaim", "c", namespace)
    (req,) = got["spec"]["devices"]["requests"]
    assert "exactly" not in req
    assert req["name"] == "gpu"
    assert req["deviceClassName"] == "conv-gpu"
    assert req["selectors"] == SELECTORS
    assert (req["allocationMode"], req["count"]) == ("ExactCount", 2)


def test_v1beta1_claim_reads_as_v1_exactly_with_defaults(target: Target, namespace: str) -> None:
    """DRA-CORE, v1beta1 request in v1.

    A flat v1beta1 request MUST be stored as a v1 request with the fields under
    ``exactly``, defaulted to allocationMode ExactCount and count 1.
    """
    req = {"name": "gpu", "deviceClassName": "conv-gpu", "selectors": SELECTORS}
    target.apply(_claim(V1BETA1, "c", namespace, [req]))
    got = target.get(DRA_API, "ResourceClaim", "c", namespace)
    (r,) = got["spec"]["devices"]["requests"]
    assert set(r) == {"name", "exactly"}
    assert r["exactly"] == {
        "deviceClassName": "conv-gpu",
        "selectors": SELECTORS,
        "allocationMode": "ExactCount",
        "count": 1,
    }


def test_first_available_survives_every_version(target: Target, namespace: str) -> None:
    """DRA-CORE, firstAvailable across versions.

    A v1beta1 request with only ``firstAvailable`` MUST read through v1 with the same
    subrequests and no ``exactly``, and through v1beta1 with the same subrequests.
    """
    subs = [
        {"name": "big", "deviceClassName": "conv-big", "allocationMode": "ExactCount", "count": 1},
        {
            "name": "small",
            "deviceClassName": "conv-small",
            "allocationMode": "ExactCount",
            "count": 2,
        },
    ]
    target.apply(_claim(V1BETA1, "c", namespace, [{"name": "gpu", "firstAvailable": subs}]))
    (v1,) = target.get(DRA_API, "ResourceClaim", "c", namespace)["spec"]["devices"]["requests"]
    assert "exactly" not in v1 and v1["firstAvailable"] == subs
    (b1,) = target.get(V1BETA1, "ResourceClaim", "c", namespace)["spec"]["devices"]["requests"]
    assert b1["firstAvailable"] == subs
    assert not b1.get("deviceClassName") and "count" not in b1


def test_v1beta1_template_converts_the_nested_claim_spec(target: Target, namespace: str) -> None:
    """DRA-CORE, v1beta1 ResourceClaimTemplate.

    A ResourceClaimTemplate written as v1beta1 MUST read through v1 with its request under
    ``spec.spec.devices.requests[].exactly``.
    """
    tmpl = {
        "apiVersion": V1BETA1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": namespace},
        "spec": {
            "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "conv-gpu"}]}}
        },
    }
    target.apply(tmpl)
    got = target.get(DRA_API, "ResourceClaimTemplate", "t", namespace)
    (r,) = got["spec"]["spec"]["devices"]["requests"]
    assert r["exactly"]["deviceClassName"] == "conv-gpu"
    assert "deviceClassName" not in r


def test_unknown_field_in_v1beta1_write_names_the_v1beta1_path(
    target: Target, namespace: str
) -> None:
    """DRA-CORE, v1beta1 decoding.

    A v1beta1 write is decoded strictly as v1beta1: a request carrying the v1-only
    ``exactly`` MUST be rejected as BadRequest (strict decoding) naming that field on the
    v1beta1 request, and nothing MUST be stored.
    """
    bad = {"name": "gpu", "exactly": {"deviceClassName": "conv-gpu"}}
    with pytest.raises(BadRequest) as e:
        target.apply(_claim(V1BETA1, "c", namespace, [bad]))
    bare = {re.sub(r"\[\d+\]", "", f) for f in e.value.fields}
    assert "spec.devices.requests.exactly" in bare
    with pytest.raises(NotFound):
        target.get(DRA_API, "ResourceClaim", "c", namespace)


def test_invalid_v1beta1_request_names_upstream_paths(target: Target, namespace: str) -> None:
    """DRA-CORE, v1beta1 validation paths.

    A v1beta1 request is validated after conversion, so a bad count MUST be rejected at
    the v1 path ``requests[0].exactly.count``; the enum checks run declaratively on the
    v1beta1 object, so an unsupported allocationMode MUST be rejected at the v1beta1 path
    ``requests[0].allocationMode``. Nothing MUST be stored.
    """
    bad_count = {"name": "gpu", "deviceClassName": "conv-gpu", "count": -1}
    with pytest.raises(Invalid) as e:
        target.apply(_claim(V1BETA1, "c", namespace, [bad_count]))
    assert "spec.devices.requests[0].exactly.count" in e.value.fields
    bad_mode = {"name": "gpu", "deviceClassName": "conv-gpu", "allocationMode": "Some"}
    with pytest.raises(Invalid) as e:
        target.apply(_claim(V1BETA1, "c", namespace, [bad_mode]))
    assert "spec.devices.requests[0].allocationMode" in e.value.fields
    assert not any(".exactly." in f for f in e.value.fields)
    with pytest.raises(NotFound):
        target.get(V1BETA1, "ResourceClaim", "c", namespace)


def test_invalid_v1beta1_device_taint_names_the_basic_path(
    target: Target, cluster_objects: list[tuple[str, str]]
) -> None:
    """DRA-CORE, v1beta1 device validation paths.

    A v1beta1 ResourceSlice whose device taint has an unsupported effect MUST be rejected
    as Invalid at ``spec.devices[0].basic.taints[0].effect``, and nothing MUST be stored.
    """
    cluster_objects.append(("ResourceSlice", "conv-bad-taint"))
    dev = {"name": "gpu-0", "basic": {"taints": [{"key": "k", "effect": "Bad"}]}}
    with pytest.raises(Invalid) as e:
        target.apply(_slice(V1BETA1, "conv-bad-taint", [dev]))
    assert "spec.devices[0].basic.taints[0].effect" in e.value.fields
    with pytest.raises(NotFound):
        target.get(DRA_API, "ResourceSlice", "conv-bad-taint")


def test_list_in_v1beta1_converts_v1_objects(target: Target, namespace: str) -> None:
    """DRA-CORE, list in v1beta1.

    Listing ResourceClaims through v1beta1 MUST return every claim, including those
    written as v1, in the v1beta1 shape.
    """
    exactly = {"deviceClassName": "conv-gpu"}
    target.apply(_claim(DRA_API, "a", namespace, [{"name": "gpu", "exactly": exactly}]))
    target.apply(_claim(V1BETA1, "b", namespace, [{"name": "gpu", "deviceClassName": "conv-gpu"}]))
    items = target.list(V1BETA1, "ResourceClaim", namespace)
    assert sorted(i["metadata"]["name"] for i in items) == ["a", "b"]
    for item in items:
        (r,) = item["spec"]["devices"]["requests"]
        assert "exactly" not in r and r["deviceClassName"] == "conv-gpu"
    for item in target.list(DRA_API, "ResourceClaim", namespace):
        (r,) = item["spec"]["devices"]["requests"]
        assert r["exactly"]["deviceClassName"] == "conv-gpu"


def test_watch_in_v1beta1_delivers_converted_objects(
    target: Target, cluster_objects: list[tuple[str, str]]
) -> None:
    """DRA-CORE, watch in v1beta1.

    A v1beta1 watch on ResourceSlices MUST deliver a slice written as v1 in the v1beta1
    shape (devices under ``basic``).
    """
    cluster_objects.append(("ResourceSlice", "conv-watch-slice"))
    start = target.list(V1BETA1, "ResourceSlice")
    since = max((int(s["metadata"]["resourceVersion"]) for s in start), default=None)
    created = target.apply(
        _slice(DRA_API, "conv-watch-slice", [{"name": "gpu-0", "attributes": ATTRS}])
    )
    since_rv = str(int(created["metadata"]["resourceVersion"]) - 1) if since is None else str(since)
    for ev in target.watch(V1BETA1, "ResourceSlice", since_rv, timeout=10):
        obj = ev.object
        if obj["metadata"]["name"] == "conv-watch-slice":
            assert obj["apiVersion"] == V1BETA1
            assert obj["spec"]["devices"] == [{"name": "gpu-0", "basic": {"attributes": ATTRS}}]
            return
    pytest.fail("no watch event for the slice")


def test_v1beta2_device_class_is_the_v1_class(
    target: Target, cluster_objects: list[tuple[str, str]]
) -> None:
    """DRA-CORE, v1beta2.

    A DeviceClass written as v1beta2 MUST read through v1 and v1beta1 with the same
    selectors.
    """
    cluster_objects.append(("DeviceClass", "conv-beta2-class"))
    target.apply(
        {
            "apiVersion": V1BETA2,
            "kind": "DeviceClass",
            "metadata": {"name": "conv-beta2-class"},
            "spec": {"selectors": SELECTORS},
        }
    )
    for version in (DRA_API, V1BETA1, V1BETA2):
        got = target.get(version, "DeviceClass", "conv-beta2-class")
        assert (got["apiVersion"], got["spec"]["selectors"]) == (version, SELECTORS)


def test_v1beta1_status_write_reads_back_in_v1(target: Target, namespace: str) -> None:
    """DRA-CORE, v1beta1 claim status.

    An allocation written through the v1beta1 /status subresource MUST read back through
    v1 unchanged, and the claim's spec MUST keep its v1 shape.
    """
    exactly = {"deviceClassName": "conv-gpu"}
    target.apply(_claim(DRA_API, "c", namespace, [{"name": "gpu", "exactly": exactly}]))
    beta = target.get(V1BETA1, "ResourceClaim", "c", namespace)
    result = {"request": "gpu", "driver": DRIVER, "pool": "conv-pool", "device": "gpu-0"}
    beta["status"] = {"allocation": {"devices": {"results": [result]}}}
    target.patch_status(beta)
    got = target.get(DRA_API, "ResourceClaim", "c", namespace)
    assert got["status"]["allocation"]["devices"]["results"] == [result]
    assert got["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "conv-gpu"

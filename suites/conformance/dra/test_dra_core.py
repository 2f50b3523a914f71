"""DRA-CORE: structured-parameter allocation from ResourceSlices by the scheduler."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fixtures import FakeDriver, Target
from reference_impl.api import (
    DRA_API,
    make_claim_template,
    make_device_class,
    make_pod,
    make_resource_claim,
)
from reference_impl.errors import BadRequest, Invalid, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
NODE = "kwok-node-0"


def _pod(target: Target, name: str, ns: str) -> dict[str, Any]:
    return target.get("v1", "Pod", name, ns)


def _claim_of(target: Target, pod: dict[str, Any]) -> dict[str, Any]:
    ns = pod["metadata"]["namespace"]
    name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    return target.get(DRA_API, "ResourceClaim", name, ns)


def _bound(target: Target, name: str, ns: str) -> bool:
    return bool(_pod(target, name, ns)["spec"].get("nodeName"))


def test_template_claim_is_generated_owned_and_allocated(
    target: Target, namespace: str, dra_driver: FakeDriver
) -> None:
    """DRA-CORE, claim from template.

    A pod using a ResourceClaimTemplate MUST get one generated claim, owned by the pod,
    recorded in pod.status.resourceClaimStatuses; the claim MUST be allocated with one
    result, a nodeSelector for the node the pod is bound to and an allocationTimestamp
    (the binding-condition gates are on by default), and reserved for the pod.
    """
    dra_driver.install_class("dra-core-gpu")
    dra_driver.publish([NODE], gpus=2)
    target.apply(make_claim_template("one-gpu", namespace).request("gpu", "dra-core-gpu").build())
    target.apply(make_pod("p", namespace).claim("gpu", template="one-gpu").build())
    target.wait_until(lambda: _bound(target, "p", namespace), timeout=60, what="pod bound")
    pod = _pod(target, "p", namespace)
    assert pod["spec"]["nodeName"] == NODE
    claim = _claim_of(target, pod)
    assert claim["metadata"]["name"].startswith("p-gpu-")
    owner = claim["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["uid"]) == ("Pod", pod["metadata"]["uid"])
    alloc = claim["status"]["allocation"]
    (result,) = alloc["devices"]["results"]
    assert result["driver"] == dra_driver.driver and result["pool"] == NODE
    assert result["request"] == "gpu"
    assert "nodeSelector" in alloc
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", alloc["allocationTimestamp"])
    assert [r["uid"] for r in claim["status"]["reservedFor"]] == [pod["metadata"]["uid"]]


def test_devices_are_never_allocated_twice(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-CORE, exclusive allocation.

    With two GPUs published, three pods each claiming one GPU MUST leave exactly two bound
    on distinct devices and the third Pending with PodScheduled=False whose message says
    the claims cannot be allocated.
    """
    dra_driver.install_class("dra-core-gpu")
    dra_driver.publish([NODE], gpus=2)
    target.apply(make_claim_template("one-gpu", namespace).request("gpu", "dra-core-gpu").build())
    for i in range(3):
        target.apply(make_pod(f"p{i}", namespace).claim("gpu", template="one-gpu").build())

    def settled() -> bool:
        pods = [_pod(target, f"p{i}", namespace) for i in range(3)]
        bound = [p for p in pods if p["spec"].get("nodeName")]
        waiting = [c for p in pods for c in (p.get("status") or {}).get("conditions") or ()
                   if c["type"] == "PodScheduled" and c["status"] == "False"]
        return len(bound) == 2 and len(waiting) == 1

    target.wait_until(settled, timeout=60, what="two bound, one unschedulable")
    pods = [_pod(target, f"p{i}", namespace) for i in range(3)]
    devices = {r["device"] for p in pods if p["spec"].get("nodeName")
               for r in _claim_of(target, p)["status"]["allocation"]["devices"]["results"]}
    assert len(devices) == 2
    (pending,) = [p for p in pods if not p["spec"].get("nodeName")]
    cond = next(c for c in pending["status"]["conditions"] if c["type"] == "PodScheduled")
    assert "cannot allocate all claims" in cond["message"]


def test_request_selector_narrows_devices(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-CORE, request CEL selector.

    A request whose CEL selector matches only the device with index 1 MUST be allocated
    exactly that device.
    """
    dra_driver.install_class("dra-core-gpu")
    dra_driver.publish([NODE], gpus=4)
    sel = f'device.attributes["{dra_driver.driver}"].index == 1'
    target.apply(make_resource_claim("c", namespace).request("gpu", "dra-core-gpu", selectors=[sel]).build())
    target.apply(make_pod("p", namespace).claim("gpu", claim="c").build())
    target.wait_until(lambda: _bound(target, "p", namespace), timeout=60, what="pod bound")
    claim = target.get(DRA_API, "ResourceClaim", "c", namespace)
    assert [r["device"] for r in claim["status"]["allocation"]["devices"]["results"]] == ["gpu-1"]


def test_count_and_all_allocation_modes(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-CORE, allocationMode.

    ExactCount with count 2 MUST yield two distinct devices; allocationMode All MUST take
    every matching device on the node.
    """
    dra_driver.install_class("dra-core-gpu")
    dra_driver.publish([NODE], gpus=3)
    target.apply(make_resource_claim("two", namespace).request("gpu", "dra-core-gpu", 2).build())
    target.apply(make_pod("a", namespace).claim("gpu", claim="two").build())
    target.wait_until(lambda: _bound(target, "a", namespace), timeout=60, what="pod a bound")
    two = target.get(DRA_API, "ResourceClaim", "two", namespace)
    assert len({r["device"] for r in two["status"]["allocation"]["devices"]["results"]}) == 2
    target.apply(make_resource_claim("rest", namespace).request("gpu", "dra-core-gpu", all_devices=True).build())
    target.delete("v1", "Pod", "a", namespace)
    target.wait_until(
        lambda: not (target.get(DRA_API, "ResourceClaim", "two", namespace).get("status") or {}).get("allocation"),
        timeout=60, what="claim two deallocated")
    target.apply(make_pod("b", namespace).claim("gpu", claim="rest").build())
    target.wait_until(lambda: _bound(target, "b", namespace), timeout=60, what="pod b bound")
    rest = target.get(DRA_API, "ResourceClaim", "rest", namespace)
    assert sorted(r["device"] for r in rest["status"]["allocation"]["devices"]["results"]) == [
        "gpu-0", "gpu-1", "gpu-2"]


def test_first_available_falls_back(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-CORE, firstAvailable.

    When the first alternative (8 GPUs) cannot be met, the next one (1 GPU) MUST be used,
    and the result's request MUST be named "<request>/<subrequest>".
    """
    dra_driver.install_class("dra-core-gpu")
    dra_driver.publish([NODE], gpus=2)
    claim = make_resource_claim("c", namespace).first_available(
        "gpu", ("eight", "dra-core-gpu", 8), ("one", "dra-core-gpu", 1)).build()
    target.apply(claim)
    target.apply(make_pod("p", namespace).claim("gpu", claim="c").build())
    target.wait_until(lambda: _bound(target, "p", namespace), timeout=60, what="pod bound")
    got = target.get(DRA_API, "ResourceClaim", "c", namespace)
    assert [r["request"] for r in got["status"]["allocation"]["devices"]["results"]] == ["gpu/one"]


def test_invalid_cel_is_rejected_with_field_path(target: Target) -> None:
    """DRA-CORE, CEL validation.

    A DeviceClass whose selector does not compile MUST be rejected as Invalid at
    spec.selectors[0].cel.expression, and nothing MUST be stored.
    """
    with pytest.raises(Invalid) as e:
        target.apply(make_device_class("dra-core-bad").selector("device.driver ==").build())
    assert "spec.selectors[0].cel.expression" in e.value.fields
    with pytest.raises(NotFound):
        target.get(DRA_API, "DeviceClass", "dra-core-bad")


def test_selector_of_wrong_type_is_rejected(target: Target, namespace: str) -> None:
    """DRA-CORE, selector shape.

    A request selector given as a string instead of a CELDeviceSelector object MUST be
    rejected as BadRequest (the body does not decode) naming the selector's field path.
    """
    claim = make_resource_claim("c", namespace).request("gpu", "x").build()
    claim["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [{"cel": "true"}]
    with pytest.raises(BadRequest) as e:
        target.apply(claim)
    # The real apiserver's decode error drops list indices from the path.
    bare = {re.sub(r"\[\d+\]", "", f) for f in e.value.fields}
    assert "spec.devices.requests.exactly.selectors.cel" in bare


def test_request_tolerations_are_validated_like_upstream(target: Target, namespace: str) -> None:
    """DRA-CORE, request tolerations.

    A request MAY carry more than 16 tolerations and a toleration MAY name the effect
    None; a toleration with an unknown effect or an invalid key MUST be rejected as
    Invalid at its own field path, and nothing MUST be stored.
    """
    many = [{"key": f"example.com/t{i}", "operator": "Exists", "effect": "NoSchedule"} for i in range(17)]
    many.append({"key": "example.com/dry-run", "operator": "Exists", "effect": "None"})
    ok = make_resource_claim("tol-ok", namespace).request("gpu", "x", tolerations=many).build()
    stored = target.apply(ok)
    assert len(stored["spec"]["devices"]["requests"][0]["exactly"]["tolerations"]) == 18

    bad_tols = [
        {"key": "example.com/a", "operator": "Exists", "effect": "NoRun"},
        {"key": "not a key!", "operator": "Exists"},
    ]
    bad = make_resource_claim("tol-bad", namespace).request("gpu", "x", tolerations=bad_tols).build()
    with pytest.raises(Invalid) as e:
        target.apply(bad)
    base = "spec.devices.requests[0].exactly.tolerations"
    assert {f"{base}[0].effect", f"{base}[1].key"} <= set(e.value.fields)
    names = [c["metadata"]["name"] for c in target.list(DRA_API, "ResourceClaim", namespace)]
    assert names == ["tol-ok"]

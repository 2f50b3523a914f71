"""DRA-CORE: device binding conditions (KEP-5007, DRADeviceBindingConditions, beta-on)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target, pause
from reference_impl.api import DRA_API, make_resource_claim
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
Obj = dict[str, Any]
DRIVER = "bind.garhwal.dev"
DEVICE: Obj = {"name": "fabric-0", "bindingConditions": ["Attached"],
               "bindingFailureConditions": ["AttachFailed"], "bindsToNode": True}


class Env(DraEnv):
    """A private node, and a fabric-attached device reachable from every node."""

    def setup(self) -> None:
        self.node()
        self.device_class()
        self.slice([dict(DEVICE)], all_nodes=True)
        self.run("p", make_resource_claim("c", self.ns).request("dev", self.name).build())
        # Removed before the device: the pod may still wait on its binding conditions.
        self.track(DRA_API, "ResourceClaim", "c", self.ns)
        self.track("v1", "Pod", "p", self.ns)

    def set_condition(self, kind: str) -> None:
        claim = self.claim("c")
        cond = {"type": kind, "status": "True", "reason": "Test", "message": f"{kind} by the test",
                "lastTransitionTime": claim["metadata"]["creationTimestamp"]}
        dev = {"driver": DRIVER, "pool": self.name, "device": DEVICE["name"], "conditions": [cond]}
        self.target.patch_status({**claim, "status": {**claim["status"], "devices": [dev]}})


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[Env]:
    with Env(target, namespace, "dra-bind", DRIVER) as e:
        yield e


def test_binding_waits_for_the_binding_conditions(target: Target, env: Env) -> None:
    """DRA-CORE, binding conditions.

    A device with bindingConditions MUST be allocated with the conditions copied into
    its result (and bindingFailureConditions), an allocationTimestamp, and, as it sets
    bindsToNode, a node selector pinned to the chosen node; the claim MUST be reserved
    for the pod while the pod stays unbound until the driver reports every binding
    condition True in status.devices, and the pod MUST then be bound.
    """
    env.setup()
    target.wait_until(lambda: env.allocation("c") is not None, timeout=30, what="claim allocated")
    alloc = env.claim("c")["status"]["allocation"]
    (result,) = alloc["devices"]["results"]
    assert result["bindingConditions"] == ["Attached"]
    assert result["bindingFailureConditions"] == ["AttachFailed"]
    assert alloc.get("allocationTimestamp")
    assert alloc["nodeSelector"] == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [env.name]}]}]}
    assert [r["name"] for r in env.claim("c")["status"]["reservedFor"]] == ["p"]
    pause(target, 8)
    assert not env.bound("p")
    env.set_condition("Attached")
    target.wait_until(lambda: env.bound("p"), timeout=30, what="pod bound after the binding condition")


def test_a_binding_failure_deallocates_and_retries(target: Target, env: Env) -> None:
    """DRA-CORE, binding failure.

    When a bindingFailureCondition becomes True the pod MUST NOT be bound; the scheduler
    MUST drop the allocation (with the device status) and allocate again, and the pod
    MUST be bound once the binding conditions of the new allocation are True.
    """
    env.setup()
    target.wait_until(lambda: env.allocation("c") is not None, timeout=30, what="claim allocated")
    env.set_condition("AttachFailed")

    def reallocated() -> bool:
        st = env.claim("c").get("status") or {}
        return bool(st.get("allocation")) and not st.get("devices")

    target.wait_until(reallocated, timeout=60, what="claim deallocated and allocated again")
    assert not env.bound("p")
    env.set_condition("Attached")
    target.wait_until(lambda: env.bound("p"), timeout=30, what="pod bound after the retry")


@pytest.mark.feature_gates(DRADeviceBindingConditions=False)
def test_gate_off_drops_the_binding_fields(target: Target, env: Env) -> None:
    """DRA-CORE, binding conditions gate off.

    With DRADeviceBindingConditions disabled the apiserver MUST drop bindingConditions,
    bindingFailureConditions and bindsToNode from a new ResourceSlice, so the device is
    allocated like any other: no conditions in the result, and the pod is bound at once.
    """
    env.setup()
    dev = target.get(DRA_API, "ResourceSlice", env.name)["spec"]["devices"][0]
    assert not {"bindingConditions", "bindingFailureConditions", "bindsToNode"} & set(dev)
    target.wait_until(lambda: env.bound("p"), timeout=30, what="pod bound")
    (result,) = env.claim("c")["status"]["allocation"]["devices"]["results"]
    assert "bindingConditions" not in result


def _manual_claim(target: Target, ns: str) -> Obj:
    """A claim allocated by hand (no pod, so no scheduler races the status writes)."""
    return target.apply(make_resource_claim("manual", ns).request("dev", "no-such-class").build())


def _allocation(**extra: Any) -> Obj:
    return {"devices": {"results": [{"request": "dev", "driver": DRIVER, "pool": "manual-pool",
                                     "device": "d0", **extra}]}}


@pytest.mark.feature_gates(DRADeviceBindingConditions=False)
def test_gate_off_drops_binding_fields_on_status_write(target: Target, namespace: str) -> None:
    """DRA-CORE, binding conditions gate off, status.

    With DRADeviceBindingConditions disabled, bindingConditions and
    bindingFailureConditions in status.allocation.devices.results[] written through the
    ResourceClaim /status subresource MUST be dropped (the write succeeds, the rest of the
    result and allocationTimestamp are stored).
    """
    claim = _manual_claim(target, namespace)
    stamp = claim["metadata"]["creationTimestamp"]
    alloc = {**_allocation(bindingConditions=["Attached"], bindingFailureConditions=["AttachFailed"]),
             "allocationTimestamp": stamp}
    out = target.patch_status({**claim, "status": {"allocation": alloc}})
    (result,) = out["status"]["allocation"]["devices"]["results"]
    assert not {"bindingConditions", "bindingFailureConditions"} & set(result)
    assert result["device"] == "d0" and out["status"]["allocation"]["allocationTimestamp"] == stamp
    stored = target.get(DRA_API, "ResourceClaim", "manual", namespace)
    assert stored["status"]["allocation"] == out["status"]["allocation"]


def test_claim_is_created_with_an_empty_status(target: Target, namespace: str) -> None:
    """DRA-CORE, status on create.

    A ResourceClaim MUST be created with status {} even when the client sends a status
    (allocation and reservedFor are only written through /status), and MUST be served so.
    """
    body = make_resource_claim("manual", namespace).request("dev", "no-such-class").build()
    body["status"] = {"allocation": _allocation(),
                      "reservedFor": [{"resource": "pods", "name": "p", "uid": "0b6c4a1e-1"}]}
    assert target.apply(body)["status"] == {}
    assert target.get(DRA_API, "ResourceClaim", "manual", namespace)["status"] == {}


def test_device_taint_rule_is_created_with_an_empty_status(target: Target, namespace: str) -> None:
    """DRA-CORE, status on create (DeviceTaintRule).

    A DeviceTaintRule MUST be created with status {}: conditions sent by the client are
    reset (only the taint controller writes them, through /status).
    """
    name = f"empty-status-{namespace}"[:63]  # cluster-scoped: unique per test namespace
    body = {"apiVersion": DRA_API, "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": {"driver": "no-device.garhwal.dev"},
                     "taint": {"key": "garhwal.dev/test", "effect": "None"}},
            "status": {"conditions": [{"type": "EvictionInProgress", "status": "True", "reason": "Client",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
    try:
        assert target.apply(body)["status"] == {}
    finally:
        try:
            target.delete(DRA_API, "DeviceTaintRule", name)
        except NotFound:
            pass

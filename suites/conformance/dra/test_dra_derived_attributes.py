"""DRA-CORE: request ``derivedAttributes`` (DRADerivedAttributes, alpha in 1.37)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import (
    DRA_API,
    make_device_class,
    make_pool_node,
    make_pool_pod,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.errors import Invalid, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
Obj = dict[str, Any]
GPU, NIC = "gpu.derived.garhwal.dev", "nic.derived.garhwal.dev"
DERIVED = "derived/numa"


class Env:
    """A private node with a GPU pool and a NIC pool that name their NUMA node differently."""

    def __init__(self, target: Target, ns: str) -> None:
        self.target, self.ns = target, ns
        self.name = f"dra-derived-{ns}"[:63]

    def setup(self) -> None:
        self.target.apply(make_pool_node(self.name, self.ns).build())
        for drv, devs in ((GPU, [("gpu-0", {"numaIndex": {"int": 0}}), ("gpu-1", {"numaIndex": {"int": 1}})]),
                          (NIC, [("nic-0", {"numa": {"int": 1}})])):
            self.target.apply(make_device_class(f"{self.name}-{drv[:3]}").selector(
                f'device.driver == "{drv}"').build())
            sl = make_resource_slice(f"{self.name}-{drv[:3]}", drv, self.name, self.name)
            for n, attrs in devs:
                sl.device({"name": n, "attributes": attrs})
            self.target.apply(sl.build())

    def claim(self, derived: bool = True, constraint: bool = True) -> Obj:
        c = (make_resource_claim("c", self.ns).request("gpu", f"{self.name}-gpu")
             .request("nic", f"{self.name}-nic").build())
        reqs = c["spec"]["devices"]["requests"]
        if derived:
            reqs[0]["exactly"]["derivedAttributes"] = [
                {"name": DERIVED, "expression": f'device.attributes["{GPU}"].numaIndex'}]
            reqs[1]["exactly"]["derivedAttributes"] = [
                {"name": DERIVED, "expression": f'device.attributes["{NIC}"].numa'}]
        if constraint:
            c["spec"]["devices"]["constraints"] = [{"matchAttribute": DERIVED}]
        return c

    def cleanup(self) -> None:
        for kind, suffix in (("ResourceSlice", "-gpu"), ("ResourceSlice", "-nic"),
                             ("DeviceClass", "-gpu"), ("DeviceClass", "-nic")):
            try:
                self.target.delete(DRA_API, kind, self.name + suffix)
            except NotFound:
                pass
        try:
            self.target.delete("v1", "Node", self.name)
        except NotFound:
            pass


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[Env]:
    e = Env(target, namespace)
    try:
        yield e
    finally:
        e.cleanup()


@pytest.mark.feature_gates(DRADerivedAttributes=True)
def test_derived_attributes_align_devices_of_different_drivers(target: Target, env: Env) -> None:
    """DRA-CORE, derived attributes.

    A matchAttribute on a derived attribute MUST compare the per-request CEL values: a
    GPU (numaIndex) and a NIC (numa) MUST be allocated from the same NUMA node although
    their drivers name the attribute differently.
    """
    env.setup()
    target.apply(env.claim())
    target.apply(make_pool_pod("p", env.ns, cpu="100m").claim("c", claim="c").build())

    def devices() -> list[str]:
        alloc = (target.get(DRA_API, "ResourceClaim", "c", env.ns).get("status") or {}).get("allocation")
        return sorted(r["device"] for r in alloc["devices"]["results"]) if alloc else []

    target.wait_until(lambda: bool(devices()), timeout=30, what="claim allocated")
    assert devices() == ["gpu-1", "nic-0"]


@pytest.mark.feature_gates(DRADerivedAttributes=True)
def test_a_derived_attribute_must_be_used_by_a_constraint(target: Target, env: Env) -> None:
    """DRA-CORE, derived attributes validation.

    Every derived attribute MUST be referenced by a matchAttribute or distinctAttribute
    constraint targeting its request; otherwise the claim MUST be rejected at
    ...derivedAttributes[i].name.
    """
    with pytest.raises(Invalid) as e:
        target.apply(env.claim(constraint=False))
    assert "spec.devices.requests[0].exactly.derivedAttributes[0].name" in e.value.fields


@pytest.mark.feature_gates(DRADerivedAttributes=False)
def test_gate_off_derived_attributes_are_dropped(target: Target, env: Env) -> None:
    """DRA-CORE, derived attributes gate off.

    With DRADerivedAttributes disabled a new claim's derivedAttributes MUST be dropped
    (the claim is stored without them), not rejected.
    """
    stored = target.apply(env.claim())
    assert all("derivedAttributes" not in r["exactly"] for r in stored["spec"]["devices"]["requests"])

"""DRA-CORE: request ``derivedAttributes`` (DRADerivedAttributes, alpha in 1.37)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target
from reference_impl.api import make_resource_claim
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
Obj = dict[str, Any]
GPU, NIC = "gpu.derived.garhwal.dev", "nic.derived.garhwal.dev"
DERIVED = "derived/numa"


class Env(DraEnv):
    """A private node with a GPU pool and a NIC pool that name their NUMA node differently."""

    def setup(self) -> None:
        self.node()
        for drv, devs in ((GPU, [("gpu-0", {"numaIndex": {"int": 0}}), ("gpu-1", {"numaIndex": {"int": 1}})]),
                          (NIC, [("nic-0", {"numa": {"int": 1}})])):
            self.device_class(drv[:3], driver=drv)
            self.slice(({"name": n, "attributes": attrs} for n, attrs in devs), drv[:3], driver=drv)

    def claim_body(self, derived: bool = True, constraint: bool = True) -> Obj:
        c = (make_resource_claim("c", self.ns).request("gpu", self.named("gpu"))
             .request("nic", self.named("nic")).build())
        reqs = c["spec"]["devices"]["requests"]
        if derived:
            reqs[0]["exactly"]["derivedAttributes"] = [
                {"name": DERIVED, "expression": f'device.attributes["{GPU}"].numaIndex'}]
            reqs[1]["exactly"]["derivedAttributes"] = [
                {"name": DERIVED, "expression": f'device.attributes["{NIC}"].numa'}]
        if constraint:
            c["spec"]["devices"]["constraints"] = [{"matchAttribute": DERIVED}]
        return c


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[Env]:
    with Env(target, namespace, "dra-derived", GPU) as e:
        yield e


@pytest.mark.feature_gates(DRADerivedAttributes=True)
def test_derived_attributes_align_devices_of_different_drivers(target: Target, env: Env) -> None:
    """DRA-CORE, derived attributes.

    A matchAttribute on a derived attribute MUST compare the per-request CEL values: a
    GPU (numaIndex) and a NIC (numa) MUST be allocated from the same NUMA node although
    their drivers name the attribute differently.
    """
    env.setup()
    env.run("p", env.claim_body())
    target.wait_until(lambda: env.devices("c") is not None, timeout=30, what="claim allocated")
    assert env.devices("c") == ["gpu-1", "nic-0"]


@pytest.mark.feature_gates(DRADerivedAttributes=True)
def test_a_derived_attribute_must_be_used_by_a_constraint(target: Target, env: Env) -> None:
    """DRA-CORE, derived attributes validation.

    Every derived attribute MUST be referenced by a matchAttribute or distinctAttribute
    constraint targeting its request; otherwise the claim MUST be rejected at
    ...derivedAttributes[i].name.
    """
    with pytest.raises(Invalid) as e:
        target.apply(env.claim_body(constraint=False))
    assert "spec.devices.requests[0].exactly.derivedAttributes[0].name" in e.value.fields


@pytest.mark.feature_gates(DRADerivedAttributes=False)
def test_gate_off_derived_attributes_are_dropped(target: Target, env: Env) -> None:
    """DRA-CORE, derived attributes gate off.

    With DRADerivedAttributes disabled a new claim's derivedAttributes MUST be dropped
    (the claim is stored without them), not rejected.
    """
    stored = target.apply(env.claim_body())
    assert all("derivedAttributes" not in r["exactly"] for r in stored["spec"]["devices"]["requests"])

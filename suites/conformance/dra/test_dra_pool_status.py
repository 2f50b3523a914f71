"""DRA-CORE: ResourcePoolStatusRequest, the one-shot pool-status query (KEP-5677, alpha).

resource.k8s.io/v1alpha3 is served, and the resourcepoolstatusrequest-controller runs,
only with the DRAResourcePoolStatus gate on and the group/version enabled; a cluster
without them skips these tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-4381"),
    pytest.mark.feature_gates(DRAResourcePoolStatus=True),
    pytest.mark.runtime_config("resource.k8s.io/v1alpha3=true"),
]
Obj = dict[str, Any]
DRIVER = "pool-status.garhwal.dev"
RPSR_API = "resource.k8s.io/v1alpha3"
RPSR = "ResourcePoolStatusRequest"


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[DraEnv]:
    with DraEnv(target, namespace, "dra-rpsr", DRIVER) as e:
        yield e


def _dev(name: str, kind: str, *taints: Obj) -> Obj:
    d: Obj = {"name": name, "attributes": {"kind": {"string": kind}}}
    if taints:
        d["taints"] = list(taints)
    return d


def _ask(env: DraEnv, suffix: str, **spec: Any) -> str:
    name = env.named(suffix)
    env.keep({"apiVersion": RPSR_API, "kind": RPSR, "metadata": {"name": name},
              "spec": {"driver": DRIVER, **spec}})  # fmt: skip
    return name


def _answer(target: Target, name: str) -> Obj:
    def get() -> Obj | None:
        status: Obj | None = target.get(RPSR_API, RPSR, name).get("status")
        return status

    target.wait_until(lambda: get() is not None, timeout=60, what=f"the status of request {name}")
    status = get()
    assert status is not None
    return status


def test_pool_status_request_is_answered_once(target: Target, env: DraEnv) -> None:
    """DRA-CORE, ResourcePoolStatusRequest.

    A request for a driver MUST be answered with every pool of that driver, sorted by
    pool name: its node, slice count and devices in total, allocated to claims,
    unavailable (a NoSchedule taint) and available (the rest), with a Complete
    condition (reason CalculationComplete). ``poolCount`` MUST count every matching
    pool while ``pools`` MUST stop at ``limit``. An answered request MUST NOT change
    when the pools change afterwards.
    """
    env.node()
    env.device_class()
    broken = {"key": "dra-rpsr/broken", "effect": "NoSchedule"}
    env.slice([_dev("gpu-0", "gpu"), _dev("gpu-1", "gpu"), _dev("gpu-2", "gpu", broken)])
    env.slice([_dev("nic-0", "nic"), _dev("nic-1", "nic")], "b")
    env.run_class("c", env.name, selectors=(f'device.attributes["{DRIVER}"].kind == "gpu"',))
    target.wait_until(lambda: env.devices("c") is not None, timeout=60, what="claim c allocated")

    first = _ask(env, "all")
    status = _answer(target, first)
    base = {"driver": DRIVER, "generation": 1, "nodeName": env.name, "resourceSliceCount": 1}
    assert status["poolCount"] == 2
    assert status["pools"] == [
        {**base, "poolName": env.named(), "totalDevices": 3, "allocatedDevices": 1,
         "availableDevices": 1, "unavailableDevices": 1},
        {**base, "poolName": env.named("b"), "totalDevices": 2, "allocatedDevices": 0,
         "availableDevices": 2, "unavailableDevices": 0},
    ]  # fmt: skip
    (cond,) = status["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        "Complete", "True", "CalculationComplete", "Calculated status for 2 pools")

    limited = _answer(target, _ask(env, "one", limit=1))
    assert limited["poolCount"] == 2
    assert [p["poolName"] for p in limited["pools"]] == [env.named()]
    assert limited["conditions"][0]["message"] == "Calculated status for 1 pools"

    env.slice([_dev("fpga-0", "fpga")], "c")
    assert _answer(target, _ask(env, "later"))["poolCount"] == 3
    again = target.get(RPSR_API, RPSR, first)["status"]
    assert again == status

"""DRA-NUMA: the standard resource.kubernetes.io/numaNode attribute and matchAttribute."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import NUMA_ATTRIBUTE, FakeDriver, Target
from reference_impl.api import DRA_API, make_pod, make_resource_claim

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-6072")]
NODE = "kwok-node-0"


def _setup(target: Target, drv: FakeDriver, gpus: int, nics: int, numa: int) -> None:
    drv.install_class("dra-numa-gpu", "gpu")
    drv.install_class("dra-numa-nic", "nic")
    drv.publish([NODE], gpus=gpus, nics=nics, numa_nodes=numa)


def _results(target: Target, ns: str, name: str) -> list[dict[str, Any]]:
    claim = target.get(DRA_API, "ResourceClaim", name, ns)
    return list(claim["status"]["allocation"]["devices"]["results"])


def _bound(target: Target, ns: str, name: str) -> bool:
    return bool(target.get("v1", "Pod", name, ns)["spec"].get("nodeName"))


def _numa(drv: FakeDriver, device: str, gpus: int, nics: int, numa: int) -> int:
    kind, idx = device.split("-")
    n = gpus if kind == "gpu" else nics
    return int(idx) * numa // n


def _aligned_claim(ns: str, name: str, gpus: int = 1) -> dict[str, Any]:
    return (make_resource_claim(name, ns).request("gpu", "dra-numa-gpu", gpus)
            .request("nic", "dra-numa-nic", 1).match_attribute(NUMA_ATTRIBUTE).build())


def _run(target: Target, ns: str, claim: dict[str, Any], pod: str) -> None:
    target.apply(claim)
    target.apply(make_pod(pod, ns).claim("dev", claim=claim["metadata"]["name"]).build())


def test_gpu_and_nic_share_a_numa_node(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-NUMA, alignment.

    A claim for a GPU and a NIC with matchAttribute resource.kubernetes.io/numaNode MUST
    be allocated a GPU and a NIC published with the same numaNode value.
    """
    _setup(target, dra_driver, 4, 2, 2)
    _run(target, namespace, _aligned_claim(namespace, "c"), "p")
    target.wait_until(lambda: _bound(target, namespace, "p"), timeout=60, what="pod bound")
    res = _results(target, namespace, "c")
    assert {_numa(dra_driver, r["device"], 4, 2, 2) for r in res} == {0}
    assert sorted(r["request"] for r in res) == ["gpu", "nic"]


def test_alignment_skips_a_numa_node_without_a_nic(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-NUMA, second claim.

    Once one NUMA node's only NIC is taken, a second aligned claim MUST be placed wholly on
    the other NUMA node.
    """
    _setup(target, dra_driver, 4, 2, 2)
    _run(target, namespace, _aligned_claim(namespace, "c1"), "p1")
    target.wait_until(lambda: _bound(target, namespace, "p1"), timeout=60, what="p1 bound")
    _run(target, namespace, _aligned_claim(namespace, "c2"), "p2")
    target.wait_until(lambda: _bound(target, namespace, "p2"), timeout=60, what="p2 bound")
    first = {_numa(dra_driver, r["device"], 4, 2, 2) for r in _results(target, namespace, "c1")}
    second = {_numa(dra_driver, r["device"], 4, 2, 2) for r in _results(target, namespace, "c2")}
    assert len(first) == len(second) == 1 and first != second


def test_two_gpus_aligned_with_one_nic(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-NUMA, count 2.

    Two GPUs and one NIC under one matchAttribute MUST all come from one NUMA node.
    """
    _setup(target, dra_driver, 4, 2, 2)
    _run(target, namespace, _aligned_claim(namespace, "c", gpus=2), "p")
    target.wait_until(lambda: _bound(target, namespace, "p"), timeout=60, what="pod bound")
    res = _results(target, namespace, "c")
    assert len(res) == 3
    assert len({_numa(dra_driver, r["device"], 4, 2, 2) for r in res}) == 1


def test_unsatisfiable_alignment_fails_cleanly(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-NUMA, clean failure.

    When no NUMA node has three GPUs, an aligned claim for three GPUs and a NIC MUST leave
    the pod Pending with PodScheduled=False and the claim unallocated.
    """
    _setup(target, dra_driver, 4, 2, 2)
    _run(target, namespace, _aligned_claim(namespace, "c", gpus=3), "p")

    def rejected() -> bool:
        pod = target.get("v1", "Pod", "p", namespace)
        return any(c["type"] == "PodScheduled" and c["status"] == "False"
                   for c in (pod.get("status") or {}).get("conditions") or ())

    target.wait_until(rejected, timeout=60, what="PodScheduled=False")
    assert not target.get("v1", "Pod", "p", namespace)["spec"].get("nodeName")
    assert not (target.get(DRA_API, "ResourceClaim", "c", namespace).get("status") or {}).get("allocation")


def test_distinct_numa_nodes(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-NUMA, distinctAttribute.

    Two GPUs with distinctAttribute resource.kubernetes.io/numaNode MUST come from two
    different NUMA nodes.
    """
    _setup(target, dra_driver, 4, 0, 2)
    claim = (make_resource_claim("c", namespace).request("gpu", "dra-numa-gpu", 2)
             .distinct_attribute(NUMA_ATTRIBUTE).build())
    _run(target, namespace, claim, "p")
    target.wait_until(lambda: _bound(target, namespace, "p"), timeout=60, what="pod bound")
    assert {_numa(dra_driver, r["device"], 4, 0, 2) for r in _results(target, namespace, "c")} == {0, 1}


def test_attribute_is_published_as_int(target: Target, dra_driver: FakeDriver) -> None:
    """DRA-NUMA, attribute type.

    A published slice MUST carry resource.kubernetes.io/numaNode as an int attribute on
    every device.
    """
    dra_driver.publish([NODE], gpus=2, nics=1)
    s = target.get(DRA_API, "ResourceSlice", dra_driver.slice_name(NODE))
    assert all(isinstance(d["attributes"][NUMA_ATTRIBUTE]["int"], int) for d in s["spec"]["devices"])

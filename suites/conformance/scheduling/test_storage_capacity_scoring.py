"""VolumeBinding with CSIStorageCapacity and storage capacity scoring (KEP-4049).

Every test uses its own StorageClass, CSIDriver and pool nodes, each node with its own
CSIStorageCapacity (nodeTopology on kubernetes.io/hostname). The scheduler's choice is the
claim's ``volume.kubernetes.io/selected-node`` annotation, observable on any cluster;
provisioning (PV creation, binding, capacity going down) needs a provisioner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Capability, Target
from fixtures.helpers.nodes import wait_schedulable
from reference_impl.api import (
    make_csi_driver,
    make_csi_storage_capacity,
    make_pool_pod,
    make_pvc,
    make_storage_class,
)
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4049")]

Obj = dict[str, Any]
SELECTED: str = "volume.kubernetes.io/selected-node"
provisioner = pytest.mark.requires(Capability.STORAGE_PROVISIONER)


@pytest.fixture
def storage(target: Target, namespace: str) -> Iterator[Callable[..., str]]:
    """``storage(node, capacity)`` publishes capacity for ``node`` in this test's class."""
    cls = f"sched-sc-{namespace}"[:63]
    driver = f"sched-{namespace}.csi.garhwal.dev"
    target.apply(make_storage_class(cls, driver))
    target.apply(make_csi_driver(driver))
    made = 0

    def publish(node: str, capacity: str) -> str:
        nonlocal made
        made += 1
        name = f"cap-{made}"
        host = {"kubernetes.io/hostname": node}
        target.apply(make_csi_storage_capacity(name, namespace, cls, capacity, host))
        return cls

    yield publish
    for api, kind, name in (
        ("storage.k8s.io/v1", "StorageClass", cls),
        ("storage.k8s.io/v1", "CSIDriver", driver),
    ):
        try:
            target.delete(api, kind, name)
        except NotFound:
            pass
    for pv in target.list("v1", "PersistentVolume"):
        if pv["spec"].get("storageClassName") == cls:
            target.delete("v1", "PersistentVolume", pv["metadata"]["name"])


def _claim_pod(target: Target, namespace: str, name: str, cls: str, size: str, cpu: str = "100m") -> None:
    target.apply(make_pvc(name, namespace, cls, size))
    pod = make_pool_pod(name, namespace, cpu=cpu).build()
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]
    target.apply(pod)


def _selected(target: Target, namespace: str, claim: str) -> str:
    pvc = target.get("v1", "PersistentVolumeClaim", claim, namespace)
    return str((pvc["metadata"].get("annotations") or {}).get(SELECTED, ""))


def _wait_selected(target: Target, namespace: str, claim: str) -> str:
    target.wait_until(
        lambda: bool(_selected(target, namespace, claim)), timeout=60, what=f"{claim} node"
    )
    return _selected(target, namespace, claim)


def test_a_claim_goes_only_to_a_node_with_enough_capacity(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """Capacity filter.

    A WaitForFirstConsumer claim of 10Gi MUST be given (selected-node) the only node whose
    CSIStorageCapacity holds 10Gi, never the node with 1Gi.
    """
    small, big = pool(cpu="4"), pool(cpu="4")
    wait_schedulable(target, (small, big))
    storage(small, "1Gi")
    cls = storage(big, "50Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")
    assert _wait_selected(target, namespace, "data") == big


def test_a_pod_waits_when_no_node_has_enough_capacity(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """No capacity, no node.

    When no node's capacity holds the claim, the pod MUST stay unscheduled with a
    PodScheduled=False message naming "did not have enough free storage" and counting
    every node as one where preemption is not helpful, and the claim MUST get no
    selected-node.
    """
    node = pool(cpu="4")
    wait_schedulable(target, (node,))
    cls = storage(node, "1Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")

    def message() -> str:
        pod = target.get("v1", "Pod", "data", namespace)
        for c in (pod.get("status") or {}).get("conditions") or ():
            if c["type"] == "PodScheduled" and c["status"] == "False":
                return str(c.get("message", ""))
        return ""

    target.wait_until(
        lambda: "did not have enough free storage" in message(),
        timeout=60,
        what="pod unschedulable for storage",
    )
    assert _selected(target, namespace, "data") == ""
    m = re.search(r" preemption: 0/(\d+) nodes are available: (\d+) Preemption is not helpful "
                  r"for scheduling\.$", message())
    assert m is not None and m.group(1) == m.group(2), message()


def test_the_node_with_more_free_capacity_scores_higher(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """Capacity scoring.

    With StorageCapacityScoring on and two otherwise equal nodes that both fit the claim,
    the claim MUST be given the node with far more free capacity (1000Gi over 12Gi).
    """
    tight, roomy = pool(cpu="4"), pool(cpu="4")
    wait_schedulable(target, (tight, roomy))
    # The expected winner's capacity is published first, so a scheduler that has not yet
    # seen the second object can only filter the loser out, never pick it.
    storage(roomy, "1000Gi")
    cls = storage(tight, "12Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")
    assert _wait_selected(target, namespace, "data") == roomy


def test_maximum_volume_size_limits_a_single_claim(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """maximumVolumeSize.

    A CSIStorageCapacity whose maximumVolumeSize is below the claim MUST NOT admit it even
    when its capacity is large; the claim MUST go to the other node.
    """
    capped, other = pool(cpu="4"), pool(cpu="4")
    wait_schedulable(target, (capped, other))
    cls = storage(other, "20Gi")
    target.apply(
        make_csi_storage_capacity(
            "cap-max", namespace, cls, "1000Gi", {"kubernetes.io/hostname": capped}, "5Gi"
        )
    )
    _claim_pod(target, namespace, "data", cls, "10Gi")
    assert _wait_selected(target, namespace, "data") == other


@provisioner
def test_the_provisioner_binds_the_claim_on_the_selected_node(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """Provisioning.

    After selection, the claim MUST be Bound to a PersistentVolume of its size whose node
    affinity names the selected node, and the pod MUST be bound to that node.
    """
    node = pool(cpu="4")
    cls = storage(node, "50Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")

    def bound() -> bool:
        pvc = target.get("v1", "PersistentVolumeClaim", "data", namespace)
        return (pvc.get("status") or {}).get("phase") == "Bound"

    target.wait_until(bound, timeout=60, what="claim bound")
    pvc = target.get("v1", "PersistentVolumeClaim", "data", namespace)
    pv = target.get("v1", "PersistentVolume", pvc["spec"]["volumeName"])
    assert pv["spec"]["capacity"]["storage"] == "10Gi"
    term = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]
    assert term["matchExpressions"][0]["values"] == [node]
    # The scheduler binds the pod once its PreBind sees the claim bound: a moment later live.
    target.wait_until(
        lambda: bool(target.get("v1", "Pod", "data", namespace)["spec"].get("nodeName")),
        timeout=60,
        what="pod bound",
    )
    assert target.get("v1", "Pod", "data", namespace)["spec"].get("nodeName") == node


def _spread(
    target: Target, namespace: str, pool: Callable[..., str], cls_of: Callable[..., str]
) -> list[str]:
    # One node with far more cpu and equal storage everywhere; each pod asks for an eighth
    # of a small node, so LeastAllocated prefers the big node for all three unless the
    # capacity the claims use up (as the provisioner reports it) outweighs that.
    nodes = [pool(cpu="64"), pool(cpu="4"), pool(cpu="4")]
    wait_schedulable(target, nodes)
    cls = ""
    for n in nodes:
        cls = cls_of(n, "100Gi")
    out = []
    for i in range(3):
        _claim_pod(target, namespace, f"d{i}", cls, "30Gi", cpu="500m")
        out.append(_wait_selected(target, namespace, f"d{i}"))
        target.wait_until(
            lambda i=i: (
                (
                    target.get("v1", "PersistentVolumeClaim", f"d{i}", namespace).get("status")
                    or {}
                ).get("phase")
                == "Bound"
            ),
            timeout=60,
            what=f"d{i} bound",
        )
    return out


@provisioner
def test_storage_hungry_pods_spread_out(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """Spreading by free capacity.

    As provisioning uses up capacity, three 30Gi claims on three nodes of 100Gi each MUST
    land on three different nodes, although one node has far more free cpu.
    """
    assert len(set(_spread(target, namespace, pool, storage))) == 3


def _contested(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> tuple[str, str, str]:
    """Node ``roomy`` has 1000Gi but 3 of 4 cpus taken; ``tight`` has 12Gi and idle cpus."""
    roomy, tight = pool(cpu="4"), pool(cpu="4")
    wait_schedulable(target, (roomy, tight))
    filler = make_pool_pod("filler", namespace, cpu="3").node_selector(
        **{"kubernetes.io/hostname": roomy}
    )
    target.apply(filler.build())
    target.wait_until(
        lambda: bool(target.get("v1", "Pod", "filler", namespace)["spec"].get("nodeName")),
        timeout=60,
        what="filler bound",
    )
    storage(roomy, "1000Gi")
    cls = storage(tight, "12Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")
    return roomy, tight, _wait_selected(target, namespace, "data")


def test_free_capacity_outweighs_a_cpu_preference(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """Capacity scoring against cpu.

    With StorageCapacityScoring on, a 10Gi claim MUST go to the node with 1000Gi free even
    though its cpus are mostly taken, not to the idle node with 12Gi.
    """
    roomy, _, chosen = _contested(target, namespace, pool, storage)
    assert chosen == roomy


@pytest.mark.feature_gates(StorageCapacityScoring=False)
def test_without_the_gate_capacity_only_filters(
    target: Target, namespace: str, pool: Callable[..., str], storage: Callable[..., str]
) -> None:
    """No scoring without the gate.

    With StorageCapacityScoring off, capacity only filters: the same claim MUST follow the
    cpu score to the idle node with 12Gi.
    """
    _, tight, chosen = _contested(target, namespace, pool, storage)
    assert chosen == tight

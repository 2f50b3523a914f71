"""The scheduler's NodeVolumeLimits filter: CSINode ``allocatable.count`` (storage.k8s.io/v1).

What the cluster autoscaler's attach-limit simulation (KEP-5030) relies on: a node whose
CSI driver is at its attach limit is not a fit. Runs on every target; it creates CSINodes
for the kwok nodes with a driver no one else uses, and removes them afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import condition, make_bound_pvc, make_csi_pv, make_csinode, make_pod
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("CA-ATTACH")]

DRIVER = "ca-limit.csi.garhwal.dev"
KWOK_NODES = ("kwok-node-0", "kwok-node-1", "kwok-node-2")


@pytest.fixture
def cluster_objects(target: Target) -> Iterator[list[tuple[str, str, str]]]:
    """Cluster-scoped objects the test made, deleted afterwards."""
    created: list[tuple[str, str, str]] = []
    yield created
    for api_version, kind, name in reversed(created):
        try:
            target.delete(api_version, kind, name)
        except NotFound:
            pass


def _volume_pod(target: Target, namespace: str, name: str, created: list[Any]) -> None:
    pv = f"ca-{namespace}-{name}"
    target.apply(make_csi_pv(pv, DRIVER))
    created.append(("v1", "PersistentVolume", pv))
    target.apply(make_bound_pvc(name, namespace, pv))
    pod = make_pod(name, namespace).build()
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]
    target.apply(pod)


def _node_of(target: Target, namespace: str, name: str) -> str:
    return str(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName") or "")


def test_pods_spread_to_nodes_under_their_attach_limit_and_the_next_one_is_unschedulable(
    target: Target, namespace: str, cluster_objects: list[Any]
) -> None:
    """Attach limits bound the CSI volumes per node.

    With ``allocatable.count: 1`` for a driver on every kwok node, three pods with one
    volume each MUST land on three different nodes, and a fourth MUST stay Pending with
    ``PodScheduled=False``, reason Unschedulable, and a message naming the max volume count.
    """
    for node in KWOK_NODES:
        target.apply(make_csinode(node, {DRIVER: 1}))
        cluster_objects.append(("storage.k8s.io/v1", "CSINode", node))
    for i in range(3):
        _volume_pod(target, namespace, f"vol-{i}", cluster_objects)
    target.wait_until(
        lambda: all(_node_of(target, namespace, f"vol-{i}") for i in range(3)),
        timeout=60,
        what="three volume pods bound",
    )
    assert sorted(_node_of(target, namespace, f"vol-{i}") for i in range(3)) == list(KWOK_NODES)
    _volume_pod(target, namespace, "vol-3", cluster_objects)

    def rejected() -> bool:
        # A live scheduler may first reject the pod while its pre-bound claim is still
        # Pending ("unbound immediate PersistentVolumeClaims"); wait for the real verdict.
        cond = condition(target.get("v1", "Pod", "vol-3", namespace), "PodScheduled") or {}
        return (
            cond.get("status") == "False"
            and cond.get("reason") == "Unschedulable"
            and "max volume count" in str(cond.get("message"))
        )

    target.wait_until(rejected, timeout=60, what="vol-3 Unschedulable for its volume count")
    cond = condition(target.get("v1", "Pod", "vol-3", namespace), "PodScheduled") or {}
    assert "max volume count" in str(cond.get("message"))
    assert _node_of(target, namespace, "vol-3") == ""

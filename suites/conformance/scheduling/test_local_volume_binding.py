"""VolumeBinding with statically created local PersistentVolumes.

Every test uses its own WaitForFirstConsumer StorageClass without a dynamic provisioner
(``kubernetes.io/no-provisioner``) and its own PersistentVolumes pinned to pool nodes by
node affinity (kubernetes.io/hostname). The scheduler matches the claim to a volume,
pre-binds it (claimRef) in PreBind and waits for the PV controller to bind the claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.nodes import wait_schedulable
from reference_impl.api import make_pool_pod, make_pvc, make_storage_class
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
NO_MATCH = "didn't find available persistent volumes to bind"


@pytest.fixture
def local(target: Target, namespace: str) -> Iterator[Callable[[str, str, str], str]]:
    """``local(name, node, size)`` creates a local PV on ``node`` in this test's class and
    returns the class."""
    cls = f"local-{namespace}"[:63]
    target.apply(make_storage_class(cls, "kubernetes.io/no-provisioner"))
    made: list[str] = []

    def add(name: str, node: str, size: str) -> str:
        pv_name = f"{namespace}-{name}"[:63]
        term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}
        target.apply({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv_name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": cls,
                     "local": {"path": f"/mnt/{pv_name}"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
        })
        made.append(pv_name)
        return cls

    yield add
    for pv in made:
        try:
            target.delete("v1", "PersistentVolume", pv)
        except NotFound:
            pass
    try:
        target.delete("storage.k8s.io/v1", "StorageClass", cls)
    except NotFound:
        pass


def _claim_pod(target: Target, namespace: str, name: str, cls: str, size: str) -> None:
    target.apply(make_pvc(name, namespace, cls, size))
    pod = make_pool_pod(name, namespace, cpu="100m").build()
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]
    target.apply(pod)


def _scheduled_message(target: Target, namespace: str, name: str) -> str:
    pod = target.get("v1", "Pod", name, namespace)
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c["type"] == "PodScheduled" and c["status"] == "False":
            return str(c.get("message", ""))
    return ""


def test_a_claim_is_bound_to_the_local_volume_and_the_pod_follows_it(
    target: Target, namespace: str, pool: Callable[..., str], local: Callable[[str, str, str], str]
) -> None:
    """Static binding.

    With the only fitting local volume on one of two nodes (the other node's volume is too
    small), the claim MUST be Bound to that volume and the pod MUST run on its node.
    """
    small, big = pool(cpu="4"), pool(cpu="4")
    wait_schedulable(target, (small, big))
    local("small", small, "1Gi")
    cls = local("big", big, "20Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")

    def bound() -> bool:
        pvc = target.get("v1", "PersistentVolumeClaim", "data", namespace)
        return (pvc.get("status") or {}).get("phase") == "Bound"

    target.wait_until(bound, timeout=60, what="claim bound")
    pvc = target.get("v1", "PersistentVolumeClaim", "data", namespace)
    assert pvc["spec"]["volumeName"] == f"{namespace}-big"[:63]
    target.wait_until(
        lambda: target.get("v1", "Pod", "data", namespace)["spec"].get("nodeName") == big,
        timeout=60,
        what="pod bound to the volume's node",
    )


def test_a_pod_waits_when_no_local_volume_fits(
    target: Target, namespace: str, pool: Callable[..., str], local: Callable[[str, str, str], str]
) -> None:
    """No static match, no provisioner.

    When no local volume is large enough and the class cannot provision, the pod MUST stay
    unscheduled with a PodScheduled=False message naming "didn't find available persistent
    volumes to bind", and the claim MUST stay unbound.
    """
    node = pool(cpu="4")
    wait_schedulable(target, (node,))
    cls = local("tiny", node, "1Gi")
    _claim_pod(target, namespace, "data", cls, "10Gi")
    target.wait_until(
        lambda: NO_MATCH in _scheduled_message(target, namespace, "data"),
        timeout=60,
        what="pod unschedulable for volumes",
    )
    pvc = target.get("v1", "PersistentVolumeClaim", "data", namespace)
    assert not pvc["spec"].get("volumeName")

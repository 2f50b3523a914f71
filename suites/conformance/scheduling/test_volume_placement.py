"""VolumeZone and VolumeRestrictions: a bound volume's zone admits only nodes in it, and
a ReadWriteOncePod claim admits one pod.

Each claim is pre-bound to its own hostPath PersistentVolume (``spec.volumeName`` and
``claimRef``), so the PV controller of a real cluster binds it without a provisioner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
ZONE = "topology.kubernetes.io/zone"
ZONE_CONFLICT = "node(s) had no available volume zone"
RWOP = "ReadWriteOncePod access mode already in-use by another pod"


@pytest.fixture
def volume(target: Target, namespace: str) -> Iterator[Callable[..., str]]:
    """``volume("data", zone="a", mode="ReadWriteOnce")``: a claim bound to its own PV."""
    made: list[str] = []

    def add(name: str, zone: str = "", mode: str = "ReadWriteOnce") -> str:
        pv_name = f"{namespace}-{name}"[:63]
        meta: Obj = {"name": pv_name}
        if zone:
            meta["labels"] = {ZONE: zone}
        target.apply({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta,
            "spec": {
                "capacity": {"storage": "1Gi"}, "accessModes": [mode],
                "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                "hostPath": {"path": f"/tmp/{pv_name}"},
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "namespace": namespace, "name": name},
            },
        })
        made.append(pv_name)
        target.apply({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"accessModes": [mode], "storageClassName": "", "volumeName": pv_name,
                     "resources": {"requests": {"storage": "1Gi"}}},
        })
        return name

    yield add
    for pv in made:
        try:
            target.delete("v1", "PersistentVolume", pv)
        except NotFound:
            pass


def _pod(namespace: str, name: str, claim: str) -> Obj:
    pod = make_pool_pod(name, namespace, cpu="100m")
    vol = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    return pod.set("spec.volumes", [vol]).build()


def test_a_zonal_volume_keeps_the_pod_in_its_zone(
    target: Target, namespace: str, pool: Callable[..., str], volume: Callable[..., str],
    bound_node: Callable[..., str], unschedulable: Callable[..., str],
) -> None:
    """VolumeZone.

    A pod using a volume labelled zone b MUST be placed on the zone-b node of two; a pod
    using a volume of zone c, which no node is in, MUST stay Pending naming the volume zone.
    """
    pool(cpu="4", topology_kubernetes_io__zone="a")
    b = pool(cpu="4", topology_kubernetes_io__zone="b")
    target.apply(_pod(namespace, "p", volume("data-b", zone="b")))
    assert bound_node("p", timeout=120) == b
    target.apply(_pod(namespace, "q", volume("data-c", zone="c")))
    target.wait_until(
        lambda: ZONE_CONFLICT in _message(target, namespace, "q"), timeout=120,
        what="pod q rejected for its volume zone",
    )


def test_a_read_write_once_pod_claim_admits_one_pod(
    target: Target, namespace: str, pool: Callable[..., str], volume: Callable[..., str],
    bound_node: Callable[..., str],
) -> None:
    """VolumeRestrictions, ReadWriteOncePod.

    The first pod using a ReadWriteOncePod claim MUST be placed; a second pod using the
    same claim MUST stay Pending with the ReadWriteOncePod conflict.
    """
    pool(cpu="4")
    pool(cpu="4")
    claim = volume("solo", mode="ReadWriteOncePod")
    target.apply(_pod(namespace, "first", claim))
    bound_node("first", timeout=120)
    target.apply(_pod(namespace, "second", claim))
    target.wait_until(
        lambda: RWOP in _message(target, namespace, "second"), timeout=120,
        what="pod second rejected for the ReadWriteOncePod claim",
    )
    assert not target.get("v1", "Pod", "second", namespace)["spec"].get("nodeName")


def _message(target: Target, namespace: str, name: str) -> str:
    for c in (target.get("v1", "Pod", name, namespace).get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return str(c.get("message") or "")
    return ""

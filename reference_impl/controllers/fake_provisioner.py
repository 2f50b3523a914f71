"""A fake CSI external-provisioner plus the PV controller's binding step (models
kubernetes-csi/external-provisioner and pkg/controller/volume/persistentvolume for
WaitForFirstConsumer claims); it does not exist upstream as one component.

When the scheduler annotates an unbound claim ``volume.kubernetes.io/selected-node``, the
provisioner creates a PersistentVolume of the claim's size pinned to that node, binds the
claim to it (``spec.volumeName``, ``pv.kubernetes.io/bind-completed``, phase Bound; the
volume's own phase is left to ``pv_binder``) and subtracts the size from the
CSIStorageCapacity the scheduler would have used (the first by namespace/name of the class
whose ``nodeTopology`` selects the node and whose capacity suffices), as a CSI driver's
GetCapacity would report afterwards.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import parse_quantity, selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.errors import AlreadyExists, ApiError

__all__ = ["SELECTED_NODE", "FakeProvisioner", "capacity_to_take", "provisioned_volume"]

Obj = dict[str, Any]
SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"


class FakeProvisioner:
    """Provisions and binds WaitForFirstConsumer claims once a node is selected."""

    name: Final = "fake-provisioner"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="fake-provisioner")
        self._claims: SharedInformer | None = None

    def start(self) -> None:
        """Watch claims; queue every existing one."""
        self._claims = self._ctx.informers.informer("v1", "PersistentVolumeClaim")
        self._claims.add_handler(self._on_claim)
        for pvc in self._claims.items():
            self._queue.add(object_key(pvc))

    def _on_claim(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._queue.add(object_key(ev.obj))

    def _sync(self, key: str) -> None:
        assert self._claims is not None
        pvc = self._claims.get(key)
        if pvc is None or pvc["spec"].get("volumeName"):
            return
        node = (pvc["metadata"].get("annotations") or {}).get(SELECTED_NODE)
        server = self._ctx.server
        sc = server.try_get(
            "storage.k8s.io/v1", "StorageClass", pvc["spec"].get("storageClassName") or ""
        )
        if not node or sc is None:
            return
        size = str(pvc["spec"]["resources"]["requests"]["storage"])
        pv_name = f"pvc-{pvc['metadata']['uid']}"
        try:
            server.create(provisioned_volume(pv_name, pvc, str(sc["provisioner"]), node, size))
            self._take_capacity(str(sc["metadata"]["name"]), node, parse_quantity(size))
        except AlreadyExists:
            pass  # provisioned on an earlier attempt; only the binding is left
        try:
            # The PV controller's bind: the volume name and its bind-completed mark.
            anns = {**(pvc["metadata"].get("annotations") or {}), BIND_COMPLETED: "yes", BOUND_BY_CONTROLLER: "yes"}
            server.update({**pvc, "metadata": {**pvc["metadata"], "annotations": anns},
                           "spec": {**pvc["spec"], "volumeName": pv_name}})
            bound = server.get(
                "v1", "PersistentVolumeClaim", pvc["metadata"]["name"], pvc["metadata"]["namespace"]
            )
            status = {
                "phase": "Bound",
                "accessModes": pvc["spec"]["accessModes"],
                "capacity": {"storage": size},
            }
            server.update_status({**bound, "status": status})
        except ApiError:
            self._queue.add(key)  # raced with another writer: retry with the next version

    def _take_capacity(self, storage_class: str, node: str, size: Any) -> None:
        labels = self._ctx.server.get("v1", "Node", node)["metadata"].get("labels") or {}
        caps = self._ctx.server.list("storage.k8s.io/v1", "CSIStorageCapacity")
        taken = capacity_to_take(caps, storage_class, labels, size)
        if taken is not None:
            self._ctx.server.update(taken)


def capacity_to_take(caps: list[Obj], storage_class: str, node_labels: dict[str, str], size: Any) -> Obj | None:
    """The CSIStorageCapacity a volume of ``size`` on a node with ``node_labels`` comes out
    of (the first by namespace/name of the class whose topology selects the node and whose
    capacity suffices), with its capacity already reduced; None when none has room."""
    for cap in sorted(caps, key=lambda c: (c["metadata"]["namespace"], c["metadata"]["name"])):
        if cap.get("storageClassName") != storage_class or cap.get("capacity") is None:
            continue
        if not selector_from_label_selector(cap.get("nodeTopology")).matches(node_labels):
            continue
        left = parse_quantity(cap["capacity"])
        if left >= size:
            return {**cap, "capacity": str(int(left - size))}
    return None


def provisioned_volume(name: str, pvc: Obj, driver: str, node: str, size: str) -> Obj:
    """The PersistentVolume a CSI provisioner creates for ``pvc`` on ``node``: its size,
    pre-bound to the claim (claimRef), pinned to the node."""
    meta = pvc["metadata"]
    term = {
        "matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]
    }
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {"pv.kubernetes.io/provisioned-by": driver}},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": list(pvc["spec"]["accessModes"]),
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": pvc["spec"].get("storageClassName"),
            "claimRef": {
                "kind": "PersistentVolumeClaim",
                "apiVersion": "v1",
                "namespace": meta["namespace"],
                "name": meta["name"],
                "uid": meta["uid"],
            },
            "csi": {"driver": driver, "volumeHandle": name},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
        },
    }

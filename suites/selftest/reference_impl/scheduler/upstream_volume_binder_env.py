"""Fixtures of upstream binder_test.go (v1.37.2) for the volume binder ports: its claims,
volumes, classes, capacities and ``testEnv`` (informer caches plus a fake API server)."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

from reference_impl.api.pv_helpers import (
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    SELECTED_NODE,
)
from reference_impl.apiserver.informers import object_key
from reference_impl.errors import Conflict, NotFound
from reference_impl.scheduler.plugins.volume_binder import VolumeBinder

Obj = dict[str, Any]
PROVISIONER = "test-provisioner"
WAIT, IMMEDIATE, WAIT_PROV, TOPO_MISMATCH = "waitClass", "immediateClass", "waitClassWithProvisioner", "topoMismatchClass"
NODE_KEY, NODE_VALUE = "nodeKey", "node1"
UNBOUND, PREBOUND, BOUND, SELECTED = range(4)


def make_pvc(name: str, size: str, node: str, state: int, pv_name: str, rv: str, cls: str | None) -> Obj:
    """``makeTestPVC``."""
    pvc: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": name, "namespace": "testns", "uid": "pvc-uid", "resourceVersion": rv},
                "spec": {"resources": {"requests": {"storage": size}}, "volumeMode": "Filesystem"}}
    if cls is not None:
        pvc["spec"]["storageClassName"] = cls
    if state == SELECTED:
        pvc["metadata"]["annotations"] = {SELECTED_NODE: node}
    if state == BOUND:
        pvc["metadata"]["annotations"] = {BIND_COMPLETED: "yes"}
    if state in (BOUND, PREBOUND):
        pvc["spec"]["volumeName"] = pv_name
    return pvc


def make_pv(name: str, node: str, capacity: str, rv: str, bound_to: Obj | None, cls: str) -> Obj:
    """``makeTestPV``: node affinity ``nodeKey In [node]``; pre-bound to ``bound_to``."""
    pv: Obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "resourceVersion": rv},
               "spec": {"capacity": {"storage": capacity}, "storageClassName": cls, "volumeMode": "Filesystem"},
               "status": {"phase": "Available"}}
    if node:
        term = {"matchExpressions": [{"key": NODE_KEY, "operator": "In", "values": [node]}]}
        pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
    if bound_to is not None:
        m = bound_to["metadata"]
        pv["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                                  "resourceVersion": m["resourceVersion"], "name": m["name"],
                                  "namespace": m["namespace"], "uid": m["uid"]}
        pv["metadata"]["annotations"] = {BOUND_BY_CONTROLLER: "yes"}
    return pv


def with_annotations(pvc: Obj, **anns: str) -> Obj:
    out = copy.deepcopy(pvc)
    out["metadata"]["annotations"] = {**(out["metadata"].get("annotations") or {}), **anns}
    return out


def add_provision_ann(pvc: Obj) -> Obj:
    """``addProvisionAnn``: selected-node = node1."""
    return with_annotations(pvc, **{SELECTED_NODE: NODE_VALUE})


def make_capacity(name: str, cls: str, node: str | None, capacity: str, max_size: str) -> Obj:
    """``makeCapacity``: an empty topology (all nodes) unless ``node`` is given."""
    c: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": {"name": name},
              "storageClassName": cls, "nodeTopology": {}}
    if node is not None:
        c["nodeTopology"]["matchLabels"] = {NODE_KEY: node}
    if capacity:
        c["capacity"] = capacity
    if max_size:
        c["maximumVolumeSize"] = max_size
    return c


def make_csi_driver(capacity: bool) -> Obj:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": PROVISIONER},
            "spec": {"storageCapacity": capacity}}


def make_pod(*claims: Obj, ephemeral: str = "", empty_dir: bool = False) -> Obj:
    """``makePod("test-pod").withNamespace("testns").withNodeName("node1")`` with volumes."""
    vols: list[Obj] = [{"name": f"vol{i}", "persistentVolumeClaim": {"claimName": c["metadata"]["name"]}}
                       for i, c in enumerate(claims)]
    if ephemeral:
        vols.append({"name": ephemeral, "ephemeral": {}})
    if empty_dir:
        vols.append({"name": "", "emptyDir": {}})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "test-pod", "namespace": "testns"},
            "spec": {"nodeName": "node1", "volumes": vols}}


def make_node(name: str, labels: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def _topology(*values: str) -> list[Obj]:
    return [{"matchLabelExpressions": [{"key": NODE_KEY, "values": list(values)}]}]


CLASSES: list[Obj] = [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": WAIT_PROV},
     "volumeBindingMode": "WaitForFirstConsumer", "provisioner": PROVISIONER,
     "allowedTopologies": _topology(NODE_VALUE, "reference-value")},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": IMMEDIATE},
     "volumeBindingMode": "Immediate"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": WAIT},
     "volumeBindingMode": "WaitForFirstConsumer", "provisioner": "kubernetes.io/no-provisioner"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": TOPO_MISMATCH},
     "volumeBindingMode": "WaitForFirstConsumer", "provisioner": PROVISIONER,
     "allowedTopologies": _topology("reference-value")},
]

# binder_test.go's package-level objects.
unbound_pvc = make_pvc("unbound-pvc", "1G", "", UNBOUND, "", "1", WAIT)
unbound_pvc2 = make_pvc("unbound-pvc2", "5G", "", UNBOUND, "", "1", WAIT)
prebound_pvc = make_pvc("prebound-pvc", "1G", "", PREBOUND, "pv-node1a", "1", WAIT)
prebound_pvc_node1a = make_pvc("unbound-pvc", "1G", "", PREBOUND, "pv-node1a", "1", WAIT)
bound_pvc = make_pvc("bound-pvc", "1G", "", BOUND, "pv-bound", "1", WAIT)
bound_pvc_node1a = make_pvc("unbound-pvc", "1G", "", BOUND, "pv-node1a", "1", WAIT)
immediate_unbound_pvc = make_pvc("immediate-unbound-pvc", "1G", "", UNBOUND, "", "1", IMMEDIATE)
immediate_bound_pvc = make_pvc("immediate-bound-pvc", "1G", "", BOUND, "pv-bound-immediate", "1", IMMEDIATE)
provisioned_pvc = make_pvc("provisioned-pvc", "1Gi", "", UNBOUND, "", "1", WAIT_PROV)
provisioned_pvc2 = make_pvc("provisioned-pvc2", "1Gi", "", UNBOUND, "", "1", WAIT_PROV)
provisioned_pvc_higher = make_pvc("provisioned-pvc2", "1Gi", "", UNBOUND, "", "2", WAIT_PROV)
provisioned_pvc_bound = make_pvc("provisioned-pvc", "1Gi", "", BOUND, "pv-bound", "1", WAIT_PROV)
no_provisioner_pvc = make_pvc("no-provisioner-pvc", "1Gi", "", UNBOUND, "", "1", WAIT)
topo_mismatch_pvc = make_pvc("topo-mismatch-pvc", "1Gi", "", UNBOUND, "", "1", TOPO_MISMATCH)
selected_node_pvc = make_pvc("provisioned-pvc", "1Gi", NODE_VALUE, SELECTED, "", "1", WAIT_PROV)
bound_migration_pvc = make_pvc("pvc-migration-bound", "1G", "", BOUND, "pv-migration-bound", "1", WAIT)


def _generic_pvc(owned: bool) -> Obj:
    """``makeGenericEphemeralPVC("test-volume", owned)``: owned by the (uid-less) pod."""
    pvc = make_pvc("test-pod-test-volume", "1G", "", BOUND, "pv-bound", "1", IMMEDIATE)
    if owned:
        pvc["metadata"]["ownerReferences"] = [{"name": "test-pod", "uid": "", "controller": True}]
    return pvc


conflicting_generic_pvc = _generic_pvc(False)
correct_generic_pvc = _generic_pvc(True)
pv_bound_generic = make_pv("pv-bound", "node1", "1G", "1", correct_generic_pvc, WAIT)
pv_node1a = make_pv("pv-node1a", "node1", "5G", "1", None, WAIT)
pv_node1b = make_pv("pv-node1b", "node1", "10G", "1", None, WAIT)
pv_node1c = make_pv("pv-node1b", "node1", "5G", "1", None, WAIT)
pv_node2 = make_pv("pv-node2", "node2", "1G", "1", None, WAIT)
pv_bound = make_pv("pv-bound", "node1", "1G", "1", bound_pvc, WAIT)
pv_node1a_bound = make_pv("pv-node1a", "node1", "5G", "1", unbound_pvc, WAIT)
pv_node1b_bound = make_pv("pv-node1b", "node1", "10G", "1", unbound_pvc2, WAIT)
pv_node1b_bound_higher = make_pv("pv-node1b", "node1", "10G", "2", unbound_pvc2, WAIT)
pv_bound_immediate = make_pv("pv-bound-immediate", "node1", "1G", "1", immediate_bound_pvc, IMMEDIATE)
pv_bound_immediate_node2 = make_pv("pv-bound-immediate", "node2", "1G", "1", immediate_bound_pvc, IMMEDIATE)
node1 = make_node("node1", {NODE_KEY: "node1"})
node2 = make_node("node2", {NODE_KEY: "node2"})
network_attached_capacity = make_capacity("net", WAIT_PROV, None, "1Gi", "")
node1_capacity = make_capacity("net", WAIT_PROV, "node1", "1Gi", "")
node2_capacity = make_capacity("net", WAIT_PROV, "node2", "1Gi", "")


def pv_remove_claim_uid(pv: Obj) -> Obj:
    out = copy.deepcopy(pv)
    out["spec"]["claimRef"]["uid"] = ""
    return out


class _Informer:
    def __init__(self) -> None:
        self.cache: dict[str, Obj] = {}

    def get(self, key: str) -> Obj | None:
        return self.cache.get(key)

    def items(self) -> Iterator[Obj]:
        yield from list(self.cache.values())


class Env:
    """``testEnv``: informer caches (``cache``) the binder reads, and the API server's
    objects (``api``) that updates go to, each kind keyed as a lister keys it."""

    def __init__(self) -> None:
        self._informers: dict[str, _Informer] = {}
        self.api: dict[str, dict[str, Obj]] = {}
        for c in CLASSES:
            self.add(c)
        self.binder = VolumeBinder(lambda gv, kind: self.informer(kind))

    def informer(self, kind: str) -> _Informer:
        return self._informers.setdefault(kind, _Informer())

    def add(self, obj: Obj, api: bool = True) -> None:
        """Add to the informer cache (and, unless told not to, to the API server)."""
        o = copy.deepcopy(obj)
        self.informer(o["kind"]).cache[object_key(o)] = o
        if api:
            self.api.setdefault(o["kind"], {})[object_key(o)] = copy.deepcopy(o)

    def init(self, cached: Sequence[Obj], api: Sequence[Obj] | None) -> None:
        """``initVolumes``/``initClaims``: api None means the cached objects."""
        for o in cached:
            self.add(o, api=api is None)
        for o in api or ():
            self.api.setdefault(o["kind"], {})[object_key(o)] = copy.deepcopy(o)

    def delete(self, objs: Sequence[Obj]) -> None:
        """``deleteVolumes``/``deleteClaims``: out of the informer cache."""
        for o in objs:
            self.informer(o["kind"]).cache.pop(object_key(o), None)

    def update(self, obj: Obj) -> Obj:
        """The fake API server's Update: optimistic concurrency, resourceVersion + 1."""
        stored = self.api.get(obj["kind"], {}).get(object_key(obj))
        if stored is None:
            raise NotFound(f'{obj["kind"]} "{object_key(obj)}" not found')
        if stored["metadata"].get("resourceVersion") != obj["metadata"].get("resourceVersion"):
            raise Conflict(f'{obj["kind"]} "{object_key(obj)}": the object has been modified')
        new = copy.deepcopy(obj)
        new["metadata"]["resourceVersion"] = str(int(obj["metadata"].get("resourceVersion") or "0") + 1)
        self.api[obj["kind"]][object_key(obj)] = new
        return copy.deepcopy(new)

    def update_and_sync(self, objs: Sequence[Obj]) -> None:
        """``updateVolumes``/``updateClaims``: update through the API, wait for the cache."""
        for o in objs:
            new = self.update(o)
            self.informer(new["kind"]).cache[object_key(new)] = new


def without_rv(obj: Obj | None) -> Obj | None:
    """Compare ignoring resourceVersion (validateBind / validateProvision / CheckVolumes)."""
    if obj is None:
        return None
    out = copy.deepcopy(obj)
    out["metadata"].pop("resourceVersion", None)
    return out

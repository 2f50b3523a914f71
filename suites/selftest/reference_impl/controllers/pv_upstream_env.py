"""A one-sync harness for upstream's PV controller tables (pkg/controller/volume/
persistentvolume framework_test.go: ``newVolume``, ``newClaim``, ``runSyncTests``,
``runMultisyncTests``).

Initial volumes and claims are stored in a real APIServer and reach a started
PVBinderController through its informers; then one ``syncClaim``/``syncVolume`` runs on
the first initial claim/volume, and the stored objects are compared with the expected
ones (resourceVersion ignored). The server assigns uids, so the rows' uids are mapped to
the server's and back. ``SKIP_LOCAL`` objects are stored but left out of the informer
cache (``annSkipLocalStore``); ``CACHE_ONLY`` ones are only in the cache.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api import make_namespace
from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory, object_key
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.pv_binder import PVBinderController
from reference_impl.errors import ApiError, Conflict
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS: Final = "default"
SKIP_LOCAL: Final = "pv-testing-skip-local-store"  # annSkipLocalStore
CACHE_ONLY: Final = "pv-testing-cache-only"  # harness-only: a stale cached claim (row 4-12)
MOCK_PLUGIN: Final = "kubernetes.io/mock-volume"
BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"
PROVISIONED_BY: Final = "pv.kubernetes.io/provisioned-by"
STORAGE_PROVISIONER: Final = "volume.kubernetes.io/storage-provisioner"
BETA_STORAGE_PROVISIONER: Final = "volume.beta.kubernetes.io/storage-provisioner"
SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"
CLASS_GOLD, CLASS_SILVER, CLASS_EMPTY, CLASS_WAIT = "gold", "silver", "", "wait"
CLASS_EXTERNAL, CLASS_UNKNOWN_INTERNAL = "external", "unknown-internal"


def _n(name: str) -> str:
    """Upstream's fake client takes names such as ``volume1-4_1`` or ``runningClaim``; the
    apiserver wants DNS subdomains, so ``_`` becomes ``.`` and capitals go lower case
    (everywhere a name appears)."""
    return name.replace("_", ".").lower()


def new_volume(name: str, capacity: str, uid: str, claim: str, phase: str, policy: str, cls: str,
               *annotations: str) -> Obj:
    """``newVolume``: a GCE PD volume (RWO+ROX, Filesystem), pre-bound when ``claim``."""
    name, claim = _n(name), _n(claim)
    pv: Obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
               "spec": {"capacity": {"storage": capacity}, "gcePersistentDisk": {"pdName": name},
                        "accessModes": [RWO, ROX], "persistentVolumeReclaimPolicy": policy,
                        "storageClassName": cls, "volumeMode": "Filesystem"},
               "status": {"phase": phase} if phase else {}}
    if claim:
        pv["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "uid": uid,
                                  "namespace": NS, "name": claim}
    if annotations:
        pv["metadata"]["annotations"] = {a: MOCK_PLUGIN if a == PROVISIONED_BY else "yes" for a in annotations}
    return pv


def new_claim(name: str, uid: str, capacity: str, volume: str, phase: str, cls: str | None,
              *annotations: str) -> Obj:
    """``newClaim``: RWO+ROX, Filesystem; a Bound claim has its request as capacity."""
    name, volume = _n(name), _n(volume)
    spec: Obj = {"accessModes": [RWO, ROX], "resources": {"requests": {"storage": capacity}},
                 "volumeName": volume, "volumeMode": "Filesystem"}
    if cls is not None:
        spec["storageClassName"] = cls
    pvc: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": name, "namespace": NS, "uid": uid}, "spec": spec, "status": {"phase": phase}}
    if annotations:
        pvc["metadata"]["annotations"] = {
            a: MOCK_PLUGIN if a in (STORAGE_PROVISIONER, BETA_STORAGE_PROVISIONER) else "yes" for a in annotations}
    if phase == "Bound":
        pvc["status"].update(accessModes=list(spec["accessModes"]), capacity={"storage": capacity})
    return pvc


def with_labels(labels: dict[str, str], pvs: list[Obj]) -> list[Obj]:
    pvs[0]["metadata"]["labels"] = dict(labels)
    return pvs


def with_label_selector(labels: dict[str, str], pvcs: list[Obj]) -> list[Obj]:
    pvcs[0]["spec"]["selector"] = {"matchLabels": dict(labels)}
    return pvcs


def with_volume_mode(mode: str, objs: list[Obj]) -> list[Obj]:
    """``withVolumeVolumeMode`` / ``withClaimVolumeMode``."""
    objs[0]["spec"]["volumeMode"] = mode
    return objs


def with_expected_capacity(capacity: str, pvcs: list[Obj]) -> list[Obj]:
    pvcs[0]["status"]["capacity"] = {"storage": capacity}
    return pvcs


def with_expected_vac(vac: str, pvcs: list[Obj]) -> list[Obj]:
    pvcs[0]["status"]["currentVolumeAttributesClassName"] = vac
    return pvcs


def claim_with_vac(vac: str, pvcs: list[Obj]) -> list[Obj]:
    pvcs[0]["spec"]["volumeAttributesClassName"] = vac
    return pvcs


def volumes_with_vac(vac: str, pvs: list[Obj]) -> list[Obj]:
    """``volumesWithVAC``; validation wants a CSI volume for an attributes class, so the
    GCE PD source becomes the equivalent CSI one."""
    for pv in pvs:
        pv["spec"]["volumeAttributesClassName"] = vac
        disk = pv["spec"].pop("gcePersistentDisk", None)
        if disk is not None:
            pv["spec"]["csi"] = {"driver": "pd.csi.storage.gke.io", "volumeHandle": disk["pdName"]}
    return pvs


def with_message(message: str, pvs: list[Obj]) -> list[Obj]:
    pvs[0]["status"]["message"] = message
    return pvs


def claim_with_annotation(name: str, value: str, pvcs: list[Obj]) -> list[Obj]:
    pvcs[0]["metadata"].setdefault("annotations", {})[name] = value
    return pvcs


def volumes_with_annotation(name: str, value: str, pvs: list[Obj]) -> list[Obj]:
    for pv in pvs:
        pv["metadata"].setdefault("annotations", {})[name] = value
    return pvs


def claim_with_data_source(name: str, kind: str, group: str, pvcs: list[Obj]) -> list[Obj]:
    """``claimWithDataSource``, with the ``dataSourceRef`` the apiserver mirrors from it."""
    pvcs[0]["spec"]["dataSource"] = {"name": name, "kind": kind, "apiGroup": group}
    pvcs[0]["spec"]["dataSourceRef"] = {"name": name, "kind": kind, "apiGroup": group}
    return pvcs


def claim_with_access_mode(modes: list[str], pvcs: list[Obj]) -> list[Obj]:
    pvcs[0]["spec"]["accessModes"] = list(modes)
    return pvcs


def volumes_with_finalizers(pvs: list[Obj], finalizers: list[str]) -> list[Obj]:
    for pv in pvs:
        pv["metadata"]["finalizers"] = list(finalizers)
    return pvs


def external_volume(name: str, capacity: str, uid: str, claim: str, phase: str, policy: str, cls: str,
                    driver: str, finalizers: list[str] | None, *annotations: str) -> Obj:
    """``newExternalProvisionedVolume``: a CSI volume of ``driver``; ``provisioned-by`` names it."""
    pv = new_volume(name, capacity, uid, claim, phase, policy, cls, *annotations)
    del pv["spec"]["gcePersistentDisk"]
    pv["spec"]["csi"] = {"driver": driver, "volumeHandle": "527b55dc-c7db-4574-9226-2e33318b06a3", "fsType": "ext4",
                         "volumeAttributes": {"Test-Key": "Test-Value"}}
    if finalizers:
        pv["metadata"]["finalizers"] = list(finalizers)
    if PROVISIONED_BY in (pv["metadata"].get("annotations") or {}):
        pv["metadata"]["annotations"][PROVISIONED_BY] = driver
    return pv


def host_path(path: str, pvs: list[Obj]) -> list[Obj]:
    """The volumes as ``hostPath`` ones at ``path``: kube-controller-manager's host-path
    plugin is the model's only deleter, standing in for upstream's mock plugin."""
    for pv in pvs:
        pv["spec"].pop("gcePersistentDisk", None)
        pv["spec"]["hostPath"] = {"path": path.replace("{name}", pv["metadata"]["name"]), "type": ""}
    return pvs


def claim_pod(name: str, claim: str, phase: str) -> Obj:
    """A pod of ``phase`` using ``claim`` as volume ``vol1`` (recycle_test.go's pods)."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": _n(name), "namespace": NS},
            "spec": {"containers": [{"name": "c", "image": "busybox"}],
                     "volumes": [{"name": "vol1", "persistentVolumeClaim": {"claimName": _n(claim)}}]},
            "status": {"phase": phase}}


def storage_class(name: str, provisioner: str = "kubernetes.io/no-provisioner", mode: str = "Immediate",
                  **anns: str) -> Obj:
    sc: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
               "provisioner": provisioner, "volumeBindingMode": mode}
    if anns:
        sc["metadata"]["annotations"] = dict(anns)
    return sc


@dataclass
class Row:
    """One ``controllerTest``: ``test`` is "claim", "claim-error" or "volume"."""

    initial_volumes: list[Obj]
    expected_volumes: list[Obj]
    initial_claims: list[Obj]
    expected_claims: list[Obj]
    events: list[str]
    test: str
    classes: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)
    after_store: Callable[[PVHarness], None] | None = None  # e.g. mark a volume deleted
    before_op: Callable[[PVHarness], None] | None = None  # upstream's preOperationHook


class PVHarness:
    """One control plane holding only the PV controller."""

    def __init__(self) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        fg = FeatureGates({})
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), fg)
        self.server.create(make_namespace(NS).build())
        informers = InformerFactory(self.server)
        self.trace = Trace(self.clock)
        self.ctrl = PVBinderController(ComponentContext(self.server, informers, self.clock, rng, fg, self.trace))
        self.ctrl.start()
        self.informers = informers
        self.uids: dict[str, str] = {}  # the rows' uids to the server's

    def _uid(self, row_uid: str) -> str:
        return self.uids.get(row_uid, row_uid)

    def store(self, row: Row) -> None:
        for sc in row.classes:
            self.server.create(copy.deepcopy(sc))
        for pod in row.pods:
            manifest = copy.deepcopy(pod)
            status = manifest.pop("status", None)
            out = self.server.create(manifest)
            if status:
                self.server.update_status({**out, "status": status})
        claims = self.informers.informer("v1", "PersistentVolumeClaim")
        for pvc in row.initial_claims:
            anns = pvc["metadata"].get("annotations") or {}
            if CACHE_ONLY in anns:
                continue
            manifest = copy.deepcopy(pvc)
            row_uid = manifest["metadata"].pop("uid")
            status = manifest.pop("status")
            out = self.server.create(manifest)
            self.uids[row_uid] = out["metadata"]["uid"]
            self.server.update_status({**out, "status": status})
            if SKIP_LOCAL in anns:
                claims.cache.pop(object_key(pvc), None)
        for pvc in row.initial_claims:
            if CACHE_ONLY in (pvc["metadata"].get("annotations") or {}):
                claims.cache[object_key(pvc)] = copy.deepcopy(pvc)
        volumes = self.informers.informer("v1", "PersistentVolume")
        for pv in row.initial_volumes:
            self.add_volume(pv)
            if SKIP_LOCAL in (pv["metadata"].get("annotations") or {}):
                volumes.cache.pop(object_key(pv), None)

    def add_volume(self, pv: Obj) -> Obj:
        """Store a row's volume (its claimRef uid mapped to the server's) with its status."""
        manifest = copy.deepcopy(pv)
        ref = manifest["spec"].get("claimRef")
        if ref is not None:
            if ref.get("uid"):
                ref["uid"] = self._uid(ref["uid"])
            else:
                ref.pop("uid", None)
        status = manifest.pop("status")
        out = self.server.create(manifest)
        return self.server.update_status({**out, "status": status})

    def install_hook(self, hook: Callable[[PVHarness], None]) -> None:
        """``preOperationHook``: ``hook`` runs before each delete, recycle or provision
        operation (the controller runs them inside its sync)."""
        ctrl: Any = self.ctrl
        def wrap(orig: Callable[[Obj], None]) -> Callable[[Obj], None]:
            def wrapped(obj: Obj) -> None:
                hook(self)
                orig(obj)
            return wrapped

        for name in ("_delete_volume_operation", "_recycle_volume_operation", "_provision_claim"):
            setattr(ctrl, name, wrap(getattr(ctrl, name)))

    def run(self, row: Row) -> ApiError | None:
        """The row's one sync; the error it raised, if any."""
        if row.after_store is not None:
            row.after_store(self)
        if row.before_op is not None:
            self.install_hook(row.before_op)
        try:
            if row.test == "volume":
                name = row.initial_volumes[0]["metadata"]["name"]
                self.ctrl._sync_volume(self.server.get("v1", "PersistentVolume", name))
            else:
                pvc = row.initial_claims[0]
                self.ctrl._sync_claim(self.server.get("v1", "PersistentVolumeClaim", pvc["metadata"]["name"], NS))
        except ApiError as err:
            return err
        return None

    def events(self) -> list[str]:
        """``"<type> <reason> <message>"`` for each event, in order."""
        out = []
        for r in self.trace.records:
            if r.component == self.ctrl.name:
                kind, _, message = r.detail.partition(" ")
                out.append(f"{kind} {r.event} {message}")
        return out

    def volumes(self) -> list[Obj]:
        return [self._project_volume(pv) for pv in self.server.list("v1", "PersistentVolume")]

    def claims(self) -> list[Obj]:
        return [self._project_claim(pvc) for pvc in self.server.list("v1", "PersistentVolumeClaim", NS)]

    def _row_uid(self, uid: str) -> str:
        back = {v: k for k, v in self.uids.items()}
        return back.get(uid, uid)

    def _project_volume(self, pv: Obj, stored: bool = True) -> Obj:
        spec, status = pv["spec"], pv.get("status") or {}
        ref = spec.get("claimRef")
        return {
            "name": pv["metadata"]["name"],
            "annotations": pv["metadata"].get("annotations") or {},
            "labels": pv["metadata"].get("labels") or {},
            "finalizers": sorted(f for f in pv["metadata"].get("finalizers") or () if f != "kubernetes.io/pv-protection"),
            "claimRef": None if ref is None else {
                "kind": ref.get("kind"), "apiVersion": ref.get("apiVersion"), "namespace": ref.get("namespace"),
                "name": ref.get("name"), "uid": self._row_uid(ref.get("uid", "")) if stored else ref.get("uid", "")},
            "spec": {k: v for k, v in spec.items() if k != "claimRef"},
            "phase": status.get("phase") or "",
            "message": status.get("message") or "",
        }

    def _project_claim(self, pvc: Obj, stored: bool = True) -> Obj:
        status = pvc.get("status") or {}
        uid = pvc["metadata"].get("uid", "")
        cap = status.get("capacity")
        return {
            "name": pvc["metadata"]["name"],
            "uid": self._row_uid(uid) if stored else uid,
            "annotations": pvc["metadata"].get("annotations") or {},
            "spec": {k: v for k, v in pvc["spec"].items() if v not in ("", None)},
            "phase": status.get("phase") or "",
            "accessModes": status.get("accessModes"),
            "capacity": None if cap is None else {k: parse_quantity(str(v)) for k, v in cap.items()},
            "vac": status.get("currentVolumeAttributesClassName"),
        }

    def expected_volumes(self, pvs: list[Obj]) -> list[Obj]:
        return sorted((self._project_volume(pv, False) for pv in pvs), key=lambda p: str(p["name"]))

    def expected_claims(self, pvcs: list[Obj]) -> list[Obj]:
        return sorted((self._project_claim(pvc, False) for pvc in pvcs), key=lambda p: str(p["name"]))


def check_events(got: list[str], expected: list[str]) -> None:
    """``checkEvents``: the first len(expected) events start with the expected strings (upstream
    reads only that many, so later ones go unchecked)."""
    assert len(got) >= len(expected), got
    for g, e in zip(got, expected, strict=False):
        assert g.startswith(e), (g, e)


def run_sync_row(row: Row, check: Callable[[PVHarness], None] | None = None) -> PVHarness:
    """``runSyncTests`` for one row."""
    h = PVHarness()
    h.store(row)
    err = h.run(row)
    if row.test == "claim-error":
        assert err is not None, "syncClaim succeeded when failure was expected"
    else:
        assert err is None, err
    assert h.volumes() == h.expected_volumes(row.expected_volumes)
    assert h.claims() == h.expected_claims([c for c in row.expected_claims
                                            if CACHE_ONLY not in (c["metadata"].get("annotations") or {})])
    check_events(h.events(), row.events)
    if check is not None:
        check(h)
    return h


def run_multisync_row(row: Row) -> PVHarness:
    """``runMultisyncTests`` for one row: the tested sync, then a sync of every object the
    controller writes, then periodic syncs of everything until one changes nothing.
    Version conflicts are ignored, as upstream's loop does."""
    h = PVHarness()
    h.store(row)
    changed: list[Obj] = []
    writes = [0]

    def on_write(ev: Any) -> None:
        writes[0] += 1
        if ev.type != "DELETED":
            changed.append(ev.obj)

    h.server.add_event_handler(on_write)
    assert h.run(row) is None
    first = True
    for _ in range(100):
        if not changed:
            if not first and writes[0] == 0:
                break
            first, writes[0] = False, 0  # SyncAll
            changed.extend(h.server.list("v1", "PersistentVolumeClaim", NS))
            changed.extend(h.server.list("v1", "PersistentVolume"))
            continue
        obj = changed.pop(0)
        try:
            if obj["kind"] == "PersistentVolume":
                h.ctrl._sync_volume(obj)
            else:
                h.ctrl._sync_claim(obj)
        except Conflict:
            pass
    else:
        raise AssertionError("too many iterations")
    assert h.volumes() == h.expected_volumes(row.expected_volumes)
    assert h.claims() == h.expected_claims(row.expected_claims)
    check_events(h.events(), row.events)
    return h

"""The PV controller's binding step (reference_impl/controllers/pv_binder.py): volume
phases, pre-bound volumes and claims, Immediate claims matched to Available volumes, and
delayed claims left for the scheduler."""

from __future__ import annotations

from typing import Any

from suites.selftest.reference_impl.controllers.controller_harness import Harness

Obj = dict[str, Any]
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"


def _class(name: str, mode: str) -> Obj:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": mode}


def _pv(name: str, size: str, cls: str, claim: str = "") -> Obj:
    pv: Obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
               "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                        "hostPath": {"path": f"/tmp/{name}"}}}
    if claim:
        pv["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": "default",
                                  "name": claim}
    return pv


def _pvc(name: str, size: str, cls: str, volume: str = "") -> Obj:
    pvc: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                         "resources": {"requests": {"storage": size}}}}
    if volume:
        pvc["spec"]["volumeName"] = volume
    return pvc


def _bound(h: Harness, claim: str, volume: str) -> bool:
    pvc, pv = h.get("v1", "PersistentVolumeClaim", claim), h.get("v1", "PersistentVolume", volume, None)
    assert pvc is not None and pv is not None
    return (pvc["spec"].get("volumeName") == volume
            and BIND_COMPLETED in (pvc["metadata"].get("annotations") or {})
            and (pvc.get("status") or {}).get("phase") == "Bound"
            and (pv.get("status") or {}).get("phase") == "Bound"
            and (pv["spec"].get("claimRef") or {}).get("uid") == pvc["metadata"]["uid"])


def test_a_new_volume_becomes_available(h: Harness) -> None:
    h.create(_pv("free", "1Gi", "manual"))
    pv = h.get("v1", "PersistentVolume", "free", None)
    assert pv is not None and pv["status"]["phase"] == "Available"


def test_an_immediate_claim_takes_the_smallest_fitting_volume(h: Harness) -> None:
    h.create(_class("imm", "Immediate"), _pv("big", "10Gi", "imm"), _pv("small", "2Gi", "imm"),
             _pv("tiny", "500Mi", "imm"))
    h.create(_pvc("data", "1Gi", "imm"))
    h.advance(1)
    assert _bound(h, "data", "small")
    big = h.get("v1", "PersistentVolume", "big", None)
    assert big is not None and big["status"]["phase"] == "Available"


def test_a_delayed_claim_waits_for_the_scheduler(h: Harness) -> None:
    """WaitForFirstConsumer: only a volume pre-bound to the claim (PreBind's claimRef) binds it."""
    h.create(_class("wait", "WaitForFirstConsumer"), _pv("local", "5Gi", "wait"))
    h.create(_pvc("data", "1Gi", "wait"))
    h.advance(1)
    pvc = h.get("v1", "PersistentVolumeClaim", "data")
    assert pvc is not None and not pvc["spec"].get("volumeName")
    pv = h.get("v1", "PersistentVolume", "local", None)
    assert pv is not None
    ref = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": "default", "name": "data",
           "uid": pvc["metadata"]["uid"]}
    h.server.update({**pv, "spec": {**pv["spec"], "claimRef": ref}})
    h.advance(1)
    assert _bound(h, "data", "local")


def test_pre_bound_volume_and_claim_are_bound(h: Harness) -> None:
    """A volume pre-bound by claimRef (no uid) and a claim pre-bound by volumeName."""
    h.create(_pv("a", "1Gi", "", claim="one"), _pv("b", "1Gi", ""))
    h.create(_pvc("one", "1Gi", ""), _pvc("two", "1Gi", "", volume="b"))
    h.advance(1)
    assert _bound(h, "one", "a")
    assert _bound(h, "two", "b")

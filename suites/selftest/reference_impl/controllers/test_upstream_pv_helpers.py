"""Upstream k8s.io/component-helpers v0.37.2 ``storage/volume`` tests, the helpers the PV
controller and the scheduler's volume binder share (``reference_impl/api/pv_helpers.py``):
``TestFindMatchVolumeWithNode`` (VolumeAttributesClass on; the gate-off variants are
skipped: the gate is GA in the reference), ``TestCheckVolumeNodeAffinity``,
``TestPersistentVolumeClaimHasClass`` and ``TestDelayBindingMode`` (the PV controller's
``IsDelayBindingMode``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api.pv_helpers import check_node_affinity, find_matching_volume
from reference_impl.apiserver.admission.default_storage_class import _has_class
from reference_impl.controllers.pv_status import PVSyncError
from suites.selftest.reference_impl.controllers.pv_upstream_env import PVHarness, storage_class

Obj = dict[str, Any]
RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"
GOLD, SILVER = "gold", "silver"


def _affinity(key: str, value: str) -> Obj:
    """``makeNodeAffinity``."""
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}


def _volume(uid: str, name: str, size: str, available: bool, **spec: Any) -> Obj:
    """``makeTestVolume``: a local RWO+ROX volume, Available or without a phase."""
    return {"metadata": {"uid": uid, "name": name},
            "spec": {"capacity": {"storage": size}, "local": {}, "accessModes": [RWO, ROX], "volumeMode": "Filesystem",
                     **spec},
            "status": {"phase": "Available"} if available else {}}


VOLUMES = [
    _volume("local-small", "local001", "5G", True),
    _volume("local-pd-very-large", "local002", "200E", True, storageClassName="large"),
    _volume("affinity-pv", "affinity001", "100G", True, storageClassName="wait", nodeAffinity=_affinity("key1", "value1")),
    _volume("affinity-pv2", "affinity002", "150G", True, storageClassName="wait",
            nodeAffinity=_affinity("key1", "value1")),
    _volume("affinity-prebound", "affinity003", "100G", True, storageClassName="wait",
            claimRef={"name": "claim02", "namespace": "myns"}, nodeAffinity=_affinity("key1", "value1")),
    _volume("affinity-pv3", "affinity003", "200G", True, storageClassName="wait",
            nodeAffinity=_affinity("key1", "value3")),
    _volume("affinity-pv4", "affinity004", "200G", False, storageClassName="wait",
            nodeAffinity=_affinity("key1", "value4")),
]


def _with_vac(vac: str) -> list[Obj]:
    out = copy.deepcopy(VOLUMES)
    for pv in out:
        pv["spec"]["volumeAttributesClassName"] = vac
    return out


def _claim(name: str, size: str, modes: list[str], vac: str | None = None) -> Obj:
    """``makeTestPersistentVolumeClaim``: class ``wait``, Filesystem."""
    spec: Obj = {"accessModes": modes, "resources": {"requests": {"storage": size}}, "storageClassName": "wait",
                 "volumeMode": "Filesystem"}
    if vac is not None:
        spec["volumeAttributesClassName"] = vac
    return {"metadata": {"name": name, "namespace": "myns"}, "spec": spec}


def _node(value: str) -> dict[str, str]:
    return {"key1": value}


GATE_OFF = "VolumeAttributesClass is GA in the reference: the gate cannot be off"
FIND_WITH_NODE = [
    ("success-match", "affinity-pv", VOLUMES, _claim("claim01", "100G", [RWO]), _node("value1"), ()),
    ("success-prebound", "affinity-prebound", VOLUMES, _claim("claim02", "100G", [RWO]), _node("value1"), ()),
    ("success-exclusion", "affinity-pv2", VOLUMES, _claim("claim01", "100G", [RWO]), _node("value1"), ("affinity001",)),
    ("fail-exclusion", "", VOLUMES, _claim("claim01", "100G", [RWO]), _node("value1"),
     ("affinity001", "affinity002", "affinity002-vac")),
    ("fail-accessmode", "", VOLUMES, _claim("claim01", "100G", [RWX]), _node("value1"), ()),
    ("fail-nodeaffinity", "", VOLUMES, _claim("claim01", "100G", [RWO]), _node("value2"), ()),
    ("fail-prebound-node-affinity", "", VOLUMES, _claim("claim02", "100G", [RWO]), _node("value3"), ()),
    ("fail-nonavaliable", "", VOLUMES, _claim("claim04", "100G", [RWO]), _node("value4"), ()),
    ("success-bad-and-good-node-affinity", "affinity-pv3", VOLUMES, _claim("claim03", "100G", [RWO]), _node("value3"),
     ()),
    ("success-match-with-vac", "affinity-pv", _with_vac(GOLD), _claim("claim01", "100G", [RWO], GOLD), _node("value1"),
     ()),
    ("fail-vac", "", VOLUMES, _claim("claim01", "100G", [RWO], SILVER), _node("value1"), ()),
    ("fail-prebound-vac", "", _with_vac(GOLD), _claim("claim02", "100G", [RWO], SILVER), _node("value1"), ()),
]


@pytest.mark.parametrize(("expected", "volumes", "claim", "labels", "excluded"),
                         [pytest.param(*row[1:], id=f"[VolumeAttributiesClass: true] {row[0]}")
                          for row in FIND_WITH_NODE])
def test_find_match_volume_with_node(expected: str, volumes: list[Obj], claim: Obj, labels: dict[str, str],
                                     excluded: tuple[str, ...]) -> None:
    """``TestFindMatchVolumeWithNode`` (scheduler path: a node, delayed binding)."""
    got = find_matching_volume(claim, volumes, labels, excluded, True)
    assert ("" if got is None else got["metadata"]["uid"]) == expected


@pytest.mark.skip(reason=GATE_OFF)
@pytest.mark.parametrize("name", ["fail-on-error", "fail-volumes-vac", "gate-off variants of the other rows"])
def test_find_match_volume_with_node_gate_off(name: str) -> None:
    """``TestFindMatchVolumeWithNode`` with VolumeAttributesClass off."""


NODE_LABELS = {"test-key1": "test-value1", "test-key2": "test-value2"}


def _term(*exprs: tuple[str, list[str]]) -> Obj:
    return {"matchExpressions": [{"key": k, "operator": "In", "values": v} for k, v in exprs]}


AFFINITY: list[tuple[str, bool, Obj | None]] = [
    ("valid-nil", True, None),
    ("valid-no-constraints", True, {}),
    ("select-nothing", False, {"required": {}}),
    ("select-nothing-empty-terms", False, {"required": {"nodeSelectorTerms": [{"matchExpressions": []}]}}),
    ("valid-multiple-terms", True, {"required": {"nodeSelectorTerms": [
        _term(("test-key3", ["test-value1", "test-value3"])), _term(("test-key2", ["test-value0", "test-value2"]))]}}),
    ("valid-multiple-match-expressions", True, {"required": {"nodeSelectorTerms": [
        _term(("test-key1", ["test-value1", "test-value3"]), ("test-key2", ["test-value0", "test-value2"]))]}}),
    ("invalid-multiple-match-expressions-key", False, {"required": {"nodeSelectorTerms": [
        _term(("test-key1", ["test-value1", "test-value3"]), ("test-key3", ["test-value0", "test-value2"]))]}}),
    ("invalid-multiple-match-expressions-values", False, {"required": {"nodeSelectorTerms": [
        _term(("test-key1", ["test-value3", "test-value4"]), ("test-key2", ["test-value0", "test-value2"]))]}}),
    ("invalid-multiple-terms", False, {"required": {"nodeSelectorTerms": [
        _term(("test-key3", ["test-value1", "test-value3"])), _term(("test-key2", ["test-value0", "test-value1"]))]}}),
]


@pytest.mark.parametrize(("ok", "affinity"), [pytest.param(ok, a, id=n) for n, ok, a in AFFINITY])
def test_check_volume_node_affinity(ok: bool, affinity: Obj | None) -> None:
    """``TestCheckVolumeNodeAffinity``."""
    pv: Obj = {"metadata": {"name": "test-constraints"}, "spec": {}}
    if affinity is not None:
        pv["spec"]["nodeAffinity"] = affinity
    assert check_node_affinity(pv, NODE_LABELS) is ok


@pytest.mark.parametrize(("want", "pvc"), [
    pytest.param(False, {"metadata": {}, "spec": {}}, id="no storage class"),
    pytest.param(True, {"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": ""}}, "spec": {}},
                 id="storage class set on annotation"),
    pytest.param(True, {"metadata": {}, "spec": {"storageClassName": ""}}, id="storage class set on spec"),
])
def test_persistent_volume_claim_has_class(want: bool, pvc: Obj) -> None:
    """``TestPersistentVolumeClaimHasClass`` (the DefaultStorageClass admission's copy,
    which the PV controller's ``assignDefaultStorageClass`` rule mirrors)."""
    assert _has_class(pvc) is want


@pytest.mark.parametrize(("cls", "delay", "fails"), [
    pytest.param(None, False, False, id="nil-class"),
    pytest.param("not-here", False, False, id="class-not-found"),
    pytest.param("no-mode", False, True, id="no-mode-class"),
    pytest.param("immediate-mode", False, False, id="immediate-mode-class"),
    pytest.param("wait-mode", True, False, id="wait-mode-class"),
])
def test_delay_binding_mode(cls: str | None, delay: bool, fails: bool) -> None:
    """``TestDelayBindingMode``: the controller's class lister is its informer; a class
    without a binding mode cannot be stored (the apiserver defaults it), so it is put in
    the informer's cache directly."""
    h = PVHarness()
    h.server.create(storage_class("immediate-mode", mode="Immediate"))
    h.server.create(storage_class("wait-mode", mode="WaitForFirstConsumer"))
    no_mode = storage_class("no-mode")
    del no_mode["volumeBindingMode"]
    h.informers.informer("storage.k8s.io/v1", "StorageClass").cache["no-mode"] = no_mode
    pvc: Obj = {"metadata": {"annotations": {}}, "spec": {} if cls is None else {"storageClassName": cls}}
    if fails:
        with pytest.raises(PVSyncError, match='VolumeBindingMode not set for StorageClass "no-mode"'):
            h.ctrl._is_delay_binding_mode(pvc)
    else:
        assert h.ctrl._is_delay_binding_mode(pvc) is delay

"""VolumeBinding's queueing hints against volumebinding/volume_binding_test.go.

Ported: ``TestIsSchedulableAfterCSINodeChange``,
``TestIsSchedulableAfterPersistentVolumeClaimChange``, ``TestIsSchedulableAfterStorageClassChange``,
``TestIsSchedulableAfterCSIStorageCapacityChange`` and ``TestIsSchedulableAfterCSIDriverChange``.
Rows passing a non-API object ("unexpected objects", "type conversion error") cannot reach
a Python hint and are skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import EventResource, QueueingHint, QueueingHintFn
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import volume_binding as vb
from suites.selftest.reference_impl.scheduler.upstream_st_b import snapshot

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
R = EventResource
_WRONG = pytest.mark.skip(reason="a non-API object cannot reach the Python hint")
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"


def _hint(resource: EventResource) -> QueueingHintFn:
    pl = vb.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vb.VolumeBinding)
    hint = next(r.hint for r in pl.events_to_register() if r.event.resource is resource)
    assert hint is not None
    return hint


def _pod(ns: str = "default", *volumes: Obj) -> Obj:
    """``makePod("pod-a")`` with the test's volume builders."""
    return {"metadata": {"name": "pod-a", "namespace": ns}, "spec": {"volumes": list(volumes)}}


def _pvc_vol(claim: str) -> Obj:
    return {"name": claim, "persistentVolumeClaim": {"claimName": claim}}


def _eph_vol(name: str) -> Obj:
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}


def _pvc(name: str) -> Obj:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {}}


def _csinode(migrated: str | None) -> Obj:
    ann = {} if migrated is None else {MIGRATED: migrated}
    return {"metadata": {"name": "csinode-a", "annotations": ann}, "spec": {"drivers": []}}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, None, Q, marks=_WRONG, id="unexpected objects are passed"),
        pytest.param(None, _csinode(None), Q, id="CSINode is newly created"),
        pytest.param(_csinode("test1"), _csinode("test1, test2"), Q,
                     id="CSINode's migrated-plugins annotations is added"),
        pytest.param(_csinode("test1"), _csinode("test2"), Q,
                     id="CSINode's migrated-plugins annotation is updated"),
        pytest.param(_csinode("test1"), _csinode("test1"), SKIP,
                     id="CSINode is updated but migrated-plugins annotation gets unchanged"),
    ],
)
def test_is_schedulable_after_csi_node_change(old: Obj | None, new: Obj | None, want: QueueingHint) -> None:
    assert _hint(R.CSI_NODE)(_pod(), old, new) is want


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        pytest.param(_pod("default", {"name": "e", "emptyDir": {}}), _pvc("pvc-b"), _pvc("pvc-b"), SKIP,
                     id="pod has no pvc or ephemeral volumes"),
        pytest.param(_pod("ns-a", _pvc_vol("pvc-a"), _pvc_vol("pvc-b")), None, _pvc("pvc-b"), SKIP,
                     id="pvc with the same name as the one used by the pod in a different namespace "
                        "is modified"),
        pytest.param(_pod("default", _pvc_vol("pvc-a"), _pvc_vol("pvc-c")), _pvc("pvc-b"), _pvc("pvc-b"),
                     SKIP, id="pod has no pvc that is being modified"),
        pytest.param(_pod("default", _eph_vol("ephemeral-a"), _eph_vol("ephemeral-c")),
                     _pvc("pod-a-ephemeral-b"), _pvc("pod-a-ephemeral-b"), SKIP,
                     id="pod has no generic ephemeral volume that is being modified"),
        pytest.param(_pod("default", _pvc_vol("pvc-a"), _pvc_vol("pvc-b")), _pvc("pvc-b"), _pvc("pvc-b"),
                     Q, id="pod has the pvc that is being modified"),
        pytest.param(_pod("default", _eph_vol("ephemeral-a"), _eph_vol("ephemeral-b")),
                     _pvc("pod-a-ephemeral-b"), _pvc("pod-a-ephemeral-b"), Q,
                     id="pod has the generic ephemeral volume that is being modified"),
        pytest.param(_pod(), None, None, Q, marks=_WRONG, id="type conversion error"),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_change(
    pod: Obj, old: Obj | None, new: Obj | None, want: QueueingHint
) -> None:
    assert _hint(R.PERSISTENT_VOLUME_CLAIM)(pod, old, new) is want


_TOPOLOGY = [{"matchLabelExpressions": [{"key": "kubernetes.io/hostname", "values": ["node-a"]}]}]


def _sc(topologies: list[Obj] | None = None) -> Obj:
    sc: Obj = {"metadata": {"name": "sc-a"}}
    if topologies is not None:
        sc["allowedTopologies"] = topologies
    return sc


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, _sc(), Q, id="When a new StorageClass is created, it returns Queue"),
        pytest.param(_sc(), _sc(_TOPOLOGY), Q,
                     id="When the AllowedTopologies are changed, it returns Queue"),
        pytest.param(_sc(), _sc(), SKIP,
                     id="When there are no changes to the StorageClass, it returns QueueSkip"),
        pytest.param(None, None, Q, marks=_WRONG, id="type conversion error"),
    ],
)
def test_is_schedulable_after_storage_class_change(old: Obj | None, new: Obj | None, want: QueueingHint) -> None:
    assert _hint(R.STORAGE_CLASS)(_pod(), old, new) is want


def _cap(capacity: int | None = None, maximum: int | None = None) -> Obj:
    c: Obj = {"metadata": {"name": "cap", "namespace": "default"}, "storageClassName": "sc-a"}
    if capacity is not None:
        c["capacity"] = str(capacity)
    if maximum is not None:
        c["maximumVolumeSize"] = str(maximum)
    return c


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, _cap(), Q, id="When a new CSIStorageCapacity is created, it returns Queue"),
        pytest.param(_cap(), _cap(100), Q,
                     id="When the volume limit is increase(Capacity set), it returns Queue"),
        pytest.param(_cap(), _cap(maximum=100), Q,
                     id="When the volume limit is increase(MaximumVolumeSize set), it returns Queue"),
        pytest.param(_cap(50), _cap(100), Q,
                     id="When the volume limit is increase(Capacity increase), it returns Queue"),
        pytest.param(_cap(100, 50), _cap(100), Q,
                     id="When the volume limit is increase(MaximumVolumeSize unset), it returns Queue"),
        pytest.param(_cap(100, 50), _cap(100, 60), Q,
                     id="When the volume limit is increase(MaximumVolumeSize increase), it returns Queue"),
        pytest.param(_cap(100, 50), _cap(100, 50), SKIP,
                     id="When there are no changes to the CSIStorageCapacity, it returns QueueSkip"),
        pytest.param(_cap(100), _cap(100), SKIP,
                     id="When the volume limit is equal(Capacity), it returns QueueSkip"),
        pytest.param(_cap(100, 50), _cap(50), SKIP,
                     id="When the volume limit is equal(MaximumVolumeSize unset), it returns QueueSkip"),
        pytest.param(_cap(100), _cap(90), SKIP,
                     id="When the volume limit is decrease(Capacity), it returns QueueSkip"),
        pytest.param(_cap(maximum=100), _cap(maximum=90), SKIP,
                     id="When the volume limit is decrease(MaximumVolumeSize), it returns QueueSkip"),
        pytest.param(None, None, Q, marks=_WRONG, id="type conversion error"),
    ],
)
def test_is_schedulable_after_csi_storage_capacity_change(
    old: Obj | None, new: Obj | None, want: QueueingHint
) -> None:
    assert _hint(R.CSI_STORAGE_CAPACITY)(_pod(), old, new) is want


def _driver(name: str, capacity: bool | None) -> Obj:
    spec = {} if capacity is None else {"storageCapacity": capacity}
    return {"metadata": {"name": name}, "spec": spec}


_CSI_POD = _pod("default", {"name": "csi", "csi": {"driver": "test1"}})


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        pytest.param(_pod(), _driver("test1", None), _driver("test1", True), SKIP, id="pod has no CSIDriver"),
        pytest.param(_pod(), None, None, Q, marks=_WRONG, id="unexpected objects are passed"),
        pytest.param(_CSI_POD, _driver("test2", True), _driver("test2", False), SKIP,
                     id="driver name in pod and csidriver name are different"),
        pytest.param(_CSI_POD, _driver("test1", None), _driver("test1", None), SKIP,
                     id="original StorageCapacity is nil"),
        pytest.param(_CSI_POD, _driver("test1", False), _driver("test1", False), SKIP,
                     id="original StorageCapacity is false"),
        pytest.param(_CSI_POD, _driver("test1", True), _driver("test1", None), Q,
                     id="modified StorageCapacity is nil"),
        pytest.param(_CSI_POD, _driver("test1", True), _driver("test1", True), SKIP,
                     id="modified StorageCapacity is true"),
        pytest.param(_CSI_POD, _driver("test1", True), _driver("test1", False), Q,
                     id="modified StorageCapacity is false"),
    ],
)
def test_is_schedulable_after_csi_driver_change(
    pod: Obj, old: Obj | None, new: Obj | None, want: QueueingHint
) -> None:
    assert _hint(R.CSI_DRIVER)(pod, old, new) is want

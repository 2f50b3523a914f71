"""Rows of pkg/api/persistentvolumeclaim/util_test.go (v1.37.2) on ``strategies.pvc_util``:
TestDropDisabledSnapshotDataSource, TestPVCDataSourceSpecFilter, TestDataSourceFilter,
TestDataSourceRef, TestDropDisabledVolumeAttributesClass, TestDropDisabledFieldsFromStatus
(TestWarnings belongs to the warnings port). The Go rows that turn a locked GA gate off
run at an older emulation version; here a gate table with that gate unlocked stands in.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from reference_impl.apiserver.strategies import pvc_util
from reference_impl.features import GATES, FeatureGates

Obj = dict[str, Any]


def _gates(**values: bool) -> FeatureGates:
    """Gates with ``values`` set; locked GA gates are unlocked (SetFeatureGateEmulationVersion)."""
    known = {
        n: dataclasses.replace(s, locked=False) if n in values else s for n, s in GATES.items()
    }
    return FeatureGates(values, known=known)


# --- TestDropDisabledSnapshotDataSource: a VolumeSnapshot dataSource always survives.
_SNAP_DS: Obj = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "test_snapshot"}  # noqa: E501
_SNAP_PVCS: dict[str, Obj | None] = {
    "pvc without DataSource": {"spec": {}},
    "pvc with DataSource": {"spec": {"dataSource": _SNAP_DS}},
    "is nil": None,
}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(o, n, id=f"old pvc {o}, new pvc {n}")
        for o in _SNAP_PVCS
        for n in _SNAP_PVCS
        if _SNAP_PVCS[n] is not None
    ],
)
def test_drop_disabled_snapshot_data_source(old: str, new: str) -> None:
    old_pvc, new_pvc = copy.deepcopy(_SNAP_PVCS[old]), copy.deepcopy(_SNAP_PVCS[new])
    assert new_pvc is not None
    pvc_util.enforce_data_source_backwards_compatibility(new_pvc["spec"], None)
    assert old_pvc == _SNAP_PVCS[old]
    assert new_pvc == _SNAP_PVCS[new]


# --- TestPVCDataSourceSpecFilter
_CLONE: Obj = {"apiGroup": "", "kind": "PersistentVolumeClaim", "name": "test_clone"}
_CLONE_NIL_GROUP: Obj = {"kind": "PersistentVolumeClaim", "name": "test_clone"}
_CLONE_BAD: Obj = {"apiGroup": "invalid.pvc.api.group", "kind": "PersistentVolumeClaim", "name": "test_clone_invalid"}  # noqa: E501


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        pytest.param({}, None, id="enabled with empty ds"),
        pytest.param({"dataSource": _CLONE_BAD}, None, id="enabled with invalid spec"),
        pytest.param({"dataSource": _CLONE}, _CLONE, id="enabled with valid spec"),
        pytest.param(
            {"dataSource": _CLONE_NIL_GROUP},
            _CLONE_NIL_GROUP,
            id="enabled with valid spec but nil APIGroup",
        ),
    ],
)
def test_pvc_data_source_spec_filter(spec: Obj, want: Obj | None) -> None:
    spec = copy.deepcopy(spec)
    pvc_util.enforce_data_source_backwards_compatibility(spec, None)
    assert spec.get("dataSource") == want


def _ds(group: str, kind: str, name: str) -> Obj:
    return {"apiGroup": group, "kind": kind, "name": name}


def _ref(group: str, kind: str, name: str, ns: str | None = None) -> Obj:
    out = _ds(group, kind, name)
    if ns is not None:
        out["namespace"] = ns
    return out


_VOL = _ds("", "PersistentVolumeClaim", "my-vol")
_VOL_REF = _ref("", "PersistentVolumeClaim", "my-vol")
_XNS_VOL_REF = _ref("", "PersistentVolumeClaim", "my-vol", "ns1")


# --- TestDataSourceFilter: (spec, oldSpec, xnsEnabled, want, wantRef)
@pytest.mark.parametrize(
    ("spec", "old_spec", "xns", "want", "want_ref"),
    [
        pytest.param({}, {}, False, None, None, id="empty ds"),
        pytest.param({"dataSource": _VOL}, {}, False, _VOL, None, id="volume ds"),
        pytest.param({"dataSourceRef": _VOL_REF}, {}, False, None, _VOL_REF, id="volume ds ref"),
        pytest.param(
            {"dataSource": _VOL, "dataSourceRef": _VOL_REF},
            {},
            False,
            _VOL,
            _VOL_REF,
            id="both data sources",
        ),
        pytest.param(
            {"dataSourceRef": _XNS_VOL_REF},
            {},
            True,
            None,
            _XNS_VOL_REF,
            id="xns enabled with xns volume ds",
        ),
        pytest.param(
            {"dataSourceRef": _XNS_VOL_REF},
            {"dataSourceRef": _XNS_VOL_REF},
            True,
            None,
            _XNS_VOL_REF,
            id="xns enabled with xns volume ds when xns volume exists in oldSpec",
        ),
        pytest.param({"dataSourceRef": _XNS_VOL_REF}, {}, False, None, None, id="xns volume ds"),
        pytest.param(
            {"dataSourceRef": _XNS_VOL_REF},
            {"dataSourceRef": _XNS_VOL_REF},
            False,
            None,
            _XNS_VOL_REF,
            id="xns volume ds when xns volume exists in oldSpec",
        ),
        pytest.param(
            {"dataSourceRef": _XNS_VOL_REF},
            {"dataSourceRef": _VOL_REF},
            False,
            None,
            _XNS_VOL_REF,
            id="xns volume ds when volume exists in oldSpec",
        ),
    ],
)
def test_data_source_filter(
    spec: Obj, old_spec: Obj, xns: bool, want: Obj | None, want_ref: Obj | None
) -> None:
    spec = copy.deepcopy(spec)
    gates = FeatureGates({"CrossNamespaceVolumeDataSource": xns})
    pvc_util.drop_disabled_fields(spec, old_spec, gates)
    assert spec.get("dataSource") == want
    assert spec.get("dataSourceRef") == want_ref


_SNAP = _ds("snapshot.storage.k8s.io", "VolumeSnapshot", "my-snap")
_GEN = _ds("generic.storage.k8s.io", "Generic", "my-foo")
_CORE = _ds("", "Pod", "my-pod")


def _ns(ref: Obj) -> Obj:
    return {**ref, "namespace": "ns1"}


# --- TestDataSourceRef (NormalizeDataSources): (spec, want, wantRef)
@pytest.mark.parametrize(
    ("spec", "want", "want_ref"),
    [
        pytest.param({}, None, None, id="empty ds"),
        pytest.param({"dataSource": _VOL}, _VOL, _VOL, id="volume ds"),
        pytest.param({"dataSource": _SNAP}, _SNAP, _SNAP, id="snapshot ds"),
        pytest.param({"dataSource": _GEN}, _GEN, _GEN, id="generic ds"),
        pytest.param({"dataSource": _CORE}, _CORE, _CORE, id="core ds"),
        pytest.param({"dataSourceRef": _VOL}, _VOL, _VOL, id="volume ds ref"),
        pytest.param({"dataSourceRef": _SNAP}, _SNAP, _SNAP, id="snapshot ds ref"),
        pytest.param({"dataSourceRef": _GEN}, _GEN, _GEN, id="generic ds ref"),
        pytest.param({"dataSourceRef": _CORE}, _CORE, _CORE, id="core ds ref"),
        pytest.param({"dataSourceRef": _ns(_VOL)}, None, _ns(_VOL), id="xns volume ds ref"),
        pytest.param({"dataSourceRef": _ns(_SNAP)}, None, _ns(_SNAP), id="xns snapshot ds ref"),
        pytest.param({"dataSourceRef": _ns(_GEN)}, None, _ns(_GEN), id="xns generic ds ref"),
        pytest.param({"dataSourceRef": _ns(_CORE)}, None, _ns(_CORE), id="xns core ds ref"),
    ],
)
def test_data_source_ref(spec: Obj, want: Obj | None, want_ref: Obj | None) -> None:
    spec = copy.deepcopy(spec)
    pvc_util.normalize_data_sources(spec)
    assert spec.get("dataSource") == want
    assert spec.get("dataSourceRef") == want_ref


# --- TestDropDisabledVolumeAttributesClass: (spec, oldSpec, vacEnabled, wantVAC)
_VAC: Obj = {"volumeAttributesClassName": "foo"}


@pytest.mark.parametrize(
    ("spec", "old_spec", "enabled", "want"),
    [
        pytest.param({}, {}, False, None, id="vac disabled with empty vac"),
        pytest.param(_VAC, {}, False, None, id="vac disabled with vac"),
        pytest.param({}, {}, True, None, id="vac enabled with empty vac"),
        pytest.param(_VAC, {}, True, "foo", id="vac enabled with vac"),
        pytest.param(_VAC, {}, False, None, id="vac disabled with vac when vac doesn't exists in oldSpec"),  # noqa: E501
        pytest.param(_VAC, _VAC, False, "foo", id="vac disabled with vac when vac exists in oldSpec"),  # noqa: E501
        pytest.param(_VAC, {}, True, "foo", id="vac enabled with vac when vac doesn't exists in oldSpec"),  # noqa: E501
        pytest.param(_VAC, _VAC, True, "foo", id="vac enable with vac when vac exists in oldSpec"),
    ],
)
def test_drop_disabled_volume_attributes_class(
    spec: Obj, old_spec: Obj, enabled: bool, want: str | None
) -> None:
    spec = copy.deepcopy(spec)
    pvc_util.drop_disabled_fields(spec, old_spec, _gates(VolumeAttributesClass=enabled))
    assert spec.get("volumeAttributesClassName") == want


def _status(**fields: Any) -> Obj:
    return {"status": dict(fields)}


_EMPTY: Obj = {"status": {}}
_ALLOC5 = _status(allocatedResources={"storage": "5G"})
_ALLOC10 = _status(allocatedResources={"storage": "10G"})
_RESIZE = _status(allocatedResourceStatuses={"storage": "NodeResizeInfeasible"})
_CUR_VAC = _status(currentVolumeAttributesClassName="foo")
_MODIFY = _status(modifyVolumeStatus={"targetVolumeAttributesClassName": "bar", "status": "Pending"})  # noqa: E501
_HEALTH = _status(healthStatus={"healthConditions": [{"status": "Degraded", "reason": "DiskSlow"}]})  # noqa: E501

# --- TestDropDisabledFieldsFromStatus: (name, recover, vac, health, pvc, old, expected)
_STATUS_ROWS: list[tuple[str, bool, bool, bool, Obj, Obj | None, Obj]] = [
    ("for:newPVC=hasAllocatedResource,oldPVC=doesnot,featuregate=false; should drop field", False, False, False, _ALLOC5, _EMPTY, _EMPTY),  # noqa: E501
    ("for:newPVC=hasAllocatedResource,oldPVC=doesnot,featuregate=RecoverVolumeExpansionFailure=true; should keep field", True, False, False, _ALLOC5, _EMPTY, _ALLOC5),  # noqa: E501
    ("for:newPVC=hasAllocatedResource,oldPVC=hasAllocatedResource,featuregate=RecoverVolumeExpansionFailure=true; should keep field", True, False, False, _ALLOC5, _ALLOC5, _ALLOC5),  # noqa: E501
    ("for:newPVC=hasAllocatedResource,oldPVC=hasAllocatedResource,featuregate=false; should keep field", False, False, False, _ALLOC10, _ALLOC5, _ALLOC10),  # noqa: E501
    ("for:newPVC=hasAllocatedResource,oldPVC=nil,featuregate=false; should drop field", False, False, False, _ALLOC5, None, _EMPTY),  # noqa: E501
    ("for:newPVC=hasResizeStatus,oldPVC=nil, featuregate=false should drop field", False, False, False, _RESIZE, None, _EMPTY),  # noqa: E501
    ("for:newPVC=hasResizeStatus,oldPVC=doesnot,featuregate=RecoverVolumeExpansionFailure=true; should keep field", True, False, False, _RESIZE, _EMPTY, _RESIZE),  # noqa: E501
    ("for:newPVC=hasResizeStatus,oldPVC=hasResizeStatus,featuregate=RecoverVolumeExpansionFailure=true; should keep field", True, False, False, _RESIZE, _RESIZE, _RESIZE),  # noqa: E501
    ("for:newPVC=hasResizeStatus,oldPVC=hasResizeStatus,featuregate=false; should keep field", False, False, False, _RESIZE, _RESIZE, _RESIZE),  # noqa: E501
    ("for:newPVC=hasVolumeAttributeClass,oldPVC=nil, featuregate=false should drop field", False, False, False, _CUR_VAC, None, _EMPTY),  # noqa: E501
    ("for:newPVC=hasVolumeAttributeClass,oldPVC=doesnot,featuregate=VolumeAttributesClass=true; should keep field", False, True, False, _CUR_VAC, _EMPTY, _CUR_VAC),  # noqa: E501
    ("for:newPVC=hasVolumeAttributeClass,oldPVC=hasVolumeAttributeClass,featuregate=VolumeAttributesClass=true; should keep field", False, True, False, _CUR_VAC, _CUR_VAC, _CUR_VAC),  # noqa: E501
    ("for:newPVC=hasVolumeAttributeClass,oldPVC=hasVolumeAttributeClass,featuregate=false; should keep field", False, False, False, _CUR_VAC, _CUR_VAC, _CUR_VAC),  # noqa: E501
    ("for:newPVC=hasVolumeAttributesModifyStatus,oldPVC=nil, featuregate=false should drop field", False, False, False, _MODIFY, None, _EMPTY),  # noqa: E501
    ("for:newPVC=hasVolumeAttributesModifyStatus,oldPVC=doesnot,featuregate=VolumeAttributesClass=true; should keep field", False, True, False, _MODIFY, _EMPTY, _MODIFY),  # noqa: E501
    ("for:newPVC=hasVolumeAttributesModifyStatus,oldPVC=hasVolumeAttributesModifyStatus,featuregate=VolumeAttributesClass=true; should keep field", False, True, False, _MODIFY, _MODIFY, _MODIFY),  # noqa: E501
    ("for:newPVC=hasVolumeAttributesModifyStatus,oldPVC=hasVolumeAttributesModifyStatus,featuregate=false; should keep field", False, False, False, _MODIFY, _MODIFY, _MODIFY),  # noqa: E501
    ("for:newPVC=hasHealthStatus,oldPVC=nil,featuregate=CSIVolumeHealth=false; should drop field", False, False, False, _HEALTH, None, _EMPTY),  # noqa: E501
    ("for:newPVC=hasHealthStatus,oldPVC=doesnot,featuregate=CSIVolumeHealth=false; should drop field", False, False, False, _HEALTH, _EMPTY, _EMPTY),  # noqa: E501
    ("for:newPVC=hasHealthStatus,oldPVC=hasHealthStatus,featuregate=CSIVolumeHealth=false; should keep field", False, False, False, _HEALTH, _HEALTH, _HEALTH),  # noqa: E501
    ("for:newPVC=hasHealthStatus,oldPVC=nil,featuregate=CSIVolumeHealth=true; should keep field", False, False, True, _HEALTH, None, _HEALTH),  # noqa: E501
    ("for:newPVC=hasHealthStatus,oldPVC=doesnot,featuregate=CSIVolumeHealth=true; should keep field", False, False, True, _HEALTH, _EMPTY, _HEALTH),  # noqa: E501
]


@pytest.mark.parametrize(
    ("recover", "vac", "health", "pvc", "old", "expected"),
    [pytest.param(*row[1:], id=row[0]) for row in _STATUS_ROWS],
)
def test_drop_disabled_fields_from_status(
    recover: bool, vac: bool, health: bool, pvc: Obj, old: Obj | None, expected: Obj
) -> None:
    pvc = copy.deepcopy(pvc)
    gates = _gates(
        RecoverVolumeExpansionFailure=recover, VolumeAttributesClass=vac, CSIVolumeHealth=health
    )
    pvc_util.drop_disabled_fields_from_status(pvc, old, gates)
    assert pvc == expected

"""VolumeRestrictions PreFilter/Filter rows ported from upstream
pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go (v1.37.2):
TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
TestAccessModeConflicts, Test_isSchedulableAfterAssignedPodDeleted,
Test_isSchedulableAfterPersistentVolumeClaimChange."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import EventResource, QueueingHint
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import volume_restrictions as vr
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    code_reasons,
    make_pod,
    node,
    snapshot,
)

Obj = dict[str, Any]
OKS, SKIP = ("SUCCESS", ()), ("SKIP", ())
DISK = ("UNSCHEDULABLE", (vr.ERR_REASON_DISK_CONFLICT,))
RWOP = ("UNSCHEDULABLE", (vr.ERR_REASON_RWOP_CONFLICT,))


def with_volumes(*volumes: Obj, name: str = "", ns: str = "", on: str = "") -> Obj:
    w = make_pod(name).ns(ns)
    if on:
        w.node(on)
    w.p["spec"]["volumes"] = [dict(v) for v in volumes]
    return w.obj()


def node_info(*pods: Obj) -> NodeInfo:
    """``framework.NewNodeInfo(pods...)``: no Node object."""
    ni = NodeInfo("")
    for p in pods:
        ni.add_pod(PodInfo(p))
    return ni


def _run(pod: Obj, ni: NodeInfo, pods: Sequence[Obj] = (), pvcs: Sequence[Obj] = ()) -> tuple[Any, Any]:
    h = snapshot(pods, [node("node-1")] if pods else [], pvcs)
    pl = vr.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vr.VolumeRestrictions)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, [])
    if not pre.is_success():
        return code_reasons(pre), None
    return OKS, code_reasons(pl.filter(state, pod, ni))


def _disk_rows(kind: str, state1: Obj, state2: Obj, extra: list[Any]) -> list[Any]:
    v1, v2 = {"name": "v", kind: state1}, {"name": "v", kind: state2}
    rows = [
        ("nothing", with_volumes(), node_info(), SKIP, None),
        ("one state", with_volumes(), node_info(with_volumes(v1)), SKIP, None),
        ("same state", with_volumes(v1), node_info(with_volumes(v1)), OKS, DISK),
        ("different state", with_volumes(v2), node_info(with_volumes(v1)), OKS, OKS),
        *extra,
    ]
    return [pytest.param(*r[1:], id=f"{kind}/{r[0]}") for r in rows]


GCE_EXTRA = [("pod with a volume that doesn't have restrictions",
              with_volumes({"name": "volume with no restriction"}), node_info(), SKIP, None)]
DISK_ROWS = [
    *_disk_rows("gcePersistentDisk", {"pdName": "foo"}, {"pdName": "bar"}, GCE_EXTRA),
    *_disk_rows("awsElasticBlockStore", {"volumeID": "foo"}, {"volumeID": "bar"}, []),
    *_disk_rows("rbd", {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"},
                {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}, []),
    *_disk_rows("iscsi", {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01",
                          "fsType": "ext4", "lun": 0},
                {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01",
                 "fsType": "ext4", "lun": 0}, []),
]


@pytest.mark.parametrize(("pod", "ni", "want_pre", "want"), DISK_ROWS)
def test_disk_conflicts(pod: Obj, ni: NodeInfo, want_pre: Any, want: Any) -> None:
    """TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts."""
    assert _run(pod, ni) == (want_pre, want)


def _pvc_vol(claim: str) -> Obj:
    return {"name": claim, "persistentVolumeClaim": {"claimName": claim}}


def _pvc(name: str, mode: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": [mode]}}


ONE = with_volumes(_pvc_vol("claim-with-rwop-1"), name="pod-with-one-pvc", ns="default", on="node-1")
TWO = with_volumes(_pvc_vol("claim-with-rwop-1"), _pvc_vol("claim-with-rwop-2"), name="pod-with-two-pvcs",
                   ns="default", on="node-1")
ONE_CONFLICT = with_volumes(_pvc_vol("claim-with-rwop-1"), name="pod-with-one-conflict", ns="default", on="node-1")
TWO_CONFLICTS = with_volumes(_pvc_vol("claim-with-rwop-1"), _pvc_vol("claim-with-rwop-2"),
                             name="pod-with-two-conflicts", ns="default", on="node-1")
RWX_POD = with_volumes(_pvc_vol("claim-with-rwx"), name="pod-with-rwx", ns="default", on="node-1")
RWOP1, RWOP2 = _pvc("claim-with-rwop-1", "ReadWriteOncePod"), _pvc("claim-with-rwop-2", "ReadWriteOncePod")
RWX = _pvc("claim-with-rwx", "ReadWriteMany")

ACCESS = [
    ("nothing", with_volumes(), [], [], SKIP, None),
    ("failed to get PVC", ONE, [], [],
     ("UNSCHEDULABLE_AND_UNRESOLVABLE", ('persistentvolumeclaim "claim-with-rwop-1" not found',)), None),
    ("no access mode conflict", ONE, [RWX_POD], [RWOP1, RWX], SKIP, None),
    ("access mode conflict, unschedulable", ONE_CONFLICT, [ONE, RWX_POD], [RWOP1, RWX], OKS, RWOP),
    ("two conflicts, unschedulable", TWO_CONFLICTS, [TWO, RWX_POD], [RWOP1, RWOP2, RWX], OKS, RWOP),
]


@pytest.mark.parametrize(("pod", "pods", "pvcs", "want_pre", "want"),
                         [pytest.param(*r[1:], id=r[0]) for r in ACCESS])
def test_access_mode_conflicts(pod: Obj, pods: list[Obj], pvcs: list[Obj], want_pre: Any, want: Any) -> None:
    assert _run(pod, node_info(*pods), pods, pvcs) == (want_pre, want)


def _hint_rows() -> list[Any]:
    rows = []
    for kind, s1, s2 in (("gcedisk", *_states("gcePersistentDisk")), ("awsdisk", *_states("awsElasticBlockStore")),
                         ("rbddisk", *_states("rbd")), ("iscsidisk", *_states("iscsi"))):
        rows.append(pytest.param(with_volumes(s1), with_volumes(s1), QueueingHint.QUEUE,
                                 id=f"queue-new-object-{kind}-conflict"))
        rows.append(pytest.param(with_volumes(s1), with_volumes(s2), QueueingHint.QUEUE_SKIP,
                                 id=f"skip-new-object-{kind}-no-conflict"))
    rows.append(pytest.param(with_volumes(_pvc_vol("claim-rwop"), name="pod1"),
                             with_volumes(_pvc_vol("claim-rwop"), name="pod2"), QueueingHint.QUEUE,
                             id="queue-has-same-claim"))
    rows.append(pytest.param(with_volumes(_pvc_vol("claim-1-rwop"), name="pod1"),
                             with_volumes(_pvc_vol("claim-2-rwop"), name="pod2"), QueueingHint.QUEUE_SKIP,
                             id="skip-no-same-claim"))
    return rows


def _states(kind: str) -> tuple[Obj, Obj]:
    """The two volume states of each disk kind, as in the disk-conflict tests."""
    for p in DISK_ROWS:
        if p.id == f"{kind}/different state":
            new_pod, ni = p.values[0], p.values[1]
            assert isinstance(new_pod, dict) and isinstance(ni, NodeInfo)
            existing = next(iter(ni.pods.values())).pod
            return existing["spec"]["volumes"][0], new_pod["spec"]["volumes"][0]
    raise KeyError(kind)


@pytest.mark.parametrize(("pod", "deleted", "want"), _hint_rows())
def test_is_schedulable_after_assigned_pod_deleted(pod: Obj, deleted: Obj, want: QueueingHint) -> None:
    """Test_isSchedulableAfterAssignedPodDeleted."""
    pl = vr.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vr.VolumeRestrictions)
    hint = next(r.hint for r in pl.events_to_register() if r.event.resource is EventResource.ASSIGNED_POD)
    assert hint is not None
    assert hint(pod, deleted, None) is want


def _pvc_pod(name: str, ns: str, *claims: str) -> Obj:
    vols = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return with_volumes(*vols, name=name, ns=ns, on="node-1")


def _rwx(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"namespace": "default", "name": name},
            "spec": {"accessModes": ["ReadWriteMany"]}}


ONE_PVC = _pvc_pod("pod-with-one-pvc", "default", "claim-with-rwx-1")
TWO_PVCS = _pvc_pod("pod-with-two-pvcs", "default", "claim-with-rwx-1", "claim-with-rwx-2")
OTHER_NS = _pvc_pod("pod-with-one-pvc", "kube-system", "claim-with-rwx-1")
PVC1, PVC2 = _rwx("claim-with-rwx-1"), _rwx("claim-with-rwx-2")


@pytest.mark.parametrize(
    ("pod", "new", "want"),
    [
        pytest.param(TWO_PVCS, PVC1, QueueingHint.QUEUE, id="queue-new-object-pvc-belong-pod"),
        pytest.param(ONE_PVC, PVC2, QueueingHint.QUEUE_SKIP, id="skip-new-object-unused"),
        pytest.param(ONE_PVC, PVC2, QueueingHint.QUEUE_SKIP, id="skip-nil-old-object"),
        pytest.param(ONE_PVC, PVC2, QueueingHint.QUEUE_SKIP, id="skip-new-object-not-belong-pod"),
        pytest.param(OTHER_NS, PVC1, QueueingHint.QUEUE_SKIP,
                     id="skip-new-object-namespace-not-equal-pod"),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_change(pod: Obj, new: Obj, want: QueueingHint) -> None:
    """Test_isSchedulableAfterPersistentVolumeClaimChange (the PVC Add registration's hint)."""
    pl = vr.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vr.VolumeRestrictions)
    res = EventResource.PERSISTENT_VOLUME_CLAIM
    hint = next(r.hint for r in pl.events_to_register() if r.event.resource is res)
    assert hint is not None
    assert hint(pod, None, new) is want

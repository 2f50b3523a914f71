"""NodeVolumeLimits' (CSILimits') queueing hints against nodevolumelimits/csi_test.go.

Ported: ``TestCSILimitsQHint``, ``TestCSILimitsAddedPVCQHint``,
``TestCSILimitsDeletedVolumeAttachmentQHint`` and ``TestCSILimitsAfterCSINodeUpdatedQHint``.
In-tree volume migration is not modelled, so a row whose answer rests on translating an
inline volume to CSI is skipped; rows whose answer comes from a claim still run.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import (
    ActionType,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import node_volume_limits as nvl
from suites.selftest.reference_impl.scheduler.upstream_st_b import snapshot

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
R, A = EventResource, ActionType
_MIGRATION = pytest.mark.skip(reason="in-tree volume migration (CSI translation) is not modelled")
PVC_VOL = {"name": "v", "persistentVolumeClaim": {"claimName": "pvc1"}}
AWS_VOL = {"name": "aws", "awsElasticBlockStore": {"volumeID": "test"}}
GCE_VOL = {"name": "gce", "gcePersistentDisk": {"pdName": "test"}}
VA = {"metadata": {"name": "volumeattachment1"},
      "spec": {"nodeName": "fake-node", "attacher": "ebs.csi.aws.com",
               "source": {"persistentVolumeName": "pv1"}}}


def _hint(resource: EventResource, action: ActionType) -> QueueingHintFn:
    pl = nvl.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, nvl.NodeVolumeLimits)
    for reg in pl.events_to_register():
        if reg.event.resource is resource and reg.event.action == action:
            assert reg.hint is not None
            return reg.hint
    raise AssertionError((resource, action))


def _pod(name: str = "", ns: str = "", *volumes: Obj, node: str = "") -> Obj:
    return {"metadata": {"name": name, "namespace": ns},
            "spec": {"volumes": [dict(v) for v in volumes], **({"nodeName": node} if node else {})}}


def _pvc(name: str, ns: str) -> Obj:
    return {"metadata": {"name": name, "namespace": ns}, "spec": {}}


POD_EBS = _pod("", "", {"name": "v", "persistentVolumeClaim": {"claimName": "csi-ebs.csi.aws.com-2"}})


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        pytest.param(_pod("", "", {"name": "p", "persistentVolumeClaim": {"claimName": "placeholder"}},
                          node="csiNode"), Q, id="return a Queue when a deleted pod has a PVC"),
        pytest.param(_pod("", "", AWS_VOL, node="csiNode"), Q, marks=_MIGRATION,
                     id="return a Queue when a deleted pod has a inline migratable volume"),
        pytest.param(_pod("", "", node="csiNode"), SKIP,
                     id="return a QueueSkip when a deleted pod doesn't have any volume"),
        pytest.param(_pod("", "", {"name": "v", "persistentVolumeClaim": {"claimName": "csi-ebs.csi.aws.com-0"}}),
                     SKIP, id="return a QueueSkip when a deleted pod is not scheduled."),
    ],
)
def test_csi_limits_qhint(deleted: Obj, want: QueueingHint) -> None:
    """TestCSILimitsQHint (isSchedulableAfterAssignedPodDeleted)."""
    assert _hint(R.ASSIGNED_POD, A.DELETE)(POD_EBS, deleted, None) is want


@pytest.mark.parametrize(
    ("pod", "added", "want"),
    [
        pytest.param(_pod("", "ns1"), _pvc("", "ns2"), SKIP,
                     id="a pod isn't in the same namespace as an added PVC"),
        pytest.param(_pod("", "ns1", PVC_VOL), _pvc("pvc1", "ns1"), Q,
                     id="a pod is in the same namespace as an added PVC"),
        pytest.param(_pod("pod1", "ns1", {"name": "ephemeral", "ephemeral": {}}),
                     _pvc("pod1-ephemeral", "ns1"), Q,
                     id="a pod has an ephemeral volume related to an added PVC"),
        pytest.param(_pod("", "ns1", PVC_VOL), _pvc("pvc2", "ns1"), SKIP,
                     id="a pod doesn't have the same PVC as an added PVC"),
        pytest.param(_pod("", "ns1"), _pvc("pvc2", "ns1"), SKIP,
                     id="a pod doesn't have any PVC attached"),
    ],
)
def test_csi_limits_added_pvc_qhint(pod: Obj, added: Obj, want: QueueingHint) -> None:
    """TestCSILimitsAddedPVCQHint (isSchedulableAfterPVCAdded)."""
    assert _hint(R.PERSISTENT_VOLUME_CLAIM, A.ADD)(pod, None, added) is want


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(_pod("", "ns1", PVC_VOL), Q, id="a pod has PVC when VolumeAttachment is deleting"),
        pytest.param(_pod("", "ns1", AWS_VOL), Q, marks=_MIGRATION,
                     id="a pod has an Inline Migratable volume (AWSEBSDriver) when VolumeAttachment "
                        "(AWSEBSDriver) is deleting (match)"),
        pytest.param(_pod("", "ns1", GCE_VOL), SKIP, marks=_MIGRATION,
                     id="a pod has an Inline Migratable volume (GCEPDDriver) when VolumeAttachment "
                        "(AWSEBSDriver) is deleting (no match)"),
        pytest.param(_pod("", "ns1", AWS_VOL, PVC_VOL), Q,
                     id="a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when "
                        "VolumeAttachment (AWSEBSDriver) is deleting"),
        pytest.param(_pod("", "ns1", AWS_VOL, PVC_VOL), Q,
                     id="a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when "
                        "VolumeAttachment (AWSEBSDriver)  is deleting"),
        pytest.param(_pod("", "ns1"), SKIP, id="a pod has no PVC when VolumeAttachment is deleting"),
    ],
)
def test_csi_limits_deleted_volume_attachment_qhint(pod: Obj, want: QueueingHint) -> None:
    """TestCSILimitsDeletedVolumeAttachmentQHint (isSchedulableAfterVolumeAttachmentDeleted)."""
    assert _hint(R.VOLUME_ATTACHMENT, A.DELETE)(pod, VA, None) is want


def _csinode(count: int) -> Obj:
    driver = {"name": "ebs.csi.aws.com", "nodeID": "test-node", "allocatable": {"count": count}}
    return {"metadata": {"name": "test-node"}, "spec": {"drivers": [driver]}}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(1, 2, Q, id="limit raised, queue"),
        pytest.param(2, 1, SKIP, id="limit decreased, skip queueing"),
        pytest.param(1, 1, SKIP, id="limit unchanged, skip queueing"),
    ],
)
def test_csi_limits_after_csinode_updated_qhint(old: int, new: int, want: QueueingHint) -> None:
    """TestCSILimitsAfterCSINodeUpdatedQHint (isSchedulableAfterCSINodeUpdated)."""
    pod = _pod("test-pod", "ns1", {"name": "v", "persistentVolumeClaim": {"claimName": "csi-ebs.csi.aws.com-0"}})
    assert _hint(R.CSI_NODE, A.UPDATE)(pod, _csinode(old), _csinode(new)) is want

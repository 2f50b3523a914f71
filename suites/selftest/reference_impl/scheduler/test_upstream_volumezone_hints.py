"""VolumeZone's queueing hints against volumezone/volume_zone_test.go.

Ported: ``TestIsSchedulableAfterPersistentVolumeClaimAdded``,
``TestIsSchedulableAfterStorageClassAdded`` and ``TestIsSchedulableAfterPersistentVolumeChange``.
The "error-wrong-*-object" rows pass a non-object, which cannot reach a Python hint.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import EventResource, QueueingHint, QueueingHintFn
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import volume_zone as vz
from suites.selftest.reference_impl.scheduler.upstream_st_b import snapshot

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
_WRONG = pytest.mark.skip(reason="a non-API object cannot reach the Python hint")
BETA_ZONE, ZONE = "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"


def _hint(resource: EventResource) -> QueueingHintFn:
    pl = vz.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vz.VolumeZone)
    hint = next(r.hint for r in pl.events_to_register() if r.event.resource is resource)
    assert hint is not None
    return hint


def _pod(pvc: str = "") -> Obj:
    """``createPodWithVolume`` (or a pod without volumes)."""
    vols = [{"name": pvc, "persistentVolumeClaim": {"claimName": pvc}}] if pvc else []
    return {"metadata": {"name": "pod_1", "namespace": "default"}, "spec": {"volumes": vols}}


def _pvc(name: str, ns: str, volume: str) -> Obj:
    return {"metadata": {"name": name, "namespace": ns}, "spec": {"volumeName": volume}}


def _pv(**labels: str) -> Obj:
    return {"metadata": {"name": "Vol_1", "labels": labels}, "spec": {}}


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        pytest.param(_pod("PVC_1"), None, None, Q, marks=_WRONG, id="error-wrong-new-object"),
        pytest.param(_pod(), None, _pvc("PVC_1", "default", "Vol_1"), SKIP,
                     id="pvc-was-added-but-pod-refers-no-pvc"),
        pytest.param(_pod("PVC_2"), None, _pvc("PVC_1", "default", "Vol_1"), SKIP,
                     id="pvc-was-added-and-pod-was-bound-to-different-pvc"),
        pytest.param(_pod("PVC_1"), None, _pvc("PVC_1", "ns1", "Vol_1"), SKIP,
                     id="pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns"),
        pytest.param(_pod("PVC_1"), None, _pvc("PVC_1", "default", "Vol_1"), Q,
                     id="pvc-was-added-and-pod-was-bound-to-the-pvc"),
        pytest.param(_pod("PVC_1"), _pvc("PVC_1", "default", ""), _pvc("PVC_1", "default", "Vol_1"), Q,
                     id="pvc-was-updated-and-pod-was-bound-to-the-pvc"),
        pytest.param(_pod(), _pvc("PVC_1", "default", ""), _pvc("PVC_1", "default", "Vol_1"), SKIP,
                     id="pvc-was-updated-but-pod-refers-no-pvc"),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_added(
    pod: Obj, old: Obj | None, new: Obj | None, want: QueueingHint
) -> None:
    assert _hint(EventResource.PERSISTENT_VOLUME_CLAIM)(pod, old, new) is want


@pytest.mark.parametrize(
    ("new", "want"),
    [
        pytest.param(None, Q, marks=_WRONG, id="error-wrong-new-object"),
        pytest.param({"metadata": {"name": "SC_1"}}, SKIP, id="sc-doesn't-have-volume-binding-mode"),
        pytest.param({"metadata": {"name": "SC_1"}, "volumeBindingMode": "WaitForFirstConsumer"}, Q,
                     id="new-sc-is-wait-for-first-consumer-mode"),
    ],
)
def test_is_schedulable_after_storage_class_added(new: Obj | None, want: QueueingHint) -> None:
    assert _hint(EventResource.STORAGE_CLASS)(_pod("PVC_1"), None, new) is want


_A, _B = {BETA_ZONE: "us-west1-a"}, {BETA_ZONE: "us-west1-b"}
_AZ = {BETA_ZONE: "us-west1-a", ZONE: "zone"}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, None, Q, marks=_WRONG, id="error-wrong-new-object"),
        pytest.param(None, None, Q, marks=_WRONG, id="error-wrong-old-object"),
        pytest.param(None, _pv(**_B), Q, id="new-pv-was-added"),
        pytest.param(_pv(**_A), _pv(**_B), Q, id="pv-was-updated-and-changed-topology"),
        pytest.param(_pv(**_A), _pv(**_AZ), Q, id="pv-was-updated-and-added-topology-label"),
        pytest.param(_pv(**_AZ), _pv(**_AZ), SKIP, id="pv-was-updated-but-no-topology-is-changed"),
    ],
)
def test_is_schedulable_after_persistent_volume_change(
    old: Obj | None, new: Obj | None, want: QueueingHint
) -> None:
    assert _hint(EventResource.PERSISTENT_VOLUME)(_pod("PVC_1"), old, new) is want

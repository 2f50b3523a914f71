"""pkg/controller/scheduling/podgroupprotection/podgroup_protection_controller_test.go
(v1.37.2), row by row, against ``reference_impl/controllers/podgroup_protection.py``.

Whole-controller rows seed a real APIServer without admission plugins (as upstream's fake
clientset), start only this controller and settle the simulated clock. A seeded PodGroup
"being deleted" is created and then deleted: without the finalizer the apiserver removes
it at once, which upstream's wait accepts as "no finalizer".
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.admission.podgroup_protection import PODGROUP_PROTECTION_FINALIZER
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.podgroup_protection import (
    PodGroupProtectionController,
    active_pod_scheduling_group_keys,
    get_pod,
    has_active_pods,
    is_pod_terminated,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"
PG_NAME = "my-podgroup"
PG_API = "scheduling.k8s.io/v1beta1"


# -- upstream's fixtures --------------------------------------------------------------


def pod_group(finalizer: bool = False, deleted: bool = False) -> Obj:
    """``podGroup()``, ``withFinalizer`` and ``deletedPodGroup`` (``deleted`` is applied by
    deleting it once stored; here it only marks the wish)."""
    meta: Obj = {"name": PG_NAME, "namespace": NS, "uid": "pg-uid-1"}
    if finalizer:
        meta["finalizers"] = [PODGROUP_PROTECTION_FINALIZER]
    if deleted:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {
        "apiVersion": PG_API,
        "kind": "PodGroup",
        "metadata": meta,
        "spec": {"schedulingPolicy": {"basic": {}}},
    }


def pod_for_pg(name: str, pg: str | None, phase: str = "Running", node: str = "node-1") -> Obj:
    """``podForPG`` (``terminatedPod``, ``unscheduledPod``, ``podWithoutSchedulingGroup``
    through the arguments)."""
    spec: Obj = {"containers": [{"name": "c", "image": "test"}]}
    if node:
        spec["nodeName"] = node
    if pg is not None:
        spec["schedulingGroup"] = {"podGroupName": pg}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "uid": f"{name}-uid"},
        "spec": spec,
        "status": {"phase": phase},
    }


def _with_uid(pod: Obj, uid: str) -> Obj:
    pod["metadata"]["uid"] = uid
    return pod


def _nil_group_pod() -> Obj:
    """A pod whose ``schedulingGroup`` has a nil ``podGroupName``."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod-1", "namespace": NS},
        "spec": {"schedulingGroup": {}},
        "status": {},
    }


def _context() -> tuple[SimClock, APIServer, ComponentContext]:
    clock, rng = SimClock(), Rng(1)
    gates = FeatureGates({"GenericWorkload": True})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    server.create(make_namespace(NS).build())
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, gates, Trace(clock))
    return clock, server, ctx


# -- TestIsPodTerminated --------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "want"),
    [
        pytest.param("Running", False, id="running"),
        pytest.param("Pending", False, id="pending"),
        pytest.param("Succeeded", True, id="succeeded"),
        pytest.param("Failed", True, id="failed"),
    ],
)
def test_is_pod_terminated(phase: str, want: bool) -> None:
    assert is_pod_terminated({"status": {"phase": phase}}) is want


# -- TestGetPod -----------------------------------------------------------------------

_TOMBSTONE = "informer tombstones (DeletedFinalStateUnknown) are not modelled: a DELETED event carries the object"


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        pytest.param(None, False, id="nil"),
        pytest.param({"kind": "Pod", "metadata": {"name": "p"}}, True, id="pod"),
        pytest.param(None, True, id="tombstone with pod", marks=pytest.mark.skip(reason=_TOMBSTONE)),
        pytest.param(
            None, False, id="tombstone with non-pod", marks=pytest.mark.skip(reason=_TOMBSTONE)
        ),
        pytest.param({"kind": "ConfigMap", "metadata": {}}, False, id="non-pod object"),
    ],
)
def test_get_pod(obj: Obj | None, want: bool) -> None:
    assert (get_pod(obj) is not None) is want


# -- TestHandlePodChange --------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "want_size"),
    [
        pytest.param(
            pod_for_pg("pod-1", PG_NAME), None, 1, id="deleted pod with schedulingGroup enqueues"
        ),
        pytest.param(
            pod_for_pg("pod-1", PG_NAME),
            pod_for_pg("pod-1", PG_NAME, "Succeeded"),
            1,
            id="terminated pod enqueues",
        ),
        pytest.param(
            None,
            pod_for_pg("pod-1", PG_NAME, node=""),
            0,
            id="unscheduled new pod does not enqueue",
        ),
        pytest.param(
            None, pod_for_pg("pod-1", PG_NAME), 0, id="scheduled running pod does not enqueue"
        ),
        pytest.param(
            pod_for_pg("pod-1", None),
            None,
            0,
            id="deleted pod without schedulingGroup does not enqueue",
        ),
        pytest.param(
            _nil_group_pod(), None, 0, id="deleted pod with nil podGroupName does not enqueue"
        ),
        pytest.param(
            _with_uid(pod_for_pg("pod-1", PG_NAME), "old-uid"),
            _with_uid(pod_for_pg("pod-1", PG_NAME, "Succeeded"), "new-uid"),
            1,
            id="UID mismatch with terminated new pod, same PodGroup, deduplicates enqueue",
        ),
        pytest.param(
            _with_uid(pod_for_pg("pod-1", PG_NAME), "old-uid"),
            _with_uid(pod_for_pg("pod-1", "other-pg", "Failed"), "new-uid"),
            2,
            id="UID mismatch with terminated new pod referencing different PodGroup enqueues both",
        ),
        pytest.param(
            _with_uid(pod_for_pg("pod-1", PG_NAME), "old-uid"),
            _with_uid(pod_for_pg("pod-1", PG_NAME, node=""), "new-uid"),
            1,
            id="UID mismatch on update with non-terminated new pod enqueues only old pod",
        ),
    ],
)
def test_handle_pod_change(old: Obj | None, new: Obj | None, want_size: int) -> None:
    _, _, ctx = _context()
    ctrl = PodGroupProtectionController(ctx)
    ctrl.handle_pod_change(old, new)
    assert ctrl.queue_length() == want_size


# -- TestPodGroupProtectionController -------------------------------------------------

@pytest.mark.parametrize(
    ("initial", "pod_to_delete", "expect_finalizer"),
    [
        pytest.param(
            [pod_group()],
            "",
            False,
            id="new PodGroup without finalizer, no action (admission plugin handles it)",
        ),
        pytest.param(
            [pod_group(), pod_for_pg("pod-1", PG_NAME)],
            "",
            False,
            id="new PodGroup without finalizer, active pod exists, then no action "
            "(admission plugin handles it)",
        ),
        pytest.param(
            [pod_group(finalizer=True)],
            "",
            True,
            id="PodGroup with finalizer, not being deleted, then no action",
        ),
        pytest.param(
            [pod_group(finalizer=True, deleted=True)],
            "",
            False,
            id="deleted PodGroup with finalizer, no active pods, then finalizer is removed",
        ),
        pytest.param(
            [pod_group(finalizer=True, deleted=True), pod_for_pg("pod-1", PG_NAME)],
            "",
            True,
            id="deleted PodGroup with finalizer, active pod exists, then finalizer is kept",
        ),
        pytest.param(
            [pod_group(finalizer=True, deleted=True), pod_for_pg("pod-1", PG_NAME, "Succeeded")],
            "",
            False,
            id="deleted PodGroup with finalizer, only terminated pods, then finalizer is removed",
        ),
        pytest.param(
            [
                pod_group(finalizer=True, deleted=True),
                pod_for_pg("pod-active", PG_NAME),
                pod_for_pg("pod-done", PG_NAME, "Succeeded"),
            ],
            "",
            True,
            id="deleted PodGroup with finalizer, mix of active and terminated pods, then "
            "finalizer is kept",
        ),
        pytest.param(
            [pod_group(deleted=True)],
            "",
            False,
            id="PodGroup without finalizer, already deleted, then no action "
            "(not a deletion candidate)",
        ),
        pytest.param(
            [pod_group(deleted=True), pod_for_pg("pod-1", PG_NAME)],
            "",
            False,
            id="PodGroup without finalizer, already deleted, active pods exist, then no action "
            "(should not add finalizer to deleting object)",
        ),
        pytest.param(
            [pod_group(finalizer=True, deleted=True), pod_for_pg("pod-1", PG_NAME)],
            "pod-1",
            False,
            id="pod deleted, PodGroup being deleted with finalizer, was last active pod, "
            "finalizer is removed",
        ),
        pytest.param(
            [pod_group(finalizer=True, deleted=True), pod_for_pg("pod-1", PG_NAME, "Succeeded")],
            "",
            False,
            id="pod terminated succeeded, PodGroup being deleted with finalizer, was last "
            "active pod, then finalizer is removed",
        ),
        pytest.param(
            [pod_group(finalizer=True, deleted=True), pod_for_pg("pod-1", PG_NAME, "Failed")],
            "",
            False,
            id="pod terminated failed, PodGroup being deleted with finalizer, was last active "
            "pod, then finalizer is removed",
        ),
        pytest.param(
            [pod_group(), pod_for_pg("pod-1", PG_NAME, node="")],
            "",
            False,
            id="new unscheduled pod, PodGroup without finalizer, then no action "
            "(admission plugin handles it)",
        ),
        pytest.param(
            [pod_group(finalizer=True), pod_for_pg("pod-1", None)],
            "",
            True,
            id="pod without schedulingGroup -> no PodGroup action",
        ),
        pytest.param(
            [pod_for_pg("pod-1", PG_NAME, "Succeeded")],
            "",
            False,
            id="terminated pod references non-existent PodGroup, controller handles gracefully",
        ),
    ],
)
def test_podgroup_protection_controller(
    initial: list[Obj], pod_to_delete: str, expect_finalizer: bool
) -> None:
    clock, server, ctx = _context()
    for obj in initial:
        manifest = {**obj, "metadata": {**obj["metadata"]}}
        manifest["metadata"].pop("uid", None)
        deleted = manifest["metadata"].pop("deletionTimestamp", None)
        status = manifest.pop("status", None)
        stored = server.create(manifest)
        if status:
            server.update_status({**stored, "status": status})
        if deleted:
            server.delete(PG_API, "PodGroup", stored["metadata"]["name"], NS)
    ctrl = PodGroupProtectionController(ctx)
    ctrl.start()
    clock.settle()
    if pod_to_delete:
        server.delete("v1", "Pod", pod_to_delete, NS, grace_period_seconds=0)
        clock.settle()
    pg = server.try_get(PG_API, "PodGroup", PG_NAME, NS)
    if pg is None:
        assert not expect_finalizer
    else:
        assert (PODGROUP_PROTECTION_FINALIZER in (pg["metadata"].get("finalizers") or [])) is (
            expect_finalizer
        )


# -- TestActivePodSchedulingGroupIndexer ----------------------------------------------


def test_active_pod_scheduling_group_indexer() -> None:
    pods = [
        pod_for_pg("pod-1", "pg-a"),
        pod_for_pg("pod-2", None),
        {"metadata": {"name": "pod-3", "namespace": NS}, "spec": {"schedulingGroup": {}}},
        pod_for_pg("pod-4", "pg-a", "Succeeded"),  # terminated: not indexed
    ]
    index: dict[str, list[str]] = {}
    for p in pods:
        for key in active_pod_scheduling_group_keys(p):
            index.setdefault(key, []).append(p["metadata"]["name"])
    assert index.get(f"{NS}/pg-a") == ["pod-1"]
    assert index.get(f"{NS}/nonexistent", []) == []


# -- TestHasActivePods ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("pods", "want"),
    [
        pytest.param([], False, id="no pods"),
        pytest.param([pod_for_pg("pod-1", PG_NAME)], True, id="active pod referencing PodGroup"),
        pytest.param(
            [pod_for_pg("pod-1", PG_NAME, "Succeeded"), pod_for_pg("pod-2", PG_NAME, "Failed")],
            False,
            id="only terminated pods",
        ),
        pytest.param(
            [pod_for_pg("pod-active", PG_NAME), pod_for_pg("pod-done", PG_NAME, "Succeeded")],
            True,
            id="mix of active and terminated",
        ),
        pytest.param(
            [pod_for_pg("pod-1", "other-pg")], False, id="pods referencing different PodGroup"
        ),
    ],
)
def test_has_active_pods(pods: list[Obj], want: bool) -> None:
    assert has_active_pods(pod_group(), pods) is want


# -- TestHandlePodGroupUpdate ---------------------------------------------------------


@pytest.mark.parametrize(
    ("pg", "want_size"),
    [
        pytest.param(pod_group(), 0, id="PodGroup without finalizer, not deleting/not enqueued"),
        pytest.param(
            pod_group(finalizer=True, deleted=True), 1, id="PodGroup is deletion candidate -> enqueued"
        ),
        pytest.param(
            pod_group(finalizer=True), 0, id="PodGroup has finalizer, not deleting -> not enqueued"
        ),
    ],
)
def test_handle_pod_group_update(pg: Obj, want_size: int) -> None:
    _, _, ctx = _context()
    ctrl = PodGroupProtectionController(ctx)
    ctrl.handle_pod_group_update(pg)
    assert ctrl.queue_length() == want_size

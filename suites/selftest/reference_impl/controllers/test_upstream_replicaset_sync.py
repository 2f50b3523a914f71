"""Upstream ``replica_set_test.go`` (v1.37.2) whole-sync rows: ``TestSyncReplicaSetDoesNothing``,
``TestRSSyncExpectations``, ``TestDoNotAdoptOrCreateIfBeingDeletedRace``,
``TestSyncReplicaSetCreateFailures``, ``TestSyncReplicaSetDormancy``, ``TestPatchPodFails``,
``TestDoNotPatchPodWithOtherControlRef``, ``TestDoNotAdoptOrCreateIfBeingDeleted``,
``TestRelatedPodsLookup`` and ``TestReplicaSetAvailabilityCheck``.

ReplicaSets and pods are stored in a real APIServer and seen through the controller's
informers; the clock is never run, so only the explicit ``_sync`` calls act. Pod writes
go to ``PodControlSpy`` (upstream's ``FakePodControl``): recorded, not applied.
The template also carries the selector's labels, as validation requires.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from job_sync_harness import PodControlSpy

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, millis, rfc3339, seconds
from reference_impl.controllers import replicaset as rs_module
from reference_impl.controllers.controller_utils import (
    ControllerExpectations,
    UIDTrackingControllerExpectations,
)
from reference_impl.controllers.replicaset import ReplicaSetController
from reference_impl.errors import ApiError, ServiceUnavailable
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
LABELS = {"foo": "bar"}
T0 = Instant(seconds(1_000_000))


@dataclass
class RSHarness:
    clock: SimClock
    server: APIServer
    ctrl: ReplicaSetController
    spy: PodControlSpy

    def sync(self, name: str = "foobar") -> ApiError | None:
        """One ``syncReplicaSet``; the error it raised, if any."""
        try:
            self.ctrl._sync(f"default/{name}")
        except ApiError as err:
            return err
        return None

    def rs(self, name: str = "foobar") -> Obj:
        out = self.server.try_get("apps/v1", "ReplicaSet", name, "default")
        assert out is not None
        return out

    def clear(self) -> None:
        """``FakePodControl.Clear``."""
        self.spy.templates.clear()
        self.spy.deleted.clear()
        self.spy.patches.clear()
        self.spy.create_calls = 0


def _harness(start: Instant = T0) -> RSHarness:
    clock = SimClock(start)
    rng = Rng(1)
    fg = FeatureGates({})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock))
    ctrl = ReplicaSetController(ctx)
    ctrl.start()
    spy = PodControlSpy(server)
    ctrl._server = spy  # type: ignore[assignment]
    return RSHarness(clock, server, ctrl, spy)


def _store_rs(
    h: RSHarness,
    replicas: int,
    selector: dict[str, str] = LABELS,
    name: str = "foobar",
    owner_uid: str | None = "123",
    min_ready: int = 0,
    deleting: bool = False,
) -> Obj:
    """``newReplicaSet`` stored in the server."""
    meta: Obj = {"name": name, "namespace": "default"}
    if owner_uid is not None:
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "owner",
                "uid": owner_uid,
                "controller": True,
            }
        ]
    if deleting:
        meta["finalizers"] = ["test.garhwal.dev/keep"]
    rs = h.server.create(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": meta,
            "spec": {
                "replicas": replicas,
                "minReadySeconds": min_ready,
                "selector": {"matchLabels": dict(selector)},
                "template": {
                    "metadata": {"labels": {**selector, "name": "foo", "type": "production"}},
                    "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
                },
            },
        }
    )
    if deleting:
        h.server.delete("apps/v1", "ReplicaSet", name, "default")
        rs = h.rs(name)
    return rs


def _store_pod(
    h: RSHarness,
    name: str,
    rs: Obj,
    phase: str,
    *,
    owned: bool = True,
    owner: Obj | None = None,
    ready_since: Instant | None = None,
) -> Obj:
    """``newPod``: Running pods are Ready; ``owned`` adds the controller reference to ``rs``."""
    meta: Obj = {
        "name": name,
        "namespace": "default",
        "labels": dict(rs["spec"]["selector"]["matchLabels"]),
    }
    if owner is not None:
        meta["ownerReferences"] = [owner]
    elif owned:
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": rs["metadata"]["name"],
                "uid": rs["metadata"]["uid"],
                "controller": True,
            }
        ]
    pod = h.server.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
        }
    )
    status: Obj = {"phase": phase}
    if phase == "Running":
        cond: Obj = {"type": "Ready", "status": "True"}
        if ready_since is not None:
            cond["lastTransitionTime"] = rfc3339(ready_since)
        status["conditions"] = [cond]
    return h.server.update_status({**pod, "status": status})


def _counts(h: RSHarness) -> tuple[int, int, int]:
    """``validateSyncReplicaSet``: (creates, deletes, patches)."""
    return len(h.spy.templates), len(h.spy.deleted), len(h.spy.patches)


def test_sync_replica_set_does_nothing() -> None:
    h = _harness()
    rs = _store_rs(h, 2)
    for i in range(2):
        _store_pod(h, f"pod{i}", rs, "Running")
    assert h.sync() is None
    assert _counts(h) == (0, 0, 0)


def test_sync_replica_set_create_failures() -> None:
    """A create limit of 10 (quota-like) with 100 wanted: 10 created, slow start stops
    the calls at the failing batch (<= 1+2+4+8)."""
    h = _harness()
    h.spy.create_limit = 10
    _store_rs(h, 100)
    err = h.sync()
    assert isinstance(err, ServiceUnavailable)
    assert _counts(h) == (10, 0, 0)
    assert h.spy.create_calls <= 15
    # The failure surfaces as ReplicaFailure/FailedCreate (calculateStatus).
    cond = [c for c in h.rs()["status"].get("conditions") or [] if c["type"] == "ReplicaFailure"]
    assert [(c["status"], c["reason"], c["message"]) for c in cond] == [
        ("True", "FailedCreate", str(err))
    ]


def test_sync_replica_set_dormancy() -> None:
    h = _harness()
    rs = _store_rs(h, 2)
    _store_pod(h, "pod0", rs, "Running")
    # Creates a replica and sets expectations.
    assert h.sync() is None
    assert _counts(h) == (1, 0, 0)
    # Expectations prevent more replicas.
    h.clear()
    assert h.sync() is None
    assert _counts(h) == (0, 0, 0)
    # Lowering expectations leads to a create; the error leaves expectations at 0.
    h.ctrl._expectations.creation_observed("default/foobar")
    h.clear()
    h.spy.err = ServiceUnavailable("fake Error")
    assert h.sync() is not None
    assert _counts(h) == (1, 0, 0)
    # No lowering needed since the previous create failed.
    h.clear()
    h.spy.err = None
    assert h.sync() is None
    assert _counts(h) == (1, 0, 0)


def test_patch_pod_fails() -> None:
    """Both adoptions fail: the sync returns the error (and is requeued), creating nothing."""
    h = _harness()
    rs = _store_rs(h, 2)
    _store_pod(h, "pod1", rs, "Running", owned=False)
    _store_pod(h, "pod2", rs, "Running", owned=False)
    h.spy.err = ServiceUnavailable("fake Error")
    err = h.sync()
    assert err is not None and "fake Error" in str(err)
    assert _counts(h) == (0, 0, 2)


def test_do_not_patch_pod_with_other_control_ref() -> None:
    h = _harness()
    rs = _store_rs(h, 2)
    other = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "AnotherRS",
        "uid": "other-uid",
        "controller": True,
    }
    _store_pod(h, "pod", rs, "Running", owner=other)
    assert h.sync() is None
    assert _counts(h) == (2, 0, 0)  # the matching pod has another controller


def test_do_not_adopt_or_create_if_being_deleted() -> None:
    h = _harness()
    rs = _store_rs(h, 2, deleting=True)
    _store_pod(h, "pod1", rs, "Running", owned=False)
    assert h.sync() is None
    assert _counts(h) == (0, 0, 0)


@pytest.mark.parametrize(
    ("sets", "target", "pods", "want"),
    [
        pytest.param(
            ["pendingDeletion", "unrelated"],
            "pendingDeletion",
            [("pod", "pendingDeletion")],
            ["pod"],
            id="expect to get a pod even if its owning ReplicaSet is pending deletion",
        ),
        pytest.param(
            ["some", "unrelated"],
            "some",
            [("pod1", "some"), ("pod2", "some"), ("pod4", "unrelated")],
            ["pod1", "pod2"],
            id="expect to get only the ReplicaSet's own pods if there is no related ReplicaSet",
        ),
        pytest.param(
            ["some", "related", "unrelated"],
            "some",
            [("pod1", "some"), ("pod2", "some"), ("pod3", "related"), ("pod4", "unrelated")],
            ["pod1", "pod2", "pod3"],
            id="expect to get own pods as well as any related ReplicaSet's but not an unrelated "
            "ReplicaSet's",
        ),
    ],
)
def test_related_pods_lookup(
    sets: list[str], target: str, pods: list[tuple[str, str]], want: list[str]
) -> None:
    """``getIndirectlyRelatedPods``: pods of every set with the same controller UID."""
    specs: dict[str, tuple[str, dict[str, str], str, bool]] = {
        "some": ("foo1", {"foo": "bar"}, "123", False),
        "related": ("foo2", {"foo": "baz"}, "123", False),
        "unrelated": ("bar1", {"foo": "quux"}, "456", False),
        "pendingDeletion": ("foo3", {"foo": "xyzzy"}, "789", True),
    }
    h = _harness()
    stored = {}
    for s in sets:
        name, sel, uid, deleting = specs[s]
        stored[s] = _store_rs(h, 1, sel, name=name, owner_uid=uid, deleting=deleting)
    for pod_name, owner in pods:
        _store_pod(h, pod_name, stored[owner], "Running")
    got = sorted(p["metadata"]["name"] for p in h.ctrl._related_pods(stored[target]))
    assert got == sorted(want)


def test_replica_set_availability_check() -> None:
    """minReadySeconds 5; three pods ready for about 0s, 2s and 4.3s: ready 3, available 0,
    and the set is requeued when the oldest turns available (after 700ms).

    Wire times have second precision, so the sync runs at T0+0.3s with pods ready since
    T0, T0-2s and T0-4s: the same 700ms to the first availability.
    """
    h = _harness(T0)
    rs = _store_rs(h, 4, min_ready=5)
    _store_pod(h, "foobar-1", rs, "Pending")
    _store_pod(h, "foobar-2", rs, "Running", ready_since=T0)
    _store_pod(h, "foobar-3", rs, "Running", ready_since=Instant(T0 - seconds(2)))
    _store_pod(h, "foobar-4", rs, "Running", ready_since=Instant(T0 - seconds(4)))
    for entry in h.clock._heap:
        entry[3].cancel()  # drop the informer-driven syncs; only ours runs
    h.clock.run_until(Instant(T0 + millis(300)))
    now = h.clock.now()
    assert h.sync() is None
    status = h.rs()["status"]
    assert (status["readyReplicas"], status["availableReplicas"]) == (3, 0)
    later = sorted({e[0] for e in h.clock._heap if not e[3].cancelled and e[0] > now})
    assert later[:1] == [now + millis(700)]


class _FailingStatus(PodControlSpy):
    """Every ReplicaSet status write fails; counts status writes and ReplicaSet GETs."""

    def __init__(self, real: APIServer) -> None:
        super().__init__(real)
        self.status_writes: list[Obj] = []
        self.gets = 0

    def update_status(self, obj: Obj) -> Obj:
        if obj.get("kind") != "ReplicaSet":
            return self.real.update_status(obj)
        self.status_writes.append(obj)
        raise ServiceUnavailable("fake error")

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        if kind == "ReplicaSet":
            self.gets += 1
        return self.real.get(api_version, kind, name, namespace)


def test_controller_update_status_with_failure() -> None:
    """``updateReplicaSetStatus`` retries once on a fresh GET: 2 updates, 1 get, an error;
    both updates carry the new status."""
    h = _harness()
    rs = _store_rs(h, 1)
    _store_pod(h, "pod0", rs, "Running")
    spy = _FailingStatus(h.server)
    h.ctrl._server = spy  # type: ignore[assignment]
    err = h.sync()
    assert isinstance(err, ServiceUnavailable)
    assert (len(spy.status_writes), spy.gets) == (2, 1)
    assert [w["status"]["replicas"] for w in spy.status_writes] == [1, 1]


def test_controller_update_requeue() -> None:
    """A failed status write fails the sync, so the queue retries it."""
    h = _harness()
    rs = _store_rs(h, 1)
    _store_pod(h, "pod0", rs, "Running")
    h.ctrl._server = _FailingStatus(h.server)  # type: ignore[assignment]
    assert h.sync() is not None


def test_delete_controller_and_expectations() -> None:
    """Deleting the set drops its expectations; a later sync does nothing."""
    h = _harness()
    _store_rs(h, 1)
    assert h.sync() is None
    assert _counts(h) == (1, 0, 0)
    assert not h.ctrl._expectations.satisfied("default/foobar")
    h.clear()
    h.server.delete("apps/v1", "ReplicaSet", "foobar", "default")
    assert h.sync() is None
    assert h.ctrl._expectations.satisfied("default/foobar")
    assert _counts(h) == (0, 0, 0)


@pytest.mark.parametrize(
    ("sets", "target", "want"),
    [
        pytest.param(
            ["pendingDeletion", "unrelated"],
            "pendingDeletion",
            ["rs4"],
            id="expect to get back a ReplicaSet that is pending deletion",
        ),
        pytest.param(
            ["some", "unrelated"],
            "some",
            ["rs1"],
            id="expect to get back only the given ReplicaSet if there is no related ReplicaSet",
        ),
        pytest.param(
            ["some", "related", "unrelated"],
            "some",
            ["rs1", "rs2"],
            id="expect to get back the given ReplicaSet as well as any related ReplicaSet but "
            "not an unrelated ReplicaSet",
        ),
    ],
)
def test_get_replica_sets_with_same_controller(
    sets: list[str], target: str, want: list[str]
) -> None:
    specs: dict[str, tuple[str, dict[str, str], str, bool]] = {
        "some": ("rs1", {"foo": "bar"}, "123", False),
        "related": ("rs2", {"foo": "baz"}, "123", False),
        "unrelated": ("rs3", {"foo": "quux"}, "456", False),
        "pendingDeletion": ("rs4", {"foo": "xyzzy"}, "789", True),
    }
    h = _harness()
    stored = {}
    for s in sets:
        name, sel, uid, deleting = specs[s]
        stored[s] = _store_rs(h, 1, sel, name=name, owner_uid=uid, deleting=deleting)
    got = sorted(rs["metadata"]["name"] for rs in h.ctrl._same_controller(stored[target]))
    assert got == want


@pytest.mark.parametrize(
    ("burst", "replicas"),
    [pytest.param(5, 30, id="5/30"), pytest.param(5, 12, id="5/12"), pytest.param(3, 2, id="3/2")],
)
def test_controller_burst_replicas(
    monkeypatch: pytest.MonkeyPatch, burst: int, replicas: int
) -> None:
    """``doTestControllerBurstReplicas``: size up then down in bursts; a sync with one
    creation (deletion) still unobserved does nothing; the last event unblocks the next."""
    monkeypatch.setattr(rs_module, "BURST_REPLICAS", burst)
    h = _harness()
    rs = _store_rs(h, replicas)
    key = "default/foobar"
    made = 0

    def active() -> int:
        return len(h.server.list("v1", "Pod", "default"))

    for _ in range(0, replicas, burst):
        h.clear()
        assert h.sync() is None
        expected = min(replicas - active(), burst)
        assert _counts(h) == (expected, 0, 0)
        for _ in range(expected - 1):
            _store_pod(h, f"pod{made}", rs, "Pending")
            made += 1
        assert h.ctrl._expectations.get(key) == (1, 0)
        h.clear()
        assert h.sync() is None
        assert _counts(h) == (0, 0, 0)
        _store_pod(h, f"pod{made}", rs, "Pending")
        made += 1
    assert active() == replicas

    rs = h.rs()
    h.server.update({**rs, "spec": {**rs["spec"], "replicas": 0}})
    for _ in range(0, replicas, burst):
        h.clear()
        assert h.sync() is None
        expected = min(active(), burst)
        assert _counts(h) == (0, expected, 0)
        doomed = list(h.spy.deleted)
        for name in doomed[1:]:
            h.server.delete("v1", "Pod", name, "default", grace_period_seconds=0)
        assert h.ctrl._expectations.get(key) == (0, 1)
        h.clear()
        assert h.sync() is None
        assert _counts(h) == (0, 0, 0)
        h.server.delete("v1", "Pod", doomed[0], "default", grace_period_seconds=0)
    assert active() == 0


def _queued(h: RSHarness) -> list[str]:
    keys = list(h.ctrl._queue._queue)
    h.ctrl._queue._queue.clear()
    h.ctrl._queue._dirty.clear()
    return keys


def test_expectations_on_recreate() -> None:
    """A set deleted with unfulfilled expectations and recreated under the same name starts
    afresh: the new one creates its pod."""
    h = _harness()
    _store_rs(h, 1)
    assert _queued(h) == ["default/foobar"]
    assert h.sync() is None
    assert _counts(h) == (1, 0, 0)
    assert not h.ctrl._expectations.satisfied("default/foobar")
    _queued(h)
    h.clear()
    h.server.delete("apps/v1", "ReplicaSet", "foobar", "default")
    assert _queued(h) == ["default/foobar"]
    assert h.ctrl._expectations.satisfied("default/foobar")  # forgotten
    _store_rs(h, 1)
    assert _queued(h) == ["default/foobar"]
    assert h.sync() is None
    assert not h.ctrl._expectations.satisfied("default/foobar")
    assert _counts(h) == (1, 0, 0)


def test_watch_controllers_and_pods() -> None:
    """``TestWatchControllers`` / ``TestWatchPods`` as modelled: a set's own event and an
    event of a pod it controls queue the set's key."""
    h = _harness()
    rs = _store_rs(h, 1)
    assert _queued(h) == ["default/foobar"]
    _store_pod(h, "pod0", rs, "Pending")
    assert set(_queued(h)) == {"default/foobar"}


def test_rs_sync_expectations() -> None:
    """``TestRSSyncExpectations``: a pod that lands once the expectations were read is
    still counted, so no replica is created for it."""
    h = _harness()
    rs = _store_rs(h, 2)
    _store_pod(h, "pod0", rs, "Pending")

    class LateArrival(ControllerExpectations):
        """``FakeRSExpectations``: the second pod lands once the expectations were read."""

        def satisfied(self, key: str, now: Instant | None = None) -> bool:
            out = super().satisfied(key, now)
            _store_pod(h, "pod1", rs, "Pending")
            return out

    h.ctrl._expectations = UIDTrackingControllerExpectations(LateArrival())
    h.sync()
    assert _counts(h) == (0, 0, 0)


def test_do_not_adopt_or_create_if_being_deleted_race() -> None:
    """``TestDoNotAdoptOrCreateIfBeingDeletedRace``: the cache says the set is live, the
    apiserver that it is being deleted; the recheck before adopting aborts the sync."""
    h = _harness()
    rs = _store_rs(h, 2, deleting=True)
    assert h.ctrl._rs is not None
    live = {**rs, "metadata": {k: v for k, v in rs["metadata"].items() if k != "deletionTimestamp"}}
    h.ctrl._rs.cache["default/foobar"] = live  # Lister (cache) says it's NOT deleted
    _store_pod(h, "pod1", rs, "Running", owned=False)  # a matching orphan triggers the recheck
    assert h.sync() is not None
    assert _counts(h) == (0, 0, 0)

"""Upstream ``job_controller_test.go`` (v1.37.2) event-handler, orphan and expectation
tests: ``TestPastDeadlineJobFinished``, ``TestSyncJobDeleted``, ``TestSyncJobUpdateRequeue``,
``TestUpdateJobRequeue``, ``TestDeleteJobClearsPodExpectations``, ``TestJobPodLookup``,
``TestGetPodsForJob``, ``TestUpdatePodRelease``, ``TestWatchJobs``, ``TestWatchOrphanPods``,
``TestSyncOrphanPod``, ``TestJobBackoff``, ``TestFinalizersRemovedExpectations``,
``TestFinalizerCleanup`` and ``TestSyncOrphanPodsBySelectorRetryOnFailure``.

Upstream feeds informer indexers and fake clients by hand; here objects go through a real
APIServer whose commits reach the controller's informers (a Job upstream puts only in the
indexer is put in the informer's cache), and the work queues are read directly: a key in
``_queue`` was added at once, one in ``_waiting`` after a delay (``enqueueSyncJobBatched``
waits SyncJobBatchPeriod, 1 s).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from job_sync_harness import SyncHarness, add_pod, build_sync_harness, new_job, store_job

from reference_impl.api import make_namespace
from reference_impl.apiserver.informers import WorkQueue
from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds
from reference_impl.controllers.job.tracking import JOB_TRACKING_FINALIZER, has_tracking_finalizer
from reference_impl.errors import ApiError, Conflict, ServiceUnavailable

Obj = dict[str, Any]
BATCH = seconds(1)  # SyncJobBatchPeriod


def _clear(q: WorkQueue) -> None:
    """Empty a queue: what was queued before the step under test is not its outcome."""
    q._queue.clear()
    q._dirty.clear()
    for _, timer in q._waiting.values():
        timer.cancel()
    q._waiting.clear()


def _delays(h: SyncHarness) -> dict[str, Duration]:
    """Keys waiting in the Job queue and how long until each is added."""
    now = h.clock.now()
    return {k: Duration(at - now) for k, (at, _) in h.ctrl._queue._waiting.items()}


def _unspied(h: SyncHarness) -> SyncHarness:
    """Pod writes reach the server (upstream's tests with a real fake clientset)."""
    h.ctrl._server = h.server
    h.ctrl._status._server = h.server
    return h


def _cache_job(h: SyncHarness, job: Obj) -> None:
    """``GetIndexer().Add(job)``: a Job only the controller's cache knows."""
    assert h.ctrl._jobs is not None
    meta = job["metadata"]
    h.ctrl._jobs.cache[f"{meta['namespace']}/{meta['name']}"] = job


def _pod(
    h: SyncHarness,
    name: str,
    *,
    owner: Obj | None = None,
    labels: dict[str, str] | None = None,
    finalizer: bool = False,
    deleting: bool = False,
    ns: str = "default",
) -> Obj:
    """``buildPod()``: ``owner`` is a controller (or plain) owner reference."""
    meta: Obj = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    if owner is not None:
        meta["ownerReferences"] = [owner]
    if finalizer:
        meta["finalizers"] = [JOB_TRACKING_FINALIZER]
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foo/bar"}]}
    pod = h.server.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
    if deleting:
        h.server.delete("v1", "Pod", name, ns)
        pod = h.server.get("v1", "Pod", name, ns)
    return pod


def _ref(job: Obj, controller: bool = True) -> Obj:
    ref: Obj = {"apiVersion": "batch/v1", "kind": "Job", "name": job["metadata"]["name"],
                "uid": job["metadata"]["uid"]}
    if controller:
        ref |= {"controller": True, "blockOwnerDeletion": True}
    return ref


# -- TestPastDeadlineJobFinished ----------------------------------------------------------


@pytest.mark.parametrize(
    "set_start_time",
    [
        pytest.param(False, id="New job created without start time being set"),
        pytest.param(True, id="New job created with start time being set"),
    ],
)
def test_past_deadline_job_finished(set_start_time: bool) -> None:
    """The Job fails with DeadlineExceeded, never before activeDeadlineSeconds passed."""
    h = _unspied(build_sync_harness())
    job = new_job(1, 1, 6, name="job1")
    job["spec"]["activeDeadlineSeconds"] = 1
    stored = store_job(h, job, {"startTime": h.now()} if set_start_time else None)
    h.clock.run_until(Instant(h.clock.now() + seconds(30)), stop=lambda: _failed(h, "job1"))
    got = h.job("job1")
    assert _failed(h, "job1")
    assert got["status"]["startTime"]
    start = parse_rfc3339(got["status"]["startTime"])
    assert h.clock.now() - start >= seconds(1)
    assert stored["metadata"]["uid"] == got["metadata"]["uid"]


def _failed(h: SyncHarness, name: str) -> bool:
    for c in h.job(name).get("status", {}).get("conditions") or []:
        if (c["type"], c["status"], c.get("reason")) == ("Failed", "True", "DeadlineExceeded"):
            return True
    return False


# -- TestSyncJobDeleted ---------------------------------------------------------------------


def test_sync_job_deleted() -> None:
    """A key whose Job is not cached: nothing created or deleted, no error."""
    h = build_sync_harness()
    assert h.sync("foobar") is None
    assert h.spy.templates == [] and h.spy.deleted == []


# -- TestSyncJobUpdateRequeue ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("err", "requeued"),
    [
        pytest.param(None, False, id="no error"),
        pytest.param(ServiceUnavailable("update error"), True, id="generic error"),
        pytest.param(Conflict("conflict"), True, id="conflict error"),
    ],
)
def test_sync_job_update_requeue(err: ApiError | None, requeued: bool) -> None:
    """A failed status write sends the key back through the rate limiter."""
    h = build_sync_harness()
    store_job(h, new_job(2, 2, 6))
    _clear(h.ctrl._queue)

    def update_status(obj: Obj) -> Obj:
        """``updateStatusHandler``: returns the Job (or ``err``) and stores nothing."""
        h.spy.statuses.append(obj.get("status") or {})
        if err is not None:
            raise err
        return obj

    h.spy.update_status = update_status  # type: ignore[method-assign]
    h.ctrl._queue.add(h.key())
    h.clock.run_until(h.clock.now())
    assert h.spy.statuses  # the sync wrote (tried to write) the status
    assert (h.ctrl._queue.num_requeues(h.key()) == 1) == requeued
    assert (h.key() in _delays(h)) == requeued


# -- TestUpdateJobRequeue -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec_update", "immediately"),
    [
        pytest.param(True, True, id="spec update"),
        pytest.param(False, False, id="status update"),
    ],
)
def test_update_job_requeue(spec_update: bool, immediately: bool) -> None:
    """A spec change (new generation) syncs at once; a status write is batched."""
    h = build_sync_harness()
    job = store_job(h, new_job(1, 1, 1, "Indexed"))
    _clear(h.ctrl._queue)
    if spec_update:
        # upstream sets suspend=false; stored Jobs already default it, so another spec field
        job = copy.deepcopy(job)
        job["spec"]["activeDeadlineSeconds"] = 100
        h.server.update(job)
    else:
        h.server.update_status({**job, "status": {"startTime": h.now()}})
    assert (len(h.ctrl._queue) > 0) == immediately
    if not immediately:
        assert _delays(h) == {h.key(): BATCH}


# -- TestDeleteJobClearsPodExpectations -----------------------------------------------------


def test_delete_job_clears_pod_expectations() -> None:
    h = build_sync_harness()
    store_job(h, new_job(1, 1, 1))
    h.ctrl._expectations.expect_creations(h.key(), 1)
    assert not h.ctrl._expectations.satisfied(h.key())
    h.server.delete("batch/v1", "Job", "foobar", "default", propagation_policy="Background")
    assert h.server.try_get("batch/v1", "Job", "foobar", "default") is None
    assert h.ctrl._expectations.satisfied(h.key())


# -- TestJobPodLookup -----------------------------------------------------------------------


def _selecting(name: str, ns: str, selector: Obj) -> Obj:
    job = new_job(1, 1, 6, name=name)
    job["metadata"]["namespace"] = ns
    job["spec"]["selector"] = selector
    return job


@pytest.mark.parametrize(
    ("job", "pod_ns", "pod_labels", "want"),
    [
        pytest.param(
            new_job(1, 1, 6, name="basic"), "default", None, None,
            id="pods without labels don't match any job",
        ),
        pytest.param(
            _selecting("foo", "default", {"matchLabels": {"foo": "bar"}}), "ns", {"foo": "bar"}, None,
            id="matching labels, different namespace",
        ),
        pytest.param(
            _selecting("bar", "ns", {"matchExpressions": [
                {"key": "foo", "operator": "In", "values": ["bar"]}]}),
            "ns", {"foo": "bar"}, "bar",
            id="matching ns and labels returns",
        ),
    ],
)
def test_job_pod_lookup(job: Obj, pod_ns: str, pod_labels: dict[str, str] | None, want: str | None) -> None:
    h = build_sync_harness()
    h.server.create(make_namespace("ns").build())
    store_job(h, job)
    pod = {"metadata": {"name": "pod", "namespace": pod_ns, "labels": pod_labels}}
    got = [j["metadata"]["name"] for j in h.ctrl.get_pod_jobs(pod)]
    assert got == ([want] if want else [])


# -- TestGetPodsForJob ----------------------------------------------------------------------

# name: (job deleting, pods as (name, owner "job"/"other"/None, labelled, finalizer),
#        want pods, want pods with the tracking finalizer)
GET_PODS: dict[str, tuple[bool, list[tuple[str, str | None, bool, bool]], list[str], list[str]]] = {
    "only matching": (
        False,
        [("pod1", "job", True, True), ("pod2", "other", True, False), ("pod3", None, False, False),
         ("pod4", "job", True, False)],
        ["pod1", "pod4"], ["pod1"],
    ),
    "adopt": (
        False,
        [("pod1", "job", True, False), ("pod2", None, True, False), ("pod3", "other", True, False)],
        ["pod1", "pod2"], ["pod2"],
    ),
    "no adopt when deleting": (True, [("pod1", "job", True, False), ("pod2", None, True, False)], ["pod1"], []),
    # the reference's cache is its apiserver: the race (cache not yet deleting) is the same row
    "no adopt when deleting race": (
        True, [("pod1", "job", True, False), ("pod2", None, True, False)], ["pod1"], []
    ),
    "release": (False, [("pod1", "job", True, False), ("pod2", "job", False, False)], ["pod1"], []),
}


@pytest.mark.parametrize(("deleting", "pods", "want", "want_fin"),
                         [pytest.param(*r, id=n) for n, r in GET_PODS.items()])
def test_get_pods_for_job(
    deleting: bool, pods: list[tuple[str, str | None, bool, bool]], want: list[str], want_fin: list[str]
) -> None:
    h = _unspied(build_sync_harness())
    job = store_job(h, new_job(1, 1, 6, name="test-job"), deleting=deleting)
    other = store_job(h, new_job(1, 1, 6, name="other-job"))
    owners = {"job": job, "other": other}
    for name, owner, labelled, fin in pods:
        _pod(h, name, owner=_ref(owners[owner]) if owner else None,
             labels={"foo": "bar"} if labelled else None, finalizer=fin)
    got = h.ctrl.get_pods_for_job(h.job("test-job"))
    assert sorted(p["metadata"]["name"] for p in got) == want
    assert sorted(p["metadata"]["name"] for p in got if has_tracking_finalizer(p)) == want_fin


# -- TestUpdatePodRelease -------------------------------------------------------------------


def test_update_pod_release() -> None:
    """The pod loses its controller: every matching Job is queued to adopt it."""
    h = build_sync_harness()
    job1 = store_job(h, new_job(1, 1, 6, name="job1"))
    store_job(h, new_job(1, 1, 6, name="job2"))
    pod = _pod(h, "pod1", owner=_ref(job1), labels={"foo": "bar"})
    _clear(h.ctrl._queue)
    released = copy.deepcopy(pod)
    del released["metadata"]["ownerReferences"]
    h.server.update(released)
    assert _delays(h) == {"default/job1": BATCH, "default/job2": BATCH}


# -- TestWatchJobs ----------------------------------------------------------------------------


def test_watch_jobs() -> None:
    """A Job's add event reaches the sync (which then creates its pods)."""
    h = build_sync_harness()
    _clear(h.ctrl._queue)
    store_job(h, new_job(1, 1, 6, name="foo"))
    assert list(h.ctrl._queue._queue) == ["default/foo"]
    h.clock.run_until(h.clock.now())
    assert len(h.spy.templates) == 1


# -- TestWatchOrphanPods ----------------------------------------------------------------------


@pytest.mark.parametrize("case", ["job_does_not_exist", "orphan", "job_finished"])
def test_watch_orphan_pods(case: str) -> None:
    """A deleting pod holding the tracking finalizer that no running Job will release
    loses it through the orphan queue."""
    h = _unspied(build_sync_harness())
    owner = None
    if case == "job_does_not_exist":
        owner = _ref({"metadata": {"name": "foobar", "uid": "not-stored"}})
    elif case == "job_finished":
        job = copy.deepcopy(store_job(h, new_job(2, 2, 6)))
        job["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
        _cache_job(h, job)
        owner = _ref(job)
    pod = _pod(h, case.replace("_", "-"), owner=owner, labels={"foo": "bar"}, finalizer=True, deleting=True)
    h.clock.run_until(Instant(h.clock.now() + seconds(5)))
    latest = h.server.try_get("v1", "Pod", pod["metadata"]["name"], "default")
    assert latest is None or not has_tracking_finalizer(latest)


# -- TestSyncOrphanPod --------------------------------------------------------------------------

RUNNING, FINISHED = "running", "finished"
J_REF = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "111"}
CTRL = {"controller": True, "blockOwnerDeletion": True}

# name: (owner reference, cached Job "j" (uid 111): None/running/finished, pod labels
#        selected by key, want the finalizer removed)
ORPHAN_ROWS: dict[str, tuple[Obj | None, str | None, bool, bool]] = {
    "controlled_by_existing_running_job": ({**J_REF, **CTRL}, RUNNING, False, False),
    "controlled_by_existing_finished_job": ({**J_REF, **CTRL}, FINISHED, False, True),
    "controlled_by_non_existing_job": ({**J_REF, **CTRL}, None, False, True),
    "controlled_by_cronjob": ({**J_REF, "kind": "CronJob", "name": "cj", **CTRL}, None, False, False),
    "not_controlled": (None, None, False, True),
    "controlled_by_custom_crd": ({**J_REF, "apiVersion": "example/v1", "name": "job", **CTRL}, None, False, False),
    "owned_by_existing_running_job": (J_REF, RUNNING, False, True),
    "owned_by_custom_crd": ({**J_REF, "apiVersion": "example/v1", "name": "job"}, None, False, True),
    "orphan_pods_by_label_selector": (None, None, True, True),
}


@pytest.mark.parametrize(("owner", "cached", "by_selector", "removed"),
                         [pytest.param(*r, id=n) for n, r in ORPHAN_ROWS.items()])
def test_sync_orphan_pod(owner: Obj | None, cached: str | None, by_selector: bool, removed: bool) -> None:
    h = _unspied(build_sync_harness())
    if cached is not None:
        job = new_job(2, 2, 6, name="j")
        job["metadata"]["uid"] = "111"
        if cached == FINISHED:
            job["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
        _cache_job(h, job)
    name = "orphan-pod"
    pod = _pod(h, name, owner=owner, labels={"app": "test"} if by_selector else None,
               finalizer=True, deleting=True)
    if by_selector:
        key = h.ctrl.orphan_selector_key("default", {"matchLabels": {"app": "test"}})
    else:
        key = f"default/{name}"
    h.ctrl._release_orphan(key)
    latest = h.server.try_get("v1", "Pod", pod["metadata"]["name"], "default")
    assert (latest is None or not has_tracking_finalizer(latest)) == removed


# -- TestJobBackoff ------------------------------------------------------------------------------


def test_job_backoff() -> None:
    """"failure with pod updates batching": a pod's failure syncs its Job after
    SyncJobBatchPeriod."""
    h = build_sync_harness()
    job = store_job(h, new_job(1, 1, 1))
    pod = add_pod(h, job, "Running")
    _clear(h.ctrl._queue)
    h.server.update_status({**pod, "status": {**pod["status"], "phase": "Failed"}})
    assert _delays(h) == {h.key(): BATCH}
    assert len(h.ctrl._queue) == 0


# -- TestFinalizersRemovedExpectations ----------------------------------------------------------


def test_finalizers_removed_expectations() -> None:
    h = build_sync_harness()
    # updateStatusHandler returns the Job without storing it: the cached Job stays unfinished
    h.spy.update_status = lambda obj: obj  # type: ignore[method-assign]
    job = store_job(h, new_job(2, 2, 6))
    pods = [add_pod(h, job, ph) for ph in ("Succeeded", "Succeeded", "Failed", "Failed")]
    uids = {p["metadata"]["uid"] for p in pods}
    exp = h.ctrl._finalizer_expectations

    h.spy.err = ServiceUnavailable("fake pod controller error")
    assert h.sync() is not None
    assert exp.get_expected_uids(h.key()) == set()

    h.spy.err = None
    h.spy.patches.clear()
    assert h.sync() is None
    assert len(h.spy.patches) == 4  # recorded, not applied: no update event yet
    assert exp.get_expected_uids(h.key()) == uids

    def latest(i: int) -> Obj:
        return h.server.get("v1", "Pod", pods[i]["metadata"]["name"], "default")

    def drop_finalizer(p: Obj) -> None:
        h.server.update({**p, "metadata": {**p["metadata"], "finalizers": []}})

    drop_finalizer(latest(0))  # finalizer removed
    drop_finalizer(latest(1))  # finalizer removed, then deleted
    h.server.delete("v1", "Pod", pods[1]["metadata"]["name"], "default")
    h.server.delete("v1", "Pod", pods[2]["metadata"]["name"], "default")  # keeps its finalizer
    h.server.delete("v1", "Pod", pods[3]["metadata"]["name"], "default")
    drop_finalizer(latest(3))  # so the delete completes: the final delete event
    assert h.server.try_get("v1", "Pod", pods[3]["metadata"]["name"], "default") is None
    assert exp.get_expected_uids(h.key()) == {pods[2]["metadata"]["uid"]}


# -- TestFinalizerCleanup -----------------------------------------------------------------------


def test_finalizer_cleanup() -> None:
    """Once the Job is finished, its pod's tracking finalizer is removed."""
    h = _unspied(build_sync_harness())
    store_job(h, new_job(1, 1, 1))
    h.clock.run_until(h.clock.now())
    pods = h.server.list("v1", "Pod", "default")
    assert len(pods) == 1 and has_tracking_finalizer(pods[0])
    job = h.job()
    now = h.now()
    h.server.update_status({**job, "status": {
        **job["status"],
        "conditions": [
            {"type": t, "status": "True", "reason": "CompletionsReached", "message": "",
             "lastProbeTime": now, "lastTransitionTime": now}
            for t in ("SuccessCriteriaMet", "Complete")
        ],
        "completionTime": now, "succeeded": 1, "active": 0,
    }})
    h.clock.run_until(Instant(h.clock.now() + seconds(5)))
    latest = h.server.try_get("v1", "Pod", pods[0]["metadata"]["name"], "default")
    assert latest is None or not has_tracking_finalizer(latest)


# -- TestSyncOrphanPodsBySelectorRetryOnFailure -------------------------------------------------


def test_sync_orphan_pods_by_selector_retry_on_failure() -> None:
    """Each pod a failed selector pass could not patch is retried on its own (by name)."""
    h = build_sync_harness()
    names = [f"pod{i}" for i in (1, 2, 3)]
    for n in names:
        _pod(h, n, labels={"app": "test"}, finalizer=True, deleting=True)
    _clear(h.ctrl._orphans)
    h.spy.err = ServiceUnavailable("server temporarily unavailable")
    h.ctrl._release_orphan(h.ctrl.orphan_selector_key("default", {"matchLabels": {"app": "test"}}))
    assert len(h.spy.patches) == 3
    retried = sorted(h.ctrl._orphans._waiting)
    assert retried == [f"default/{n}" for n in names]
    h.spy.err = None
    h.spy.patches.clear()
    for key in retried:
        h.ctrl._release_orphan(key)
    assert len(h.spy.patches) == 3
    assert all(not has_tracking_finalizer(p) for p in h.spy.patches)

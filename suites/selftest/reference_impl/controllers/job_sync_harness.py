"""A one-sync harness for upstream's Job controller tables (``job_controller_test.go``).

Jobs and pods are stored in a real APIServer (so they are validated and defaulted) and
fed to a started JobController through its informers; then one ``_sync`` runs. Pod
writes during the sync go to a spy that records them without applying them, as
upstream's ``FakePodControl`` does; status writes reach the server.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, parse_rfc3339, rfc3339
from reference_impl.controllers.job import JobController
from reference_impl.controllers.job.tracking import JOB_TRACKING_FINALIZER
from reference_impl.errors import ApiError, ServiceUnavailable
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NO_INDEX = "<none>"
# testFinishedAt: the zero time plus one second.
TEST_FINISHED_AT = "0001-01-01T00:00:01Z"


class PodControlSpy:
    """The server as the controller sees it: pod creates, deletes and updates are
    recorded (and fail with ``err``, or past ``create_limit``) but not applied."""

    def __init__(self, real: APIServer) -> None:
        self.real = real
        self.templates: list[Obj] = []
        self.deleted: list[str] = []
        self.patches: list[Obj] = []
        self.create_calls = 0
        self.create_limit = 0
        self.err: ApiError | None = None
        self.statuses: list[Obj] = []  # Job status writes, in order
        self.status_err: ApiError | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def create(self, manifest: Obj) -> Obj:
        if manifest.get("kind") != "Pod":
            return self.real.create(manifest)
        self.create_calls += 1
        if self.create_limit and self.create_calls > self.create_limit:
            raise ServiceUnavailable("not creating pod, limit reached")
        self.templates.append(copy.deepcopy(manifest))
        if self.err is not None:
            raise self.err
        out = copy.deepcopy(manifest)
        out["metadata"]["name"] = f"{manifest['metadata'].get('generateName', 'pod-')}{self.create_calls}"
        return out

    def update(self, obj: Obj) -> Obj:
        if obj.get("kind") != "Pod":
            return self.real.update(obj)
        self.patches.append(obj)
        if self.err is not None:
            raise self.err
        return obj

    def update_status(self, obj: Obj) -> Obj:
        if obj.get("kind") == "Job":
            self.statuses.append(copy.deepcopy(obj.get("status") or {}))
            if self.status_err is not None:
                raise self.status_err
        return self.real.update_status(obj)

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None, **kw: Any) -> Obj | None:
        if kind != "Pod":
            return self.real.delete(api_version, kind, name, namespace, **kw)
        self.deleted.append(name)
        if self.err is not None:
            raise self.err
        return None


@dataclass
class SyncHarness:
    """One control plane with only the Job controller; ``spy`` records its pod writes."""

    clock: SimClock
    server: APIServer
    ctrl: JobController
    spy: PodControlSpy
    pods_made: int = 0

    def now(self) -> str:
        return rfc3339(self.clock.now())

    def job(self, name: str = "foobar") -> Obj:
        j = self.server.try_get("batch/v1", "Job", name, "default")
        assert j is not None
        return j

    def key(self, name: str = "foobar") -> str:
        return f"default/{name}"

    def sync(self, name: str = "foobar") -> ApiError | None:
        """Run one sync of the Job; the error it raised, if any."""
        try:
            self.ctrl._sync(self.key(name))
        except ApiError as err:
            return err
        return None


def build_sync_harness(gates: dict[str, bool] | None = None) -> SyncHarness:
    clock = SimClock()
    rng = Rng(1)
    fg = FeatureGates(gates or {})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    informers = InformerFactory(server)
    ctx = ComponentContext(server, informers, clock, rng, fg, Trace(clock))
    ctrl = JobController(ctx)
    ctrl.start()
    spy = PodControlSpy(server)
    ctrl._server = spy  # type: ignore[assignment]
    ctrl._status._server = spy  # type: ignore[assignment]
    return SyncHarness(clock, server, ctrl, spy)


def new_job(
    parallelism: int | None,
    completions: int | None,
    backoff_limit: int,
    completion_mode: str | None = None,
    name: str = "foobar",
) -> Obj:
    """``newJobWithName``: selector foo=bar, one container; None leaves a count unset."""
    spec: Obj = {
        "selector": {"matchLabels": {"foo": "bar"}},
        "manualSelector": True,
        "template": {
            "metadata": {"labels": {"foo": "bar"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foo/bar"}]},
        },
        "backoffLimit": backoff_limit,
    }
    if completion_mode:
        spec["completionMode"] = completion_mode
    if completions is not None:
        spec["completions"] = completions
    if parallelism is not None:
        spec["parallelism"] = parallelism
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def store_job(h: SyncHarness, job: Obj, status: Obj | None = None, deleting: bool = False) -> Obj:
    """Create ``job`` (marked for deletion with ``deleting``) and set its status."""
    if deleting:
        job["metadata"]["finalizers"] = ["test.garhwal.dev/keep"]
    out = h.server.create(job)
    if status:
        out = h.server.update_status({**out, "status": status})
    if deleting:
        h.server.delete("batch/v1", "Job", out["metadata"]["name"], "default")
        out = h.job(out["metadata"]["name"])
    return out


def _terminated(finished_at: str = TEST_FINISHED_AT) -> list[Obj]:
    return [
        {
            "name": "c",
            "image": "foo/bar",
            "ready": False,
            "restartCount": 0,
            "state": {"terminated": {"exitCode": 0, "finishedAt": finished_at}},
        }
    ]


def add_pod(
    h: SyncHarness,
    job: Obj,
    phase: str,
    *,
    ready: bool = False,
    terminating: bool = False,
    index: str | None = None,
    statuses: list[Obj] | None = None,
    annotations: dict[str, str] | None = None,
    name: str | None = None,
    pod_conditions: list[Obj] | None = None,
    finalizer: bool = True,
) -> Obj:
    """``newPod`` with a phase (and tracking finalizer), as ``setPodsStatuses`` and
    ``setPodsStatusesWithIndexes`` make them."""
    h.pods_made += 1
    meta: Obj = {
        "name": name or f"pod-{h.pods_made:03d}",
        "namespace": "default",
        "labels": {"foo": "bar"},
        "finalizers": [JOB_TRACKING_FINALIZER] if finalizer else [],
        "ownerReferences": [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "name": job["metadata"]["name"],
                "uid": job["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    spec: Obj = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foo/bar"}]}
    if terminating and not finalizer:
        spec["nodeName"] = "node-0"  # a bound pod stays, terminating, until its kubelet confirms
    ann = dict(annotations or {})
    if index is not None and index != NO_INDEX:
        ann["batch.kubernetes.io/job-completion-index"] = index
        spec["hostname"] = f"{job['metadata']['name']}-{index}"
    if ann:
        meta["annotations"] = ann
    pod = h.server.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
    status: Obj = {"phase": phase}
    if statuses is not None:
        status["containerStatuses"] = statuses
    elif index is None or phase in ("Succeeded", "Failed"):
        status["containerStatuses"] = _terminated()
    if ready:
        status["conditions"] = [{"type": "Ready", "status": "True"}]
    if pod_conditions:
        status["conditions"] = [*status.get("conditions", []), *pod_conditions]
    pod = h.server.update_status({**pod, "status": status})
    if terminating:
        h.server.delete("v1", "Pod", meta["name"], "default")
        pod = h.server.get("v1", "Pod", meta["name"], "default")
    return pod


def set_pods_statuses(
    h: SyncHarness,
    job: Obj,
    pending: int = 0,
    active: int = 0,
    succeeded: int = 0,
    failed: int = 0,
    terminating: int = 0,
    ready: int = 0,
) -> None:
    """``setPodsStatuses``."""
    for _ in range(pending):
        add_pod(h, job, "Pending")
    for i in range(active):
        add_pod(h, job, "Running", ready=i < ready)
    for _ in range(succeeded):
        add_pod(h, job, "Succeeded")
    for _ in range(failed):
        add_pod(h, job, "Failed")
    for _ in range(terminating):
        add_pod(h, job, "Running", terminating=True)


def set_pods_with_indexes(h: SyncHarness, job: Obj, pods: list[tuple[str, str]]) -> None:
    """``setPodsStatusesWithIndexes``: (index, phase) pairs; NO_INDEX for none."""
    for ix, phase in pods:
        add_pod(h, job, phase, index=ix)


def conditions(status: Obj) -> list[tuple[str, str, str, str]]:
    """(type, status, reason, message) of each condition, times ignored."""
    return [
        (c["type"], c["status"], c.get("reason", ""), c.get("message", ""))
        for c in status.get("conditions") or []
    ]


def instant(text: str) -> Instant:
    return parse_rfc3339(text)

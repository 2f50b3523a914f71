"""One ``syncJob`` on stored objects for the podFailurePolicy / backoffLimitPerIndex tables.

Upstream puts a Job and its pods into informer caches and calls ``syncJob`` once. Here
they go through a real APIServer (so defaulting and validation apply), the simulated
clock is moved an hour on (upstream's pods were created at the zero time, long before
the sync, so a back-off counted from their creation is over), pod statuses and deletions
are applied, and only then is a JobController started and its sync called once.
``"@now"`` in a pod status stands for the sync's instant.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, rfc3339, seconds
from reference_impl.controllers.job import JobController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

__all__ = ["PodRow", "SyncResult", "sync_once"]

Obj = dict[str, Any]
TRACKING = "batch.kubernetes.io/job-tracking"
INDEX = "batch.kubernetes.io/job-completion-index"
FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"


@dataclass
class PodRow:
    """A pod of a table row (``buildPod()`` / ``podBuilder``), named ``mypod-<i>``."""

    status: Obj = field(default_factory=dict)
    index: str | None = None
    failure_count: str | None = None
    deleted: bool = False


@dataclass
class SyncResult:
    """The stored Job after the sync, and the pods then stored."""

    job: Obj
    pods: list[Obj]

    @property
    def status(self) -> Obj:
        out: Obj = self.job.get("status") or {}
        return out


def _job_manifest(spec: Obj) -> Obj:
    """A Job named ``foobar`` with upstream's ``validTemplate``."""
    template = {
        "metadata": {"labels": {"foo": "bar"}},
        "spec": {
            "containers": [{"name": "main-container", "image": "foo/bar"}],
            "restartPolicy": "Never",
        },
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "foobar", "namespace": "default"},
        "spec": {"template": template, **spec},
    }


def _named(statuses: list[Obj] | None) -> list[Obj]:
    """Container statuses with a name ("main" when the row leaves it empty)."""
    return [{**cs, "name": cs.get("name") or "main"} for cs in statuses or []]


def _containers(statuses: list[Obj] | None) -> list[Obj]:
    return [{"name": cs["name"], "image": "foo/bar"} for cs in _named(statuses)]


def _pod_manifest(job: Obj, i: int, row: PodRow) -> Obj:
    ann: Obj = {}
    if row.index is not None:
        ann[INDEX] = row.index
    elif job["spec"].get("completionMode") == "Indexed":
        ann[INDEX] = str(i)  # upstream's table loop: pb.index(i) for Indexed Jobs
    if row.failure_count is not None:
        ann[FAILURE_COUNT] = row.failure_count
    spec: Obj = {
        "containers": _containers(row.status.get("containerStatuses")) or [{"name": "main", "image": "foo/bar"}],
        "restartPolicy": "Never",
    }
    inits = _containers(row.status.get("initContainerStatuses"))
    if inits:
        spec["initContainers"] = inits
    owner = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": job["metadata"]["name"],
        "uid": job["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    meta: Obj = {
        "name": f"mypod-{i}",
        "namespace": "default",
        # the Job's selector matches them, as upstream's newPod: else getPodsForJob releases them
        "labels": dict(job["spec"]["template"]["metadata"].get("labels") or {}),
        "annotations": ann,
        "ownerReferences": [owner],
        "finalizers": [TRACKING],
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _fill(value: Any, now: str) -> Any:
    if value == "@now":
        return now
    if isinstance(value, dict):
        return {k: _fill(v, now) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, now) for v in value]
    return value


def sync_once(spec: Obj, pods: list[PodRow], status: Obj | None = None) -> SyncResult:
    """Store the Job (with ``status``) and ``pods``, then run one Job sync."""
    clock = SimClock()
    rng = Rng(1)
    gates = FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    server.create(make_namespace("default").build())
    job = server.create(_job_manifest(spec))
    if status:
        job = server.update_status({**job, "status": copy.deepcopy(status)})
    created = [server.create(_pod_manifest(job, i, row)) for i, row in enumerate(pods)]
    clock.run_until(Instant(seconds(3600)))
    now = rfc3339(clock.now())
    for pod, row in zip(created, pods, strict=True):
        name = pod["metadata"]["name"]
        if row.status:
            st = _fill(copy.deepcopy(row.status), now)
            for key in ("containerStatuses", "initContainerStatuses"):
                if key in st:
                    st[key] = _named(st[key])
            server.update_status({**server.get("v1", "Pod", name, "default"), "status": st})
        if row.deleted:
            server.delete("v1", "Pod", name, "default")
    informers = InformerFactory(server)
    ctx = ComponentContext(server, informers, clock, rng, gates, Trace(clock))
    controller = JobController(ctx)
    controller.start()
    controller._sync("default/foobar")  # upstream's tables call syncJob directly too
    return SyncResult(
        server.get("batch/v1", "Job", "foobar", "default"), server.list("v1", "Pod", "default")
    )

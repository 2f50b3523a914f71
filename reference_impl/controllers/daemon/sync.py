"""Per-node decisions and pod writes of the DaemonSet controller (``daemon_controller.go``):
``podsShouldBeOnNode`` and ``syncNodes``."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from reference_impl.apiserver.component import ComponentContext
from reference_impl.controllers.controller_utils import (
    is_pod_available,
    is_pod_ready,
    pod_from_template,
)
from reference_impl.controllers.daemon.placement import Placement, pod_order_key
from reference_impl.controllers.daemon.util import (
    HASH_LABEL,
    allows_surge,
    create_pod_template,
    generation_or_none,
    replace_daemonset_pod_node_name_node_affinity,
)
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import ApiError, Forbidden, NotFound

if TYPE_CHECKING:
    from reference_impl.controllers.daemon.controller import DaemonSetsController

__all__ = ["SyncNodes", "failed_pods_backoff_key", "pods_should_be_on_node"]

Obj = dict[str, Any]
SLOW_START_INITIAL_BATCH_SIZE = 1  # controller.SlowStartInitialBatchSize


def failed_pods_backoff_key(ds: Obj, node_name: str) -> str:
    """``failedPodsBackoffKey``: ``<uid>/<observedGeneration>/<node>``."""
    observed = int((ds.get("status") or {}).get("observedGeneration", 0) or 0)
    return f"{ds['metadata']['uid']}/{observed}/{node_name}"


def pods_should_be_on_node(
    dsc: DaemonSetsController,
    node: Obj,
    node_to_pods: dict[str, list[Obj]],
    ds: Obj,
    hash_: str,
    placement: Placement,
) -> tuple[list[str], list[str]]:
    """``podsShouldBeOnNode``: (nodes needing a pod, pods to delete) for one node.

    A node that should run a pod and has none needs one. Where pods may keep running,
    failed pods are deleted (at most once per backoff window; within it the set is
    queued again after the delay), succeeded ones too; without surge all but the
    oldest running pod go; with surge, the oldest new and old pods stay and the old one
    goes once it is not ready or the new one is available. Where pods may not keep
    running, every pod not already being deleted goes."""
    should_run, keep_running = placement.should_run(node)
    node_name = str(node["metadata"]["name"])
    pods = node_to_pods.get(node_name)
    need: list[str] = []
    delete: list[str] = []
    if should_run and pods is None:
        return [node_name], []
    if keep_running:
        running: list[Obj] = []
        now = dsc._ctx.clock.now()
        for pod in pods or []:
            if pod["metadata"].get("deletionTimestamp"):
                continue
            phase = (pod.get("status") or {}).get("phase")
            ref = f"{pod['metadata'].get('namespace', '')}/{pod['metadata']['name']}"
            if phase == "Failed":
                key = failed_pods_backoff_key(ds, node_name)
                if dsc.failed_pods_backoff.in_backoff_since_update(key, now):
                    dsc.enqueue_after(ds, dsc.failed_pods_backoff.get(key))
                    continue
                dsc.failed_pods_backoff.next(key, now)
                msg = f"Found failed daemon pod {ref} on node {node_name}, will try to kill it"
                dsc.event(ds, "FailedDaemonPod", msg)
                delete.append(str(pod["metadata"]["name"]))
            elif phase == "Succeeded":
                msg = f"Found succeeded daemon pod {ref} on node {node_name}, will try to delete it"
                dsc.event(ds, "SucceededDaemonPod", msg)
                delete.append(str(pod["metadata"]["name"]))
            else:
                running.append(pod)
        running.sort(key=pod_order_key)
        if not allows_surge(ds):
            delete += [str(p["metadata"]["name"]) for p in running[1:]]
            return need, delete
        if len(running) <= 1:
            if not running and should_run:
                need.append(node_name)
            return need, delete
        oldest_new: Obj | None = None
        oldest_old: Obj | None = None
        for pod in running:
            if (pod["metadata"].get("labels") or {}).get(HASH_LABEL) == hash_:
                if oldest_new is None:
                    oldest_new = pod
                    continue
            elif oldest_old is None:
                oldest_old = pod
                continue
            delete.append(str(pod["metadata"]["name"]))
        if oldest_new is not None and oldest_old is not None:
            min_ready = int(ds["spec"].get("minReadySeconds", 0) or 0)
            if not is_pod_ready(oldest_old) or is_pod_available(oldest_new, min_ready, now):
                delete.append(str(oldest_old["metadata"]["name"]))
        return need, delete
    if pods:
        delete += [str(p["metadata"]["name"]) for p in pods if not p["metadata"].get("deletionTimestamp")]
    return need, delete


class SyncNodes:
    """``syncNodes``: create daemon pods for nodes in slow-start batches and delete pods,
    each capped at burstReplicas, keeping the expectations; raises the first error."""

    def __init__(self, dsc: DaemonSetsController, ctx: ComponentContext, ds: Obj, hash_: str) -> None:
        self._dsc = dsc
        self._ctx = ctx
        self._ds = ds
        self._hash = hash_
        self._key = f"{ds['metadata'].get('namespace', '')}/{ds['metadata']['name']}"

    def run(self, to_delete: list[str], to_create: list[str]) -> None:
        """Create, then delete; the first error (after all deletes) is raised."""
        exp = self._dsc.expectations
        creates = min(len(to_create), self._dsc.burst_replicas)
        deletes = min(len(to_delete), self._dsc.burst_replicas)
        exp.expect(self._key, adds=creates, dels=deletes)  # SetExpectations
        errors: list[ApiError] = []
        template = create_pod_template(
            self._ds["spec"].get("template") or {}, generation_or_none(self._ds), self._hash
        )
        pos, batch = 0, min(creates, SLOW_START_INITIAL_BATCH_SIZE)
        while creates > pos:
            before = len(errors)
            for ix in range(pos, pos + batch):
                err = self._create(template, to_create[ix])
                if err is not None:
                    exp.creation_observed(self._key)
                    errors.append(err)
            skipped = creates - (batch + pos)
            if len(errors) > before and skipped > 0:
                exp.lower_expectations(self._key, skipped, 0)
                break
            pos, batch = pos + batch, min(2 * batch, creates - (pos + batch))
        for name in to_delete[:deletes]:
            err = self._delete(name)
            if err is not None:
                exp.deletion_observed(self._key)
                if not isinstance(err, NotFound):
                    errors.append(err)
        if errors:
            raise errors[0]

    def _create(self, template: Obj, node_name: str) -> ApiError | None:
        tpl = copy.deepcopy(template)
        spec = tpl.setdefault("spec", {})
        spec["affinity"] = replace_daemonset_pod_node_name_node_affinity(spec.get("affinity"), node_name)
        pod = pod_from_template(tpl, self._ds, f"{self._ds['metadata']['name']}-")
        try:
            created = self._ctx.server.create(pod)
        except Forbidden as exc:
            if terminating(exc):
                return None  # every later create fails too; upstream leaves expectations
            return exc
        except ApiError as exc:
            return exc
        self._ctx.trace.record(self._dsc.name, "create-pod", f"{created['metadata']['namespace']}/"
                               f"{created['metadata']['name']}", node_name)  # fmt: skip
        return None

    def _delete(self, name: str) -> ApiError | None:
        ns = self._ds["metadata"].get("namespace")
        self._ctx.trace.record(self._dsc.name, "delete-pod", f"{ns}/{name}", self._key)
        try:
            self._ctx.server.delete("v1", "Pod", name, ns)
        except ApiError as exc:
            return exc
        return None

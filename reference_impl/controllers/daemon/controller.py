"""The DaemonSet controller (``pkg/controller/daemon/daemon_controller.go``).

Runs one pod per node that should run it: the pod is pinned with a ``metadata.name``
matchFields node affinity and left to the scheduler. Failed pods are replaced (limited
by a per-node backoff), surplus and misplaced pods deleted, templates rolled out by
RollingUpdate (``update.go``) or on delete, and the status counters kept.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, seconds
from reference_impl.controllers.controller_utils import (
    ControllerExpectations,
    claim_objects,
    controller_ref,
    is_pod_ready,
    owner_reference,
    sorted_by_key,
)
from reference_impl.controllers.daemon import revisions
from reference_impl.controllers.daemon.placement import (
    Backoff,
    Placement,
    unscheduled_pods_without_node,
)
from reference_impl.controllers.daemon.status import calculate_status, store_daemon_set_status
from reference_impl.controllers.daemon.sync import SyncNodes, pods_should_be_on_node
from reference_impl.controllers.daemon.update import rolling_update
from reference_impl.controllers.daemon.util import HASH_LABEL, TargetNodeError, get_target_node_name
from reference_impl.errors import ApiError

__all__ = ["DaemonSetsController"]

Obj = dict[str, Any]
BURST_REPLICAS: Final = 250  # daemon.BurstReplicas
BACKOFF_GC_INTERVAL: Final = seconds(60)  # daemon.BackoffGCInterval
_GATE: Final = "TaintTolerationComparisonOperators"


class DaemonSetSyncError(ApiError):
    """A sync failure that is no API error (a bad maxSurge, a missing node): retried."""


class DaemonSetsController:
    """Reconciles DaemonSets against nodes and their daemon pods."""

    name: Final = "daemonset-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext, backoff: Backoff | None = None) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self.expectations = ControllerExpectations(clock=ctx.clock.now)  # expires (ExpectationsTimeout)
        self.failed_pods_backoff = backoff or Backoff()
        self.burst_replicas = BURST_REPLICAS
        self._queue = WorkQueue(ctx.clock, self.sync_daemon_set, name=self.name,
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._node_queue = WorkQueue(ctx.clock, self.sync_node_update, name=f"{self.name}-node",
                                     rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._ds: SharedInformer | None = None
        self._history: SharedInformer | None = None
        self._pods: SharedInformer | None = None
        self._nodes: SharedInformer | None = None

    def start(self) -> None:
        """Register the informers' handlers and queue every existing DaemonSet."""
        informers = self._ctx.informers
        self._ds = informers.informer("apps/v1", "DaemonSet")
        self._history = informers.informer("apps/v1", "ControllerRevision")
        self._pods = informers.informer("v1", "Pod")
        self._nodes = informers.informer("v1", "Node")
        self._ds.add_handler(self._on_ds)
        self._history.add_handler(self._on_history)
        self._pods.add_handler(self._on_pod)
        self._nodes.add_handler(self._on_node)
        for ds in sorted_by_key(self._ds.items()):
            self._queue.add(object_key(ds))
        self._gc_failed_pods_backoff()

    def _gc_failed_pods_backoff(self) -> None:
        """``Run``'s ``wait.Until(failedPodsBackoff.GC, BackoffGCInterval)``: now, then a
        minute after each run; GC drops entries not updated for twice the maximum."""
        self.failed_pods_backoff.gc(self._ctx.clock.now())
        self._ctx.clock.call_later(BACKOFF_GC_INTERVAL, self._gc_failed_pods_backoff)

    # -- helpers used by the event handlers ----------------------------------------------

    def _compare(self) -> bool:
        return bool(self._ctx.gates.get(_GATE, False))

    def _enqueue(self, ds: Obj) -> None:
        self._queue.add(object_key(ds))

    def enqueue_after(self, ds: Obj, delay: Duration) -> None:
        """``enqueueDaemonSetAfter``."""
        self._queue.add_after(object_key(ds), delay)

    def event(self, ds: Obj, reason: str, message: str) -> None:
        """The controller's ``eventRecorder.Eventf`` on the DaemonSet, as a trace record."""
        self._ctx.trace.record(self.name, reason, object_key(ds), message)

    def _resolve(self, namespace: str, ref: Obj) -> Obj | None:
        """``resolveControllerRef``."""
        assert self._ds is not None
        if ref.get("kind") != "DaemonSet":
            return None
        ds = self._ds.get(f"{namespace}/{ref.get('name')}")
        if ds is None or ds["metadata"].get("uid") != ref.get("uid"):
            return None
        return ds

    def _selecting(self, namespace: str, labels: dict[str, str] | None) -> list[Obj]:
        """``GetPodDaemonSets`` / ``GetHistoryDaemonSets``: sets of the namespace whose
        non-empty selector matches ``labels``."""
        assert self._ds is not None
        if not labels:
            return []
        out = []
        for ds in sorted_by_key(self._ds.items()):
            sel = ds["spec"].get("selector") or {}
            if ds["metadata"].get("namespace") != namespace or not (
                sel.get("matchLabels") or sel.get("matchExpressions")
            ):
                continue
            try:
                if selector_from_label_selector(sel).matches(labels):
                    out.append(ds)
            except ValueError:
                continue
        return out

    # -- event handlers -----------------------------------------------------------------

    def _on_ds(self, ev: ObjectEvent) -> None:
        """``addDaemonset`` / ``updateDaemonset`` / ``deleteDaemonset``."""
        key = object_key(ev.obj)
        old = ev.old
        if ev.type == "DELETED" or (
            old is not None and old["metadata"].get("uid") != ev.obj["metadata"].get("uid")
        ):
            self.expectations.forget(key)
        self._queue.add(key)

    def _on_history(self, ev: ObjectEvent) -> None:
        """``addHistory`` / ``updateHistory`` / ``deleteHistory``."""
        cr, old = ev.obj, ev.old
        ns = str(cr["metadata"].get("namespace", ""))
        ref = controller_ref(cr)
        if ev.type == "DELETED" or (ev.type == "ADDED" and cr["metadata"].get("deletionTimestamp")):
            if ref is not None and (ds := self._resolve(ns, ref)) is not None:
                self._enqueue(ds)
            return
        if ev.type == "ADDED":
            if ref is not None:
                return  # observed; the owner needs no sync
            for ds in self._selecting(ns, cr["metadata"].get("labels")):
                self._enqueue(ds)
            return
        if old is None or old["metadata"].get("resourceVersion") == cr["metadata"].get("resourceVersion"):
            return
        old_ref = controller_ref(old)
        changed = old_ref != ref
        if changed and old_ref is not None and (prev := self._resolve(ns, old_ref)) is not None:
            self._enqueue(prev)
        if ref is not None:
            if (ds := self._resolve(ns, ref)) is not None:
                self._enqueue(ds)
            return
        if changed or old["metadata"].get("labels") != cr["metadata"].get("labels"):
            for ds in self._selecting(ns, cr["metadata"].get("labels")):
                self._enqueue(ds)

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``addPod`` / ``updatePod`` / ``deletePod``."""
        pod, old = ev.obj, ev.old
        ns = str(pod["metadata"].get("namespace", ""))
        if ev.type == "MODIFIED" and old is not None and (
            old["metadata"].get("resourceVersion") == pod["metadata"].get("resourceVersion")
        ):
            return
        if ev.type == "DELETED" or pod["metadata"].get("deletionTimestamp"):
            self._pod_deleted(pod)
            return
        ref = controller_ref(pod)
        if ev.type == "ADDED":
            if ref is not None:
                if (ds := self._resolve(ns, ref)) is not None:
                    self.expectations.creation_observed(object_key(ds))
                    self._enqueue(ds)
                return
            for ds in self._selecting(ns, pod["metadata"].get("labels")):
                self._enqueue(ds)
            return
        old_ref = controller_ref(old) if old is not None else None
        changed = old_ref != ref
        if changed and old_ref is not None and (prev := self._resolve(ns, old_ref)) is not None:
            self._enqueue(prev)
        if ref is not None:
            ds = self._resolve(ns, ref)
            if ds is None:
                return
            self._enqueue(ds)
            min_ready = int(ds["spec"].get("minReadySeconds", 0) or 0)
            if old is not None and not is_pod_ready(old) and is_pod_ready(pod) and min_ready > 0:
                self.enqueue_after(ds, Duration(seconds(min_ready) + seconds(1)))
            return
        labels_changed = old is not None and old["metadata"].get("labels") != pod["metadata"].get("labels")
        if labels_changed or changed:
            for ds in self._selecting(ns, pod["metadata"].get("labels")):
                self._enqueue(ds)

    def _pod_deleted(self, pod: Obj) -> None:
        ref = controller_ref(pod)
        if ref is None:
            return
        ds = self._resolve(str(pod["metadata"].get("namespace", "")), ref)
        if ds is None:
            return
        self.expectations.deletion_observed(object_key(ds))
        self._enqueue(ds)

    def _on_node(self, ev: ObjectEvent) -> None:
        """``addNode`` / ``updateNode`` (``shouldIgnoreNodeUpdate``); deletions are seen
        at the next sync of each set."""
        node, old = ev.obj, ev.old
        if ev.type == "DELETED":
            return
        if ev.type == "MODIFIED" and old is not None and should_ignore_node_update(old, node):
            return
        self._node_queue.add(str(node["metadata"]["name"]))

    def sync_node_update(self, node_name: str) -> None:
        """``syncNodeUpdate``: queue the sets that must now create a pod on the node,
        delete one from it, or recount a misscheduled pod."""
        assert self._nodes is not None and self._ds is not None and self._pods is not None
        node = self._nodes.get(node_name)
        if node is None:
            return
        by_ds: dict[str, int] = {}
        for pod in self._pods.items():
            ref = controller_ref(pod)
            if (pod.get("spec") or {}).get("nodeName") != node_name or ref is None:
                continue
            if ref.get("kind") == "DaemonSet":
                key = f"{pod['metadata'].get('namespace', '')}/{ref.get('name')}"
                by_ds[key] = by_ds.get(key, 0) + 1
        for ds in sorted_by_key(self._ds.items()):
            should_run, keep = Placement.of(ds, self._compare()).should_run(node)
            scheduled = by_ds.get(object_key(ds), 0) > 0
            misscheduled = int((ds.get("status") or {}).get("numberMisscheduled", 0) or 0)
            if (should_run and not scheduled) or (not keep and scheduled) or (scheduled and misscheduled > 0):
                self._enqueue(ds)

    # -- sync ---------------------------------------------------------------------------

    def daemon_pods(self, ds: Obj) -> list[Obj]:
        """``getDaemonPods``: ``ClaimPods`` over the set's pods and the namespace's orphans."""
        assert self._pods is not None
        pods = self._pods
        uid = ds["metadata"]["uid"]
        ns = ds["metadata"].get("namespace")
        candidates = [
            p for p in sorted_by_key(pods.items())
            if p["metadata"].get("namespace") == ns
            and ((ref := controller_ref(p)) is None or ref.get("uid") == uid)
        ]  # fmt: skip

        def adopt(pod: Obj) -> Obj:
            body = {**pod, "metadata": dict(pod["metadata"])}
            body["metadata"]["ownerReferences"] = [
                *(pod["metadata"].get("ownerReferences") or []), owner_reference(ds)
            ]
            self._server.update(body)
            return pods.get(object_key(pod)) or pod

        def release(pod: Obj) -> object:
            body = {**pod, "metadata": dict(pod["metadata"])}
            refs = [r for r in pod["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
            body["metadata"]["ownerReferences"] = refs
            return self._server.update(body)

        return claim_objects(ds, candidates, adopt, release)

    def nodes_to_daemon_pods(self, ds: Obj, include_deleted_terminal: bool) -> dict[str, list[Obj]]:
        """``getNodesToDaemonPods``: claimed pods by target node; terminal pods being
        deleted are left out unless asked for."""
        out: dict[str, list[Obj]] = {}
        for pod in self.daemon_pods(ds):
            terminal = (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded")
            if not include_deleted_terminal and terminal and pod["metadata"].get("deletionTimestamp"):
                continue
            try:
                node = get_target_node_name(pod)
            except TargetNodeError:
                continue
            out.setdefault(node, []).append(pod)
        return out

    def _node_list(self) -> list[Obj]:
        assert self._nodes is not None
        return sorted(self._nodes.items(), key=lambda n: str(n["metadata"]["name"]))

    def sync_daemon_set(self, key: str) -> None:
        """``syncDaemonSet``: history first, then (expectations met) manage pods and roll
        out, clean up history, and write the status."""
        assert self._ds is not None and self._history is not None
        ds = self._ds.get(key)
        if ds is None:
            self.expectations.forget(key)
            return
        nodes = self._node_list()
        if ds["spec"].get("selector") == {}:
            msg = "This daemon set is selecting all pods. A non-empty selector is required."
            self.event(ds, "SelectingAll", msg)
            return
        if ds["metadata"].get("deletionTimestamp"):
            return
        cur, old = revisions.construct_history(
            self._server, ds, list(self._history.items()), lambda: self.daemon_pods(ds)
        )
        hash_ = str((cur["metadata"].get("labels") or {}).get(HASH_LABEL, ""))
        if not self.expectations.satisfied(key):
            self._update_status(ds, nodes, hash_, update_observed_gen=False)
            return
        err: ApiError | None = None
        try:
            self._update_daemon_set(ds, nodes, hash_, key, old)
        except ApiError as exc:
            err = exc
        try:
            self._update_status(ds, nodes, hash_, update_observed_gen=True)
        except ApiError as status_err:
            raise err or status_err from None  # the sync error wins
        if err is not None:
            raise err

    def _update_daemon_set(self, ds: Obj, nodes: list[Obj], hash_: str, key: str, old: list[Obj]) -> None:
        """``updateDaemonSet``: manage, then the rolling update once expectations are met,
        then ``cleanupHistory``."""
        self._manage(ds, nodes, hash_)
        if self.expectations.satisfied(key) and (ds["spec"].get("updateStrategy") or {}).get("type") == "RollingUpdate":
            node_to_pods = self.nodes_to_daemon_pods(ds, False)
            assert self._nodes is not None
            try:
                plan = rolling_update(ds, nodes, node_to_pods, hash_, self._ctx.clock.now(),
                                      Placement.of(ds, self._compare()), self._nodes.get)  # fmt: skip
            except (ValueError, LookupError) as exc:
                raise DaemonSetSyncError(str(exc)) from None
            self._sync_nodes(ds, plan.pods_to_delete, plan.nodes_to_create, hash_)
        revisions.cleanup_history(self._server, ds, old, self.nodes_to_daemon_pods(ds, True))

    def _manage(self, ds: Obj, nodes: list[Obj], hash_: str) -> None:
        """``manage``: the pods each node lacks or has in excess, plus unscheduled pods
        aimed at nodes that are gone."""
        node_to_pods = self.nodes_to_daemon_pods(ds, False)
        placement = Placement.of(ds, self._compare())
        need: list[str] = []
        delete: list[str] = []
        for node in nodes:
            n, d = pods_should_be_on_node(self, node, node_to_pods, ds, hash_, placement)
            need += n
            delete += d
        names = [str(n["metadata"]["name"]) for n in nodes]
        delete += unscheduled_pods_without_node(names, dict(sorted(node_to_pods.items())))
        self._sync_nodes(ds, delete, need, hash_)

    def _sync_nodes(self, ds: Obj, to_delete: list[str], to_create: list[str], hash_: str) -> None:
        SyncNodes(self, self._ctx, ds, hash_).run(to_delete, to_create)

    def _update_status(self, ds: Obj, nodes: list[Obj], hash_: str, update_observed_gen: bool) -> None:
        """``updateDaemonSetStatus``; a set with minReadySeconds whose ready pods are not
        all available is looked at again after that long."""
        node_to_pods = self.nodes_to_daemon_pods(ds, False)
        placement = Placement.of(ds, self._compare())
        counters = calculate_status(ds, nodes, node_to_pods, hash_, self._ctx.clock.now(), placement)
        store_daemon_set_status(self._server, ds, counters, update_observed_gen)
        min_ready = int(ds["spec"].get("minReadySeconds", 0) or 0)
        if min_ready > 0 and counters["numberReady"] != counters["numberAvailable"]:
            self.enqueue_after(ds, seconds(min_ready))


def should_ignore_node_update(old: Obj, cur: Obj) -> bool:
    """``shouldIgnoreNodeUpdate``: labels and taints unchanged (nil equals empty)."""
    same_labels = (old["metadata"].get("labels") or {}) == (cur["metadata"].get("labels") or {})
    same_taints = ((old.get("spec") or {}).get("taints") or []) == ((cur.get("spec") or {}).get("taints") or [])
    return same_labels and same_taints

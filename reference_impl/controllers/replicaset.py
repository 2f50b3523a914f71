"""The ReplicaSet controller (``pkg/controller/replicaset/replica_set.go``).

Keeps ``spec.replicas`` active pods matching the selector: adopts matching orphans,
releases owned pods that no longer match, creates pods from the template (generateName
``<rs>-``) and deletes the best-ranked surplus, then writes status through /status.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import seconds
from reference_impl.controllers.controller_utils import (
    BURST_REPLICAS,
    ControllerExpectations,
    controller_ref,
    deletion_rank,
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    owner_reference,
    pod_from_template,
)
from reference_impl.errors import Conflict, Forbidden, NotFound

__all__ = ["ReplicaSetController"]

Obj = dict[str, Any]


class ReplicaSetController:
    """Reconciles ReplicaSets against their pods."""

    name: Final = "replicaset-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._expectations = ControllerExpectations()
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)
        self._rs: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Register the ReplicaSet and Pod informers and queue every existing set."""
        self._rs = self._ctx.informers.informer("apps/v1", "ReplicaSet")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._rs.add_handler(self._on_rs)
        self._pods.add_handler(self._on_pod)
        for rs in self._rs.items():
            self._queue.add(object_key(rs))

    # -- event handlers -----------------------------------------------------------------

    def _on_rs(self, ev: ObjectEvent) -> None:
        key = object_key(ev.obj)
        if ev.type == "DELETED":
            self._expectations.forget(key)
        self._queue.add(key)

    def _on_pod(self, ev: ObjectEvent) -> None:
        ref = controller_ref(ev.obj)
        ns = ev.obj["metadata"].get("namespace", "")
        if ref is not None and ref.get("kind") == "ReplicaSet":
            key = f"{ns}/{ref['name']}"
            if ev.type == "ADDED":
                self._expectations.creation_observed(key)
            elif ev.type == "DELETED" or _newly_deleting(ev):
                self._expectations.deletion_observed(key)
            self._queue.add(key)
        elif ref is None and ev.type != "DELETED":
            for rs in self._matching(ev.obj):
                self._queue.add(object_key(rs))  # an orphan someone may adopt

    def _matching(self, pod: Obj) -> list[Obj]:
        assert self._rs is not None
        ns = pod["metadata"].get("namespace")
        labels = pod["metadata"].get("labels")
        return [
            rs
            for rs in self._rs.items()
            if rs["metadata"].get("namespace") == ns
            and selector_from_label_selector(rs["spec"].get("selector")).matches(labels)
        ]

    # -- sync ---------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._rs is not None
        rs = self._rs.get(key)
        if rs is None:
            return
        pods = self._claim_pods(rs)
        if self._expectations.satisfied(key) and not rs["metadata"].get("deletionTimestamp"):
            self._manage_replicas(key, rs, [p for p in pods if is_pod_active(p)])
        # Status from the pods as they are after this sync (upstream uses the pre-sync
        # list and converges one event later; this keeps readers of status exact).
        self._update_status(rs, self._claim_pods(rs, adopt=False))

    def _claim_pods(self, rs: Obj, adopt: bool = True) -> list[Obj]:
        """Owned pods that match, after adopting orphans and releasing non-matching ones."""
        assert self._pods is not None
        ns = rs["metadata"].get("namespace")
        uid = rs["metadata"]["uid"]
        sel = selector_from_label_selector(rs["spec"].get("selector"))
        deleting = bool(rs["metadata"].get("deletionTimestamp"))
        out = []
        for pod in list(self._pods.items()):
            if pod["metadata"].get("namespace") != ns:
                continue
            ref = controller_ref(pod)
            matches = sel.matches(pod["metadata"].get("labels"))
            if ref is not None and ref.get("uid") == uid:
                if matches:
                    out.append(pod)
                elif adopt:
                    self._release(pod, uid)
            elif ref is None and matches and adopt and not deleting:
                if not pod["metadata"].get("deletionTimestamp") and self._adopt(rs, pod):
                    out.append(self._pods.get(object_key(pod)) or pod)
        return out

    def _adopt(self, rs: Obj, pod: Obj) -> bool:
        body = {**pod, "metadata": dict(pod["metadata"])}
        body["metadata"]["ownerReferences"] = [
            *(pod["metadata"].get("ownerReferences") or []),
            owner_reference(rs),
        ]
        try:
            self._server.update(body)
        except (Conflict, NotFound, Forbidden):
            return False
        self._ctx.trace.record(self.name, "adopt", f"Pod/{object_key(pod)}", rs["metadata"]["name"])
        return True

    def _release(self, pod: Obj, uid: str) -> None:
        body = {**pod, "metadata": dict(pod["metadata"])}
        refs = [r for r in pod["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
        body["metadata"]["ownerReferences"] = refs
        if not refs:
            body["metadata"].pop("ownerReferences")
        try:
            self._server.update(body)
        except (Conflict, NotFound):
            pass

    def _manage_replicas(self, key: str, rs: Obj, active: list[Obj]) -> None:
        diff = len(active) - int(rs["spec"].get("replicas", 1))
        if diff < 0:
            self._create_pods(key, rs, min(-diff, BURST_REPLICAS))
        elif diff > 0:
            victims = sorted(active, key=deletion_rank)[: min(diff, BURST_REPLICAS)]
            self._delete_pods(key, victims)

    def _create_pods(self, key: str, rs: Obj, n: int) -> None:
        self._expectations.expect(key, adds=n)
        name = rs["metadata"]["name"]
        for _ in range(n):
            pod = pod_from_template(rs["spec"].get("template") or {}, rs, f"{name}-")
            try:
                created = self._server.create(pod)
            except Forbidden:
                self._expectations.creation_observed(key)  # namespace terminating
                continue
            self._ctx.trace.record(self.name, "create-pod", object_key(created), name)

    def _delete_pods(self, key: str, victims: list[Obj]) -> None:
        self._expectations.expect(key, dels=len(victims))
        for pod in victims:
            meta = pod["metadata"]
            self._ctx.trace.record(self.name, "delete-pod", object_key(pod), key)
            try:
                self._server.delete("v1", "Pod", meta["name"], meta["namespace"], uid=meta["uid"])
            except (NotFound, Conflict):
                self._expectations.deletion_observed(key)

    def _update_status(self, rs: Obj, pods: list[Obj]) -> None:
        spec = rs["spec"]
        min_ready = int(spec.get("minReadySeconds", 0))
        now = self._ctx.clock.now()
        active = [p for p in pods if is_pod_active(p)]
        tmpl_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        status: Obj = dict(rs.get("status") or {})
        status.update(
            replicas=len(active),
            fullyLabeledReplicas=sum(
                1 for p in active if _has_labels(p["metadata"].get("labels"), tmpl_labels)
            ),
            readyReplicas=sum(1 for p in active if is_pod_ready(p)),
            availableReplicas=sum(1 for p in active if is_pod_available(p, min_ready, now)),
            terminatingReplicas=sum(
                1
                for p in pods
                if p["metadata"].get("deletionTimestamp")
                and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            ),
            observedGeneration=int(rs["metadata"].get("generation", 1)),
        )
        if min_ready > 0 and status["readyReplicas"] > status["availableReplicas"]:
            # Wake up when the next pod has been ready for minReadySeconds.
            self._queue.add_after(object_key(rs), seconds(1))
        if status != (rs.get("status") or {}):
            self._server.update_status({**rs, "status": status})


def _has_labels(labels: dict[str, str] | None, want: dict[str, str]) -> bool:
    have = labels or {}
    return all(have.get(k) == v for k, v in want.items())


def _newly_deleting(ev: ObjectEvent) -> bool:
    return bool(
        ev.old is not None
        and ev.obj["metadata"].get("deletionTimestamp")
        and not ev.old["metadata"].get("deletionTimestamp")
    )

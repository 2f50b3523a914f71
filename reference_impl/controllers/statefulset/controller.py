"""The StatefulSet controller's loop (``stateful_set.go``): informers, the work queue,
claiming pods and revisions, and the sync."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final, Protocol

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import seconds
from reference_impl.controllers.controller_utils import (
    controller_ref,
    find_min_next_pod_availability_check,
    is_pod_ready,
    sorted_by_key,
)
from reference_impl.controllers.history import History
from reference_impl.controllers.statefulset.claims import SET_GVK
from reference_impl.controllers.statefulset.control import StatefulSetControl, orphan_revisions
from reference_impl.controllers.statefulset.identity import controller_ref_to, is_member_of
from reference_impl.controllers.statefulset.pod_control import StatefulPodControl, SyncError
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = ["RealObjectManager", "RealStatusUpdater", "StatefulSetController"]

Obj = dict[str, Any]
_STATUS_STEPS: Final = 5  # retry.DefaultRetry.Steps
RECREATE_GATE: Final = "StatefulSetRecreateStrategy"


class Lister(Protocol):
    """An informer's cache lookup by ``namespace/name``."""

    def get(self, key: str) -> Obj | None: ...


class RealObjectManager:
    """``realStatefulPodControlObjectManager``: writes to the apiserver, reads from the
    informers."""

    def __init__(self, server: APIServer, pods: Lister, claims: Lister) -> None:
        self._server, self._pods, self._claims = server, pods, claims

    def create_pod(self, pod: Obj, ss: Mapping[str, Any]) -> None:
        self._server.create(pod)

    def get_pod(self, namespace: str, name: str) -> Obj:
        return _cached(self._pods, namespace, name, "pods")

    def update_pod(self, pod: Obj, ss: Mapping[str, Any]) -> None:
        self._server.update(pod)

    def delete_pod(self, pod: Mapping[str, Any]) -> None:
        meta = pod["metadata"]
        self._server.delete("v1", "Pod", meta["name"], meta.get("namespace"))

    def create_claim(self, claim: Obj, ss: Mapping[str, Any]) -> None:
        self._server.create(claim)

    def get_claim(self, namespace: str, name: str) -> Obj:
        return _cached(self._claims, namespace, name, "persistentvolumeclaims")

    def update_claim(self, claim: Obj, ss: Mapping[str, Any]) -> None:
        self._server.update(claim)


def _cached(informer: Lister, namespace: str, name: str, resource: str) -> Obj:
    obj = informer.get(f"{namespace}/{name}")
    if obj is None:
        raise NotFound(f'{resource} "{name}" not found')
    return copy.deepcopy(obj)


class RealStatusUpdater:
    """``realStatefulSetStatusUpdater``: UpdateStatus, retrying conflicts on the cached set."""

    def __init__(self, server: APIServer, sets: Lister) -> None:
        self._server, self._sets = server, sets

    def update_stateful_set_status(self, ss: Obj, status: Obj) -> None:
        for attempt in range(_STATUS_STEPS):
            ss["status"] = status
            try:
                self._server.update_status(ss)
                return
            except Conflict:
                if attempt == _STATUS_STEPS - 1:
                    raise
                fresh = self._sets.get(object_key(ss))
                if fresh is not None:
                    ss = copy.deepcopy(fresh)


class StatefulSetController:
    """Reconciles StatefulSets against their pods, claims and revisions."""

    name: Final = "statefulset-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name,
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._sets: SharedInformer | None = None
        self._pods: SharedInformer | None = None
        self.control: StatefulSetControl | None = None

    def start(self) -> None:
        """Register the informers and queue every existing set."""
        inf = self._ctx.informers
        self._sets = inf.informer("apps/v1", "StatefulSet")
        self._pods = inf.informer("v1", "Pod")
        claims = inf.informer("v1", "PersistentVolumeClaim")
        revisions = inf.informer("apps/v1", "ControllerRevision")
        spc = StatefulPodControl(RealObjectManager(self._server, self._pods, claims), self._event)
        history = History(self._server, lambda ns: [
            r for r in revisions.items() if r["metadata"].get("namespace") == ns
        ])  # fmt: skip
        self.control = StatefulSetControl(spc, RealStatusUpdater(self._server, self._sets), history,
                                          self._ctx.gates.enabled(RECREATE_GATE))  # fmt: skip
        self._sets.add_handler(lambda ev: self._queue.add(object_key(ev.obj)))
        self._pods.add_handler(self._on_pod)
        for ss in self._sets.items():
            self._queue.add(object_key(ss))

    def _event(self, ss: Mapping[str, Any], kind: str, reason: str, message: str) -> None:
        """The recorder's Event on the set, as a trace record."""
        self._ctx.trace.record(self.name, reason, f"StatefulSet/{ss['metadata'].get('namespace')}/{ss['metadata']['name']}", message)

    # -- event handlers -----------------------------------------------------------------

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``addPod`` / ``updatePod`` / ``deletePod``."""
        pod, old = ev.obj, ev.old
        if ev.type == "DELETED" or (ev.type == "ADDED" and pod["metadata"].get("deletionTimestamp")):
            ref = controller_ref(pod)
            if ref is not None and (ss := self._resolve(pod, ref)) is not None:
                self._queue.add(object_key(ss))
            return
        ref = controller_ref(pod)
        if ev.type == "ADDED":
            if ref is not None:
                if (ss := self._resolve(pod, ref)) is not None:
                    self._queue.add(object_key(ss))
                return
            for ss in self._matching(pod):
                self._queue.add(object_key(ss))
            return
        if old is None or old["metadata"].get("resourceVersion") == pod["metadata"].get("resourceVersion"):
            return
        old_ref = controller_ref(old)
        if old_ref != ref and old_ref is not None:
            if (prev := self._resolve(old, old_ref)) is not None:
                self._queue.add(object_key(prev))
        if ref is not None:
            ss = self._resolve(pod, ref)
            if ss is None:
                return
            self._queue.add(object_key(ss))
            min_ready = int(ss["spec"].get("minReadySeconds") or 0)
            if not is_pod_ready(old) and is_pod_ready(pod) and min_ready > 0:
                self._queue.add_after(object_key(ss), seconds(min_ready))
            return
        if old_ref != ref or (old["metadata"].get("labels") or {}) != (pod["metadata"].get("labels") or {}):
            for ss in self._matching(pod):
                self._queue.add(object_key(ss))

    def _resolve(self, pod: Mapping[str, Any], ref: Mapping[str, Any]) -> Obj | None:
        """``resolveControllerRef``."""
        assert self._sets is not None
        if ref.get("kind") != "StatefulSet":
            return None
        ss = self._sets.get(f"{pod['metadata'].get('namespace', '')}/{ref.get('name')}")
        if ss is None or ss["metadata"].get("uid") != ref.get("uid"):
            return None
        return ss

    def _matching(self, pod: Mapping[str, Any]) -> list[Obj]:
        """``GetPodStatefulSets``: sets of the pod's namespace whose selector matches it."""
        assert self._sets is not None
        labels = pod["metadata"].get("labels")
        if not labels:
            return []
        ns = pod["metadata"].get("namespace")
        return [
            ss for ss in sorted_by_key(self._sets.items())
            if ss["metadata"].get("namespace") == ns and ss["spec"].get("selector")
            and selector_from_label_selector(ss["spec"]["selector"]).matches(labels)
        ]  # fmt: skip

    # -- sync ---------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        """``sync``: adopt orphan revisions, claim pods, then ``syncStatefulSet``."""
        assert self._sets is not None and self.control is not None
        ss = self._sets.get(key)
        if ss is None:
            return
        ss = copy.deepcopy(ss)
        try:
            selector_from_label_selector(ss["spec"].get("selector"))
        except ValueError:
            return  # an invalid selector is not retried
        orphans = orphan_revisions(self.control.list_revisions(ss))
        if orphans:
            self._can_adopt(ss, "ControllerRevisions")
            self.control.adopt_orphan_revisions(ss, orphans)
        pods = self._claim_pods(ss)
        now = self._ctx.clock.now()
        status = self.control.update_stateful_set(ss, pods, now)
        min_ready = int(ss["spec"].get("minReadySeconds") or 0)
        if min_ready > 0 and status.get("readyReplicas", 0) != status.get("availableReplicas", 0):
            wait = find_min_next_pod_availability_check(pods, min_ready, now)
            self._queue.add_after(key, seconds(min_ready) if wait is None else wait)

    def _can_adopt(self, ss: Obj, what: str) -> None:
        """``canAdoptFunc`` / ``RecheckDeletionTimestamp``: the fresh set must be this
        one and not being deleted."""
        meta = ss["metadata"]
        fresh = self._server.get("apps/v1", "StatefulSet", meta["name"], meta.get("namespace"))
        if fresh["metadata"].get("uid") != meta.get("uid"):
            raise SyncError(f"can't adopt {what}: original StatefulSet {meta.get('namespace')}/{meta['name']} "
                            f"is gone: got uid {fresh['metadata'].get('uid')}, wanted {meta.get('uid')}")  # fmt: skip
        if fresh["metadata"].get("deletionTimestamp"):
            raise SyncError(f"can't adopt {what}: {meta.get('namespace')}/{meta['name']} has just been "
                            f"deleted at {fresh['metadata']['deletionTimestamp']}")  # fmt: skip

    def _claim_pods(self, ss: Obj) -> list[Obj]:
        """``getPodsForStatefulSet``: ``ClaimPods`` over the set's and orphan pods of its
        namespace, matching the selector and named as its members; adopt and release."""
        assert self._pods is not None
        meta = ss["metadata"]
        ns, uid = meta.get("namespace"), meta.get("uid")
        sel = selector_from_label_selector(ss["spec"].get("selector"))
        deleting = bool(meta.get("deletionTimestamp"))
        out: list[Obj] = []
        errors: list[ApiError] = []
        checked = False
        for pod in sorted_by_key(self._pods.items()):
            if pod["metadata"].get("namespace") != ns:
                continue
            ref = controller_ref(pod)
            match = sel.matches(pod["metadata"].get("labels")) and is_member_of(ss, pod)
            try:
                if ref is not None:
                    if ref.get("uid") != uid:
                        continue
                    if match:
                        out.append(pod)
                    elif not deleting:
                        self._set_refs(pod, [r for r in pod["metadata"].get("ownerReferences") or []
                                             if r.get("uid") != uid])  # fmt: skip
                    continue
                if deleting or not match or pod["metadata"].get("deletionTimestamp"):
                    continue
                if not checked:
                    self._can_adopt(ss, "Pod")
                    checked = True
                refs = [*(pod["metadata"].get("ownerReferences") or []), controller_ref_to(ss, *SET_GVK)]
                self._set_refs(pod, refs)
                out.append(self._pods.get(object_key(pod)) or pod)
            except NotFound:
                continue
            except ApiError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
        return out

    def _set_refs(self, pod: Obj, refs: list[Obj]) -> None:
        body = {**pod, "metadata": dict(pod["metadata"])}
        if refs:
            body["metadata"]["ownerReferences"] = refs
        else:
            body["metadata"].pop("ownerReferences", None)
        self._server.update(body)

"""The ReplicaSet controller (``pkg/controller/replicaset/replica_set.go``).

Keeps ``spec.replicas`` active pods matching the selector: adopts matching orphans,
releases owned pods that no longer match, creates pods from the template (generateName
``<rs>-``) and deletes the best-ranked surplus, then writes status through /status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import seconds
from reference_impl.controllers.controller_utils import (
    BURST_REPLICAS,
    ControllerExpectations,
    UIDTrackingControllerExpectations,
    claim_objects,
    controller_ref,
    find_min_next_pod_availability_check,
    fresh_owner,
    is_pod_active,
    is_pod_ready,
    owner_reference,
    pod_from_template,
    recheck_deletion_timestamp,
    sorted_by_key,
)
from reference_impl.controllers.replicaset_ranking import get_pods_to_delete, pod_keys
from reference_impl.controllers.replicaset_status import calculate_status
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import ApiError, Conflict, Forbidden, NotFound

__all__ = ["ReplicaSetController", "slow_start_batch"]

Obj = dict[str, Any]
_E = TypeVar("_E")
SLOW_START_INITIAL_BATCH_SIZE: Final = 1  # controller.SlowStartInitialBatchSize


class ReplicaSetController:
    """Reconciles ReplicaSets against their pods."""

    name: Final = "replicaset-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        # Expires (ExpectationsTimeout); tracks the pod keys of expected deletions.
        self._expectations = UIDTrackingControllerExpectations(ControllerExpectations(clock=ctx.clock.now))
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name,
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
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
        """``addPod`` / ``updatePod`` / ``deletePod``."""
        pod, old = ev.obj, ev.old
        if ev.type == "DELETED" or pod["metadata"].get("deletionTimestamp"):
            self._pod_deleted(pod)
            if ev.type == "MODIFIED" and old is not None and _labels(old) != _labels(pod):
                self._pod_deleted(old)
            return
        ref = controller_ref(pod)
        if ev.type == "ADDED":
            if ref is not None:
                rs = self._resolve(pod, ref)
                if rs is not None:
                    self._expectations.creation_observed(object_key(rs))
                    self._queue.add(object_key(rs))
            else:
                for rs in self._matching(pod):
                    self._queue.add(object_key(rs))  # an orphan someone may adopt
            return
        old_ref = controller_ref(old) if old is not None else None
        ref_changed = old_ref != ref
        if ref_changed and old_ref is not None:
            if (prev := self._resolve(pod, old_ref)) is not None:
                self._queue.add(object_key(prev))
        if ref is not None:
            rs = self._resolve(pod, ref)
            if rs is None:
                return
            self._queue.add(object_key(rs))
            min_ready = _min_ready(rs)
            if old is not None and not is_pod_ready(old) and is_pod_ready(pod) and min_ready > 0:
                self._queue.add_after(object_key(rs), seconds(min_ready))
            return
        if ref_changed or (old is not None and _labels(old) != _labels(pod)):
            for rs in self._matching(pod):
                self._queue.add(object_key(rs))

    def _pod_deleted(self, pod: Obj) -> None:
        """``deletePod``: a deletion is observed once per expected pod key."""
        ref = controller_ref(pod)
        rs = self._resolve(pod, ref) if ref is not None else None
        if rs is None:
            return
        key = object_key(rs)
        self._expectations.deletion_observed(key, object_key(pod))
        self._queue.add(key)

    def _resolve(self, pod: Obj, ref: Obj) -> Obj | None:
        """``resolveControllerRef``: the ReplicaSet of that name, if its UID matches."""
        assert self._rs is not None
        if ref.get("kind") != "ReplicaSet":
            return None
        rs = self._rs.get(f"{pod['metadata'].get('namespace', '')}/{ref.get('name')}")
        if rs is None or rs["metadata"].get("uid") != ref.get("uid"):
            return None
        return rs

    def _matching(self, pod: Obj) -> list[Obj]:
        """``getPodReplicaSets``: sets in the pod's namespace whose selector matches."""
        assert self._rs is not None
        ns = pod["metadata"].get("namespace")
        labels = pod["metadata"].get("labels")
        if not labels:
            return []
        return [
            rs
            for rs in sorted_by_key(self._rs.items())
            if rs["metadata"].get("namespace") == ns
            and (rs["spec"].get("selector") or {})
            and selector_from_label_selector(rs["spec"].get("selector")).matches(labels)
        ]

    # -- sync ---------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        """``syncReplicaSet``: claim, manage replicas when expectations allow, then status.

        A failed adoption or release aborts the sync, and a failed create or delete is
        raised after the status write, so the queue retries with backoff as upstream.
        """
        assert self._rs is not None
        rs = self._rs.get(key)
        if rs is None:
            return
        # Expectations are read before the pods are listed, so a pod arriving in between
        # only defers the work to the next sync (rsNeedsSync first, as upstream).
        needs_sync = self._expectations.satisfied(key)
        pods = self._claim_pods(rs)
        err: ApiError | None = None
        if needs_sync and not rs["metadata"].get("deletionTimestamp"):
            err = self._manage_replicas(key, rs, [p for p in pods if is_pod_active(p)])
        # Status from the pods as they are after this sync (upstream uses the pre-sync
        # list and converges one event later; this keeps readers of status exact).
        claimed = self._claim_pods(rs, adopt=False)
        now = self._ctx.clock.now()
        terminating = [
            p
            for p in claimed
            if p["metadata"].get("deletionTimestamp")
            and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        ]
        active = [p for p in claimed if is_pod_active(p)]
        status = calculate_status(rs, active, terminating, _message(err), now)
        status["observedGeneration"] = int(rs["metadata"].get("generation", 1))
        if status != (rs.get("status") or {}):
            rs = self._update_status(rs, status)
        if err is not None:
            raise err
        min_ready = _min_ready(rs)
        if min_ready > 0 and status["readyReplicas"] != status["availableReplicas"]:
            # The next pod to turn available, else minReadySeconds as a safeguard.
            wait = find_min_next_pod_availability_check(active, min_ready, now)
            self._queue.add_after(key, seconds(min_ready) if wait is None else wait)

    def _update_status(self, rs: Obj, status: Obj) -> Obj:
        """``updateReplicaSetStatus``: one retry (statusUpdateRetries) on the fresh object."""
        try:
            out: Obj = self._server.update_status({**rs, "status": status})
            return out
        except ApiError:
            meta = rs["metadata"]
            fresh = self._server.get("apps/v1", "ReplicaSet", meta["name"], meta.get("namespace"))
            out = self._server.update_status({**fresh, "status": status})
            return out

    def _claim_pods(self, rs: Obj, adopt: bool = True) -> list[Obj]:
        """``claimPods``: ``claim_objects`` over the cached pods; an adopted pod is returned
        as the informer now holds it."""
        assert self._pods is not None
        pods = self._pods

        def adopt_pod(pod: Obj) -> Obj:
            self._adopt(rs, pod)
            return pods.get(object_key(pod)) or pod

        uid = rs["metadata"]["uid"]
        recheck = recheck_deletion_timestamp(fresh_owner(self._server, rs))
        return claim_objects(rs, sorted_by_key(pods.items()), adopt_pod,
                             lambda pod: self._release(pod, uid), may_adopt=adopt,
                             can_adopt=recheck)

    def _adopt(self, rs: Obj, pod: Obj) -> None:
        body = {**pod, "metadata": dict(pod["metadata"])}
        body["metadata"]["ownerReferences"] = [
            *(pod["metadata"].get("ownerReferences") or []),
            owner_reference(rs),
        ]
        self._server.update(body)
        self._ctx.trace.record(self.name, "adopt", f"Pod/{object_key(pod)}", rs["metadata"]["name"])

    def _release(self, pod: Obj, uid: str) -> None:
        body = {**pod, "metadata": dict(pod["metadata"])}
        refs = [r for r in pod["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
        body["metadata"]["ownerReferences"] = refs
        if not refs:
            body["metadata"].pop("ownerReferences")
        self._server.update(body)

    def _manage_replicas(self, key: str, rs: Obj, active: list[Obj]) -> ApiError | None:
        """``manageReplicas``: create or delete up to burstReplicas pods; the first error."""
        diff = len(active) - int(rs["spec"].get("replicas", 1))
        if diff < 0:
            return self._create_pods(key, rs, min(-diff, BURST_REPLICAS))
        if diff > 0:
            related = self._related_pods(rs)
            now = self._ctx.clock.now()
            victims = get_pods_to_delete(active, related, min(diff, BURST_REPLICAS), now)
            return self._delete_pods(key, victims)
        return None

    def _same_controller(self, rs: Obj) -> list[Obj]:
        """``getReplicaSetsWithSameController``: sets whose controller UID is this set's."""
        assert self._rs is not None
        ref = controller_ref(rs)
        if ref is None:
            return []
        return [
            other
            for other in sorted_by_key(self._rs.items())
            if (controller_ref(other) or {}).get("uid") == ref.get("uid")
        ]

    def _related_pods(self, rs: Obj) -> list[Obj]:
        """``getIndirectlyRelatedPods``: pods selected by any set sharing this set's
        controller, each once."""
        assert self._pods is not None
        seen: set[str] = set()
        out: list[Obj] = []
        for other in self._same_controller(rs):
            ns = other["metadata"].get("namespace")
            sel = selector_from_label_selector(other["spec"].get("selector"))
            for pod in sorted_by_key(self._pods.items()):
                uid = pod["metadata"].get("uid", "")
                if (
                    pod["metadata"].get("namespace") == ns
                    and uid not in seen
                    and sel.matches(pod["metadata"].get("labels"))
                ):
                    seen.add(uid)
                    out.append(pod)
        return out

    def _create_pods(self, key: str, rs: Obj, n: int) -> ApiError | None:
        """Slow start (``slowStartBatch``): batches of 1, 2, 4, ...; stop after a failed batch."""
        self._expectations.expect_creations(key, n)
        name = rs["metadata"]["name"]
        successes, first_err = slow_start_batch(
            n, SLOW_START_INITIAL_BATCH_SIZE, lambda: self._create_one(key, rs, name)
        )
        for _ in range(n - successes):
            self._expectations.creation_observed(key)  # never attempted or failed
        return first_err

    def _create_one(self, key: str, rs: Obj, name: str) -> ApiError | None:
        pod = pod_from_template(rs["spec"].get("template") or {}, rs, f"{name}-")
        try:
            created = self._server.create(pod)
        except Forbidden as exc:
            if terminating(exc):
                # Any create would fail; not an error, and (as upstream) still expected.
                return None
            return exc
        except ApiError as exc:
            return exc
        self._ctx.trace.record(self.name, "create-pod", object_key(created), name)
        return None

    def _delete_pods(self, key: str, victims: list[Obj]) -> ApiError | None:
        self._expectations.expect_deletions(key, pod_keys(victims))
        first_err: ApiError | None = None
        for pod in victims:
            meta = pod["metadata"]
            self._ctx.trace.record(self.name, "delete-pod", object_key(pod), key)
            try:
                self._server.delete("v1", "Pod", meta["name"], meta["namespace"], uid=meta["uid"])
            except (NotFound, Conflict):
                self._expectations.deletion_observed(key, object_key(pod))  # already gone or replaced
            except ApiError as exc:
                self._expectations.deletion_observed(key, object_key(pod))
                first_err = first_err or exc
        return first_err


def slow_start_batch(
    count: int, initial: int, fn: Callable[[], _E | None]
) -> tuple[int, _E | None]:
    """``slowStartBatch``: call ``fn`` in batches of initial, 2x, 4x, ... up to ``count``;
    stop after the first batch with an error. Returns (successes, the first error)."""
    successes, remaining, batch = 0, count, min(count, initial)
    while batch > 0:
        errors = [e for e in (fn() for _ in range(batch)) if e is not None]
        successes += batch - len(errors)
        if errors:
            return successes, errors[0]
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None


def _message(err: ApiError | None) -> str | None:
    return None if err is None else str(err)


def _min_ready(rs: Obj) -> int:
    return int(rs["spec"].get("minReadySeconds", 0))


def _labels(obj: Obj) -> dict[str, str]:
    labels: dict[str, str] = obj["metadata"].get("labels") or {}
    return labels

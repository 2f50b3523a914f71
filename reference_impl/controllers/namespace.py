"""The namespace controller (``pkg/controller/namespace``, ``deletion/namespaced_resources_deleter.go``).

A Terminating namespace has every namespaced object of every served, stored kind deleted
(Background propagation), pods first: while pods remain nothing else is touched, so
their controllers cannot replace them and the pods can still read their config. Each pass
records the five deleter conditions (``namespace_conditions``); once nothing is left the
controller calls the ``namespaces/finalize`` subresource without its own ``kubernetes``
finalizer. Content still going away requeues the namespace after half the estimated
wait plus a second, as ``namespace_controller.go``'s worker does; another failure
requeues it through ``nsControllerRateLimiter`` (per namespace 5 ms doubling to 60 s,
max'ed with 10 qps, burst 100), which a successful pass forgets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.customresource.discovery import served_custom_resources
from reference_impl.apiserver.informers import WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
)
from reference_impl.clock import Instant, millis, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers import namespace_conditions as nc
from reference_impl.controllers.served import served_kinds
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = [
    "DeleteResult",
    "NamespaceController",
    "estimate_for_pods",
    "finalized",
    "finalized_spec_finalizers",
    "ns_controller_rate_limiter",
    "remaining_message",
]

Obj = dict[str, Any]
FINALIZER_TOKEN: Final = "kubernetes"  # v1.FinalizerKubernetes
# How long content held only by finalizers is expected to take (finalizerEstimateSeconds).
FINALIZER_ESTIMATE_SECONDS: Final = 15


def finalized(ns: Obj) -> bool:
    """``finalized``: no spec finalizer is left."""
    return not (ns.get("spec") or {}).get("finalizers")


def finalized_spec_finalizers(finalizers: list[str], token: str = FINALIZER_TOKEN) -> list[str]:
    """``finalizeNamespace``: the spec finalizers left once ``token`` is done (sorted set)."""
    return sorted({f for f in finalizers if f != token})


def estimate_for_pods(pods: list[Obj]) -> int:
    """``estimateGracefulTerminationForPods``: the longest grace period of a live pod."""
    estimate = 0
    for pod in pods:
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
        if grace is not None and int(grace) > estimate:
            estimate = int(grace)
    return estimate


def remaining_message(estimate: int) -> str:
    """``ResourcesRemainingError.Error``."""
    return (
        "some content remains in the namespace, "
        f"estimate {estimate} seconds before it is removed"
    )


def _aggregate(errs: list[str]) -> str | None:
    """``utilerrors.NewAggregate(...).Error()``."""
    if not errs:
        return None
    return errs[0] if len(errs) == 1 else f"[{', '.join(errs)}]"


@dataclass(slots=True)
class _Totals:
    """``gvrDeletionMetadata`` for one resource."""

    estimate: int = 0
    remaining: int = 0
    finalizers: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DeleteResult:
    """What ``Delete`` returned: the error text, and the estimate when content remains."""

    error: str | None = None
    remaining_estimate: int | None = None


class NamespaceController:
    """Empties Terminating namespaces, then finalizes them."""

    name: Final = "namespace-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._terminating: set[str] = set()
        # The worker's own requeues (AddAfter, AddRateLimited, Forget): none reach the queue.
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)
        self.rate_limiter = ns_controller_rate_limiter(ctx.clock.now)
        # Discovery (``discoverResourcesFn``): the served kinds and an error text, if any.
        self.discover: Callable[[], tuple[list[ResourceInfo], str | None]] = self._discover

    def _discover(self) -> tuple[list[ResourceInfo], str | None]:
        custom = served_custom_resources(self._server.store, namespaced=True)
        kinds = served_kinds(self._ctx.gates, namespaced=True) + list(custom)
        return sorted(kinds, key=lambda i: i.group_resource), None

    def start(self) -> None:
        """Watch namespaces, and deletions inside Terminating ones."""
        inf = self._ctx.informers.informer("v1", "Namespace")
        inf.add_handler(self._on_namespace)
        for ns in inf.items():
            if ns["metadata"].get("deletionTimestamp"):
                self._mark(str(ns["metadata"]["name"]))
        self._server.add_event_handler(self._on_any)

    def _mark(self, name: str) -> None:
        self._terminating.add(name)
        self._queue.add(name)

    def _on_namespace(self, ev: ObjectEvent) -> None:
        name = str(ev.obj["metadata"]["name"])
        if ev.type == "DELETED":
            self._terminating.discard(name)
        elif ev.obj["metadata"].get("deletionTimestamp"):
            self._mark(name)

    def _on_any(self, ev: ObjectEvent) -> None:
        # Not upstream (it waits out its estimate): a deletion inside a Terminating
        # namespace rechecks it at once, so simulated runs finish sooner.
        ns = ev.obj["metadata"].get("namespace")
        if ev.type == "DELETED" and ns in self._terminating:
            self._queue.add(str(ns))

    def _sync(self, name: str) -> None:
        """``syncNamespaceFromKey`` with the worker's requeue rules: content remaining
        waits half its estimate plus a second (AddAfter, not forgotten), another error
        backs off (AddRateLimited), success forgets the namespace's failures."""
        try:
            res = self.delete(name)
        except ApiError as exc:
            res = DeleteResult(str(exc))
        if res.remaining_estimate is not None:
            self._queue.add_after(name, seconds(res.remaining_estimate // 2 + 1))
        elif res.error is not None:
            self._queue.add_after(name, self.rate_limiter.when(name))
        else:
            self.rate_limiter.forget(name)

    # -- namespacedResourcesDeleter.Delete ---------------------------------------------

    def delete(self, name: str) -> DeleteResult:
        """``Delete``: empty a Terminating namespace, then finalize it."""
        ns = self._server.try_get("v1", "Namespace", name)
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return DeleteResult()
        try:
            ns = self.retry_on_conflict(ns, self._update_phase)
        except NotFound:
            return DeleteResult()
        if finalized(ns):
            return DeleteResult()
        estimate, err = self._delete_all_content(ns)
        if err is not None:
            return DeleteResult(err)
        if estimate > 0:
            return DeleteResult(remaining_message(estimate), estimate)
        self._ctx.trace.record(self.name, "finalize", f"Namespace/{name}")
        try:
            self.retry_on_conflict(ns, self._finalize)
        except NotFound:
            pass
        return DeleteResult()

    def retry_on_conflict(self, ns: Obj, fn: Callable[[Obj], Obj]) -> Obj:
        """``retryOnConflictError``: rerun ``fn`` on the latest namespace after a Conflict."""
        latest = ns
        while True:
            try:
                return fn(latest)
            except Conflict:
                prev = latest
                latest = self._server.get("v1", "Namespace", str(prev["metadata"]["name"]))
                if prev["metadata"].get("uid") != latest["metadata"].get("uid"):
                    raise ValueError("namespace uid has changed across retries") from None

    def _update_phase(self, ns: Obj) -> Obj:
        """``updateNamespaceStatusFunc``: make sure the phase says Terminating."""
        if (ns.get("status") or {}).get("phase") == "Terminating":
            return ns
        return self._server.update_status({**ns, "status": {**ns["status"], "phase": "Terminating"}})

    def _finalize(self, ns: Obj) -> Obj:
        """``finalizeNamespace``: drop this controller's token from spec.finalizers."""
        left = finalized_spec_finalizers(list(ns["spec"].get("finalizers") or []))
        return self._server.finalize_namespace(str(ns["metadata"]["name"]), left) or ns

    def _delete_all_content(self, ns: Obj) -> tuple[int, str | None]:
        """``deleteAllContent``: the largest estimate, and the aggregated error."""
        name = str(ns["metadata"]["name"])
        kinds, discovery_err = self.discover()
        errs: list[str] = []
        new: list[Obj] = []
        content_errs: list[str] = []
        if discovery_err is not None:
            errs.append(discovery_err)
            new.append(nc.discovery_failure_condition(discovery_err))
        remaining: dict[tuple[str, str], int] = {}
        finalizers: dict[str, int] = {}
        estimate = 0
        pods = [k for k in kinds if k.group == "" and k.plural == "pods"]
        for info in pods + [k for k in kinds if k not in pods]:
            totals, err = self._delete_kind(info, ns)
            if err is not None:
                wrapped = f"failed to delete pods for namespace: {name}, err: {err}"
                errs.append(wrapped if info in pods else err)
                content_errs.append(err)
            estimate = max(estimate, totals.estimate)
            if totals.remaining > 0:
                remaining[(info.group, info.plural)] = totals.remaining
                for f, n in totals.finalizers.items():
                    finalizers[f] = finalizers.get(f, 0) + n
            if info in pods and remaining:
                # Pods first: nothing else goes while pods remain, and the totals wait.
                self._write_conditions(ns, new, content_errs)
                return estimate, _aggregate(errs)
        new += nc.content_totals_conditions(remaining, finalizers)
        self._write_conditions(ns, new, content_errs)
        return estimate, _aggregate(errs)

    def _write_conditions(self, ns: Obj, new: list[Obj], content_errs: list[str]) -> None:
        """``namespaceConditionUpdater.Update`` then UpdateStatus (errors only logged)."""
        if not any(c["type"] == nc.CONTENT_FAILURE for c in new):
            cond = nc.delete_content_condition(content_errs)
            if cond is not None:
                new = [*new, cond]
        status = dict(ns.get("status") or {})
        status["conditions"] = [dict(c) for c in status.get("conditions") or []]
        if nc.update_conditions(status, new, rfc3339(self._ctx.clock.now())):
            try:
                self._server.update_status({**ns, "status": status})
            except (Conflict, NotFound):
                pass

    def _delete_kind(self, info: ResourceInfo, ns: Obj) -> tuple[_Totals, str | None]:
        """``deleteAllContentForGroupVersionResource`` (deletecollection, then a list)."""
        name = str(ns["metadata"]["name"])
        estimate = 0
        if info.group == "" and info.plural == "pods":
            estimate = estimate_for_pods(self._list_pods(name))
            elapsed = self._ctx.clock.now() - parse_rfc3339(ns["metadata"]["deletionTimestamp"])
            if elapsed >= seconds(estimate):
                estimate = 0
        if not self._delete_collection(info, name):
            self._delete_each_item(info, name)
        left = self._list_collection(info, name)
        if not left:  # none left, or list not supported
            return _Totals(estimate if left is None else 0), None
        fins: dict[str, int] = {}
        for obj in left:
            for f in obj["metadata"].get("finalizers") or []:
                fins[f] = fins.get(f, 0) + 1
        if estimate:
            return _Totals(estimate, len(left), fins), None
        if fins:
            return _Totals(FINALIZER_ESTIMATE_SECONDS, len(left), fins), None
        gvr = f"{info.group}/{info.version}, Resource={info.plural}"
        err = f"unexpected items still remain in namespace: {name} for gvr: {gvr}"
        return _Totals(estimate, len(left)), err

    # -- the clients (podsGetter, metadataClient) --------------------------------------

    def _list_pods(self, namespace: str) -> list[Obj]:
        """The podsGetter's list, for the grace-period estimate."""
        return self._server.list("v1", "Pod", namespace)

    def _list_collection(self, info: ResourceInfo, namespace: str) -> list[Obj] | None:
        """``listCollection``: the objects, or None where the resource is not found."""
        try:
            return self._server.list(info.api_version, info.kind, namespace)
        except NotFound:
            return None

    def _delete_collection(self, info: ResourceInfo, namespace: str) -> bool:
        """``deleteCollection`` with Background propagation; False when not supported."""
        try:
            items = self._server.list(info.api_version, info.kind, namespace)
        except NotFound:
            return False
        self._delete_items(info, items)
        return True

    def _delete_each_item(self, info: ResourceInfo, namespace: str) -> None:
        """``deleteEachItem``: the fallback when deletecollection is not supported."""
        self._delete_items(info, self._list_collection(info, namespace) or [])

    def _delete_items(self, info: ResourceInfo, items: list[Obj]) -> None:
        for obj in items:
            meta = obj["metadata"]
            if meta.get("deletionTimestamp"):
                continue  # deleting already; deleting again changes nothing
            try:
                self._server.delete(
                    info.api_version,
                    info.kind,
                    meta["name"],
                    meta.get("namespace"),
                    propagation_policy="Background",
                    uid=meta["uid"],
                )
            except (NotFound, Conflict):
                pass


def ns_controller_rate_limiter(now: Callable[[], Instant]) -> MaxOfRateLimiter:
    """``nsControllerRateLimiter``: retry a namespace at least every minute (5 ms doubling
    to 60 s per item), and at most 10 qps with a burst of 100 overall."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(millis(5), seconds(60)),
        BucketRateLimiter(now, 10.0, 100),
    )

"""Models pkg/controller/resourcequota: the resource quota controller and its QuotaMonitor.

A quota whose ``spec.hard`` differs from ``status.hard``, or that lacks a used value for a
hard resource some evaluator accounts, is synced: ``status.hard`` becomes ``spec.hard``
and ``status.used`` the namespace's usage recalculated from stored objects
(``CalculateUsage``), masked to the hard names. Admission charges writes as they happen;
this controller gives usage back (replenishment) when a tracked object is deleted or an
update changes what it consumes (``DefaultUpdateFilter``), and recalculates every quota
each ``--resource-quota-sync-period`` (5 minutes), correcting charges for writes that
failed after admission.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.quota import pods, pvcs, registry, services
from reference_impl.apiserver.quota import resources as q
from reference_impl.apiserver.quota.types import Env
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import seconds
from reference_impl.errors import ApiError

__all__ = ["ResourceQuotaController", "missing_usage", "needs_replenish"]

Obj = dict[str, Any]
SYNC_PERIOD: Final = seconds(300)  # kube-controller-manager --resource-quota-sync-period


def _container_resources(pod: Obj) -> dict[str, Any]:
    status = pod.get("status") or {}
    return {
        c.get("name"): c.get("resources")
        for field in ("containerStatuses", "initContainerStatuses")
        for c in status.get(field) or ()
    }


def _resources_changed(old: Obj, new: Obj) -> bool:
    """``hasResourcesChanged``: a container status present in both reports other resources."""
    before, after = _container_resources(old), _container_resources(new)
    return any(name in after and after[name] != res for name, res in before.items())


def needs_replenish(group_resource: str, old: Obj, new: Obj, env: Env) -> bool:
    """``DefaultUpdateFilter``: whether an update changes what the object consumes."""
    if group_resource == "pods":
        if env.ctx.gates.enabled("InPlacePodVerticalScaling") and _resources_changed(old, new):
            return True
        if pods.is_terminating(old) != pods.is_terminating(new):
            return True
        return pods.quota_v1_pod(old, env.now) and not pods.quota_v1_pod(new, env.now)
    if group_resource == "services":
        return services.quota_service_type(old) != services.quota_service_type(new)
    if group_resource == "persistentvolumeclaims":
        return pvcs.requires_quota_replenish(new, old, env)
    return False


def missing_usage(rq: Obj, env: Env) -> bool:
    """``addQuota``'s priority test: ``spec.hard`` not yet in ``status.hard``, or a hard
    constraint without a used value that some evaluator (the monitor's included) tracks."""
    spec_hard = q.from_wire((rq.get("spec") or {}).get("hard"))
    status = rq.get("status") or {}
    status_hard = q.from_wire(status.get("hard"))
    if not q.equals(spec_hard, status_hard):
        return True
    used = q.from_wire(status.get("used"))
    evaluators = registry.evaluators_for_hard(list(status_hard), env)
    for name in status_hard:
        if name not in used and any(e.matching_resources([name]) for e in evaluators):
            return True
    return False


class ResourceQuotaController:
    """Keeps every ResourceQuota's status in step with its namespace's objects."""

    name: Final = "resourcequota-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="resourcequota",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        # missingUsageQueue: quotas whose status lacks usage, synced by their own workers.
        self._missing_usage_queue = WorkQueue(
            ctx.clock, self._sync, name="resourcequota_priority",
            rate_limiter=default_controller_rate_limiter(ctx.clock.now)
        )
        self._quotas: SharedInformer | None = None
        srv = ctx.server
        self._reads = Context(ctx.gates, srv.try_get, lambda av, k, ns: srv.list(av, k, ns))

    def _env(self) -> Env:
        return Env(self._reads, self._ctx.clock.now())

    def start(self) -> None:
        """Watch quotas and, as the QuotaMonitor, every namespaced write."""
        self._quotas = self._ctx.informers.informer("v1", "ResourceQuota")
        self._quotas.add_handler(self._on_quota)
        self._ctx.server.add_event_handler(self._on_object)
        for rq in self._quotas.items():
            self._add_quota(rq)
        self._ctx.clock.call_later(SYNC_PERIOD, self._resync)

    def _resync(self) -> None:
        """``enqueueAll``, every sync period."""
        assert self._quotas is not None
        for rq in self._quotas.items():
            self._queue.add(object_key(rq))
        self._ctx.clock.call_later(SYNC_PERIOD, self._resync)

    def _on_quota(self, ev: ObjectEvent) -> None:
        if ev.type == "ADDED":
            self._add_quota(ev.obj)
        elif ev.type == "DELETED":
            self._queue.add(object_key(ev.obj))
        else:
            # Status writes are the controller's own (or admission's): only spec.hard
            # changes are observed, as upstream.
            old_hard = ((ev.old or {}).get("spec") or {}).get("hard")
            if not q.equals(q.from_wire(old_hard), q.from_wire(ev.obj["spec"].get("hard"))):
                self._add_quota(ev.obj)

    def _add_quota(self, rq: Obj) -> None:
        """``addQuota``: missing or stale usage goes to the priority queue."""
        if missing_usage(rq, self._env()):
            self._missing_usage_queue.add(object_key(rq))
        else:
            self._queue.add(object_key(rq))

    def _on_object(self, ev: ObjectEvent) -> None:
        """The QuotaMonitor's handlers: deletes, and updates passing the update filter."""
        ns = ev.obj["metadata"].get("namespace")
        if not ns or not ev.info.namespaced or ev.type == "ADDED":
            return
        gr = ev.info.group_resource
        if gr == "resourcequotas" or gr in registry.IGNORED_RESOURCES:
            return
        if ev.type == "MODIFIED" and (
            ev.old is None or not needs_replenish(gr, ev.old, ev.obj, self._env())
        ):
            return
        self._replenish(gr, ns)

    def _replenish(self, group_resource: str, namespace: str) -> None:
        """``replenishQuota``: queue the namespace's quotas the resource counts toward."""
        assert self._quotas is not None
        ev = registry.evaluator_for(group_resource, self._env())
        for rq in self._quotas.items():
            if rq["metadata"].get("namespace") != namespace:
                continue
            hard = q.resource_names(q.from_wire((rq.get("status") or {}).get("hard")))
            if ev.matching_resources(hard):
                self._queue.add(object_key(rq))

    def _sync(self, key: str) -> None:
        """``syncResourceQuota``: a listing error still writes what was calculated, then
        is raised so that the key is retried with backoff."""
        assert self._quotas is not None
        rq = self._quotas.get(key)
        if rq is None:
            return
        spec, status = rq.get("spec") or {}, rq.get("status") or {}
        hard = q.from_wire(spec.get("hard"))
        dirty = (
            not q.equals(hard, q.from_wire(status.get("hard")))
            or status.get("hard") is None
            or status.get("used") is None
        )
        old_used = q.from_wire(status.get("used"))
        used = dict(old_used)
        errors: list[ApiError] = []
        used.update(
            q.calculate_usage(
                rq["metadata"]["namespace"],
                spec.get("scopes") or [],
                hard,
                self._env(),
                spec.get("scopeSelector"),
                errors=errors,
            )
        )
        used = q.mask(used, q.resource_names(hard))
        if dirty or not q.equals(used, old_used):
            new = {**rq, "status": {"hard": q.to_wire(hard), "used": q.to_wire(used)}}
            self._ctx.server.update_status(new)
            self._ctx.trace.record(self.name, "sync", key, "")
        if errors:
            raise errors[0]

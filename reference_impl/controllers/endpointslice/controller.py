"""Models pkg/controller/endpointslice/endpointslice_controller.go: the
``endpointslice-controller`` of kube-controller-manager.

Every Service with a selector (not ExternalName) gets EndpointSlices listing the pods it
selects (``syncService``, then the reconciler). Pod changes that matter to endpoints
(``podEndpointsChanged``) queue the Services selecting the pod's old and new labels;
EndpointSlice changes the controller did not write itself (the ``EndpointSliceTracker``'s
generations) queue their Service after a second. Upstream's topology queue only feeds
topology-aware hints, which the reference does not model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.meta import condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Instant, parse_rfc3339, seconds
from reference_impl.controllers.controller_utils import is_pod_ready
from reference_impl.controllers.endpointslice.reconciler import Reconciler, SyncError
from reference_impl.controllers.endpointslice.utils import (
    CONTROLLER_NAME,
    MANAGED_BY_LABEL,
    SERVICE_NAME_LABEL,
    service_controller_key,
)

__all__ = [
    "EndpointSliceController",
    "TriggerTimeTracker",
    "drop_endpoint_slices_pending_deletion",
    "pod_endpoints_changed",
    "services_to_update",
]

Obj = dict[str, Any]
MAX_RETRIES: Final = 15
SLICE_CHANGE_MIN_SYNC_DELAY: Final = seconds(1)  # endpointSliceChangeMinSyncDelay
_DELETION_EXPECTED: Final = -1


def _ready_transition(pod: Obj) -> Instant | None:
    t = (condition(pod, "Ready") or {}).get("lastTransitionTime")
    return parse_rfc3339(t) if t else None


class TriggerTimeTracker:
    """``TriggerTimeTracker.ComputeEndpointLastChangeTriggerTime``: the earliest Ready
    transition (or Service creation) newer than last seen; the Service's creation time
    the first time a Service is seen."""

    def __init__(self) -> None:
        self._states: dict[str, tuple[dict[str, Instant], Instant | None]] = {}

    def compute(self, key: str, svc: Obj, pods: list[Obj]) -> Instant | None:
        """The trigger time for this sync of ``key``; None when nothing changed."""
        known = key in self._states
        last_pods, last_svc = self._states.get(key, ({}, None))
        lowest: Instant | None = None
        now_pods: dict[str, Instant] = {}
        for pod in pods:
            t = _ready_transition(pod)
            if t is None:
                continue
            name = pod["metadata"]["name"]
            now_pods[name] = t
            before = last_pods.get(name)
            if before is None or t > before:
                lowest = t if lowest is None or t < lowest else lowest
        created = svc["metadata"].get("creationTimestamp")
        svc_time = parse_rfc3339(created) if created else None
        if svc_time is not None and (last_svc is None or svc_time > last_svc):
            lowest = svc_time if lowest is None or svc_time < lowest else lowest
        self._states[key] = (now_pods, svc_time)
        return svc_time if not known else lowest

    def delete_service(self, key: str) -> None:
        """``DeleteService``."""
        self._states.pop(key, None)


def pod_endpoints_changed(old: Obj, new: Obj) -> tuple[bool, bool]:
    """``podEndpointsChanged``: (pod changed, labels or hostname/subdomain changed).
    Upstream compares deletionTimestamp pointers, so two set timestamps always differ."""
    om, nm = old["metadata"], new["metadata"]
    os_, ns_ = old.get("spec") or {}, new.get("spec") or {}
    labels_changed = (om.get("labels") or {}) != (nm.get("labels") or {}) or (
        os_.get("hostname") or "", os_.get("subdomain") or ""
    ) != (ns_.get("hostname") or "", ns_.get("subdomain") or "")
    if om.get("deletionTimestamp") or nm.get("deletionTimestamp"):
        return True, labels_changed
    if is_pod_ready(old) != is_pod_ready(new):
        return True, labels_changed
    oips = [p.get("ip") for p in (old.get("status") or {}).get("podIPs") or []]
    nips = [p.get("ip") for p in (new.get("status") or {}).get("podIPs") or []]
    return oips != nips, labels_changed


def services_to_update(
    ev: ObjectEvent, services_for: Callable[[str, dict[str, str]], set[str]]
) -> set[str]:
    """``GetPodUpdateProjectionKey`` and ``GetServicesToUpdate`` (shared by the Endpoints
    and EndpointSlice controllers): the keys of the Services a pod event touches."""
    new, old = ev.obj, ev.old
    ns = str(new["metadata"].get("namespace") or "")
    labels = dict(new["metadata"].get("labels") or {})
    if ev.type != "MODIFIED" or old is None:
        return services_for(ns, labels)
    if new["metadata"].get("resourceVersion") == old["metadata"].get("resourceVersion"):
        return set()
    pod_changed, labels_changed = pod_endpoints_changed(old, new)
    if not pod_changed and not labels_changed:
        return set()
    keys = services_for(ns, labels)
    if labels_changed:
        old_keys = services_for(ns, dict(old["metadata"].get("labels") or {}))
        keys = keys | old_keys if pod_changed else keys ^ old_keys
    return keys


def drop_endpoint_slices_pending_deletion(slices: list[Obj]) -> list[Obj]:
    """``dropEndpointSlicesPendingDeletion``: slices being deleted are not reconciled."""
    return [s for s in slices if not s["metadata"].get("deletionTimestamp")]


class _SliceTracker:
    """``EndpointSliceTracker``: the generation of each slice this controller wrote."""

    def __init__(self) -> None:
        self.by_service: dict[str, dict[str, int]] = {}

    @staticmethod
    def _svc(s: Obj) -> str:
        labels = s["metadata"].get("labels") or {}
        return f"{s['metadata'].get('namespace') or ''}/{labels.get(SERVICE_NAME_LABEL, '')}"

    def has(self, s: Obj) -> bool:
        return str(s["metadata"].get("uid")) in self.by_service.get(self._svc(s), {})

    def should_sync(self, s: Obj) -> bool:
        gens = self.by_service.get(self._svc(s))
        if gens is None:
            return True
        g = gens.get(str(s["metadata"].get("uid")))
        return g is None or int(s["metadata"].get("generation") or 0) > g

    def stale(self, key: str, slices: list[Obj]) -> bool:
        gens = self.by_service.get(key)
        if gens is None:
            return False
        given = {}
        for s in slices:
            uid = str(s["metadata"].get("uid"))
            gen = int(s["metadata"].get("generation") or 0)
            given[uid] = gen
            g = gens.get(uid)
            if g is not None and (g == _DELETION_EXPECTED or g > gen):
                return True
        return any(g != _DELETION_EXPECTED and uid not in given for uid, g in gens.items())

    def update(self, s: Obj) -> None:
        gens = self.by_service.setdefault(self._svc(s), {})
        gens[str(s["metadata"].get("uid"))] = int(s["metadata"].get("generation") or 0)

    def expect_deletion(self, s: Obj) -> None:
        self.by_service.setdefault(self._svc(s), {})[str(s["metadata"].get("uid"))] = (
            _DELETION_EXPECTED
        )

    def handle_deletion(self, s: Obj) -> bool:
        gens = self.by_service.get(self._svc(s))
        if gens is not None:
            g = gens.pop(str(s["metadata"].get("uid")), None)
            if g is not None and g != _DELETION_EXPECTED:
                return False
        return True


class EndpointSliceController:
    """Keeps every selector Service's EndpointSlices in step with its pods."""

    name: Final = "endpointslice-controller"

    def __init__(self, ctx: ComponentContext, max_endpoints_per_slice: int = 100) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="endpoint_slice",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now),
                                max_retries=MAX_RETRIES)  # fmt: skip
        self._tracker = _SliceTracker()
        self._triggers = TriggerTimeTracker()
        self._services: SharedInformer | None = None
        self._pods: SharedInformer | None = None
        self._nodes: SharedInformer | None = None
        self._slices: SharedInformer | None = None
        self.reconciler = Reconciler(
            ctx.server, self._get_node, max_endpoints_per_slice, CONTROLLER_NAME, ctx.trace,
            on_write=self._tracker.update, on_delete=self._tracker.expect_deletion,
        )  # fmt: skip

    def start(self) -> None:
        """Subscribe to Services, pods, nodes and EndpointSlices; queue every Service."""
        inf = self._ctx.informers
        self._services = inf.informer("v1", "Service")
        self._pods = inf.informer("v1", "Pod")
        self._nodes = inf.informer("v1", "Node")
        self._slices = inf.informer("discovery.k8s.io/v1", "EndpointSlice")
        self._services.add_handler(self._on_service)
        self._pods.add_handler(self._on_pod)
        self._slices.add_handler(self._on_slice)
        for svc in self._services.items():
            self._queue.add(object_key(svc))

    def _get_node(self, name: str) -> Obj | None:
        assert self._nodes is not None
        return self._nodes.get(name) if name else None

    def _on_service(self, ev: ObjectEvent) -> None:
        self._queue.add(object_key(ev.obj))  # onServiceUpdate / onServiceDelete

    def _services_for(self, ns: str, labels: dict[str, str]) -> set[str]:
        """``getServicesForPod``."""
        assert self._services is not None
        out: set[str] = set()
        for key, svc in self._services.cache.items():
            if (svc["metadata"].get("namespace") or "") != ns:
                continue
            sel = (svc.get("spec") or {}).get("selector")
            if sel and all(labels.get(k) == v for k, v in sel.items()):
                out.add(key)
        return out

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``onPodUpdate``."""
        for key in sorted(services_to_update(ev, self._services_for)):
            self._queue.add(key)

    def _managed(self, s: Obj) -> bool:
        return bool((s["metadata"].get("labels") or {}).get(MANAGED_BY_LABEL) == CONTROLLER_NAME)

    def _queue_for_slice(self, s: Obj) -> None:
        """``queueServiceForEndpointSlice``."""
        try:
            key = service_controller_key(s)
        except ValueError:
            return
        self._queue.add_after(key, SLICE_CHANGE_MIN_SYNC_DELAY)

    def _on_slice(self, ev: ObjectEvent) -> None:
        s = ev.obj
        if ev.type == "ADDED":
            if self._managed(s) and self._tracker.should_sync(s):
                self._queue_for_slice(s)
        elif ev.type == "DELETED":
            if self._managed(s) and self._tracker.has(s) and not self._tracker.handle_deletion(s):
                self._queue_for_slice(s)
        elif ev.old is not None:
            prev = ev.old
            name = (s["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL)
            if name != (prev["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL):
                self._queue_for_slice(s)
                self._queue_for_slice(prev)
            elif self._managed(prev) != self._managed(s) or (
                self._managed(s) and self._tracker.should_sync(s)
            ):
                self._queue_for_slice(s)

    def _sync(self, key: str) -> None:
        """``syncService``."""
        assert self._services is not None and self._pods is not None
        assert self._slices is not None
        svc = self._services.get(key)
        if svc is None:
            self._triggers.delete_service(key)
            self._tracker.by_service.pop(key, None)
            return
        spec = svc.get("spec") or {}
        sel = spec.get("selector")
        if spec.get("type") == "ExternalName" or not sel:
            return
        ns = str(svc["metadata"].get("namespace") or "")
        pods = sorted(
            (p for p in self._pods.cache.values()
             if (p["metadata"].get("namespace") or "") == ns
             and all((p["metadata"].get("labels") or {}).get(k) == v for k, v in sel.items())),
            key=lambda p: str(p["metadata"]["name"]),
        )  # fmt: skip
        name = svc["metadata"]["name"]
        slices = sorted(
            (s for s in self._slices.cache.values()
             if (s["metadata"].get("namespace") or "") == ns
             and (s["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL) == name
             and self._managed(s)),
            key=lambda s: str(s["metadata"]["name"]),
        )  # fmt: skip
        slices = drop_endpoint_slices_pending_deletion(slices)
        if self._tracker.stale(key, slices):
            raise SyncError("EndpointSlice informer cache is out of date")
        trigger = self._triggers.compute(key, svc, pods)
        self.reconciler.reconcile(svc, pods, slices, trigger)

"""Models pkg/controller/endpoint/endpoints_controller.go of upstream v1.37.2: the
``endpoints-controller`` of kube-controller-manager, which keeps a legacy ``v1/Endpoints``
named after every Service with a selector (not ExternalName) listing the pods it selects.

Pod events go to upstream's pod queue as projection keys, whose worker queues the
Services selecting the pod's labels after ``endpointUpdatesBatchPeriod``; the reference
resolves the Services when the event arrives (``GetServicesToUpdate``), at the same
simulated instant. Upstream's events (FailedToCreateEndpoint, FailedToUpdateEndpoint) are
trace records.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, Instant, rfc3339
from reference_impl.controllers.controller_utils import is_pod_ready
from reference_impl.controllers.endpoint.endpoints_tracker import StaleEndpointsTracker
from reference_impl.controllers.endpoint.repack import repack_subsets
from reference_impl.controllers.endpointslice.controller import (
    TriggerTimeTracker,
    services_to_update,
)
from reference_impl.controllers.endpointslice.reconciler import SyncError
from reference_impl.controllers.endpointslice.utils import (
    HEADLESS_LABEL,
    LAST_CHANGE_TRIGGER_TIME,
    find_port,
    get_endpoint_addresses,
    is_service_ip_set,
    should_pod_be_in_endpoints,
    should_set_hostname,
)
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import ApiError, Forbidden, NotFound

__all__ = [
    "CONTROLLER_NAME",
    "LABEL_MANAGED_BY",
    "MAX_CAPACITY",
    "OVER_CAPACITY",
    "EndpointController",
    "add_endpoint_subset",
    "capacity_annotation_set_correctly",
    "endpoint_port_from_service_port",
    "endpoint_subsets_equal_ignore_resource_version",
    "labels_correct_for_endpoints",
    "pod_to_endpoint_address_for_service",
    "truncate_endpoints",
]

Obj = dict[str, Any]
MAX_RETRIES: Final = 15
MAX_CAPACITY: Final = 1000  # addresses kept in one Endpoints
TRUNCATED: Final = "truncated"
OVER_CAPACITY: Final = "endpoints.kubernetes.io/over-capacity"  # v1.EndpointsOverCapacity
LABEL_MANAGED_BY: Final = "endpoints.kubernetes.io/managed-by"
CONTROLLER_NAME: Final = "endpoint-controller"
# resourcelock.LeaderElectionRecordAnnotationKey: leader-election Endpoints have no Service.
LEADER_ANNOTATION: Final = "control-plane.alpha.kubernetes.io/leader"


def _is_ipv6(text: str) -> bool:
    return bool(get_endpoint_addresses({"podIPs": [{"ip": text}]}, "IPv6"))


def pod_to_endpoint_address_for_service(svc: Obj, pod: Obj) -> Obj | None:
    """``podToEndpointAddressForService``: the pod's first IP of the Service's primary
    family (else the ClusterIP's, else the pod IP's); None when the pod has none."""
    spec = svc.get("spec") or {}
    families = spec.get("ipFamilies") or []
    cluster_ip = str(spec.get("clusterIP") or "")
    if families:
        family = str(families[0])
    elif cluster_ip and cluster_ip != "None":
        family = "IPv6" if _is_ipv6(cluster_ip) else "IPv4"
    else:
        family = "IPv6" if _is_ipv6(str((pod.get("status") or {}).get("podIP") or "")) else "IPv4"
    # ParseIPSloppy and String(): the first IP of that family, canonicalised.
    ips = get_endpoint_addresses(pod.get("status") or {}, "IPv6" if family == "IPv6" else "IPv4")
    if not ips:
        return None
    meta = pod["metadata"]
    ref = {k: v for k, v in (("kind", "Pod"), ("namespace", meta.get("namespace") or ""),
                             ("name", meta.get("name") or ""), ("uid", meta.get("uid") or ""))
           if v}  # fmt: skip
    return {"ip": ips[0], "nodeName": str((pod.get("spec") or {}).get("nodeName") or ""),
            "targetRef": ref}  # fmt: skip


def endpoint_port_from_service_port(svc_port: Obj, port_num: int) -> Obj:
    """``endpointPortFromServicePort``."""
    out: Obj = {"port": port_num}
    if svc_port.get("name"):
        out["name"] = svc_port["name"]
    if svc_port.get("protocol"):
        out["protocol"] = svc_port["protocol"]
    if svc_port.get("appProtocol") is not None:
        out["appProtocol"] = svc_port["appProtocol"]
    return out


def add_endpoint_subset(
    subsets: list[Obj], pod: Obj, epa: Obj, epp: Obj | None, tolerate_unready: bool
) -> tuple[int, int]:
    """``addEndpointSubset``: append a one-address subset, ready or not; returns the
    (ready, not ready) counts added."""
    ports = [copy.deepcopy(epp)] if epp is not None else []
    if tolerate_unready or is_pod_ready(pod):
        subsets.append({"addresses": [copy.deepcopy(epa)], "ports": ports})
        return 1, 0
    subsets.append({"notReadyAddresses": [copy.deepcopy(epa)], "ports": ports})
    return 0, 1


def capacity_annotation_set_correctly(
    annotations: dict[str, str] | None, subsets: list[Obj]
) -> bool:
    """``capacityAnnotationSetCorrectly``: at most ``MAX_CAPACITY`` addresses and no
    over-capacity annotation."""
    n = sum(len(s.get("addresses") or []) + len(s.get("notReadyAddresses") or []) for s in subsets)
    return n <= MAX_CAPACITY and OVER_CAPACITY not in (annotations or {})


def truncate_endpoints(endpoints: Obj) -> bool:
    """``truncateEndpoints``: past ``MAX_CAPACITY`` addresses, keep each subset's share
    (rounded up) of the not-ready ones, or, with more ready ones than fit, of the ready
    ones and no not-ready; True when it truncated."""
    subsets = endpoints.get("subsets") or []
    total_ready = sum(len(s.get("addresses") or []) for s in subsets)
    total_not_ready = sum(len(s.get("notReadyAddresses") or []) for s in subsets)
    if total_ready + total_not_ready <= MAX_CAPACITY:
        return False
    truncate_ready = total_ready > MAX_CAPACITY
    mx, num_total = (MAX_CAPACITY, total_ready) if truncate_ready else (
        MAX_CAPACITY - total_ready, total_not_ready)  # fmt: skip
    can_be_added = mx
    for s in subsets:
        field = "addresses" if truncate_ready else "notReadyAddresses"
        addrs = s.get(field) or []
        to_be_added = min(math.ceil((len(addrs) / num_total) * mx), can_be_added)
        kept = addrs[:to_be_added]
        s[field] = kept
        if truncate_ready:
            s.pop("notReadyAddresses", None)
        can_be_added -= len(kept)
        if not kept:
            s.pop(field, None)
    return True


def _canonical_ref(ref: Any) -> tuple[str, ...] | None:
    if not isinstance(ref, dict):
        return None
    keys = ("kind", "namespace", "name", "uid", "apiVersion", "fieldPath")  # not resourceVersion
    return tuple(str(ref.get(k) or "") for k in keys)


def _canonical_subsets(subsets: list[Obj] | None) -> list[Any]:
    # Semantic DeepEqual: nil and empty lists alike, "" and absent strings alike,
    # pointers (nodeName, targetRef, appProtocol) nil or set.
    def addr(a: Obj) -> tuple[Any, ...]:
        node = a.get("nodeName")
        return (str(a.get("ip") or ""), str(a.get("hostname") or ""),
                None if node is None else str(node), _canonical_ref(a.get("targetRef")))  # fmt: skip

    def port(p: Obj) -> tuple[Any, ...]:
        app = p.get("appProtocol")
        return (str(p.get("name") or ""), int(p.get("port") or 0), str(p.get("protocol") or ""),
                None if app is None else str(app))  # fmt: skip

    return [([addr(a) for a in s.get("addresses") or []],
             [addr(a) for a in s.get("notReadyAddresses") or []],
             [port(p) for p in s.get("ports") or []]) for s in subsets or []]  # fmt: skip


def endpoint_subsets_equal_ignore_resource_version(
    a: list[Obj] | None, b: list[Obj] | None
) -> bool:
    """``endpointSubsetsEqualIgnoreResourceVersion``."""
    return _canonical_subsets(a) == _canonical_subsets(b)


def labels_correct_for_endpoints(
    ep_labels: dict[str, str] | None, svc_labels: dict[str, str] | None
) -> bool:
    """``labelsCorrectForEndpoints``: managed by this controller, and otherwise the
    Service's labels (the headless label aside)."""
    ep, svc = ep_labels or {}, svc_labels or {}
    if ep.get(LABEL_MANAGED_BY) != CONTROLLER_NAME:
        return False
    skipped = 0
    for k, v in ep.items():
        if k in (HEADLESS_LABEL, LABEL_MANAGED_BY):
            skipped += 1
        elif svc.get(k) != v:
            return False
    return len(svc) == len(ep) - skipped


def _selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


class EndpointController:
    """Keeps each selector Service's Endpoints in step with its pods."""

    name: Final = "endpoints-controller"

    def __init__(
        self, ctx: ComponentContext, endpoint_updates_batch_period: Duration | None = None
    ) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self.sync_service, name="endpoint",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now),
                                max_retries=MAX_RETRIES)  # fmt: skip
        # --endpoint-updates-batch-period, 0 by default.
        self._batch = endpoint_updates_batch_period or Duration(0)
        self.stale_endpoints_tracker = StaleEndpointsTracker()
        self.trigger_time_tracker = TriggerTimeTracker()
        self._services: SharedInformer | None = None
        self._pods: SharedInformer | None = None
        self._endpoints: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to Services, pods and Endpoints; queue every Service, then every
        Endpoints (``checkLeftoverEndpoints``)."""
        inf = self._ctx.informers
        self._services = inf.informer("v1", "Service")
        self._pods = inf.informer("v1", "Pod")
        self._endpoints = inf.informer("v1", "Endpoints")
        self._services.add_handler(self._on_service)
        self._pods.add_handler(self._on_pod)
        self._endpoints.add_handler(self._on_endpoints)
        for svc in self._services.items():
            self._queue.add(object_key(svc))
        self.check_leftover_endpoints()

    def check_leftover_endpoints(self) -> None:
        """``checkLeftoverEndpoints``: queue every Endpoints but leader-election records,
        so those whose Service is gone are deleted."""
        assert self._endpoints is not None
        for ep in self._endpoints.items():
            if LEADER_ANNOTATION in (ep["metadata"].get("annotations") or {}):
                continue
            self._queue.add(object_key(ep))

    def _on_service(self, ev: ObjectEvent) -> None:
        self._queue.add(object_key(ev.obj))  # onServiceUpdate / onServiceDelete

    def _on_endpoints(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":  # onEndpointsDelete
            self._queue.add(object_key(ev.obj))

    def services_for(self, ns: str, labels: dict[str, str]) -> set[str]:
        """``getServicesForPod``: a nil selector selects nothing, an empty one everything."""
        assert self._services is not None
        out: set[str] = set()
        for key, svc in self._services.cache.items():
            sel = (svc.get("spec") or {}).get("selector")
            if (
                (svc["metadata"].get("namespace") or "") == ns
                and sel is not None
                and _selects(sel, labels)
            ):
                out.add(key)
        return out

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``onPodUpdate`` (``GetPodUpdateProjectionKey``), then ``syncPod``
        (``GetServicesToUpdate``, each Service queued after the batch period)."""
        for key in sorted(services_to_update(ev, self.services_for)):
            self._queue.add_after(key, self._batch)  # updates within a batch: one sync

    def _event(self, key: str, reason: str, message: str) -> None:
        self._ctx.trace.record(self.name, reason, f"Endpoints/{key}", message)

    def _pods_for(self, ns: str, selector: dict[str, str]) -> list[Obj]:
        assert self._pods is not None
        return sorted(
            (p for p in self._pods.cache.values()
             if (p["metadata"].get("namespace") or "") == ns
             and _selects(selector, p["metadata"].get("labels") or {})),
            key=lambda p: str(p["metadata"]["name"]),
        )  # fmt: skip

    def desired_subsets(self, svc: Obj, pods: list[Obj]) -> list[Obj]:
        """The pods as subsets, one address per pod and Service port, repacked."""
        spec = svc.get("spec") or {}
        publish = bool(spec.get("publishNotReadyAddresses"))
        svc_ports = spec.get("ports") or []
        subsets: list[Obj] = []
        for pod in pods:
            if not should_pod_be_in_endpoints(pod, publish):
                continue
            epa = pod_to_endpoint_address_for_service(svc, pod)
            if epa is None:  # no IP of the Service's family (a dual-stack upgrade)
                continue
            if should_set_hostname(pod, svc):
                epa["hostname"] = pod["spec"]["hostname"]
            if not svc_ports:
                # A headless Service may have no ports; its addresses are not repacked.
                if spec.get("clusterIP") == "None":
                    add_endpoint_subset(subsets, pod, epa, None, publish)
                continue
            for sp in svc_ports:
                num = find_port(pod, sp)
                if num is None:
                    continue
                add_endpoint_subset(subsets, pod, epa, endpoint_port_from_service_port(sp, num),
                                    publish)  # fmt: skip
        return repack_subsets(subsets)

    def sync_service(self, key: str) -> None:
        """``syncService``."""
        assert self._services is not None and self._endpoints is not None
        ns, _, name = key.rpartition("/")
        svc = self._services.get(key)
        if svc is None:
            try:  # the Service is gone: so is its Endpoints
                self._ctx.server.delete("v1", "Endpoints", name, ns)
            except NotFound:
                pass
            self.trigger_time_tracker.delete_service(key)
            self.stale_endpoints_tracker.delete(ns, name)
            return
        spec = svc.get("spec") or {}
        selector = spec.get("selector")
        if spec.get("type") == "ExternalName" or selector is None:
            return  # no endpoints from this controller; a selectorless one's are the user's
        pods = self._pods_for(ns, selector)
        # Computed before the no-op check, so the tracker's state moves on either way.
        trigger = self.trigger_time_tracker.compute(key, svc, pods)
        subsets = self.desired_subsets(svc, pods)
        svc_labels = svc["metadata"].get("labels")
        current = self._endpoints.get(key)
        if current is None:
            current = {"apiVersion": "v1", "kind": "Endpoints",
                       "metadata": {"name": name, "namespace": ns}}  # fmt: skip
            if svc_labels is not None:
                current["metadata"]["labels"] = dict(svc_labels)
        elif self.stale_endpoints_tracker.is_stale(current):
            raise SyncError(
                "endpoints informer cache is out of date, resource version "
                f"{current['metadata'].get('resourceVersion')} already processed for endpoints {key}"
            )
        cur_meta = current["metadata"]
        create = not cur_meta.get("resourceVersion")
        cur_subsets = current.get("subsets") or []
        if (
            not create
            and (
                endpoint_subsets_equal_ignore_resource_version(cur_subsets, subsets)
                # Repacked, in case it was packed by another hash (kubernetes#129652).
                or endpoint_subsets_equal_ignore_resource_version(
                    repack_subsets(cur_subsets), subsets
                )
            )
            and labels_correct_for_endpoints(cur_meta.get("labels"), svc_labels)
            and (capacity_annotation_set_correctly(cur_meta.get("annotations"), cur_subsets))
        ):
            return
        new = self.new_endpoints(current, svc, subsets, trigger)
        self._write(key, current, new, create)

    def new_endpoints(
        self, current: Obj, svc: Obj, subsets: list[Obj], trigger: Instant | None
    ) -> Obj:
        """The Endpoints to write: the subsets, the Service's labels with the managed-by
        (and headless) labels, the trigger-time and over-capacity annotations."""
        new = copy.deepcopy(current)
        new.setdefault("apiVersion", "v1")
        new.setdefault("kind", "Endpoints")
        new["subsets"] = subsets
        meta = new["metadata"]
        labels = dict(svc["metadata"].get("labels") or {})
        ann = dict(meta.get("annotations") or {})
        if trigger is not None:
            ann[LAST_CHANGE_TRIGGER_TIME] = rfc3339(trigger)
        else:  # no new trigger time
            ann.pop(LAST_CHANGE_TRIGGER_TIME, None)
        if truncate_endpoints(new):
            ann[OVER_CAPACITY] = TRUNCATED
        else:
            ann.pop(OVER_CAPACITY, None)
        if not is_service_ip_set(svc):
            labels[HEADLESS_LABEL] = ""
        else:
            labels.pop(HEADLESS_LABEL, None)
        labels[LABEL_MANAGED_BY] = CONTROLLER_NAME
        meta["labels"] = labels
        if ann:
            meta["annotations"] = ann
        else:  # an empty map is omitted on the wire
            meta.pop("annotations", None)
        if not new["subsets"]:
            del new["subsets"]
        return new

    def _write(self, key: str, current: Obj, new: Obj, create: bool) -> None:
        server = self._ctx.server
        try:
            if create:
                server.create(new)
                self._ctx.trace.record(self.name, "create-endpoints", f"Endpoints/{key}")
                return
            updated = server.update(new)
        except ApiError as exc:
            if create and isinstance(exc, Forbidden) and terminating(exc):
                return  # creates in a terminating namespace keep failing: drop the key
            self._failed(key, create, exc)
            raise
        self._ctx.trace.record(self.name, "update-endpoints", f"Endpoints/{key}")
        # Remember the replaced version: a sync reading it again from the informer
        # is behind (webhooks or truncation can make an update a no-op; kubernetes#127370).
        if updated["metadata"].get("resourceVersion") != current["metadata"].get("resourceVersion"):
            self.stale_endpoints_tracker.stale(current)

    def _failed(self, key: str, create: bool, exc: ApiError) -> None:
        if create:
            self._event(key, "FailedToCreateEndpoint",
                        f"Failed to create endpoint for service {key}: {exc.message}")  # fmt: skip
        else:
            self._event(key, "FailedToUpdateEndpoint",
                        f"Failed to update endpoint {key}: {exc.message}")  # fmt: skip

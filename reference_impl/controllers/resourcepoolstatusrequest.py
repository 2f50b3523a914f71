"""The ResourcePoolStatusRequest controller, after
``pkg/controller/resourcepoolstatusrequest/controller.go`` (KEP-5677).

kube-controller-manager runs it as ``resourcepoolstatusrequest-controller`` only while
the alpha ``DRAResourcePoolStatus`` gate is on. A request (resource.k8s.io/v1alpha3,
cluster-scoped) is answered once: while its ``status`` is unset the controller
summarises the driver's pools from the ResourceSlices (newest generation only) and the
ResourceClaims' allocations, and writes the status; a request with a status is never
recomputed. A pool with fewer slices than its ``resourceSliceCount`` is requeued
(rate limited, at most ``MAX_RETRIES`` times) rather than answered; structural view
errors are answered as a pool ``validationError``. Only request adds and updates queue
work: a slice change does not. Every 10 minutes (first at start) it deletes requests
answered over an hour ago and unanswered ones older than 24 hours.

The views (partitionSummary, shareableSummary) are in ``resourcepoolstatusrequest_views``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, millis, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.resourcepoolstatusrequest_views import (
    PREFIX_POOL_INCOMPLETE,
    ZERO,
    DeviceRecord,
    PoolViewInput,
    add_quantity,
    compute_pool_views,
    resolve_device_partitions,
    slice_device_records,
)
from reference_impl.errors import ApiError

__all__ = [
    "CLEANUP_POLLING_INTERVAL_S",
    "COMPLETED_REQUEST_TTL_S",
    "GATE",
    "LIMIT_DEFAULT",
    "MAX_RETRIES",
    "PENDING_REQUEST_TTL_S",
    "RequeueError",
    "ResourcePoolStatusRequestController",
    "is_older_than",
    "rule_makes_device_unavailable",
    "should_delete_request",
]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
REQUEST_API: Final = "resource.k8s.io/v1alpha3"
KIND: Final = "ResourcePoolStatusRequest"
GATE: Final = "DRAResourcePoolStatus"
MAX_RETRIES: Final = 5
CLEANUP_POLLING_INTERVAL_S: Final = 10 * 60
COMPLETED_REQUEST_TTL_S: Final = 60 * 60  # answered (Complete or Failed)
PENDING_REQUEST_TTL_S: Final = 24 * 60 * 60  # never answered: stuck
LIMIT_DEFAULT: Final = 100  # ResourcePoolStatusRequestLimitDefault
_UNAVAILABLE_EFFECTS: Final = ("NoSchedule", "NoExecute")


class RequeueError(Exception):
    """``syncRequest``'s error: the key goes back through the rate limiter."""


@dataclass(slots=True)
class _Pool:
    """``poolInfo``: one pool's slices at its newest generation."""

    driver: str
    pool_name: str
    node_name: str
    generation: int
    expected_slices: int
    node_name_mixed: bool = False
    total: int = 0
    unavailable: int = 0
    slices: int = 0
    devices: list[DeviceRecord] = field(default_factory=list)
    shared_counters: list[Obj] = field(default_factory=list)


class ResourcePoolStatusRequestController:
    """Answers each ResourcePoolStatusRequest once with its pools' status."""

    name: Final = "resourcepoolstatusrequest-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._requests: SharedInformer | None = None
        self._slices: SharedInformer | None = None
        self._claims: SharedInformer | None = None
        self._rules: SharedInformer | None = None
        self._queue = WorkQueue(ctx.clock, self._process, name="resourcepoolstatusrequest")
        self._requeues: dict[str, int] = {}  # NumRequeues of the rate limiter
        # requests_processed_total / request_processing_errors_total by driver_name
        self.processed: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        self.deleted = 0

    def start(self) -> None:
        """Watch requests and start the cleanup loop (only with the gate on, as
        kube-controller-manager's requiredFeatureGates)."""
        if not self._ctx.gates.get(GATE, False):
            return
        inf = self._ctx.informers
        self._requests = inf.informer(REQUEST_API, KIND)
        self._slices = inf.informer(API, "ResourceSlice")
        self._claims = inf.informer(API, "ResourceClaim")
        # DeviceTaintRules are consulted only with their gate on.
        if self._ctx.gates["DRADeviceTaintRules"]:
            self._rules = inf.informer(API, "DeviceTaintRule")
        self._requests.add_handler(self._on_request)
        for r in self._requests.items():
            self._enqueue(r)
        # wait.UntilWithContext: the first pass runs at once.
        self._ctx.clock.call_later(Duration(0), self._cleanup_loop)

    # -- queue ------------------------------------------------------------------------

    def _on_request(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._enqueue(ev.obj)

    def _enqueue(self, request: Obj) -> None:
        """``enqueueRequest``: answered requests are not queued."""
        if request.get("status") is None:
            self._queue.add(str(request["metadata"]["name"]))

    def _process(self, key: str) -> None:
        """``processNextWorkItem``: requeue a failed key with exponential backoff (5 ms
        doubling) until it has been requeued ``MAX_RETRIES`` times, then drop it."""
        try:
            self.sync_request(key)
        except RequeueError:
            n = self._requeues.get(key, 0)
            if n < MAX_RETRIES:
                self._requeues[key] = n + 1
                self._queue.add_after(key, millis(5 * 2**n))
                return
            self._ctx.trace.record(self.name, "Dropped", key, f"after {MAX_RETRIES} retries")
        self._requeues.pop(key, None)

    def sync_request(self, key: str) -> None:
        """``syncRequest``: answer one request; raises ``RequeueError`` while a pool in the
        answer is incomplete or when the status write fails."""
        assert self._requests is not None
        request = self._requests.get(key)
        if request is None or request.get("status") is not None:
            return
        driver = str((request.get("spec") or {}).get("driver", ""))
        status = self.calculate_pool_status(request)
        if any(str(p.get("validationError", "")).startswith(PREFIX_POOL_INCOMPLETE)
               for p in status.get("pools", ())):  # fmt: skip
            raise RequeueError("incomplete pools detected, requeueing")
        updated = copy.deepcopy(request)
        updated["status"] = status
        self.processed[driver] = self.processed.get(driver, 0) + 1
        try:
            self._ctx.server.update_status(updated)
        except ApiError as exc:
            self.errors[driver] = self.errors.get(driver, 0) + 1
            raise RequeueError(f"failed to update status for request {key}: {exc}") from exc
        self._ctx.trace.record(self.name, "Answered", key, f"{len(status.get('pools', ()))} pools")

    # -- the answer -------------------------------------------------------------------

    def calculate_pool_status(self, request: Obj) -> Obj:
        """``calculatePoolStatus``: the status from the informers' current contents."""
        assert self._slices is not None and self._claims is not None
        spec = request.get("spec") or {}
        driver = str(spec.get("driver", ""))
        pool_filter = str(spec.get("poolName") or "")
        rules = list(self._rules.items()) if self._rules is not None else []
        slices = [s for s in self._slices.items() if _spec(s).get("driver") == driver
                  and (not pool_filter or _pool(s).get("name") == pool_filter)]  # fmt: skip
        newest: dict[str, int] = {}
        for s in slices:
            name, gen = str(_pool(s).get("name", "")), int(_pool(s).get("generation", 0))
            newest[name] = max(gen, newest.get(name, gen))
        pools: dict[str, _Pool] = {}
        for s in slices:
            pool_name = str(_pool(s).get("name", ""))
            if int(_pool(s).get("generation", 0)) < newest[pool_name]:
                continue  # older generations are ignored (KEP-5677)
            node = str(_spec(s).get("nodeName") or "")
            info = pools.get(pool_name)
            if info is None:
                info = pools[pool_name] = _Pool(
                    driver, pool_name, node, newest[pool_name],
                    int(_pool(s).get("resourceSliceCount", 0)))  # fmt: skip
            elif node != info.node_name:
                info.node_name_mixed = True
            devices = [d for d in _spec(s).get("devices") or () if isinstance(d, dict)]
            info.total += len(devices)
            info.unavailable += sum(_device_unavailable(driver, pool_name, d, rules) for d in devices)
            info.slices += 1
            info.devices += slice_device_records(s)
            info.shared_counters += list(_spec(s).get("sharedCounters") or ())
        in_use, consumed = self._allocations()
        out = sorted((self._pool_status(request, p, in_use, consumed) for p in pools.values()),
                     key=lambda p: (p["driver"], p["poolName"]))  # fmt: skip
        pool_count = len(out)
        limit = spec.get("limit")
        out = out[: max(0, LIMIT_DEFAULT if limit is None else int(limit))]
        flagged = sum(1 for p in out if "validationError" in p)
        message = f"Calculated status for {len(out)} pools"
        if flagged:
            message += f" ({flagged} incomplete)"
        status: Obj = {"poolCount": pool_count}
        if out:
            status["pools"] = out
        status["conditions"] = [{
            "type": "Complete", "status": "True", "lastTransitionTime": rfc3339(self._ctx.clock.now()),
            "reason": "CalculationComplete", "message": message}]  # fmt: skip
        return status

    def _allocations(self) -> tuple[dict[tuple[str, str], set[str]], dict[tuple[str, str], dict[str, Quantity]]]:
        """Step 2: per pool, the devices with a non-adminAccess result (a device shared by
        several claims counts once) and the capacity those results consumed."""
        assert self._claims is not None
        in_use: dict[tuple[str, str], set[str]] = {}
        consumed: dict[tuple[str, str], dict[str, Quantity]] = {}
        for claim in self._claims.items():
            alloc = (claim.get("status") or {}).get("allocation")
            if not alloc:
                continue
            for r in (alloc.get("devices") or {}).get("results") or ():
                if r.get("adminAccess") is True:
                    continue  # observers, not consumers
                key = (str(r.get("driver", "")), str(r.get("pool", "")))
                in_use.setdefault(key, set()).add(str(r.get("device", "")))
                m = consumed.setdefault(key, {})
                for name, q in (r.get("consumedCapacity") or {}).items():
                    m[name] = add_quantity(m.get(name, ZERO), Quantity.of(q))
        return in_use, consumed

    def _pool_status(self, request: Obj, p: _Pool, in_use: dict[tuple[str, str], set[str]],
                     consumed: dict[tuple[str, str], dict[str, Quantity]]) -> Obj:  # fmt: skip
        """Step 3: one pool's status; an incomplete pool gets only a validationError."""
        out: Obj = {"driver": p.driver, "poolName": p.pool_name, "generation": p.generation}
        if p.node_name and not p.node_name_mixed:
            out["nodeName"] = p.node_name
        if p.slices < p.expected_slices:
            out["validationError"] = (
                f"{PREFIX_POOL_INCOMPLETE} pool {p.driver}/{p.pool_name} is incomplete: "
                f"observed {p.slices}/{p.expected_slices} slices at generation {p.generation}"
            )[:256]
            return out
        used = in_use.get((p.driver, p.pool_name), set())
        allocated = len(used)
        out.update({
            "resourceSliceCount": p.slices, "totalDevices": p.total, "allocatedDevices": allocated,
            "availableDevices": max(0, p.total - allocated - p.unavailable),
            "unavailableDevices": p.unavailable})  # fmt: skip
        view = PoolViewInput(p.driver, p.pool_name, p.devices, p.shared_counters, used,
                             consumed.get((p.driver, p.pool_name), {}))  # fmt: skip
        default_attr = (request.get("spec") or {}).get("defaultPartitionTypeAttribute")
        resolve_device_partitions(None if default_attr is None else str(default_attr), view)
        summary, shareable, error = compute_pool_views(view)
        if summary:
            out["partitionSummary"] = summary
        if shareable is not None:
            out["shareableSummary"] = shareable
        if error:
            out["validationError"] = error[:256]
        return out

    # -- cleanup ----------------------------------------------------------------------

    def _cleanup_loop(self) -> None:
        self.cleanup_expired_requests()
        self._ctx.clock.call_later(Duration(seconds(CLEANUP_POLLING_INTERVAL_S)), self._cleanup_loop)

    def cleanup_expired_requests(self) -> list[str]:
        """``cleanupExpiredRequests``: delete expired requests (UID precondition); a
        request already gone or replaced is skipped. Returns the names deleted."""
        assert self._requests is not None
        now = self._ctx.clock.now()
        out = []
        for r in list(self._requests.items()):
            if not should_delete_request(r, now):
                continue
            meta = r["metadata"]
            try:
                self._ctx.server.delete(REQUEST_API, KIND, meta["name"], uid=meta.get("uid"))
            except ApiError:  # NotFound, or a Conflict: replaced under the same name
                continue
            self.deleted += 1
            out.append(str(meta["name"]))
            self._ctx.trace.record(self.name, "Deleted", str(meta["name"]), "expired")
        return out


def should_delete_request(request: Obj, now: Instant) -> bool:
    """``shouldDeleteRequest``: an answered request expires an hour after its Complete or
    Failed condition (its creation when it has neither), a pending one after 24 hours."""
    created = str(request.get("metadata", {}).get("creationTimestamp") or "")
    status = request.get("status")
    if status is None:
        return is_older_than(created, PENDING_REQUEST_TTL_S, now)
    for cond in status.get("conditions") or ():
        if cond.get("type") in ("Complete", "Failed"):
            return is_older_than(str(cond.get("lastTransitionTime") or ""), COMPLETED_REQUEST_TTL_S, now)
    return is_older_than(created, COMPLETED_REQUEST_TTL_S, now)


def is_older_than(timestamp: str, ttl_s: float, now: Instant) -> bool:
    """``isOlderThan``: a set time more than ``ttl_s`` before ``now`` (a zero time never is)."""
    return bool(timestamp) and now - parse_rfc3339(timestamp) > seconds(ttl_s)


def rule_makes_device_unavailable(rule: Obj, driver: str, pool: str, device: str) -> bool:
    """``ruleMakesDeviceUnavailable``: a NoSchedule/NoExecute rule whose selector's set
    fields all match; a rule without a selector matches nothing."""
    spec = rule.get("spec") or {}
    if (spec.get("taint") or {}).get("effect") not in _UNAVAILABLE_EFFECTS:
        return False
    sel = spec.get("deviceSelector")
    if sel is None:
        return False
    return all(sel.get(k) is None or sel.get(k) == v
               for k, v in (("driver", driver), ("pool", pool), ("device", device)))  # fmt: skip


def _device_unavailable(driver: str, pool: str, device: Obj, rules: list[Obj]) -> bool:
    """``deviceUnavailable``: an embedded NoSchedule/NoExecute taint, or a matching rule."""
    if any(t.get("effect") in _UNAVAILABLE_EFFECTS for t in device.get("taints") or ()):
        return True
    name = str(device.get("name", ""))
    return any(rule_makes_device_unavailable(r, driver, pool, name) for r in rules)


def _spec(obj: Obj) -> Obj:
    spec: Obj = obj.get("spec") or {}
    return spec


def _pool(slice_: Obj) -> Obj:
    pool: Obj = _spec(slice_).get("pool") or {}
    return pool

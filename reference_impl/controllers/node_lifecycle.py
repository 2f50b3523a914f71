"""The node lifecycle controller (``pkg/controller/nodelifecycle``), taint-based mode.

``monitorNodeHealth`` runs on a ``node-monitor-period`` (5 s) grid. Each pass calls
``tryUpdateNodeHealth`` (``node_health``) for every node: the probe time is when the
controller saw the Ready heartbeat or the lease renewal change, and a node silent for
longer than ``node-monitor-grace-period`` (50 s; ``node-startup-grace-period``, 60 s, for a
node that never posted Ready) gets Ready, MemoryPressure, DiskPressure and PIDPressure
Unknown ("Kubelet stopped posting node status."), its pods marked not Ready
(``MarkPodsNotReady``), and is queued in its zone for the NoExecute ``unreachable`` taint
(``not-ready`` for Ready=False; the two are swapped at once). A Ready node loses both.
``handleDisruption`` keeps zone states: a partially disrupted small zone stops tainting,
and when every zone is fully disrupted all NoExecute taints are lifted. The zone queues
(``doNoExecuteTaintingPass``) drain through a token bucket (0.1/s, burst 1). Node updates
run ``doNoScheduleTaintingPass`` and ``reconcileNodeLabels``.

The kubelet model renews continuously while it runs, so the controller is told when a
node's heartbeat stops or starts (``heartbeat_changed``) and a pass runs only at the grid
ticks where something changed or a grace period ends: the passes it skips change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.well_known_taints import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, Instant, Timer, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.node_health import (
    NodeHealth,
    ZoneStates,
    get_condition,
    is_excluded_from_disruption,
    labels_to_reconcile,
    no_schedule_taint_diff,
    try_update_node_health,
    written,
    zone_key,
)
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = ["NodeLifecycleController", "ready_status"]

Obj = dict[str, Any]
MONITOR_PERIOD_S: Final = 5.0  # --node-monitor-period
GRACE_PERIOD_S: Final = 50.0  # --node-monitor-grace-period (50 s since 1.32)
STARTUP_GRACE_PERIOD_S: Final = 60.0  # --node-startup-grace-period
EVICTION_PERIOD_S: Final = 0.1  # scheduler.NodeEvictionPeriod
COMPONENT: Final = "node-controller"
UPDATE_LABEL_STEPS: Final = 5  # UpdateLabelBackoff.Steps (RetryOnConflict tries)
_NO_EXECUTE: Final = {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE}

# Heartbeat: the instant a node last renewed, None when the model does not run it.
Heartbeat = Callable[[str], Instant | None]


def ready_status(node: Obj) -> str:
    """The node's Ready condition status (``Unknown`` when it has none)."""
    cond = get_condition(node.get("status"), "Ready")
    return str(cond.get("status") or "Unknown") if cond is not None else "Unknown"


def _has_taint(node: Obj, key: str, effect: str) -> bool:
    return any(t.get("key") == key and t.get("effect") == effect
               for t in (node.get("spec") or {}).get("taints") or ())  # fmt: skip


@dataclass(slots=True)
class _Tainter:
    """A zone's ``RateLimitedTimedQueue``: a unique queue (a processed name stays in
    ``seen`` until removed) drained through a token bucket of burst 1."""

    qps: float
    tokens: float = 1.0
    last: Instant = Instant(0)
    queue: list[tuple[Instant, int, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def refill(self, now: Instant) -> None:
        if self.qps > 0:
            self.tokens = min(1.0, self.tokens + self.qps * (now - self.last) / 1e9)
        self.last = now

    def swap(self, qps: float, now: Instant) -> None:
        """``SwapLimiter``: a new bucket, empty when the old one had no token."""
        if qps == self.qps:
            return
        self.refill(now)
        empty = self.qps <= 0 or self.tokens < 1
        self.qps, self.tokens, self.last = qps, (0.0 if empty else 1.0), now

    def add(self, name: str, now: Instant, seq: int) -> bool:
        if name in self.seen:
            return False
        self.seen.add(name)
        self.queue.append((now, seq, name))
        self.queue.sort()
        return True

    def remove(self, name: str) -> bool:
        if name not in self.seen:
            return False
        self.seen.discard(name)
        self.queue = [q for q in self.queue if q[2] != name]
        return True

    def next_try(self, now: Instant) -> Instant | None:
        """When ``Try`` can next take a token for the head, or None."""
        if not self.queue or self.qps <= 0:
            return None
        self.refill(now)
        wait = 0 if self.tokens >= 1 else int((1 - self.tokens) / self.qps * 1e9) + 1
        return Instant(max(now + wait, self.queue[0][0]))


class NodeLifecycleController:
    """Marks silent nodes Unknown and keeps the not-ready/unreachable taints in step."""

    name: Final = "node-lifecycle-controller"

    def __init__(
        self,
        ctx: ComponentContext,
        heartbeat: Heartbeat | None = None,
        *,
        eviction_qps: float = 0.1,
        secondary_qps: float = 0.01,
        large_cluster: int = 50,
        unhealthy_threshold: float = 0.55,
    ) -> None:
        self._ctx = ctx
        self._heartbeat = heartbeat
        self._nodes = ctx.informers.informer("v1", "Node")
        self._pods = ctx.informers.informer("v1", "Pod")
        self._leases = ctx.informers.informer("coordination.k8s.io/v1", "Lease")
        # nodeUpdateQueue is a plain queue (a failed pass is only logged); podUpdateQueue
        # retries a failed pod through DefaultControllerRateLimiter (AddRateLimited).
        self._node_q = WorkQueue(ctx.clock, self._process_node, name="nodelifecycle")
        self._pod_q = WorkQueue(ctx.clock, self.process_pod, name="nodelifecycle-pods",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self.grace = seconds(GRACE_PERIOD_S)
        self.startup_grace = seconds(STARTUP_GRACE_PERIOD_S)
        self.period = seconds(MONITOR_PERIOD_S)
        self.health: dict[str, NodeHealth] = {}  # nodeHealthMap
        self.zones = ZoneStates(eviction_qps, secondary_qps, large_cluster, unhealthy_threshold)
        self._tainters: dict[str, _Tainter] = {}  # zoneNoExecuteTainter
        self._known: dict[str, Obj] = {}  # knownNodeSet
        self._retry: set[str] = set()  # nodesToRetry
        self._seq = 0
        self._epoch = ctx.clock.now()
        self._last_pass: Instant | None = None
        self._tick: Timer | None = None
        self._taint_timer: Timer | None = None

    def start(self) -> None:
        """Watch nodes, pods and leases; a first pass runs now (``wait.Until``)."""
        self._nodes.add_handler(self._on_node)
        self._pods.add_handler(self._on_pod)
        self._leases.add_handler(self._on_lease)
        for node in self._nodes.items():
            self._node_q.add(object_key(node))
        self._schedule(self._ctx.clock.now())

    def heartbeat_changed(self, name: str) -> None:
        """The kubelet of ``name`` stopped or resumed renewing: look at the next tick."""
        self._wake()

    # -- scheduling ---------------------------------------------------------------------

    def _grid(self, at: Instant, strictly: bool) -> Instant:
        """The first monitor tick at (or after, ``strictly``) ``at``."""
        n = -(-(at - self._epoch) // self.period)
        tick = Instant(self._epoch + n * self.period)
        return Instant(tick + self.period) if strictly and tick <= at else tick

    def _wake(self) -> None:
        now = self._ctx.clock.now()
        self._schedule(self._grid(now, strictly=self._last_pass == now))

    def _schedule(self, at: Instant) -> None:
        if self._tick is not None and not self._tick.cancelled and self._tick.when <= at:
            return
        if self._tick is not None:
            self._tick.cancel()
        self._tick = self._ctx.clock.call_at(at, self._pass)

    def _pass(self) -> None:
        self._tick = None
        self.monitor_node_health()
        self.do_no_execute_tainting_pass()
        now = self._ctx.clock.now()
        due = [Instant(h.probe + self._grace_of(n)) for n, h in self.health.items()]
        future = [d for d in due if d >= now]
        if future:
            self._schedule(self._grid(min(future), strictly=True))
        if self._retry:
            self._schedule(self._grid(now, strictly=True))

    def _grace_of(self, name: str) -> Duration:
        node = self._nodes.get(name)
        has_ready = node is not None and get_condition(node.get("status"), "Ready") is not None
        return self.grace if has_ready else self.startup_grace

    # -- event handlers ------------------------------------------------------------------

    def _on_node(self, ev: ObjectEvent) -> None:
        name = str(ev.obj["metadata"]["name"])
        if ev.type == "DELETED":
            self._retry.discard(name)
        else:
            self._node_q.add(name)
        self._wake()

    def _on_lease(self, ev: ObjectEvent) -> None:
        meta = ev.obj["metadata"]
        if meta.get("namespace") != "kube-node-lease":
            return
        if self._heartbeat is not None and self._heartbeat(str(meta["name"])) is not None:
            return  # the kubelet model's heartbeat stands for this lease
        self._wake()

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``podUpdated``: a pod newly bound to a node."""
        if ev.type == "DELETED":
            return
        node = ev.obj["spec"].get("nodeName")
        old = (ev.old or {}).get("spec", {}).get("nodeName") if ev.type == "MODIFIED" else None
        if node and (ev.type == "ADDED" or node != old):
            self._pod_q.add(object_key(ev.obj))

    # -- monitorNodeHealth ---------------------------------------------------------------

    def _lease_renew(self, name: str) -> Instant | None:
        if self._heartbeat is not None:
            beat = self._heartbeat(name)
            if beat is not None:
                return beat
        lease = self._leases.get(f"kube-node-lease/{name}")
        renew = ((lease or {}).get("spec") or {}).get("renewTime")
        return parse_rfc3339(str(renew)[:19] + "Z") if renew else None

    def _tainter(self, node: Obj) -> _Tainter:
        zone = zone_key(node)
        if zone not in self._tainters:
            self._add_zone(node)
        return self._tainters[zone]

    def _add_zone(self, node: Obj) -> None:
        """``addPodEvictorForNewZone``: a zone without a state gets a fresh queue."""
        zone = zone_key(node)
        if zone not in self.zones.states or zone not in self._tainters:
            self.zones.add_zone(zone)
            self._tainters[zone] = _Tainter(self.zones.qps[zone], last=self._ctx.clock.now())

    def monitor_node_health(self) -> None:
        """``monitorNodeHealth``: one pass over every node."""
        now = self._ctx.clock.now()
        self._last_pass = now
        nodes = list(self._nodes.items())
        names = {str(n["metadata"]["name"]) for n in nodes}
        for node in nodes:
            name = str(node["metadata"]["name"])
            self._add_zone(node)
            if name not in self._known:
                self._event(node, "RegisteredNode", f"Registered Node {name} in Controller")
                self._known[name] = node
                self.mark_node_as_reachable(node)
        for name in sorted(set(self._known) - names):
            gone = self._known.pop(name)
            self._event(gone, "RemovingNode", f"Removing Node {name} from Controller")
        zone_ready: dict[str, list[Obj | None]] = {}
        for node in nodes:
            current = self._update_node(node, now)
            if current is not False:
                ready = current if isinstance(current, dict) else None
                if not is_excluded_from_disruption(node):
                    zone_ready.setdefault(zone_key(node), []).append(ready)
        self._handle_disruption(zone_ready, nodes, now)

    def _update_node(self, node: Obj, now: Instant) -> Obj | bool | None:
        """``updateNodeFunc``: False when the health update failed."""
        name = str(node["metadata"]["name"])
        result = try_update_node_health(
            self.health.get(name), node, self._lease_renew(name), now, self.grace,
            self.startup_grace,
        )
        self.health[name] = result.health
        if result.new_status is not None:
            try:
                node = self._ctx.server.update_status({**node, "status": result.new_status})
            except ApiError:
                return False
            self.health[name] = written(result, now)
        current, observed = result.current, result.observed
        if current is None:
            self._retry.discard(name)
            return None
        self.process_taint_base_eviction(node, current)
        needs_retry = name in self._retry
        fell = current.get("status") != "True" and observed.get("status") == "True"
        if fell:
            self._event(node, "NodeNotReady", f"Node {name} status is now: NodeNotReady")
        if fell or (needs_retry and observed.get("status") != "True"):
            if not self.mark_pods_not_ready(name):
                self._retry.add(name)
                return current
        self._retry.discard(name)
        return current

    def _handle_disruption(
        self, zone_ready: dict[str, list[Obj | None]], nodes: list[Obj], now: Instant
    ) -> None:
        action = self.zones.handle_disruption(zone_ready)
        if action == "enter":
            for node in nodes:
                self.mark_node_as_reachable(node)
        elif action == "exit":
            for node in nodes:
                h = self.health.get(str(node["metadata"]["name"]))
                if h is not None:
                    h.probe = h.ready_transition = now
        for zone, tainter in self._tainters.items():
            tainter.swap(self.zones.qps.get(zone, tainter.qps), now)

    def process_taint_base_eviction(self, node: Obj, ready: Obj) -> None:
        """``processTaintBaseEviction``: swap at once, else queue for the zone's tainter."""
        status = ready.get("status")
        if status in _NO_EXECUTE:
            key = _NO_EXECUTE[str(status)]
            other = TAINT_NODE_UNREACHABLE if key == TAINT_NODE_NOT_READY else TAINT_NODE_NOT_READY
            if _has_taint(node, other, "NoExecute"):
                self._swap_taints(node, key, other)
                return
            tainter = self._tainter(node)
            if not _has_taint(node, key, "NoExecute"):
                tainter.remove(str(node["metadata"]["name"]))  # markNodeForTainting
            self._seq += 1
            if tainter.add(str(node["metadata"]["name"]), self._ctx.clock.now(), self._seq):
                self._schedule_tainting()
        elif status == "True":
            self.mark_node_as_reachable(node)

    def mark_node_as_reachable(self, node: Obj) -> bool:
        """``markNodeAsReachable``: both NoExecute taints off, out of the zone queue."""
        self._remove_taints(str(node["metadata"]["name"]),
                            [(TAINT_NODE_UNREACHABLE, "NoExecute"),
                             (TAINT_NODE_NOT_READY, "NoExecute")])  # fmt: skip
        return self._tainter(node).remove(str(node["metadata"]["name"]))

    def mark_pods_not_ready(self, node_name: str) -> bool:
        """``MarkPodsNotReady``: each pod's Ready condition False; True when all stored."""
        ok = True
        stamp = rfc3339(self._ctx.clock.now())
        for pod in list(self._pods.items()):
            if pod["spec"].get("nodeName") != node_name:
                continue
            status = dict(pod.get("status") or {})
            conds = [dict(c) for c in status.get("conditions") or []]
            ready = next((c for c in conds if c.get("type") == "Ready"), None)
            if ready is None or ready.get("status") == "False":
                continue
            ready.update(status="False", lastTransitionTime=stamp)
            try:
                self._ctx.server.update_status({**pod, "status": {**status, "conditions": conds}})
            except NotFound:
                continue
            except ApiError:
                ok = False
                continue
            self._ctx.trace.record(COMPONENT, "NodeNotReady", object_key(pod), "Node is not ready")
        return ok

    # -- doNoExecuteTaintingPass ---------------------------------------------------------

    def _schedule_tainting(self) -> None:
        now = self._ctx.clock.now()
        due = [d for t in self._tainters.values() if (d := t.next_try(now)) is not None]
        if not due:
            return
        # The pass runs every NodeEvictionPeriod (100 ms) from the controller's start.
        step = seconds(EVICTION_PERIOD_S)
        at = min(due)
        at = Instant(self._epoch + -(-(at - self._epoch) // step) * step)
        if self._taint_timer is not None and not self._taint_timer.cancelled:
            if self._taint_timer.when <= at:
                return
            self._taint_timer.cancel()
        self._taint_timer = self._ctx.clock.call_at(at, self._taint_tick)

    def _taint_tick(self) -> None:
        self._taint_timer = None
        self.do_no_execute_tainting_pass()

    def do_no_execute_tainting_pass(self) -> None:
        """``doNoExecuteTaintingPass``: ``Try`` on every zone's queue."""
        now = self._ctx.clock.now()
        for zone in sorted(self._tainters):
            t = self._tainters[zone]
            t.refill(now)
            while t.queue:
                if t.qps <= 0 or t.tokens < 1:
                    break
                t.tokens -= 1
                at, seq, name = t.queue[0]
                if now < at:
                    break
                done, wait = self._taint_node(name)
                if done:
                    t.queue.pop(0)  # RemoveFromQueue: stays in the set
                else:
                    t.queue[0] = (Instant(now + wait + 1), seq, name)
                    t.queue.sort()
        self._schedule_tainting()

    def _taint_node(self, name: str) -> tuple[bool, Duration]:
        node = self._nodes.get(name)
        if node is None:
            return True, Duration(0)
        ready = get_condition(node.get("status"), "Ready")
        if ready is None:
            return False, seconds(0.05)
        key = _NO_EXECUTE.get(str(ready.get("status")))
        if key is None:
            return True, Duration(0)  # Ready again
        other = TAINT_NODE_UNREACHABLE if key == TAINT_NODE_NOT_READY else TAINT_NODE_NOT_READY
        return self._swap_taints(node, key, other), Duration(0)

    # -- node updates: doNoScheduleTaintingPass and reconcileNodeLabels -----------------

    def _process_node(self, name: str) -> None:
        """``doNodeProcessingPassWorker``: errors are logged, the node not requeued (as
        upstream's TODOs say)."""
        for step in (self.do_no_schedule_tainting_pass, self.reconcile_node_labels):
            try:
                step(name)
            except ApiError:
                pass

    def do_no_schedule_tainting_pass(self, name: str) -> None:
        """``doNoScheduleTaintingPass``: one NoSchedule taint per adverse condition."""
        node = self._nodes.get(name)
        if node is None:
            return
        add, delete = no_schedule_taint_diff(node)
        if add or delete:
            self._apply_taints(name, [(t["key"], t["effect"]) for t in add],
                               [(t["key"], t["effect"]) for t in delete])  # fmt: skip

    def reconcile_node_labels(self, name: str) -> None:
        """``reconcileNodeLabels``: the beta OS/arch labels follow the stable ones."""
        node = self._nodes.get(name)
        labels = labels_to_reconcile(node) if node is not None else {}
        if labels:
            self._update_node_meta(name, labels)

    def process_pod(self, key: str) -> None:
        """``processPod``: a pod bound to a node that is not Ready is marked not Ready."""
        pod = self._pods.get(key)
        if pod is None:
            return
        node_name = str(pod["spec"].get("nodeName") or "")
        health = self.health.get(node_name)
        if health is None or self._nodes.get(node_name) is None:
            return
        ready = get_condition(health.status, "Ready")
        if ready is None or ready.get("status") == "True":
            return
        status = dict(pod.get("status") or {})
        conds = [dict(c) for c in status.get("conditions") or []]
        cond = next((c for c in conds if c.get("type") == "Ready"), None)
        if cond is None or cond.get("status") == "False":
            return
        cond.update(status="False", lastTransitionTime=rfc3339(self._ctx.clock.now()))
        try:
            self._ctx.server.update_status({**pod, "status": {**status, "conditions": conds}})
        except NotFound:
            return  # MarkPodsNotReady: the pod was already deleted; other errors requeue
        self._ctx.trace.record(COMPONENT, "NodeNotReady", key, "Node is not ready")

    # -- API writes ----------------------------------------------------------------------

    def _swap_taints(self, node: Obj, key: str, other: str) -> bool:
        """``SwapNodeControllerTaint``: add ``key`` (stamped) and drop ``other``."""
        return self._apply_taints(str(node["metadata"]["name"]), [(key, "NoExecute")],
                                  [(other, "NoExecute")])  # fmt: skip

    def _remove_taints(self, name: str, remove: list[tuple[str, str]]) -> bool:
        """``RemoveTaintOffNode``: no write when none of them is there."""
        node = self._nodes.get(name)
        if node is None or not any(_has_taint(node, k, e) for k, e in remove):
            return True
        return self._apply_taints(name, [], remove)

    def _apply_taints(self, name: str, add: list[tuple[str, str]],
                      remove: list[tuple[str, str]]) -> bool:  # fmt: skip
        server = self._ctx.server
        for _ in range(5):
            try:
                node = server.get("v1", "Node", name)
            except NotFound:
                return False
            old: list[Obj] = list((node.get("spec") or {}).get("taints") or [])
            keep = [t for t in old if (t.get("key"), t.get("effect")) not in set(remove)]
            stamp = rfc3339(self._ctx.clock.now())
            for key, effect in add:
                if not any(t.get("key") == key and t.get("effect") == effect for t in keep):
                    keep.append({"key": key, "effect": effect, "timeAdded": stamp})
            if keep == old:
                return True
            spec = {**(node.get("spec") or {}), "taints": keep}
            if not keep:
                spec.pop("taints")
            try:
                server.update({**node, "spec": spec})
                return True
            except Conflict:
                continue
            except ApiError:
                return False
        return False

    def _update_node_meta(self, name: str, labels: dict[str, str]) -> None:
        """``AddOrUpdateLabelsOnNode``: retried on Conflict (``UpdateLabelBackoff``, 5
        steps); another error is raised to the worker, which logs it."""
        for step in range(UPDATE_LABEL_STEPS):
            node = self._ctx.server.get("v1", "Node", name)
            meta = {**node["metadata"], "labels": {**(node["metadata"].get("labels") or {}), **labels}}
            try:
                self._ctx.server.update({**node, "metadata": meta})
                return
            except Conflict:
                if step == UPDATE_LABEL_STEPS - 1:
                    raise

    def _event(self, node: Obj, reason: str, message: str) -> None:
        self._ctx.trace.record(COMPONENT, reason, str(node["metadata"]["name"]), message)

"""The node lifecycle controller (``pkg/controller/nodelifecycle``), taint-based mode.

Every ``node-monitor-period`` (5 s) upstream compares each node's last heartbeat (the
Ready condition's lastHeartbeatTime or its kube-node-lease renewTime, whichever is newer)
with ``node-monitor-grace-period`` (50 s). A node silent for longer gets every condition set
to ``Unknown`` (reason ``NodeStatusUnknown``, "Kubelet stopped posting node status."), its
pods marked not Ready, and the ``node.kubernetes.io/unreachable`` taints (NoSchedule and
NoExecute; ``not-ready`` when the kubelet reports Ready=False). A node that never posted
status is probed from its creation with ``node-startup-grace-period`` (60 s) instead, and
then gets reason ``NodeStatusNeverUpdated``. A node that is Ready again
loses those taints. When no node of a zone is Ready (full disruption) the controller stops
tainting and lifts the NoExecute taints, as upstream does, so a control-plane partition
does not evict everything. Pod eviction itself is ``taint_eviction``'s job.

The kubelet model renews continuously while it runs, so the controller is told when a
node's heartbeat stops or starts (``heartbeat_changed``) and checks at the first monitor
tick after the grace period instead of polling every node all simulated day.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.well_known_taints import (
    CONDITION_TAINTS,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
)
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.errors import Conflict, NotFound

__all__ = ["NodeLifecycleController"]

Obj = dict[str, Any]
MONITOR_PERIOD_S: Final = 5.0  # --node-monitor-period
GRACE_PERIOD_S: Final = 50.0  # --node-monitor-grace-period (50 s since 1.32)
STARTUP_GRACE_PERIOD_S: Final = 60.0  # --node-startup-grace-period
_CONDITIONS: Final = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
_NO_SCHEDULE_KEYS: Final = {*CONDITION_TAINTS.values(), TAINT_NODE_UNSCHEDULABLE}
_ZONE_LABEL: Final = "topology.kubernetes.io/zone"

# Heartbeat: the instant a node last renewed, None when the model does not run it.
Heartbeat = Callable[[str], Instant | None]


def ready_status(node: Obj) -> str:
    """The node's Ready condition status (``Unknown`` when it has none)."""
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return str(c.get("status") or "Unknown")
    return "Unknown"


def _has_ready(node: Obj) -> bool:
    return any(c.get("type") == "Ready" for c in (node.get("status") or {}).get("conditions") or [])


class NodeLifecycleController:
    """Marks silent nodes Unknown and keeps the not-ready/unreachable taints in step."""

    name: Final = "node-lifecycle-controller"

    def __init__(self, ctx: ComponentContext, heartbeat: Heartbeat | None = None) -> None:
        self._ctx = ctx
        self._heartbeat = heartbeat
        self._nodes = ctx.informers.informer("v1", "Node")
        self._pods = ctx.informers.informer("v1", "Pod")
        self._lease_inf = ctx.informers.informer("coordination.k8s.io/v1", "Lease")
        self._q = WorkQueue(ctx.clock, self._sync, name="nodelifecycle")
        self._grace = seconds(GRACE_PERIOD_S)
        self._startup_grace = seconds(STARTUP_GRACE_PERIOD_S)
        self._period = seconds(MONITOR_PERIOD_S)

    def start(self) -> None:
        """Watch nodes; every node is checked once now."""
        self._nodes.add_handler(self._on_node)
        for node in self._nodes.items():
            self._q.add(object_key(node))

    def heartbeat_changed(self, name: str) -> None:
        """The kubelet of ``name`` stopped or resumed renewing: check it when due."""
        self._q.add(name)

    # -- internals ----------------------------------------------------------------------

    def _on_node(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":
            # A zone's state depends on every node in it: recheck the others.
            for node in self._nodes.items():
                self._q.add(object_key(node))
            return
        self._q.add(object_key(ev.obj))

    def _last_heartbeat(self, node: Obj) -> Instant | None:
        name = str(node["metadata"]["name"])
        if self._heartbeat is not None:
            beat = self._heartbeat(name)
            if beat is not None:
                return beat
        stamps: list[Instant] = []
        for c in (node.get("status") or {}).get("conditions") or []:
            if c.get("type") == "Ready" and c.get("lastHeartbeatTime"):
                stamps.append(parse_rfc3339(str(c["lastHeartbeatTime"])))
        lease = self._lease_inf.get(f"kube-node-lease/{name}")
        renew = ((lease or {}).get("spec") or {}).get("renewTime")
        if renew:
            stamps.append(parse_rfc3339(str(renew)[:19] + "Z"))
        return max(stamps) if stamps else None

    def _sync(self, name: str) -> None:
        node = self._nodes.get(name)
        if node is None:
            return
        now = self._ctx.clock.now()
        beat, grace = self._last_heartbeat(node), self._grace
        never = not _has_ready(node)
        if never and node["metadata"].get("creationTimestamp"):
            # Never posted status: probed from its creation (or a renewed lease since), with
            # the longer --node-startup-grace-period.
            created = parse_rfc3339(str(node["metadata"]["creationTimestamp"]))
            beat, grace = max(beat or created, created), self._startup_grace
        if beat is not None and (never or ready_status(node) != "Unknown"):
            due = Instant(beat + grace)
            if now <= due:
                # Upstream notices at the first monitor tick past the grace period.
                ticks = -(-(due - now) // self._period) or 1
                self._q.add_after(name, Duration(ticks * self._period))
            else:
                node = self._mark_unknown(node, now) or node
        self._taint(node)

    def _mark_unknown(self, node: Obj, now: Instant) -> Obj | None:
        stamp = rfc3339(now)
        status = dict(node.get("status") or {})
        conds = []
        seen = set()
        for c in status.get("conditions") or []:
            if c.get("type") in _CONDITIONS:
                seen.add(c["type"])
                c = {**c, "status": "Unknown", "reason": "NodeStatusUnknown",
                     "message": "Kubelet stopped posting node status.",
                     "lastTransitionTime": stamp}  # fmt: skip
            conds.append(c)
        for t in _CONDITIONS:
            if t not in seen:
                conds.append({"type": t, "status": "Unknown", "reason": "NodeStatusNeverUpdated",
                              "message": "Kubelet never posted node status.",
                              "lastHeartbeatTime": stamp, "lastTransitionTime": stamp})  # fmt: skip
        status["conditions"] = conds
        try:
            out = self._ctx.server.update_status({**node, "status": status})
        except (Conflict, NotFound):
            self._q.add(str(node["metadata"]["name"]))
            return None
        self._ctx.trace.record(self.name, "NodeNotReady", node["metadata"]["name"], "Unknown")
        self._mark_pods_not_ready(str(node["metadata"]["name"]), stamp)
        return out

    def _mark_pods_not_ready(self, node_name: str, stamp: str) -> None:
        """``MarkPodsNotReady``: the pods of an unreachable node are no longer Ready."""
        for pod in list(self._pods.items()):
            if pod["spec"].get("nodeName") != node_name:
                continue
            status = dict(pod.get("status") or {})
            if status.get("phase") in ("Succeeded", "Failed"):
                continue
            conds = [dict(c) for c in status.get("conditions") or []]
            changed = False
            for c in conds:
                if c.get("type") == "Ready" and c.get("status") != "False":
                    c.update(status="False", lastTransitionTime=stamp)
                    changed = True
            if changed:
                try:
                    self._ctx.server.update_status(
                        {**pod, "status": {**status, "conditions": conds}}
                    )
                except (Conflict, NotFound):
                    continue

    def _full_disruption(self, node: Obj) -> bool:
        zone = (node["metadata"].get("labels") or {}).get(_ZONE_LABEL, "")
        peers = [n for n in self._nodes.items()
                 if (n["metadata"].get("labels") or {}).get(_ZONE_LABEL, "") == zone]  # fmt: skip
        return bool(peers) and all(ready_status(n) != "True" for n in peers)

    def _taint(self, node: Obj) -> None:
        """``doNoScheduleTaintingPass`` (every condition taint, and ``unschedulable``) and
        the NoExecute half of ``doNoExecuteTaintingPass`` (not-ready/unreachable)."""
        ready = ready_status(node)
        want: dict[str, set[str]] = {"NoSchedule": set(), "NoExecute": set()}
        for c in (node.get("status") or {}).get("conditions") or []:
            key = CONDITION_TAINTS.get((str(c.get("type")), str(c.get("status"))))
            if key is not None:
                want["NoSchedule"].add(key)
        # A node that never posted Ready is not NoExecute-tainted until its startup grace
        # has passed and _mark_unknown gave it Ready=Unknown.
        key = {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE}.get(ready)
        if key is not None and _has_ready(node) and not self._full_disruption(node):
            want["NoExecute"].add(key)
        if (node.get("spec") or {}).get("unschedulable"):
            want["NoSchedule"].add(TAINT_NODE_UNSCHEDULABLE)
        managed = {
            "NoSchedule": _NO_SCHEDULE_KEYS,
            "NoExecute": {TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE},
        }
        old: list[Obj] = list((node.get("spec") or {}).get("taints") or [])
        keep = [t for t in old
                if not (t.get("key") in managed.get(str(t.get("effect")), set())
                        and t.get("key") not in want[str(t.get("effect"))])]  # fmt: skip
        have = {(t.get("key"), t.get("effect")) for t in keep}
        stamp = rfc3339(self._ctx.clock.now())
        for effect, keys in want.items():
            for k in sorted(keys):
                if (k, effect) not in have:
                    # SwapNodeControllerTaint stamps every taint it adds.
                    keep.append({"key": k, "effect": effect, "timeAdded": stamp})
        if keep == old:
            return
        spec = {**(node.get("spec") or {}), "taints": keep}
        if not keep:
            spec.pop("taints")
        try:
            self._ctx.server.update({**node, "spec": spec})
        except (Conflict, NotFound):
            self._q.add(str(node["metadata"]["name"]))

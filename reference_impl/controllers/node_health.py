"""The node lifecycle controller's pure rules (``pkg/controller/nodelifecycle``).

``try_update_node_health`` is ``tryUpdateNodeHealth``: a node's probe timestamp is the
controller's own clock when it saw the Ready heartbeat or the lease renewal change (never
the heartbeat's value), and a node silent for longer than its grace period gets its
conditions set to Unknown. ``ZoneStates`` is ``ComputeZoneState`` plus
``handleDisruption``; ``no_schedule_taint_diff`` is ``doNoScheduleTaintingPass`` and
``labels_to_reconcile`` is ``reconcileNodeLabels``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.well_known_taints import CONDITION_TAINTS, TAINT_NODE_UNSCHEDULABLE
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339

__all__ = [
    "EXCLUDE_DISRUPTION_LABEL",
    "NodeHealth",
    "ZoneStates",
    "compute_zone_state",
    "get_condition",
    "is_excluded_from_disruption",
    "labels_to_reconcile",
    "no_schedule_taint_diff",
    "try_update_node_health",
    "zone_key",
]

Obj = dict[str, Any]
EXCLUDE_DISRUPTION_LABEL: Final = "node.kubernetes.io/exclude-disruption"
# tryUpdateNodeHealth's nodeConditionTypes: NetworkUnavailable is the control plane's.
UNKNOWN_CONDITIONS: Final = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
STATE_INITIAL: Final = "Initial"
STATE_NORMAL: Final = "Normal"
STATE_FULL: Final = "FullDisruption"
STATE_PARTIAL: Final = "PartialDisruption"
# labelReconcileInfo: (primary, secondary), the secondary always made to exist.
_LABELS: Final = (
    ("kubernetes.io/os", "beta.kubernetes.io/os"),
    ("kubernetes.io/arch", "beta.kubernetes.io/arch"),
)
_CONDITION_TAINT_KEYS: Final = frozenset(CONDITION_TAINTS.values())


def get_condition(status: Obj | None, ctype: str) -> Obj | None:
    """``GetNodeCondition``: the condition of that type, or None."""
    for c in (status or {}).get("conditions") or ():
        if c.get("type") == ctype:
            return dict(c)
    return None


@dataclass(slots=True)
class NodeHealth:
    """``nodeHealthData``: when the controller last saw the node alive and its Ready
    condition change, the status it saw, and the lease renewal it saw."""

    probe: Instant
    ready_transition: Instant
    status: Obj
    lease: Instant | None = None


@dataclass(slots=True)
class HealthResult:
    """What ``tryUpdateNodeHealth`` returns, plus the status to write (None: nothing)."""

    health: NodeHealth
    grace: Duration
    observed: Obj  # the Ready condition before this pass
    current: Obj | None  # the Ready condition after it
    new_status: Obj | None


def try_update_node_health(
    health: NodeHealth | None,
    node: Obj,
    lease: Instant | None,
    now: Instant,
    grace: Duration,
    startup_grace: Duration,
) -> HealthResult:
    """``tryUpdateNodeHealth``. ``lease`` is the node lease's renewTime, if any. The
    caller writes ``new_status`` and, when that succeeds, keeps ``health`` with
    ``ready_transition`` set to now (``written``)."""
    status: Obj = node.get("status") or {}  # read-only: a written status is a new dict
    created = parse_rfc3339(str(node["metadata"].get("creationTimestamp") or rfc3339(now)))
    current = get_condition(status, "Ready")
    if current is None:
        # Never posted: a fake Unknown Ready condition dated at creation.
        stamp = rfc3339(created)
        observed: Obj = {"type": "Ready", "status": "Unknown", "lastHeartbeatTime": stamp,
                         "lastTransitionTime": stamp}  # fmt: skip
        node_grace = startup_grace
        if health is not None:
            health.status = status
        else:
            health = NodeHealth(created, created, status)
    else:
        observed = dict(current)
        node_grace = grace
    saved = get_condition(health.status, "Ready") if health is not None else None
    saved_lease = health.lease if health is not None else None
    if health is None:
        health = NodeHealth(now, now, status)
    elif saved is None and current is not None:
        health = NodeHealth(now, now, status)
    elif saved is not None and current is None:
        health = NodeHealth(now, now, status)
    elif (saved is not None and current is not None
          and saved.get("lastHeartbeatTime") != current.get("lastHeartbeatTime")):  # fmt: skip
        moved = saved.get("lastTransitionTime") != current.get("lastTransitionTime")
        health = NodeHealth(now, now if moved else health.ready_transition, status)
    # A renewed lease always refreshes the probe time.
    if lease is not None and (saved_lease is None or saved_lease < lease):
        health.lease = lease
        health.probe = now
    if not now > health.probe + node_grace:
        return HealthResult(health, node_grace, observed, current, None)
    stamp = rfc3339(now)
    conds: list[Obj] = [dict(c) for c in status.get("conditions") or ()]
    for ctype in UNKNOWN_CONDITIONS:
        cond = next((c for c in conds if c.get("type") == ctype), None)
        if cond is None:
            conds.append({"type": ctype, "status": "Unknown", "reason": "NodeStatusNeverUpdated",
                          "message": "Kubelet never posted node status.",
                          "lastHeartbeatTime": rfc3339(created),
                          "lastTransitionTime": stamp})  # fmt: skip
        elif cond.get("status") != "Unknown":
            cond.update(status="Unknown", reason="NodeStatusUnknown",
                        message="Kubelet stopped posting node status.",
                        lastTransitionTime=stamp)  # fmt: skip
    status = {**status, "conditions": conds}
    if current is None:
        health.status = status  # upstream's health aliases the status it mutates
    new_ready = get_condition(status, "Ready")
    if new_ready == observed:
        return HealthResult(health, node_grace, observed, new_ready, None)
    return HealthResult(health, node_grace, observed, new_ready, status)


def written(result: HealthResult, now: Instant) -> NodeHealth:
    """The health kept once ``result.new_status`` was stored."""
    h = result.health
    assert result.new_status is not None
    return NodeHealth(h.probe, now, result.new_status, h.lease)


def is_excluded_from_disruption(node: Obj) -> bool:
    """``isNodeExcludedFromDisruptionChecks``: the exclude-disruption label, any value."""
    return EXCLUDE_DISRUPTION_LABEL in (node["metadata"].get("labels") or {})


def zone_key(node: Obj) -> str:
    """``nodetopology.GetZoneKey``: region and zone (beta labels first), or ""."""
    labels = node["metadata"].get("labels") or {}
    zone = labels.get("failure-domain.beta.kubernetes.io/zone")
    if zone is None:
        zone = labels.get("topology.kubernetes.io/zone", "")
    region = labels.get("failure-domain.beta.kubernetes.io/region")
    if region is None:
        region = labels.get("topology.kubernetes.io/region", "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def compute_zone_state(ready: list[Obj | None], threshold: float) -> tuple[int, str]:
    """``ComputeZoneState``: (not-Ready count, state) of one zone's Ready conditions."""
    ok = sum(1 for c in ready if c is not None and c.get("status") == "True")
    bad = len(ready) - ok
    if ok == 0 and bad > 0:
        return bad, STATE_FULL
    if bad > 2 and bad / (bad + ok) >= threshold:
        return bad, STATE_PARTIAL
    return bad, STATE_NORMAL


class ZoneStates:
    """``zoneStates`` with ``handleDisruption``; tainting per zone runs while the zone's
    limiter rate is above 0 (the token bucket's timing itself is not modelled)."""

    def __init__(
        self,
        eviction_qps: float = 0.1,
        secondary_qps: float = 0.01,
        large_cluster: int = 50,
        unhealthy_threshold: float = 0.55,
    ) -> None:
        self.states: dict[str, str] = {}
        self.qps: dict[str, float] = {}
        self._eviction_qps = eviction_qps
        self._secondary_qps = secondary_qps
        self._large = large_cluster
        self._threshold = unhealthy_threshold

    def add_zone(self, zone: str) -> None:
        """``addPodEvictorForNewZone``: a new zone starts Initial at the normal rate."""
        if zone not in self.states:
            self.states[zone] = STATE_INITIAL
            self.qps[zone] = self._eviction_qps

    def _limit(self, zone: str, size: int, state: str) -> None:
        """``setLimiterInZone`` (HealthyQPSFunc for full, ReducedQPSFunc for partial)."""
        if state == STATE_NORMAL or state == STATE_FULL:
            self.qps[zone] = self._eviction_qps
        elif state == STATE_PARTIAL:
            self.qps[zone] = self._secondary_qps if size > self._large else 0.0

    def handle_disruption(self, zone_ready: dict[str, list[Obj | None]]) -> str | None:
        """``handleDisruption``; returns "enter" when every zone just became fully
        disrupted (the caller lifts the NoExecute taints of every node), "exit" when
        that ended (the caller resets every probe time), else None."""
        new: dict[str, str] = {}
        all_full = True
        for zone, conds in zone_ready.items():
            _, state = compute_zone_state(conds, self._threshold)
            if state != STATE_FULL:
                all_full = False
            new[zone] = state
            self.states.setdefault(zone, STATE_INITIAL)
            self.qps.setdefault(zone, self._eviction_qps)
        was_full = True
        for zone in list(self.states):
            if zone not in zone_ready:
                del self.states[zone]
                continue
            if self.states[zone] != STATE_FULL:
                was_full = False
                break
        if all_full and was_full:
            return None
        if all_full:
            for zone in self.states:
                self.qps[zone] = 0.0
                self.states[zone] = STATE_FULL
            return "enter"
        if was_full:
            for zone in self.states:
                self._limit(zone, len(zone_ready.get(zone, ())), new.get(zone, ""))
                self.states[zone] = new.get(zone, "")
            return "exit"
        for zone, state in list(self.states.items()):
            if new.get(zone) != state:
                self._limit(zone, len(zone_ready.get(zone, ())), new.get(zone, ""))
                self.states[zone] = new.get(zone, "")
        return None


def no_schedule_taint_diff(node: Obj) -> tuple[list[Obj], list[Obj]]:
    """``doNoScheduleTaintingPass``: the NoSchedule taints to add and to remove so the
    node carries one per adverse condition (and ``unschedulable`` when cordoned)."""
    want: list[Obj] = []
    for c in (node.get("status") or {}).get("conditions") or ():
        key = CONDITION_TAINTS.get((str(c.get("type")), str(c.get("status"))))
        if key is not None:
            want.append({"key": key, "effect": "NoSchedule"})
    if (node.get("spec") or {}).get("unschedulable"):
        want.append({"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"})
    have = [t for t in (node.get("spec") or {}).get("taints") or ()
            if t.get("effect") == "NoSchedule"
            and (t.get("key") == TAINT_NODE_UNSCHEDULABLE or t.get("key") in _CONDITION_TAINT_KEYS)]  # fmt: skip
    # TaintSetDiff compares key and effect.
    have_ids = {(t.get("key"), t.get("effect")) for t in have}
    want_ids = {(t["key"], t["effect"]) for t in want}
    add = [t for t in want if (t["key"], t["effect"]) not in have_ids]
    delete = [t for t in have if (t.get("key"), t.get("effect")) not in want_ids]
    return add, delete


def labels_to_reconcile(node: Obj) -> dict[str, str]:
    """``reconcileNodeLabels``: beta OS/arch labels made equal to the stable ones."""
    labels = node["metadata"].get("labels")
    if not labels:
        return {}
    out: dict[str, str] = {}
    for primary, secondary in _LABELS:
        if primary not in labels:
            continue
        if labels.get(secondary) != labels[primary]:
            out[secondary] = str(labels[primary])
    return out

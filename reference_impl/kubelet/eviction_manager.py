"""The kubelet eviction manager's own evictions (upstream v1.37.2
pkg/kubelet/eviction/eviction_manager.go ``synchronize``): signals observed from a stats
summary, thresholds met with min-reclaim and grace periods, the node conditions (kept
in the admit handlers' ``AdmitState``, which ``Admit`` reads), node-level reclaim, local
storage limits, and one pod evicted per cycle in rank order.

Not modelled: the kernel memcg threshold notifiers (the monitoring interval is the only
trigger) and ``waitForPodsCleanup`` (the next cycle comes a monitoring interval later)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.quantity import format_quantity
from reference_impl.apiserver.quota.pod_resources import pod_limits
from reference_impl.kubelet import eviction_api as api
from reference_impl.kubelet import eviction_helpers as h
from reference_impl.kubelet.admit_handlers import AdmitState, is_critical_pod
from reference_impl.kubelet.eviction_stats import PodStats, Summary
from reference_impl.kubelet.pod_status import Placement, terminated_status

__all__ = ["Eviction", "EvictionManager", "evicted_status"]

Obj = Mapping[str, Any]
IMMEDIATE_GRACE: Final = 1  # immediateEvictionGracePeriodSeconds


@dataclass(frozen=True, slots=True)
class Eviction:
    """One ``evictPod``: the pod, the grace period override (s), the status message,
    the event annotations and whether a DisruptionTarget condition goes with it."""

    pod: Obj
    grace_seconds: int
    message: str
    annotations: Mapping[str, str]
    disruption_target: bool


@dataclass(slots=True)
class EvictionManager:
    """One node's ``managerImpl``. ``reclaim`` are the node-level reclaim functions per
    signal (image and container GC upstream); ``admit`` the admit handlers' state that
    holds the node conditions."""

    thresholds: list[api.Threshold]
    admit: AdmitState
    pressure_transition: int  # ns
    max_pod_grace_seconds: int = 0
    local_storage_isolation: bool = True
    dedicated_image_fs: bool = False
    split_fs: bool = False
    pod_level: bool = True
    reclaim: Mapping[str, Sequence[Callable[[], None]]] = field(default_factory=dict)
    first_observed: dict[api.Threshold, int] = field(default_factory=dict)
    conditions_last_observed: dict[str, int] = field(default_factory=dict)
    met: list[api.Threshold] = field(default_factory=list)
    last_observations: dict[str, h.Observation] = field(default_factory=dict)
    events: list[tuple[str, str]] = field(default_factory=list)  # (reason, message)

    def node_conditions(self, now: int) -> list[str]:
        """``m.nodeConditions`` as the admit handler sees them."""
        return self.admit.update_pressure(now, self.pressure_transition)

    def synchronize(
        self, active_pods: Sequence[Obj], summary: Callable[[], Summary], now: int
    ) -> list[Eviction]:
        """One monitoring cycle; the pods to evict (at most one under pressure)."""
        if not self.thresholds and not self.local_storage_isolation:
            return []
        observations, stats = h.make_signal_observations(summary())
        thresholds = h.thresholds_met(self.thresholds, observations, False)
        if self.met:
            # a met threshold stays until its min-reclaim is also reclaimed
            thresholds = h.merge_thresholds(thresholds, h.thresholds_met(self.met, observations, True))
        first = h.thresholds_first_observed_at(thresholds, self.first_observed, now)
        conditions = h.node_conditions(thresholds)
        last = h.node_conditions_last_observed_at(conditions, self.conditions_last_observed, now)
        self.admit.observe_since(last)
        self.node_conditions(now)
        thresholds = h.thresholds_met_grace_period(first, now)
        self.first_observed, self.conditions_last_observed, self.met = first, last, thresholds
        thresholds = h.thresholds_updated_stats(thresholds, observations, self.last_observations)
        self.last_observations = observations

        pods = list(active_pods)
        if self.local_storage_isolation:
            evicted = self._local_storage_eviction(pods, stats)
            if evicted:
                return evicted
        if not thresholds:
            return []
        ordered = h.by_eviction_priority(thresholds)
        found = h.get_reclaimable_threshold(ordered)
        if found is None:
            return []
        target, resource = found
        self.events.append(("EvictionThresholdMet", f"Attempting to reclaim {resource}"))
        if self._reclaim_node_level(target.signal, summary):
            return []
        rank = h.signal_to_rank_func(self.dedicated_image_fs, self.split_fs).get(target.signal)
        if rank is None or not pods:
            return []
        rank(pods, stats)
        for pod in pods:
            grace = IMMEDIATE_GRACE
            if not h.is_hard(target):
                grace = self.max_pod_grace_seconds
                own = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
                if own is not None:
                    grace = min(grace, int(own))
            msg, ann = h.eviction_message(resource, pod, stats, ordered, observations, self.pod_level)
            ev = self._evict(pod, grace, msg, ann, True)
            if ev is not None:
                return [ev]
        return []

    def _reclaim_node_level(self, signal: str, summary: Callable[[], Summary]) -> bool:
        """``reclaimNodeLevelResources``: True when reclaiming resolved every threshold."""
        funcs = self.reclaim.get(signal, ())
        for fn in funcs:
            fn()
        if not funcs:
            return False
        observations, _ = h.make_signal_observations(summary())
        return not h.thresholds_met(self.thresholds, observations, True)

    def _evict(
        self, pod: Obj, grace: int, msg: str, ann: Mapping[str, str], condition: bool
    ) -> Eviction | None:
        """``evictPod``: a critical pod is never evicted."""
        if is_critical_pod(pod):
            return None
        self.events.append((h.REASON, msg))
        return Eviction(pod, grace, msg, dict(ann), condition)

    def _local_storage_eviction(self, pods: Sequence[Obj], stats: h.StatsFunc) -> list[Eviction]:
        """``localStorageEviction``: emptyDir size limits, the pod's and then each
        container's ephemeral-storage limit."""
        out = []
        for pod in pods:
            ps = stats(pod)
            if ps is None:
                continue
            for check in (self._empty_dir_limit, self._pod_ephemeral_limit, self._container_ephemeral_limit):
                found, ev = check(ps, pod)
                if found:
                    if ev is not None:
                        out.append(ev)
                    break
        return out

    def _empty_dir_limit(self, ps: PodStats, pod: Obj) -> tuple[bool, Eviction | None]:
        for v in (pod.get("spec") or {}).get("volumes") or ():
            ed = v.get("emptyDir")
            if ed is None or ed.get("medium") == "Memory":
                continue  # InPlacePodVerticalScalingMemoryBackedVolumes (on by default)
            size = ed.get("sizeLimit")
            fs = ps.volumes.get(str(v.get("name")))
            if fs is None or size is None:
                continue
            limit = parse_quantity(size)
            if limit > 0 and Decimal(fs.used or 0) > limit:
                shown = format_quantity(limit, h.raw_format(str(size)))
                msg = f'Usage of EmptyDir volume "{v.get("name")}" exceeds the limit "{shown}". '
                return True, self._evict(pod, IMMEDIATE_GRACE, msg, {}, False)
        return False, None

    def _pod_ephemeral_limit(self, ps: PodStats, pod: Obj) -> tuple[bool, Eviction | None]:
        limits = pod_limits(dict(pod), use_status=False, pod_level=self.pod_level)
        if "ephemeral-storage" not in limits:
            return False, None
        limit = limits["ephemeral-storage"]
        if Decimal(ps.ephemeral_used or 0) > limit.amount:
            msg = (
                "Pod ephemeral local storage usage exceeds the total limit of containers "
                f"{format_quantity(limit.amount, limit.fmt)}. "
            )
            return True, self._evict(pod, IMMEDIATE_GRACE, msg, {}, False)
        return False, None

    def _container_ephemeral_limit(self, ps: PodStats, pod: Obj) -> tuple[bool, Eviction | None]:
        spec = pod.get("spec") or {}
        limits: dict[str, Any] = {}
        sidecars = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
        for c in [*(spec.get("containers") or ()), *sidecars]:
            raw = ((c.get("resources") or {}).get("limits") or {}).get("ephemeral-storage")
            if raw is not None and parse_quantity(raw) != 0:
                limits[str(c.get("name"))] = raw
        for cs in ps.containers:
            used = (cs.logs.used or 0) if cs.logs else 0
            if not self.dedicated_image_fs and cs.rootfs is not None:
                used += cs.rootfs.used or 0
            raw = limits.get(cs.name)
            if raw is not None and parse_quantity(raw) < used:
                shown = format_quantity(parse_quantity(raw), h.raw_format(str(raw)))
                msg = f'Container {cs.name} exceeded its local ephemeral storage limit "{shown}". '
                return True, self._evict(pod, IMMEDIATE_GRACE, msg, {}, False)
        return False, None


def evicted_status(pod: Obj, placement: Placement, ev: Eviction, now: str) -> dict[str, Any]:
    """``evictPod``'s status function over the killed pod's status: Failed, reason
    Evicted, the message, and the DisruptionTarget condition (TerminationByKubelet)."""
    status = terminated_status(pod, placement, 137, now)  # killed: SIGKILL's exit code
    status["reason"], status["message"] = h.REASON, ev.message
    if ev.disruption_target:
        cond: dict[str, Any] = {"type": "DisruptionTarget", "status": "True", "lastTransitionTime": now}
        gen = int((pod.get("metadata") or {}).get("generation") or 0)
        if gen:
            cond["observedGeneration"] = gen
        cond["reason"], cond["message"] = "TerminationByKubelet", ev.message
        others = [c for c in status.get("conditions") or () if c.get("type") != "DisruptionTarget"]
        status["conditions"] = [*others, cond]
    return status

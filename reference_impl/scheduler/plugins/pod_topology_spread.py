"""Models pkg/scheduler/framework/plugins/podtopologyspread (plugin.go, filtering.go).

Filter: for every DoNotSchedule constraint, placing the pod in the node's domain must
keep ``matching pods there + self - global minimum <= maxSkew``; the minimum is 0 while
fewer than ``minDomains`` domains exist. Scoring (ScheduleAnyway and the system default
constraints) lives in ``pod_topology_spread_scoring``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    OK,
    SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins import pod_topology_spread_scoring as scoring
from reference_impl.scheduler.plugins.pod_topology_spread_common import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    DefaultSelectors,
    NodeFilter,
    PodTopologySpreadArgs,
    count_matching,
    filter_constraints,
    is_empty,
    node_has_all_keys,
)

__all__ = ["ERR_REASON_CONSTRAINTS", "ERR_REASON_NODE_LABEL", "NAME", "PodTopologySpread", "new"]

Obj = dict[str, Any]
NAME: Final = names.POD_TOPOLOGY_SPREAD
ERR_REASON_CONSTRAINTS: Final = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL: Final = ERR_REASON_CONSTRAINTS + " (missing required label)"
_MAX_INT32: Final = 2**31 - 1


@dataclass(frozen=True, slots=True)
class _State:
    constraints: tuple[Constraint, ...]
    counts: tuple[dict[str, int], ...]  # per constraint: domain value -> matching pods
    minimum: tuple[int, ...]  # per constraint: the critical path's count

    def clone(self) -> Self:
        return self  # refreshed() recomputes rather than mutating


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


@final
class PodTopologySpread:
    """Hard (Filter) and soft (Score) topology spread constraints."""

    def __init__(
        self, handle: Handle, args: PodTopologySpreadArgs, resize_preemption: bool = False
    ) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._h = handle
        self._selectors: DefaultSelectors | None = None  # built on first use, from the handle's informers
        self.system_defaulted = args.defaulting_type == "System"
        self.default_constraints = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else args.default_constraints
        )

    def name(self) -> str:
        """The plugin name."""
        return NAME

    @property
    def signs_no_pod(self) -> bool:
        """Default constraints make every pod unsignable (PodSigner short-circuits)."""
        return bool(self.default_constraints)

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: pods with own or default constraints cannot be signed."""
        if pod["spec"].get("topologySpreadConstraints"):
            return sign.unsignable("pods with topology constraints are not signable")
        if self.default_constraints:
            return sign.unsignable("pods with default topology constraints are not signable")
        return sign.signed()

    def constraints(self, pod: Obj, action: str) -> list[Constraint]:
        """``getConstraints``: the pod's own constraints for ``action``, else the defaults."""
        labels = pod["metadata"].get("labels") or {}
        own = pod["spec"].get("topologySpreadConstraints") or ()
        if own:
            return filter_constraints(own, labels, action)
        if not any(c.get("whenUnsatisfiable") == action for c in self.default_constraints):
            return []  # checked first: building the default selector lists Services
        if self._selectors is None:
            self._selectors = DefaultSelectors(self._h.ctx)
        selector = self._selectors.get(pod)
        if is_empty(selector):
            return []
        return [
            Constraint(c.max_skew, c.topology_key, selector, c.min_domains,
                       c.honor_node_affinity, c.honor_node_taints)
            for c in filter_constraints(self.default_constraints, labels, action)
        ]

    def _compute(self, pod: Obj, constraints: Sequence[Constraint]) -> _State:
        ns = pod["metadata"].get("namespace") or "default"
        nf = NodeFilter(pod)
        counts: list[dict[str, int]] = [{} for _ in constraints]
        for ni in self._h.snapshot_shared_lister().node_infos():
            if not node_has_all_keys(ni.labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if not nf.includes(c, ni):
                    continue
                value = ni.labels[c.topology_key]
                counts[i][value] = counts[i].get(value, 0) + count_matching(ni.pods.values(), c.selector, ns)
        minimum = tuple(min(m.values()) if m else _MAX_INT32 for m in counts)
        return _State(tuple(constraints), tuple(counts), minimum)

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Count matching pods per domain; SKIP without DoNotSchedule constraints."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        constraints = self.constraints(pod, "DoNotSchedule")
        if not constraints:
            return None, SKIP
        state.write(_PRE_FILTER, self._compute(pod, constraints))
        return None, OK

    def refresh_pre_filter(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> None:
        """Recount after the snapshot changed (upstream's AddPod/RemovePod)."""
        old = state.try_read(_PRE_FILTER)
        if old is not None:
            state.write(_PRE_FILTER, self._compute(pod, old.constraints))

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Reject a node lacking a topology key, or whose domain would exceed maxSkew."""
        s = state.try_read(_PRE_FILTER)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize (no state then)
        s = s if s is not None else state.read(_PRE_FILTER)
        labels = pod["metadata"].get("labels") or {}
        for i, c in enumerate(s.constraints):
            value = node_info.labels.get(c.topology_key)
            if value is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_LABEL,), NAME)
            minimum = s.minimum[i] if len(s.counts[i]) >= c.min_domains else 0
            self_match = 1 if c.selector.matches(labels) else 0
            if s.counts[i].get(value, 0) + self_match - minimum > c.max_skew:
                return Status(Code.UNSCHEDULABLE, (ERR_REASON_CONSTRAINTS,), NAME)
        return OK

    # -- scoring ----------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """Count matching pods per domain of the ScheduleAnyway constraints."""
        return scoring.pre_score(self, state, pod, nodes)

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The weighted matching-pod count of the node's domains (lower is better)."""
        return scoring.score(state, pod, node_info), OK

    def score_extensions(self) -> scoring.Normalizer:
        """Reverse scaling: the emptiest domain scores 100."""
        return scoring.NORMALIZER

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Assigned pods added, relabelled or deleted; the pod's labels or tolerations;
        nodes added, deleted, relabelled or retainted."""
        return (
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.ASSIGNED_POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                self._assigned_pod_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.TARGET_POD,
                    ActionType.UPDATE_POD_TOLERATIONS | ActionType.UPDATE_POD_LABEL,
                ),
                self._target_pod_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL
                    | ActionType.UPDATE_NODE_TAINT,
                ),
                self._node_changed,
            ),
        )

    # -- queueing hints ---------------------------------------------------------------

    def _assigned_pod_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        ns = pod["metadata"].get("namespace")
        for p in (old, new):
            if p is not None and not _involved(p, ns):
                return QueueingHint.QUEUE_SKIP
        constraints = self.constraints(pod, "DoNotSchedule")
        if old is not None and new is not None:
            return _label_change(old, new, constraints)
        changed = new if new is not None else old
        if changed is None:
            return QueueingHint.QUEUE
        labels = changed["metadata"].get("labels") or {}
        hit = any(c.selector.matches(labels) for c in constraints)
        return QueueingHint.QUEUE if hit else QueueingHint.QUEUE_SKIP

    def _target_pod_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if old is None or new is None:
            return QueueingHint.QUEUE
        constraints = self.constraints(pod, "DoNotSchedule")
        if old["spec"].get("tolerations") != new["spec"].get("tolerations") and any(
            c.honor_node_taints for c in constraints
        ):
            return QueueingHint.QUEUE
        return _label_change(old, new, constraints)

    def _node_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        constraints = self.constraints(pod, "DoNotSchedule")
        before = (old or {}).get("metadata", {}).get("labels") or {}
        after = (new or {}).get("metadata", {}).get("labels") or {}
        was = old is not None and node_has_all_keys(before, constraints)
        now = new is not None and node_has_all_keys(after, constraints)
        if old is not None and new is not None:
            if was != now:
                return QueueingHint.QUEUE
            moved = any(before.get(c.topology_key) != after.get(c.topology_key) for c in constraints)
            retainted = (old.get("spec") or {}).get("taints") != (new.get("spec") or {}).get("taints")
            return QueueingHint.QUEUE if now and (moved or retainted) else QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if (now if new is not None else was) else QueueingHint.QUEUE_SKIP


def _involved(p: Obj, ns: str | None) -> bool:
    """``involvedInTopologySpreading``: assigned (or nominated) and in the pod's namespace."""
    if not p["spec"].get("nodeName") and not (p.get("status") or {}).get("nominatedNodeName"):
        return False
    return bool(p["metadata"].get("namespace") == ns)


def _label_change(old: Obj, new: Obj, constraints: Sequence[Constraint]) -> QueueingHint:
    before, after = old["metadata"].get("labels") or {}, new["metadata"].get("labels") or {}
    if before == after:
        return QueueingHint.QUEUE_SKIP
    if any(c.selector.matches(before) != c.selector.matches(after) for c in constraints):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; ``args`` is a PodTopologySpreadArgs or None."""
    if args is not None and not isinstance(args, PodTopologySpreadArgs):
        raise TypeError(f"PodTopologySpread takes PodTopologySpreadArgs, not {type(args).__name__}")
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return PodTopologySpread(handle, args or PodTopologySpreadArgs(), resize_preemption=gate)


_: type[FilterPlugin] = PodTopologySpread
_f: type[PreFilterPlugin] = PodTopologySpread
_s: type[ScorePlugin] = PodTopologySpread
_p: type[PreScorePlugin] = PodTopologySpread
_e: type[EnqueueExtensions] = PodTopologySpread

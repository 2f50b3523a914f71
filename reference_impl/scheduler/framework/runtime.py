"""Models pkg/scheduler/framework/runtime/framework.go: running a profile's plugins.

Plugins are instantiated from the registry in profile order and, as upstream's
"multiPoint" expansion does, enabled at every extension point they implement. Each
``run_*`` method aggregates plugin statuses exactly as upstream: the first rejection wins
at Filter, SKIP disables a plugin for the cycle, Bind stops at the first non-SKIP binder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence, Set
from itertools import repeat
from operator import add, mul
from typing import TYPE_CHECKING, Any, Final

from reference_impl.clock import Duration, seconds
from reference_impl.scheduler.framework.batch import (
    BatchFilterPlugin,
    BatchScorePlugin,
    FilterRejections,
    NodeScorer,
    ScoreOutOfRange,
)
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    OK,
    SKIP,
    ActionType,
    BindPlugin,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeScore,
    NodeToStatusReader,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.node_memo import NodeMemo
from reference_impl.scheduler.framework.opportunistic_batch import OpportunisticBatch
from reference_impl.scheduler.framework.placement import (
    PlacementFeasiblePlugin,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
)
from reference_impl.scheduler.framework.pod_group_post_filter import (
    PodGroupPostFilterInfo,
    PodGroupPostFilterPlugin,
    PodGroupPostFilterResult,
    PodGroupScheduling,
    run_pod_group_post_filter_plugins,
)
from reference_impl.scheduler.framework.registry import Registry, SchedulerFeatures, SharedLister
from reference_impl.scheduler.framework.signature import PodSignature, PodSigner
from reference_impl.scheduler.framework.sorted_nodes import NodePluginScores, PluginScore
from reference_impl.scheduler.framework.types import NodeInfo, QueuedPodInfo
from reference_impl.scheduler.framework.waiting_pods import WaitingPod

if TYPE_CHECKING:
    from reference_impl.apiserver.component import ComponentContext
    from reference_impl.scheduler.profile import Profile

__all__ = ["Framework"]

Obj = dict[str, Any]
_MAX_PERMIT_TIMEOUT: Final = seconds(15 * 60)
_WAIT_REASON: Final = "one or more plugins asked to wait and no plugin rejected pod"
_ALL_EVENTS = (ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL)),)


def _error(point: str, plugin: str, status: Status) -> Status:
    return Status(Code.ERROR, (f'running {point} plugin "{plugin}": {status.message()}',), plugin)


def _invalid_score(plugin: str, score: int) -> Status:
    return Status(
        Code.ERROR,
        (f'applying score defaultWeights on Score plugins: plugin "{plugin}" returns an '
         f"invalid score {score}, it should in the range of [0, {MAX_NODE_SCORE}] after "
         "normalizing",),
        plugin,
    )


def _score_error(stage: str, plugin: str, status: Status) -> Status:
    """``RunScorePlugins``' wrapped errors ("running Score plugins: plugin ... failed with")."""
    msg = f'running {stage} plugins: plugin "{plugin}" failed with: {status.message()}'
    return Status(Code.ERROR, (msg,), plugin)


class Framework:
    """One profile's plugins, and the Handle they were built with."""

    def __init__(
        self,
        profile: Profile,
        registry: Registry,
        ctx: ComponentContext,
        snapshot: SharedLister,
        features: SchedulerFeatures,
    ) -> None:
        self.profile = profile
        self._ctx = ctx
        self._snapshot = snapshot
        self._features = features
        self.waiting_pods: dict[str, WaitingPod] = {}
        self.plugins: list[Plugin] = []
        self.weights: dict[str, int] = {}
        for cfg in profile.plugins:
            if cfg.name not in registry:
                raise ValueError(f"plugin {cfg.name!r} is not in the registry; known: {sorted(registry)}")
            if cfg.name in self.weights:
                # expandMultiPointPlugins: enabling a plugin twice is a config error.
                raise ValueError(f'plugin "{cfg.name}" already registered')
            self.plugins.append(registry[cfg.name](cfg.args, self, features))
            self.weights[cfg.name] = cfg.weight
        ps = self.plugins
        sorts = [p for p in ps if isinstance(p, QueueSortPlugin)]
        if len(sorts) != 1:
            raise ValueError(f"a profile needs exactly one QueueSort plugin, got {len(sorts)}")
        self.queue_sort = sorts[0]
        self.pre_enqueue = [p for p in ps if isinstance(p, PreEnqueuePlugin)]
        self.pre_filter = [p for p in ps if isinstance(p, PreFilterPlugin)]
        self.filter = [p for p in ps if isinstance(p, FilterPlugin)]
        self.post_filter = [p for p in ps if isinstance(p, PostFilterPlugin)]
        self.pre_score = [p for p in ps if isinstance(p, PreScorePlugin)]
        self.score = [p for p in ps if isinstance(p, ScorePlugin)]
        self.reserve = [p for p in ps if isinstance(p, ReservePlugin)]
        self.permit = [p for p in ps if isinstance(p, PermitPlugin)]
        self.pre_bind = [p for p in ps if isinstance(p, PreBindPlugin)]
        self.bind = [p for p in ps if isinstance(p, BindPlugin)]
        self.post_bind = [p for p in ps if isinstance(p, PostBindPlugin)]
        self.placement_generate = [p for p in ps if isinstance(p, PlacementGeneratePlugin)]
        self.placement_feasible = [p for p in ps if isinstance(p, PlacementFeasiblePlugin)]
        self.placement_score = [p for p in ps if isinstance(p, PlacementScorePlugin)]
        self.pod_group_post_filter = [p for p in ps if isinstance(p, PodGroupPostFilterPlugin)]
        if len(self.placement_generate) > 1:  # NewFramework: only the first would ever run
            raise ValueError("at most one placement generate plugin is allowed for profile with "
                             f'scheduler name "{profile.scheduler_name}"')
        # Checked once: a runtime_checkable isinstance costs microseconds per call.
        self._batch_filter: dict[int, BatchFilterPlugin] = {
            id(p): p for p in self.filter if isinstance(p, BatchFilterPlugin)}
        self._rejections: dict[int, FilterRejections] = {
            id(p): p for p in self.filter if isinstance(p, FilterRejections)}
        self._batch_score: dict[int, BatchScorePlugin] = {
            id(p): p for p in self.score if isinstance(p, BatchScorePlugin)}
        self._range_checked = {
            i for i, p in self._batch_score.items() if getattr(p, "checks_score_range", False)}
        # Weighted totals by node, while every scoring plugin is a NodeScorer with these keys.
        self._node_scorers: dict[int, NodeScorer] = {
            id(p): p for p in self.score if isinstance(p, NodeScorer) and p.score_extensions() is None}
        self._totals: NodeMemo[int] = NodeMemo()
        # Names fixed at construction, looked up once: the cycle loops would call name()
        # on every plugin for every pod.
        self._pre_filter_named = [(p, p.name()) for p in self.pre_filter]
        self._filter_named = [(p, p.name()) for p in self.filter]
        self._pre_score_named = [(p, p.name()) for p in self.pre_score]
        self._score_named = [(p, p.name()) for p in self.score]
        # PreFilter state that depends on other pods (upstream's PreFilterExtensions).
        self._refreshing = [p for p in self.pre_filter if hasattr(p, "refresh_pre_filter")]
        self._events = {p.name(): self._registrations(p) for p in self.plugins}
        self._interest: dict[ClusterEvent, frozenset[str]] = {}
        # OpportunisticBatching (KEP-5598): computeBatchablePlugins and the batch.
        batching = features.enable_opportunistic_batching
        self.signer = PodSigner(
            [*self.pre_filter, *self.filter, *self.pre_score, *self.score], enabled=batching)
        self.batch: OpportunisticBatch | None = None
        if batching:
            clock = ctx.clock if ctx is not None else None
            self.batch = OpportunisticBatch(self, features.enable_generic_workload, clock)

    def _registrations(self, p: Plugin) -> Sequence[ClusterEventWithHint]:
        if isinstance(p, EnqueueExtensions):
            return tuple(p.events_to_register())
        rejecting = (PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, ReservePlugin, PermitPlugin)
        # Upstream: a rejecting plugin that registers nothing is requeued by every event.
        return _ALL_EVENTS if isinstance(p, rejecting) else ()

    # -- Handle -------------------------------------------------------------------

    @property
    def ctx(self) -> ComponentContext:
        """The component context."""
        return self._ctx

    @property
    def features(self) -> SchedulerFeatures:
        """The scheduler's feature switches."""
        return self._features

    def snapshot_shared_lister(self) -> SharedLister:
        """The node snapshot."""
        return self._snapshot

    def get_waiting_pod(self, key: str) -> WaitingPod | None:
        """A pod parked at Permit."""
        return self.waiting_pods.get(key)

    def iterate_over_waiting_pods(self) -> Iterator[WaitingPod]:
        """Parked pods in key order."""
        return iter([self.waiting_pods[k] for k in sorted(self.waiting_pods)])

    # -- queue side ---------------------------------------------------------------

    def sign_pod(self, pod: Obj) -> PodSignature:
        """``SignPod``: None unless every PreFilter/Filter/PreScore/Score plugin signs."""
        return self.signer.sign_pod(pod)

    def queue_sort_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """The QueueSort plugin's order."""
        return self.queue_sort.less(a, b)

    def run_pre_enqueue_plugins(self, pod: Obj) -> Status:
        """The first non-success PreEnqueue status (with its plugin), or OK."""
        for pl in self.pre_enqueue:
            s = pl.pre_enqueue(pod)
            if not s.is_success():
                return s.with_plugin(pl.name())
        return OK

    def events_for(self, plugin: str) -> Sequence[ClusterEventWithHint]:
        """The events ``plugin`` registered."""
        return self._events.get(plugin, ())

    def plugins_interested_in(self, event: ClusterEvent) -> frozenset[str]:
        """Plugins with a registration matching ``event`` (cached per event)."""
        hit = self._interest.get(event)
        if hit is None:
            hit = frozenset(
                n for n, regs in self._events.items() if any(r.event.matches(event) for r in regs)
            )
            self._interest[event] = hit
        return hit

    # -- scheduling cycle ---------------------------------------------------------

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, list[str]]:
        """Run PreFilter; narrowing results intersect, and an empty one is unresolvable.

        Also returns the plugins that narrowed the node set, sorted (upstream's
        ``pluginsWithNodes``: the cycle's unschedulable plugins and the FitError message).
        As ``RunPreFilterPlugins``, an Unschedulable plugin does not stop the others (their
        state serves preemption, kubernetes#119770): the last such status is returned.
        """
        result: PreFilterResult | None = None
        narrowing: list[str] = []
        rejected: Status | None = None
        for pl, name in self._pre_filter_named:
            r, s = pl.pre_filter(state, pod, nodes)
            if s is not OK:  # the shared OK, the commonest answer, needs no checks
                code = s.code
                if code is Code.SKIP:
                    state.skip_filter_plugins.add(name)
                    continue
                if code is not Code.SUCCESS:
                    if code is Code.UNSCHEDULABLE:
                        rejected = s.with_plugin(name)
                        continue
                    if s.is_rejected():
                        return None, s.with_plugin(name), []
                    return None, _error("PreFilter", name, s), []
            if r is None or r.all_nodes():
                continue
            narrowing.append(name)
            result = r if result is None else result.merge(r)
            if result.node_names is not None and not result.node_names:
                names = sorted(narrowing)
                msg = f"node(s) didn't satisfy plugin {names[0]}"
                if len(names) > 1:
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)), names
        return result, OK if rejected is None else rejected, sorted(narrowing)

    def refreshed(self, state: CycleState, pod: Obj) -> CycleState:
        """``state``, or a clone whose pod-dependent PreFilter state is recomputed.

        Upstream's AddPod/RemovePod extensions update that state when preemption removes
        victims or nominated pods are added; here the NodeInfos are changed in place, so
        the plugins that count other pods (InterPodAffinity, PodTopologySpread,
        VolumeRestrictions) recompute from the changed snapshot instead.
        """
        plugins = [p for p in self._refreshing if p.name() not in state.skip_filter_plugins]
        if not plugins:
            return state
        out = state.clone()
        nodes = self._snapshot.node_infos()
        for p in plugins:
            getattr(p, "refresh_pre_filter")(out, pod, nodes)  # noqa: B009 - optional hook
        return out

    def active_filters(self, state: CycleState) -> list[FilterPlugin]:
        """Filter plugins not skipped by their PreFilter this cycle."""
        skipped = state.skip_filter_plugins
        return [p for p, name in self._filter_named if name not in skipped]

    def batch_filters(self, plugins: Sequence[FilterPlugin]) -> list[BatchFilterPlugin]:
        """Those of ``plugins`` with a whole-chunk fast path, in order."""
        table = self._batch_filter
        return [table[id(p)] for p in plugins if id(p) in table]

    def filter_rejections(
        self, plugin: FilterPlugin, state: CycleState
    ) -> tuple[Set[str], Status] | None:
        """The nodes ``plugin`` certainly rejects this cycle, if it can tell (FilterRejections)."""
        pl = self._rejections.get(id(plugin))
        return None if pl is None else pl.filter_rejections(state)

    def run_filter_plugins(
        self, state: CycleState, pod: Obj, node_info: NodeInfo, plugins: Sequence[FilterPlugin]
    ) -> Status:
        """The first non-success Filter status for ``node_info``, or OK."""
        for pl in plugins:
            s = pl.filter(state, pod, node_info)
            if s.code is not Code.SUCCESS:
                if s.is_rejected():
                    return s.with_plugin(pl.name())
                msg = f'running "{pl.name()}" filter plugin: {s.message()}'
                return Status(Code.ERROR, (msg,), pl.name())
        return OK

    def run_post_filter_plugins(
        self, state: CycleState, pod: Obj, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        """``RunPostFilterPlugins``: stop at the first success (its status as returned),
        Error (its message, unwrapped) or UnschedulableAndUnresolvable; else every plugin's
        rejection reasons joined, attributed to the first rejector, with the last result."""
        reasons: list[str] = []
        plugin = ""
        result: PostFilterResult | None = None
        for pl in self.post_filter:
            r, s = pl.post_filter(state, pod, statuses)
            if s.is_success():
                return r, s
            if s.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, s.with_plugin(pl.name())
            if not s.is_rejected():
                return None, Status(Code.ERROR, s.reasons, pl.name())
            if r is not None:
                result = r
            reasons += s.reasons
            plugin = plugin or pl.name()
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), plugin)

    def run_pod_group_post_filter_plugins(
        self, state: CycleState | None, info: PodGroupPostFilterInfo, schedule: PodGroupScheduling
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        """``RunPodGroupPostFilterPlugins`` over this profile's PodGroupPostFilter plugins."""
        return run_pod_group_post_filter_plugins(
            self.pod_group_post_filter, state, info, schedule,
            generic_workload=self._features.enable_generic_workload)

    def run_pre_score_plugins(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """Run PreScore; SKIP disables the plugin's Score."""
        for pl, name in self._pre_score_named:
            s = pl.pre_score(state, pod, nodes)
            if s is OK:
                continue
            if s.code is Code.SKIP:
                state.skip_score_plugins.add(name)
            elif s.code is not Code.SUCCESS:
                return _error("PreScore", name, s)
        return OK

    def run_score_plugins(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo],
        raw_out: dict[str, list[int]] | None = None,
    ) -> tuple[list[int], Status]:
        """Weighted totals per node, in ``nodes`` order, after NormalizeScore; each
        plugin's raw scores go to ``raw_out`` when given (OpportunisticBatching)."""
        if raw_out is None:
            fused = self._node_totals(state, pod, nodes)
            if fused is not None:
                return fused, OK
        totals: list[int] = []  # empty until the first plugin's scores
        skipped = state.skip_score_plugins
        for pl, name in self._score_named:
            if name in skipped:
                continue
            batch = self._batch_score.get(id(pl))
            try:
                raw = batch.score_nodes(state, pod, nodes) if batch is not None else None
            except ScoreOutOfRange as e:
                return totals, _invalid_score(name, e.score)
            checked = raw is not None and id(pl) in self._range_checked
            if raw is None:
                fn = pl.score
                results = [fn(state, pod, ni) for ni in nodes]  # hot: no per-node branching
                for _, s in results:
                    if s is not OK and s.code is not Code.SUCCESS:
                        return totals, _score_error("Score", name, s)
                raw = [r[0] for r in results]
            if raw_out is not None:
                raw_out[name] = raw
            weight = self.weights[name]
            ext = pl.score_extensions()
            if ext is None:
                values = raw
            else:
                scores = [NodeScore(ni.name, v) for ni, v in zip(nodes, raw, strict=True)]
                s = ext.normalize_score(state, pod, scores)
                if not s.is_success():
                    return totals, _score_error("Normalize on Score", name, s)
                values = [ns.score for ns in scores]
            if not (checked and ext is None) and not 0 <= min(values) <= max(values) <= MAX_NODE_SCORE:
                return totals, _invalid_score(name, next(v for v in values if not 0 <= v <= MAX_NODE_SCORE))
            # C-level map: this runs once per score plugin over every feasible node. Lists
            # are never changed in place, so a plugin's own list may serve as the totals.
            weighted = values if weight == 1 else list(map(mul, values, repeat(weight, len(values))))
            totals = list(map(add, totals, weighted)) if totals else weighted
        return totals or [0] * len(nodes), OK

    def _node_totals(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> list[int] | None:
        """``run_score_plugins``' totals from one memo by node, when every plugin that
        scores this pod is a NodeScorer without NormalizeScore: a node's total then
        changes only with its NodeInfo or a plugin's key. None: the plugin-by-plugin way
        (which also reports a score out of range as it always has)."""
        skipped = state.skip_score_plugins
        parts: list[tuple[str, int, object, Callable[[NodeInfo], int]]] = []
        for pl, name in self._score_named:
            if name in skipped:
                continue
            scorer = self._node_scorers.get(id(pl))
            got = scorer.node_scorer(state, pod) if scorer is not None else None
            if got is None:
                return None
            parts.append((name, self.weights[name], got[0], got[1]))
        if not parts:
            return None
        memo = self._totals.keyed(tuple((name, w, k) for name, w, k, _ in parts))
        fns = [(w, fn) for _, w, _, fn in parts]

        def total(ni: NodeInfo) -> int:
            return sum(w * fn(ni) for w, fn in fns)

        try:
            return memo.read(nodes, total)
        except ScoreOutOfRange:
            return None

    def run_raw_score_plugins(
        self, state: CycleState, pod: Obj, node_info: NodeInfo
    ) -> tuple[list[PluginScore], Status]:
        """``RunRawScorePlugins``: each non-skipped Score plugin's score for one node,
        before NormalizeScore and weights."""
        out: list[PluginScore] = []
        for pl in self.score:
            if pl.name() in state.skip_score_plugins:
                continue
            score, s = pl.score(state, pod, node_info)
            if not s.is_success():
                msg = f'plugin "{pl.name()}" failed with: {s.message()}'
                return [], Status(Code.ERROR, (msg,), pl.name())
            out.append((pl.name(), score))
        return out, OK

    def normalize_scores(self, state: CycleState, pod: Obj, scores: list[NodePluginScores]) -> Status:
        """``NormalizeScores``: NormalizeScore and weights over ``scores``' raw scores,
        setting each one's ``scores`` and ``total_score`` in place."""
        plugins = [pl for pl in self.score if pl.name() not in state.skip_score_plugins]
        per_plugin: list[list[NodeScore]] = []
        lists = [dict(ns.raw_scores) for ns in scores]
        for pl in plugins:
            name = pl.name()
            # A node without a raw score of this plugin gets upstream's zero NodeScore.
            column = [NodeScore(ns.name if name in d else "", d.get(name, 0))
                      for ns, d in zip(scores, lists, strict=True)]
            ext = pl.score_extensions()
            if ext is not None:
                s = ext.normalize_score(state, pod, column)
                if not s.is_success():
                    return _score_error("Normalize on Score", name, s)
            per_plugin.append(column)
        for i, ns in enumerate(scores):
            weighted: list[PluginScore] = []
            for pl, column in zip(plugins, per_plugin, strict=True):
                v = column[i].score
                if not 0 <= v <= MAX_NODE_SCORE:
                    return _invalid_score(pl.name(), v)
                weighted.append((pl.name(), v * self.weights[pl.name()]))
            ns.scores = weighted
            ns.total_score = sum(v for _, v in weighted)
        return OK

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Reserve in order; the caller unreserves on failure."""
        for pl in self.reserve:
            s = pl.reserve(state, pod, node_name)
            if not s.is_success():
                return s.with_plugin(pl.name()) if s.is_rejected() else _error("Reserve", pl.name(), s)
        return OK

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Unreserve every Reserve plugin, in reverse order."""
        for pl in reversed(self.reserve):
            pl.unreserve(state, pod, node_name)

    def run_permit_plugins(
        self, state: CycleState, pod: Obj, node_name: str
    ) -> tuple[Status, dict[str, Duration]]:
        """OK, a rejection, or WAIT with the waiting plugins' timeouts (at most 15 minutes,
        upstream's ``maxTimeout``); the WAIT status is the last waiting plugin's, with
        upstream's appended reason."""
        waits: dict[str, Duration] = {}
        wait = OK
        for pl in self.permit:
            s, timeout = pl.permit(state, pod, node_name)
            if s.is_wait():
                waits[pl.name()] = min(timeout, _MAX_PERMIT_TIMEOUT)
                wait = s
            elif not s.is_success():
                return (s.with_plugin(pl.name()) if s.is_rejected() else _error("Permit", pl.name(), s)), {}
        if not waits:
            return OK, waits
        return Status(Code.WAIT, (*wait.reasons, _WAIT_REASON), wait.plugin), waits

    def run_pre_bind_plugins(
        self, state: CycleState, pod: Obj, node_name: str,
        done: Callable[[Status], None] | None = None, start: int = 0,
    ) -> Status:
        """PreBind in order; the first failure stops binding.

        A plugin may answer WAIT when PreBind must wait for something outside the
        scheduler (DRA binding conditions: upstream blocks its binding goroutine). It then
        gets ``wait_pre_bind(state, pod, node, resume)`` and calls ``resume(status)`` once;
        the remaining plugins run after it and ``done`` gets the final status. Without
        ``done`` (or that method) WAIT is an error, as before.
        """
        for i in range(start, len(self.pre_bind)):
            pl = self.pre_bind[i]
            s = pl.pre_bind(state, pod, node_name)
            if s.is_skip():
                continue
            wait = getattr(pl, "wait_pre_bind", None)
            if s.is_wait() and done is not None and wait is not None:
                wait(state, pod, node_name, self._pre_bind_resume(state, pod, node_name, done, i))
                return s.with_plugin(pl.name())
            if not s.is_success():
                return s.with_plugin(pl.name()) if s.is_rejected() else _error("PreBind", pl.name(), s)
        return OK

    def _pre_bind_resume(
        self, state: CycleState, pod: Obj, node_name: str, done: Callable[[Status], None], i: int
    ) -> Callable[[Status], None]:
        name = self.pre_bind[i].name()

        def resume(s: Status) -> None:
            if s.is_success():
                s = self.run_pre_bind_plugins(state, pod, node_name, done, i + 1)
                if s.is_wait():
                    return  # a later plugin waits in turn
            elif s.is_rejected():
                s = s.with_plugin(name)
            else:
                s = _error("PreBind", name, s)
            done(s)

        return resume

    def run_bind_plugins(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """The first binder that does not SKIP; all skipping is SKIP."""
        for pl in self.bind:
            s = pl.bind(state, pod, node_name)
            if s.is_skip():
                continue
            return s.with_plugin(pl.name()) if s.is_success() or s.is_rejected() else _error(
                "Bind", pl.name(), s
            )
        return SKIP

    def run_post_bind_plugins(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Informational PostBind hooks."""
        for pl in self.post_bind:
            pl.post_bind(state, pod, node_name)

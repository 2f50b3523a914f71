"""Models the CompositePodGroup part of pkg/scheduler/schedule_one_podgroup.go (KEP-6012).

A gang CompositePodGroup (``schedulingPolicy.gang.minGroupCount``) is admitted only when
at least ``minGroupCount`` of its children can each meet their own gang minimum at the
same time. While the topmost such ancestor of a PodGroup does not have that many children
meeting their minimum with pods already on nodes, a pod of any PodGroup below it triggers
one attempt for the whole subtree: every child group is placed in turn on the cache (keeping
the assumptions of the children that met their minimum), and either the subtree as a
whole binds or nothing does. When it does not fit, the composite preempts as one (as
upstream 1.37's pod-group PostFilter does with a CompositePodGroup preemptor): its own
priority and preemptionPolicy, lower-priority victims chosen cluster-wide until
``minGroupCount`` children fit, members nominated to their nodes. A hierarchy with a
missing CompositePodGroup, a cycle, or more than 4 composite levels above a PodGroup holds
its pods (GangScheduling's PreEnqueue already does, ``podgroup_tree.hierarchy_error``); a
subtree deeper than ``WorkloadMaxTreeDepth`` below a CompositePodGroup with a topology
constraint fails the attempt with an error (``podgroup_tree.pod_group_states``).
An all-basic hierarchy is likewise popped from its root and placed as one tree: a basic
child is feasible whenever the PlacementFeasible plugins end on Success (even with no pod
placed), and the tree fails only if they reject the root or no pod at all was placed.
Upstream's scheduler writes no condition on a CompositePodGroup
(``submitPodGroupAlgorithmResult`` skips composites; only its PodGroups get
PodGroupInitiallyScheduled), and neither does this cycle: whether a composite is already
met is read from its subtree's scheduled pods, as upstream's attempt counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from reference_impl.scheduler.eventhandlers import EventHandlers
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import (
    Code,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo, QueuedPodInfo
from reference_impl.scheduler.framework.workload_forest import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    PodGroupInfo,
    QueuedPodGroupInfo,
)
from reference_impl.scheduler.group_placement import (
    PG_UNSCHEDULABLE,
    GroupAttempt,
    Option,
    proposed,
)
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from reference_impl.scheduler.plugins.gang_scheduling import (
    NAME as GANG,
)
from reference_impl.scheduler.plugins.gang_scheduling import (
    group_key,
    min_count,
)
from reference_impl.scheduler.plugins.podgroup_tree import (
    CPG,
    InformerHierarchy,
    hierarchy_error,
    pod_group_states,
)
from reference_impl.scheduler.podgroup_rules import REASON_SCHEDULER_ERROR, validate_pod_group

if TYPE_CHECKING:
    from reference_impl.scheduler.workload_cycle import WorkloadCycle

__all__ = ["CPG_VERSION", "MAX_DEPTH", "CompositeCycle"]

Obj = dict[str, Any]
CPG_VERSION: Final = "scheduling.k8s.io/v1alpha3"
MAX_DEPTH: Final = 4  # CompositePodGroup levels above a PodGroup (WorkloadMaxTreeDepth)
# compositePodGroupSchedulingDefaultAlgorithm: a child's internal error fails its parent.
CHILD_ERROR: Final = "composite pod group evaluation failed due to child error"


def _ns_name(obj: Obj) -> tuple[str, str]:
    return obj["metadata"].get("namespace", "default"), obj["metadata"]["name"]


def _parent(obj: Obj) -> str:
    return str((obj.get("spec") or {}).get("parentCompositePodGroupName") or "")


def min_group_count(cpg: Obj) -> int:
    """The composite gang minimum; 0 for ``basic: {}`` (children scheduled independently)."""
    gang = (cpg.get("spec") or {}).get("schedulingPolicy", {}).get("gang")
    return int(gang.get("minGroupCount") or 0) if gang is not None else 0


@dataclass(slots=True)
class _Placement:
    """The kept child attempts of one subtree, and which PodGroups met their minimum."""

    attempts: list[GroupAttempt] = field(default_factory=list)
    groups: list[Obj] = field(default_factory=list)
    # Plugins that rejected some child's pods: their events requeue the whole subtree.
    rejectors: set[str] = field(default_factory=set)
    # An Error status (the attempt stops: upstream returns an IsError result at once).
    error: str = ""


class CompositeCycle:
    """Admission of gang CompositePodGroups, driven from the pod-group cycle."""

    def __init__(self, wc: WorkloadCycle) -> None:
        self._wc = wc
        self._s = wc._s  # noqa: SLF001 - the cycle's own scheduler
        self._tree = InformerHierarchy(self._s.ctx.informers)
        # Each pod's own failure in the last evaluation of its group (this attempt).
        self._own: dict[str, Status] = {}

    def start(self) -> None:
        """Requeue group members when a CompositePodGroup appears or changes."""
        cpgs = self._s.ctx.informers.informer(CPG_VERSION, "CompositePodGroup")
        for cpg in cpgs.items():  # those observed before this scheduler started
            self._s.cache.add_composite_pod_group(cpg)
            self._s.queue.add_composite_pod_group(cpg)
        cpgs.add_handler(EventHandlers(self._s).on_composite_pod_group)

    def _cpg(self, ns: str, name: str) -> Obj | None:
        return self._s.ctx.informers.informer(CPG_VERSION, "CompositePodGroup").get(f"{ns}/{name}")

    def gating_root(self, pg: Obj) -> tuple[Obj | None, str]:
        """The topmost not-yet-admitted gang ancestor of ``pg``, and why its hierarchy
        blocks ("" = try): upstream's PreEnqueue message (``hierarchy_error``), checked
        again as the hierarchy may have changed since the pod passed PreEnqueue."""
        name = _parent(pg)
        if not name:
            return (None, "")
        ns, pg_name = _ns_name(pg)
        if (err := hierarchy_error(self._tree, ns, pg_name)) is not None:
            return (None, err)
        root: Obj | None = None
        top: Obj | None = None
        any_gang = False
        while name and (cpg := self._cpg(ns, name)) is not None:
            if min_group_count(cpg) > 0:
                any_gang = True
                if not self._met(cpg):
                    root = cpg
            top, name = cpg, _parent(cpg)
        # An all-basic hierarchy is popped and placed as one tree from its root, as upstream
        # pops every root entity whatever its policy.
        return (root if root is not None or any_gang else top, "")

    def _met(self, cpg: Obj, depth: int = 0) -> bool:
        """Whether enough children of ``cpg`` meet their own minimum with the members already
        on a node (bound or assumed): upstream's attempt then succeeds for them without
        placing anything (PlacementFeasible counts ``ScheduledPodsCount``)."""
        ns, name = _ns_name(cpg)
        pgs, cpgs = self._children(ns, name)
        met = sum(
            len(self._wc._bound_members(f"{ns}/{pg['metadata']['name']}")) >= max(1, min_count(pg))  # noqa: SLF001
            for pg in pgs
        )
        if depth < MAX_DEPTH:
            met += sum(self._met(c, depth + 1) for c in cpgs)
        return met >= max(1, min_group_count(cpg))

    # -- the subtree attempt ------------------------------------------------------------

    def schedule(self, first: QueuedPodInfo, pg: Obj, root: Obj | None, why: str) -> None:
        """One all-or-nothing attempt for the subtree below ``root``."""
        if why or root is None:
            self._hold([first], why or "pod group hierarchy is incomplete")
            return
        ns, name = _ns_name(root)
        groups = self._subtree_groups(ns, name)
        pinfos = self._take(first, groups)
        if (err := self._validate(pg, groups, pinfos)) is not None:
            # updatePodGroupConditionWithError: every PodGroup of the hierarchy.
            for g in groups:
                self._wc._set_condition(g, "False", REASON_SCHEDULER_ERROR, err)  # noqa: SLF001
            self._wc._fail_with_error(list(pinfos.values()), pg, err)  # noqa: SLF001
            return
        # skipPodGroupPodSchedule: deleting or assumed members leave the attempt.
        kept = self._wc.skip_pod_group_pod_schedule(list(pinfos.values()))
        if not kept:
            return  # nothing left: the attempt ends, nothing requeued
        pinfos = {p.key: p for p in kept}
        placement = _Placement()
        self._own = {}
        ok = self._place(root, pinfos, placement)
        if placement.error:
            # submitPodGroupAlgorithmResult with an Error result: every pod fails with it,
            # every PodGroup reports SchedulerError; no preemption.
            for att in reversed(placement.attempts):
                self._wc.placer.rollback(att)
            for g in groups:
                self._wc._set_condition(g, "False", REASON_SCHEDULER_ERROR, placement.error)  # noqa: SLF001
            self._wc._fail_with_error(list(pinfos.values()), pg, placement.error)  # noqa: SLF001
            return
        placed = {p.key for att in placement.attempts for _, p, _ in att.placed}
        # A pod that failed on its own reports its own status (submitPodGroupAlgorithmResult).
        own = {k: st for k, st in self._own.items() if k not in placed}
        if ok and not placed:
            ok = False  # runRootSchedulingAlgorithm: Success with no pod scheduled
        if not ok:
            for att in reversed(placement.attempts):
                self._wc.placer.rollback(att)
            msg = (
                f"composite pod group {ns}/{name}: fewer than "
                f"{min_group_count(root)} child groups fit at the same time"
            ) if min_group_count(root) > 0 else PG_UNSCHEDULABLE
            preempted = self._preempt(root, groups, pinfos)
            self._hold(list(pinfos.values()), msg, placement.rejectors, own)
            if not preempted:
                for g in groups:
                    self._wc._set_condition(g, "False", "Unschedulable", msg)  # noqa: SLF001
            return
        for att in placement.attempts:
            for state, pinfo, node in att.placed:
                self._s._permit_and_bind(state, pinfo, node)  # noqa: SLF001
        rest = [p for k, p in sorted(pinfos.items()) if k not in placed]
        self._hold(rest, "group not admitted", own=own)
        for g in placement.groups:
            self._wc._set_condition(g, "True", "Scheduled", "")  # noqa: SLF001

    # -- composite preemption -----------------------------------------------------------

    def _preempt(self, root: Obj, groups: list[Obj], pinfos: dict[str, QueuedPodInfo]) -> bool:
        """Upstream's pod-group PostFilter with the composite as preemptor: its priority and
        preemptionPolicy, lower-priority victim units cluster-wide (whole groups where a
        ``disruptionMode: all`` ancestor says so), chosen so that the subtree meets
        ``minGroupCount``; each member of that placement is nominated to its node."""
        own = frozenset(f"{_ns_name(g)[0]}/{_ns_name(g)[1]}" for g in groups)
        pods = [p.pod for _, p in sorted(pinfos.items())]

        def attempt() -> dict[str, str] | None:
            placement = _Placement()
            ok = self._place(root, pinfos, placement)
            where = {p.key: n for att in placement.attempts for _, p, n in att.placed}
            for att in reversed(placement.attempts):
                self._wc.placer.rollback(att)
            return where if ok else None

        for pl in self._s.framework.post_filter:
            if not isinstance(pl, DefaultPreemption):
                continue  # the only PostFilter plugin with gang preemption
            fits = lambda: attempt() is not None  # noqa: E731
            place = lambda: attempt() or {}  # noqa: E731
            if pl.preempt_group(pods, root, max(1, min_group_count(root)), fits, place, own)[0]:
                return True
        return False

    def _children(self, ns: str, name: str) -> tuple[list[Obj], list[Obj]]:
        return self._tree.children(ns, name)

    def _validate(self, pg: Obj, groups: list[Obj], pinfos: dict[str, QueuedPodInfo]) -> str | None:
        """``validatePodGroup`` over the hierarchy: every popped and already-scheduled pod
        of the subtree against the topmost CompositePodGroup (upstream's root)."""
        ns, top, name = _ns_name(pg)[0], pg, _parent(pg)
        for _ in range(MAX_DEPTH):
            cpg = self._cpg(ns, name) if name else None
            if cpg is None:
                break
            top, name = cpg, _parent(cpg)
        scheduled = [
            p for g in groups for p in self._wc._bound_pods("/".join(_ns_name(g)))  # noqa: SLF001
        ]
        return validate_pod_group(
            (p.pod for p in pinfos.values()),  # the popped pod first
            scheduled,
            top,
            profiles=(self._s.profile.scheduler_name,),
            preemption_policy_gate=self._s.features.enable_pod_group_preemption_policy,
        )

    def _subtree_groups(self, ns: str, name: str) -> list[Obj]:
        """Every PodGroup below CompositePodGroup ``ns/name``, as the queue pops a
        hierarchy: the queue's ``workloadForest.getLeafPodGroups`` (no depth limit,
        breadth first)."""
        forest = self._s.queue.workload_forest
        return forest.get_leaf_pod_groups(
            QueuedPodGroupInfo(PodGroupInfo(ns, name, COMPOSITE_POD_GROUP_KEY_TYPE)))

    def _take(self, first: QueuedPodInfo, groups: list[Obj]) -> dict[str, QueuedPodInfo]:
        """Every pending member of every PodGroup in the subtree, popped from the queue."""
        out = {first.key: first}
        for g in groups:
            ns, name = _ns_name(g)
            for p in self._wc._take_members(f"{ns}/{name}", first.key):  # noqa: SLF001
                out[p.key] = p
        return out

    def _place(
        self,
        node: Obj,
        pinfos: dict[str, QueuedPodInfo],
        out: _Placement,
        parent: Sequence[NodeInfo] | None = None,
    ) -> bool:
        """``compositePodGroupSchedulingPlacementAlgorithm``: the subtree of CompositePodGroup
        ``node`` inside each of its candidate placements (one per topology domain, with
        TopologyAwareWorkloadScheduling), the best-scoring feasible one kept in ``out``."""
        ns, name = _ns_name(node)
        placer = self._wc.placer
        # The plugins read the subtree's scheduled pods through GetPodGroupStates, whose
        # first error (a missing entity, the depth limit) is theirs.
        scheduled: list[str] = []
        walk_error = ""
        for g, err in pod_group_states(self._tree, CPG, ns, name):
            if g is None:
                walk_error = walk_error or err
            else:
                scheduled += self._wc._bound_members("/".join(_ns_name(g)))  # noqa: SLF001
        named, status = placer.named_candidates(node, scheduled, parent, walk_error)
        candidates = [nodes for _, nodes in named]
        if not status.is_success():
            if status.code is Code.ERROR:
                out.error = out.error or status.message()
            out.rejectors |= {status.plugin} - {""}
            return False
        if len(candidates) == 1:
            return self._place_children(node, pinfos, out, candidates[0])
        feasible: list[Option] = []
        names: list[str] = []  # the PlacementScore plugins see each placement's name
        for pname, nodes in named:
            sub = _Placement()
            if self._place_children(node, pinfos, sub, nodes):
                feasible.append((nodes, proposed(*sub.attempts)))
                names.append(pname)
            out.rejectors |= sub.rejectors
            for att in reversed(sub.attempts):
                placer.rollback(att)
            if sub.error:
                out.error = sub.error
                return False
        if not feasible:
            return False
        # findBestCompositePodGroupPlacement: a PlacementScore failure is the result.
        idx, status = placer.choose(node, scheduled, feasible, walk_error, names)
        if not status.is_success():
            if status.code is Code.ERROR:
                out.error = out.error or status.message()
            out.rejectors |= {status.plugin} - {""}
            return False
        return self._place_children(node, pinfos, out, feasible[idx][0])

    def _place_children(
        self,
        node: Obj,
        pinfos: dict[str, QueuedPodInfo],
        out: _Placement,
        nodes: Sequence[NodeInfo] | None,
    ) -> bool:
        """Place ``node``'s children greedily inside ``nodes``; True if the PlacementFeasible
        plugins end on Success (``compositePodGroupSchedulingDefaultAlgorithm``): they run
        before the first child and after each, counting the children that succeeded, and
        the walk stops at their Unschedulable or Error."""
        ns, name = _ns_name(node)
        pgs, cpgs = self._children(ns, name)
        feasible = self._wc.placer._feasible(node, composite=True)  # noqa: SLF001
        remaining, met = len(pgs) + len(cpgs), 0
        status = feasible(remaining, met) if feasible is not None else Status(Code.SUCCESS)
        children: list[tuple[bool, Obj]] = [(False, pg) for pg in pgs] + [(True, c) for c in cpgs]
        for is_cpg, child in children:
            if status.code in (Code.UNSCHEDULABLE, Code.ERROR):
                break
            if not is_cpg:
                att, err = self._place_group(child, pinfos, out.rejectors, nodes)
                if err:
                    out.error = f"{CHILD_ERROR}: {err}"
                    return False
                if att is not None:
                    out.attempts.append(att)
                    out.groups.append(child)
                    met += 1
            else:
                sub = _Placement()
                ok = self._place(child, pinfos, sub, nodes)
                out.rejectors |= sub.rejectors
                if sub.error:
                    for att in reversed(sub.attempts):
                        self._wc.placer.rollback(att)
                    out.error = f"{CHILD_ERROR}: {sub.error}"
                    return False
                if ok:
                    out.attempts += sub.attempts
                    out.groups += sub.groups
                    met += 1
                else:
                    for att in reversed(sub.attempts):
                        self._wc.placer.rollback(att)
            remaining -= 1
            if feasible is not None:
                status = feasible(remaining, met)
        if status.code is Code.ERROR:
            out.error = status.message()
            return False
        if status.code is Code.UNSCHEDULABLE:
            out.rejectors |= {status.plugin} - {""}
        return status.is_success()

    def _place_group(
        self,
        pg: Obj,
        pinfos: dict[str, QueuedPodInfo],
        rejectors: set[str],
        nodes: Sequence[NodeInfo] | None,
    ) -> tuple[GroupAttempt | None, str]:
        """One child PodGroup at its own gang minimum inside ``nodes`` (kept on the cache),
        or None; and its internal error ("" if none), which fails the whole subtree."""
        ns, name = _ns_name(pg)
        gk = f"{ns}/{name}"
        mine = [p for k, p in sorted(pinfos.items()) if group_key(p.pod) == gk]
        bound = self._wc._bound_members(gk)  # noqa: SLF001
        if min_count(pg) == 0:
            return self._place_basic(pg, mine, bound, rejectors, nodes)
        need = max(1, min_count(pg)) - len(bound)
        if need <= 0:
            return self._wc.placer.try_place([], None), ""  # already met
        att, failed = self._wc.placer.place(mine, pg, bound, need, nodes)
        self._own.update((p.key, st) for p, st in (att or failed or GroupAttempt()).failed)
        if att is None:
            rejectors |= failed.rejectors if failed else set()
            if failed is not None and failed.error is not None:
                return None, failed.error.message()
        return att, ""

    def _place_basic(
        self,
        pg: Obj,
        mine: list[QueuedPodInfo],
        bound: list[str],
        rejectors: set[str],
        nodes: Sequence[NodeInfo] | None,
    ) -> tuple[GroupAttempt | None, str]:
        """A basic child: every pending pod is tried (``podGroupSchedulingAlgorithm`` as a
        child, no ``anyScheduled`` rule), and the child is feasible whenever the
        PlacementFeasible plugins end on Success, even with no pod placed; the best
        feasible placement is kept."""
        placer = self._wc.placer
        named, status = placer.named_candidates(pg, bound, nodes)
        if not status.is_success():
            rejectors |= {status.plugin} - {""}
            return None, status.message() if status.code is Code.ERROR else ""
        feasible: list[tuple[str, Sequence[NodeInfo] | None, GroupAttempt]] = []
        for pname, cand in named:
            att = placer.try_place(mine, cand, pg, len(bound))
            rejectors |= att.rejectors
            self._own.update((p.key, st) for p, st in att.failed)
            if att.error is not None:
                placer.rollback(att)
                return None, att.error.message()
            if len(named) == 1 and att.status.is_success():
                return att, ""
            placer.rollback(att)
            if att.status.is_success():
                feasible.append((pname, cand, att))
        if not feasible:
            return None, ""
        options = [(cand, proposed(att)) for _, cand, att in feasible]
        best, status = placer.best(pg, bound, options, [n for n, _, _ in feasible])
        if not status.is_success():
            # findBestPodGroupPlacement's status is the child's result: only an Error fails
            # the tree; otherwise the child just does not count.
            rejectors |= {status.plugin} - {""}
            return None, status.message() if status.code is Code.ERROR else ""
        att = placer.try_place(mine, feasible[best][1], pg, len(bound))
        self._own.update((p.key, st) for p, st in att.failed)
        return att, ""

    def _hold(
        self,
        pinfos: list[QueuedPodInfo],
        msg: str,
        rejectors: frozenset[str] | set[str] = frozenset(),
        own: dict[str, Status] | None = None,
    ) -> None:
        for pinfo in pinfos:
            diag = Diagnosis()
            # Room freed anywhere, a group/node event, or one that lifts what rejected a
            # child's pods (a node's taint, say) may let the subtree fit.
            diag.unschedulable_plugins |= {GANG, names.NODE_RESOURCES_FIT, *rejectors}
            status = (own or {}).get(pinfo.key) or Status(Code.UNSCHEDULABLE, (msg,), GANG)
            self._s._handle_failure(pinfo, status, diag)  # noqa: SLF001

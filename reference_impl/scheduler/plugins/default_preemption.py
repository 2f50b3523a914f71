"""Models pkg/scheduler/framework/plugins/defaultpreemption (and framework/preemption),
made workload-aware as KEP-5710 describes.

A victim *unit* is one lower-priority pod, or every pod under the highest PodGroup or
CompositePodGroup whose ``disruptionMode`` is ``all`` (never half of one); priorities are
the topmost group's (``default_preemption_victims.py``). A single pod preempts on one node:
all lower units there are removed in simulation, the pod must then fit, and units are
reprieved highest priority first while it still fits, the PDB-violating ones before the
others (``FilterVictimsWithPDBViolation``: each PDB's ``status.disruptionsAllowed`` is
spent by the matching victims in order of importance, a pod already listed in its
``status.disruptedPods`` spends nothing, a PDB with an empty selector matches nothing,
and a unit violates when any of its pods does). PDBs are best effort, as upstream: a
violating unit is still preempted when nothing else makes room, and the node with the
fewest violating pods wins. A gang preempts cluster-wide the same way, with the whole
gang's placement as the fit test (a CompositePodGroup too, from ``composite_cycle.py``).
A deferred resize (KEP-5836) is an ordinary single-pod PostFilter whose filters leave only
its own node. Victims get ``DisruptionTarget`` (reason PreemptionByScheduler), then are
deleted, and the preemptor (each gang member) gets ``status.nominatedNodeName``, which
``nominator.py`` then reserves for it; a bound pod (a deferred resize) gets none.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key
from typing import Any, Final, final

from reference_impl.api.meta import set_condition
from reference_impl.clock import rfc3339
from reference_impl.errors import Conflict, NotFound
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis, FitError, NodeToStatus
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    NodeToStatusReader,
    Plugin,
    PostFilterPlugin,
    PostFilterResult,
    Status,
)
from reference_impl.scheduler.framework.pod_group_post_filter import (
    PodGroupPostFilterInfo,
    PodGroupPostFilterResult,
    PodGroupScheduling,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, pod_key
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.default_preemption_victims import (
    Unit,
    importance,
    pdb_violations,
    resolve_preemption_policy,
    start_time,
    terminating_by_preemption,
    victim_priority,
    victim_units,
)

__all__ = ["NAME", "DefaultPreemption", "new"]

Obj = dict[str, Any]
IsEligiblePod = Callable[[NodeInfo, Unit, Obj], bool]  # ``IsEligiblePodFunc``
MoreImportantVictim = Callable[[Unit, Unit], bool]  # ``MoreImportantVictimFunc``
NAME: Final = names.DEFAULT_PREEMPTION
REASON: Final = "PreemptionByScheduler"
NO_VICTIMS: Final = "No preemption victims found for incoming pod"
NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."
NO_GROUP_VICTIMS: Final = "No preemption victims found for incoming preemptor"


def _pg_status(code: Code, msg: str) -> Status:
    """``DefaultPreemption.PodGroupPostFilter``: the evaluator's status, message prefixed."""
    return Status(code, (f"pod group preemption: {msg}",))


@final
class DefaultPreemption:
    """PostFilter: choose and evict the fewest, lowest-priority units that make room."""

    def __init__(self, handle: Handle, features: SchedulerFeatures) -> None:
        self._h = handle
        self._workload = features.enable_generic_workload
        self._composite = features.enable_composite_pod_group
        self._group_policy = features.enable_pod_group_preemption_policy
        self._pending: dict[str, set[str]] = {}  # preemptor -> victims not yet gone
        self._nominator: Nominator | None = None
        # Upstream's exported hooks for out-of-tree variants (``IsEligiblePod``,
        # ``MoreImportantVictim``); None keeps the defaults: every lower-priority victim is
        # eligible, ordered by ``importance``.
        self.is_eligible_pod: IsEligiblePod | None = None
        self.more_important_victim: MoreImportantVictim | None = None

    def use_nominator(self, nominator: Nominator) -> None:
        """Dry runs see other preemptors' reservations (``RunFilterPluginsWithNominatedPods``)."""
        self._nominator = nominator

    def name(self) -> str:
        """The plugin name."""
        return NAME

    # -- entry points ---------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        """Single-pod preemption on the best node."""
        # Deviation, for a pod without status.nominatedNodeName (a deferred resize never
        # gets one): upstream does not retry it before its victims are gone, as its hints
        # skip their updates; this queue requeues after any event seen in the cycle, so
        # the victims the pod chose are what keep it from preempting twice.
        why = self.pod_eligible_to_preempt_others(pod, statuses)
        if why:
            return None, Status(Code.UNSCHEDULABLE, (f"preemption: {why}",), NAME)
        prio, best = int(pod["spec"].get("priority") or 0), None
        nodes = self._h.snapshot_shared_lister().node_infos()
        units = self._units(prio)  # the snapshot is restored after each node's dry run
        # DryRunPreemption's per-node statuses, for the FitError when no node is a candidate.
        dry_run = NodeToStatus(absent=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,)))
        for ni in nodes:
            if statuses.get(ni.name).code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                continue  # nodesWherePreemptionMightHelp: the absent status covers it
            victims, violations, status = self.select_victims_on_node(state, pod, ni, units)
            if not status.is_success():
                dry_run.set(ni.name, status)
            elif victims:
                rank = _node_rank(victims, violations, ni.name)
                if best is None or rank < best[0]:
                    best = (rank, ni.name, victims)
        if best is None:
            # Preempt: an empty nomination with the FitError of the dry run.
            fit_error = FitError(len(nodes), Diagnosis(node_to_status=dry_run))
            msg = f"preemption: {fit_error.message()}"
            return PostFilterResult(""), Status(Code.UNSCHEDULABLE, (msg,), NAME)
        self._evict(pod_key(pod), best[2], _disruption_message(pod, "pod"))
        _nominate(self._h.ctx.server, {pod_key(pod): best[1]})
        n = sum(len(u.pods) for u in best[2])
        msg = f"preemption: found a potential placement for pod on node {best[1]}, preempting {n} victims"
        return PostFilterResult(best[1]), Status(Code.SUCCESS, (msg,), NAME)

    def preempt_group(
        self,
        pods: list[Obj],
        pg: Obj,
        need: int,
        fits: Callable[[], bool],
        place: Callable[[], dict[str, str]] | None = None,
        exclude: frozenset[str] = frozenset(),
    ) -> tuple[bool, Status]:
        """Gang preemption: free room for ``need`` of ``pods`` at once, cluster-wide; each
        member of the placement that fits is nominated to its node. ``pg`` is the
        preemptor, a PodGroup or (composite preemption) a CompositePodGroup, whose
        priority and preemptionPolicy apply; ``exclude`` names the PodGroups whose pods
        are its own (default: ``pg`` itself). Whether victims were chosen, and the
        ``PodGroupPostFilter`` status (``PodGroupEvaluator.Preempt``'s, its message
        prefixed "pod group preemption: "); Unschedulable without a reason where the
        group does not fit even with every victim gone (upstream: the group algorithm's
        own status, which the caller knows)."""
        gk = f"{pg['metadata'].get('namespace', 'default')}/{pg['metadata']['name']}"
        if pg.get("kind") == "CompositePodGroup":
            gk = f"CompositePodGroup:{gk}"
        policy = resolve_preemption_policy(pg, pods, group_policy=self._group_policy)
        if need <= 0:
            return False, Status(Code.UNSCHEDULABLE)
        if why := self._ineligible(gk, {"preemptionPolicy": policy}):
            if why == TERMINATING:  # isOngoingPreemption: Success, the group waits
                return False, _pg_status(Code.SUCCESS, "ongoing preemption on nominated nodes")
            return False, _pg_status(Code.UNSCHEDULABLE, why)
        # PodGroupPriority / CompositePodGroupPriority: spec.priority, 0 when unset.
        prio = int((pg.get("spec") or {}).get("priority") or 0)
        units = self._units(prio, exclude=exclude or frozenset({gk}))
        if not units:
            return False, _pg_status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_GROUP_VICTIMS)
        picked = self._select(units, fits)
        if not picked or not picked[0]:
            return False, Status(Code.UNSCHEDULABLE)
        nominations: dict[str, str] = {}
        if place is not None:
            for u in picked[0]:
                self._remove(u)
            nominations = place()
            for u in picked[0]:
                self._restore(u)
        kind = "compositepodgroup" if pg.get("kind") == "CompositePodGroup" else "podgroup"
        self._evict(gk, picked[0], _disruption_message(pods[0] if pods else {}, kind))
        _nominate(self._h.ctx.server, nominations)
        n = sum(len(u.pods) for u in picked[0])
        return True, _pg_status(Code.SUCCESS, f"found a placement for podgroup, preempting {n} victims")

    def pod_group_post_filter(
        self, state: CycleState | None, info: PodGroupPostFilterInfo, schedule: PodGroupScheduling
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        """``PodGroupPostFilter``: gang preemption (``preempt_group``) with ``schedule`` as
        the fit test. Where the group does not fit even with every victim gone, upstream's
        evaluator returns the group algorithm's own status: its message, prefixed."""
        pg = info.pod_group
        if pg is None:
            return None, Status(Code.UNSCHEDULABLE)
        _, status = self.preempt_group(
            list(info.unscheduled), pg, info.need, schedule.fits, schedule.place, info.exclude)
        if status.code is Code.UNSCHEDULABLE and not status.reasons and info.need > 0:
            why = schedule.message()
            status = Status(Code.UNSCHEDULABLE, (f"pod group preemption: {why}",) if why else ())
        return None, status

    def select_victims_on_node(
        self, state: CycleState, pod: Obj, ni: NodeInfo, units: list[Unit]
    ) -> tuple[list[Unit], int, Status]:
        """``SelectVictimsOnNode``: of ``units`` (``victim_units`` below the pod's
        priority), those with a pod on ``ni`` that must go for the pod to fit there, and
        how many of their pods violate a PDB; else the status why the node cannot help."""
        here = [u for u in units if any(p.node_name == ni.name for p in u.pods)]
        if self.is_eligible_pod is not None:
            here = [u for u in here if self._eligible_everywhere(u, pod)]
        if not here:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,))
        filters = self._fw.active_filters(state)
        failed: list[Status] = []

        def fits() -> bool:
            st = self._fw.refreshed(state, pod)  # victims were removed from the snapshot
            if self._nominator is not None:
                s = self._nominator.run_filters_with_nominated(self._fw, st, pod, ni, filters)
            else:
                s = self._fw.run_filter_plugins(st, pod, ni, filters)
            failed[:] = [] if s.is_success() else [s]
            return bool(s.is_success())

        picked = self._select(here, fits)
        if picked is None:
            # Still no fit with every victim removed: the filters' own status.
            return [], 0, failed[0] if failed else Status(Code.UNSCHEDULABLE)
        return picked[0], picked[1], OK

    def pod_eligible_to_preempt_others(self, pod: Obj, statuses: NodeToStatusReader) -> str:
        """``PodEligibleToPreemptOthers``: "" when ``pod`` may preempt, else why not. A pod
        nominated to a node that its filters call UnschedulableAndUnresolvable may; one
        whose nominated node holds a lower-priority pod terminating by preemption may not.
        A pod without a nomination (a deferred resize gets none) is held back while the
        victims it chose last are still there."""
        spec = pod["spec"]
        nominated = (pod.get("status") or {}).get("nominatedNodeName")
        if spec.get("preemptionPolicy") == "Never" or not nominated:
            return self._ineligible(pod_key(pod), spec)
        if statuses.get(nominated).code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return ""
        ni = self._h.snapshot_shared_lister().get(nominated)
        prio = int(spec.get("priority") or 0)
        for info in ni.pods.values() if ni is not None else ():
            if terminating_by_preemption(info.pod) and prio > victim_priority(
                self._h.ctx.informers, info, workload=self._workload, composite=self._composite
            ):
                return TERMINATING
        return ""

    # -- the algorithm --------------------------------------------------------------

    @property
    def _fw(self) -> Any:
        return self._h

    def _ineligible(self, key: str, spec: Obj) -> str:
        if spec.get("preemptionPolicy") == "Never":
            return "not eligible due to preemptionPolicy=Never."
        cache = self._h.snapshot_shared_lister()
        left = {
            v for v in self._pending.get(key, ()) if any(v in ni.pods for ni in cache.node_infos())
        }
        self._pending[key] = left
        # Its victims are still terminating (on the node nominated for it).
        return TERMINATING if left else ""

    def _units(self, prio: int, exclude: frozenset[str] = frozenset()) -> list[Unit]:
        """Victim units below ``prio``, least important first (``victim_units``)."""
        return victim_units(
            self._h.ctx.informers,
            self._h.snapshot_shared_lister().node_infos(),
            prio,
            workload=self._workload,
            composite=self._composite,
            exclude=exclude,
        )

    def _select(self, units: list[Unit], fits: Callable[[], bool]) -> tuple[list[Unit], int] | None:
        """Remove every unit; if the preemptor fits, reprieve units while it still does.
        The victims, and how many of their pods violate a PDB."""
        if not units:
            return None
        for u in units:
            self._remove(u)
        if not fits():
            for u in units:
                self._restore(u)
            return None
        important = self._by_importance(units)
        violating = pdb_violations(important, self._pdbs())
        victims: list[Unit] = []
        count = 0
        # Reprieve the PDB-violating units first, each group highest priority first.
        for u in sorted(important, key=lambda u: u.name not in violating):
            self._restore(u)
            if not fits():
                self._remove(u)
                victims.append(u)
                count += violating.get(u.name, 0)
        for u in victims:
            self._restore(u)
        return victims, count

    def _eligible_everywhere(self, u: Unit, preemptor: Obj) -> bool:
        """``isPreemptionAllowedAcrossAllVictimNodes``: the hook allows the victim on every
        node it has a pod on (a lone pod: its own node)."""
        hook, lister = self.is_eligible_pod, self._h.snapshot_shared_lister()
        assert hook is not None
        for name in dict.fromkeys(p.node_name for p in u.pods):
            ni = lister.get(name)
            if ni is not None and not hook(ni, u, preemptor):
                return False
        return True

    def _by_importance(self, units: list[Unit]) -> list[Unit]:
        """Most important first: ``importance``, or the ``MoreImportantVictim`` hook."""
        more = self.more_important_victim
        if more is None:
            return sorted(units, key=importance)

        def cmp(a: Unit, b: Unit) -> int:
            return -1 if more(a, b) else int(more(b, a))

        return sorted(units, key=cmp_to_key(cmp))

    def _pdbs(self) -> list[Obj]:
        pdbs = self._h.ctx.informers.informer("policy/v1", "PodDisruptionBudget").items()
        return sorted(
            pdbs, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"])
        )

    def _remove(self, u: Unit) -> None:
        for info in u.pods:
            ni = self._h.snapshot_shared_lister().get(info.node_name)
            if ni is not None:
                ni.remove_pod(info.key)

    def _restore(self, u: Unit) -> None:
        for info in u.pods:
            ni = self._h.snapshot_shared_lister().get(info.node_name)
            if ni is not None and info.key not in ni.pods:
                ni.add_pod(info)

    def _evict(self, preemptor: str, victims: list[Unit], msg: str) -> None:
        server, now = self._h.ctx.server, rfc3339(self._h.ctx.clock.now())
        self._pending[preemptor] = {p.key for u in victims for p in u.pods}
        for u in victims:
            # Only the victim pods get DisruptionTarget: v1.37.2's executor (PreemptPod)
            # never writes the PodGroup's own DisruptionTarget condition.
            for info in sorted(u.pods, key=lambda p: p.key):
                meta = info.pod["metadata"]
                latest = server.try_get("v1", "Pod", meta["name"], meta.get("namespace"))
                if latest is not None:
                    _mark(server, latest, msg, now)
                    try:
                        server.delete("v1", "Pod", meta["name"], meta.get("namespace"))
                    except NotFound:
                        pass  # already gone
            self._h.ctx.trace.record("scheduler", "Preempted", u.name, preemptor)


def _node_rank(
    victims: list[Unit], violations: int, node: str
) -> tuple[int, int, int, int, int, str]:
    """``pickOneNodeForPreemption``, smallest first: fewest PDB violations, lowest
    priority of the first victim pod (the most important unit's), lowest sum of offset
    pod priorities, fewest pods, the latest earliest start among the highest-priority
    victim pods (``GetEarliestPodStartTime``); then the node name, where upstream takes
    the first candidate of a randomly offset list."""
    pods = [p for u in sorted(victims, key=importance) for p in u.pods]
    top = max(p.priority for p in pods)
    earliest = min(start_time(p.pod) for p in pods if p.priority == top)
    return (
        violations,
        pods[0].priority,
        sum(p.priority + 2**31 for p in pods),
        len(pods),
        -earliest,
        node,
    )


def _disruption_message(pod: Obj, kind: str) -> str:
    """The DisruptionTarget message of ``Executor.PreemptPod``: the preemptor's scheduler
    (a group's: its first pod's) and type ("pod", "podgroup", "compositepodgroup")."""
    scheduler = (pod.get("spec") or {}).get("schedulerName") or "default-scheduler"
    return f"{scheduler}: preempting to accommodate a higher priority {kind}"


def _nominate(server: Any, nominations: dict[str, str]) -> None:
    """Write ``status.nominatedNodeName`` of each preemptor (``ModeOverride``)."""
    for key, node in sorted(nominations.items()):
        ns, _, name = key.partition("/")
        pod = server.try_get("v1", "Pod", name, ns)
        if pod is None or pod["spec"].get("nodeName"):
            continue
        if (pod.get("status") or {}).get("nominatedNodeName") == node:
            continue
        try:
            server.update_status(
                {**pod, "status": {**(pod.get("status") or {}), "nominatedNodeName": node}}
            )
        except (NotFound, Conflict):
            pass  # changed or gone meanwhile: its next failed cycle nominates again


def _mark(server: Any, obj: Obj, message: str, now: str) -> None:
    """Set DisruptionTarget=True (reason PreemptionByScheduler) through /status."""
    st = {**(obj.get("status") or {})}
    st["conditions"] = [dict(c) for c in st.get("conditions") or ()]
    cond = {"type": "DisruptionTarget", "status": "True", "reason": REASON, "message": message}
    if set_condition(st, cond, now):
        try:
            server.update_status({**obj, "status": st})
        except (NotFound, Conflict):
            pass  # gone or changed meanwhile: the deletion that follows still counts


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return DefaultPreemption(handle, features)


_: type[PostFilterPlugin] = DefaultPreemption

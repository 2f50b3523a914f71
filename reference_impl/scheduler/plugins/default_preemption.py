"""Models pkg/scheduler/framework/plugins/defaultpreemption (and framework/preemption),
made workload-aware as KEP-5710 describes.

A victim *unit* is one lower-priority pod, or every pod of a PodGroup whose
``disruptionMode`` is ``all`` (never half of one). A single pod preempts on one node:
all lower units there are removed in simulation, the pod must then fit, and units are
reprieved highest priority first (PDB-protected ones before the others) while it still
fits. A gang preempts cluster-wide the same way, with the whole gang's placement as the
fit test. Victims get ``DisruptionTarget`` (reason PreemptionByScheduler), then are
deleted. Deviation: PDB budgets are computed from the PDB spec and the bound pods here,
not read from ``status.disruptionsAllowed`` (the reference has no disruption controller).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final

from reference_impl.api.meta import selector_from_label_selector, set_condition
from reference_impl.clock import rfc3339
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    Code,
    NodeToStatusReader,
    Plugin,
    PostFilterPlugin,
    PostFilterResult,
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, pod_key
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.gang_scheduling import POD_GROUP_VERSION, group_key

__all__ = ["NAME", "DefaultPreemption", "new"]

Obj = dict[str, Any]
NAME: Final = names.DEFAULT_PREEMPTION
REASON: Final = "PreemptionByScheduler"


@dataclass(slots=True)
class _Unit:
    """Pods that are preempted together, with their (highest) priority."""

    name: str
    priority: int
    pods: list[PodInfo]
    group: Obj | None = None


@final
class DefaultPreemption:
    """PostFilter: choose and evict the fewest, lowest-priority units that make room."""

    def __init__(self, handle: Handle, features: SchedulerFeatures) -> None:
        self._h = handle
        self._workload = features.enable_generic_workload
        self._pending: dict[str, set[str]] = {}  # preemptor -> victims not yet gone

    def name(self) -> str:
        """The plugin name."""
        return NAME

    # -- entry points ---------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        """Single-pod preemption on the best node."""
        why = self._ineligible(pod_key(pod), pod["spec"])
        if why:
            return None, Status(Code.UNSCHEDULABLE, (why,), NAME)
        prio, best = int(pod["spec"].get("priority") or 0), None
        filters = self._fw.active_filters(state)
        nodes = self._h.snapshot_shared_lister().node_infos()
        unhelpful = 0
        for ni in nodes:
            if statuses.get(ni.name).code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                unhelpful += 1
                continue
            units = [u for u in self._units(prio) if any(p.node_name == ni.name for p in u.pods)]

            def fits(ni: NodeInfo = ni) -> bool:
                return bool(self._fw.run_filter_plugins(state, pod, ni, filters).is_success())

            victims = self._select(units, fits)
            if victims is not None and victims:
                rank = (
                    sum(u.name.startswith("!") for u in victims),
                    max(u.priority for u in victims),
                    sum(len(u.pods) for u in victims),
                    ni.name,
                )
                if best is None or rank < best[0]:
                    best = (rank, ni.name, victims)
        if best is None:
            counts = [
                (len(nodes) - unhelpful, "No preemption victims found for incoming pod"),
                (unhelpful, "Preemption is not helpful for scheduling"),
            ]
            hist = ", ".join(f"{n} {r}" for n, r in counts if n)
            msg = f"preemption: 0/{len(nodes)} nodes are available: {hist}"
            return None, Status(Code.UNSCHEDULABLE, (msg,), NAME)
        self._evict(pod_key(pod), best[2])
        return PostFilterResult(best[1]), Status(plugin=NAME)

    def preempt_group(self, pods: list[Obj], pg: Obj, need: int, fits: Callable[[], bool]) -> bool:
        """Gang preemption: free room for ``need`` of ``pods`` at once, cluster-wide."""
        gk = f"{pg['metadata'].get('namespace', 'default')}/{pg['metadata']['name']}"
        if need <= 0 or self._ineligible(gk, pg.get("spec") or {}):
            return False
        prio = int(
            (pg.get("spec") or {}).get("priority")
            or max(int(p["spec"].get("priority") or 0) for p in pods)
        )
        victims = self._select(self._units(prio, exclude=gk), fits)
        if not victims:
            return False
        self._evict(gk, victims)
        return True

    def preempt_on_node(self, pod: Obj, node: str, fits: Callable[[], bool]) -> bool:
        """Resize preemption (KEP-5836): evict lower-priority units on ``node`` only, never
        PDB-protected ones, so that ``fits()`` (the bound pod's resize) holds."""
        key = pod_key(pod)
        if self._ineligible(key, pod["spec"]):
            return False
        units = [
            u
            for u in self._units(int(pod["spec"].get("priority") or 0))
            if not u.name.startswith("!") and all(p.node_name == node for p in u.pods)
        ]
        victims = self._select(units, fits)
        if not victims:
            return False
        self._evict(key, victims)
        return True

    # -- the algorithm --------------------------------------------------------------

    @property
    def _fw(self) -> Any:
        return self._h

    def _ineligible(self, key: str, spec: Obj) -> str:
        if spec.get("preemptionPolicy") == "Never":
            return "not eligible for preemption: preemptionPolicy is Never"
        cache = self._h.snapshot_shared_lister()
        left = {
            v for v in self._pending.get(key, ()) if any(v in ni.pods for ni in cache.node_infos())
        }
        self._pending[key] = left
        return "waiting for preemption victims to terminate" if left else ""

    def _units(self, prio: int, exclude: str = "") -> list[_Unit]:
        """Lower-priority victim units, PDB-protected ones marked with a leading "!"."""
        groups: dict[str, _Unit] = {}
        out: list[_Unit] = []
        for ni in self._h.snapshot_shared_lister().node_infos():
            for info in ni.pods.values():
                if info.priority >= prio or info.pod["metadata"].get("deletionTimestamp"):
                    continue
                gk = group_key(info.pod) if self._workload else None
                pg = self._group(gk) if gk else None
                if gk == exclude:
                    continue
                if pg is not None and "all" in ((pg.get("spec") or {}).get("disruptionMode") or {}):
                    unit = groups.setdefault(gk or "", _Unit(gk or "", info.priority, [], pg))
                    unit.pods.append(info)
                    unit.priority = max(unit.priority, info.priority)
                else:
                    out.append(_Unit(info.key, info.priority, [info]))
        units = out + list(groups.values())
        everyone = [
            i for ni in self._h.snapshot_shared_lister().node_infos() for i in ni.pods.values()
        ]
        protected = self._pdb_protected([p for u in units for p in u.pods], everyone)
        for u in units:
            if any(p.key in protected for p in u.pods):
                u.name = "!" + u.name
        return sorted(units, key=lambda u: (u.priority, u.name))

    def _group(self, gk: str) -> Obj | None:
        return self._h.ctx.informers.informer(POD_GROUP_VERSION, "PodGroup").get(gk)

    def _select(self, units: list[_Unit], fits: Callable[[], bool]) -> list[_Unit] | None:
        """Remove every unit; if the preemptor fits, reprieve units while it still does."""
        if not units:
            return None
        for u in units:
            self._remove(u)
        if not fits():
            for u in units:
                self._restore(u)
            return None
        victims: list[_Unit] = []
        # Reprieve highest priority first, PDB-protected first (upstream's order).
        for u in sorted(units, key=lambda u: (not u.name.startswith("!"), -u.priority, u.name)):
            self._restore(u)
            if not fits():
                self._remove(u)
                victims.append(u)
        for u in victims:
            self._restore(u)
        return victims

    def _remove(self, u: _Unit) -> None:
        for info in u.pods:
            ni = self._h.snapshot_shared_lister().get(info.node_name)
            if ni is not None:
                ni.remove_pod(info.key)

    def _restore(self, u: _Unit) -> None:
        for info in u.pods:
            ni = self._h.snapshot_shared_lister().get(info.node_name)
            if ni is not None and info.key not in ni.pods:
                ni.add_pod(info)

    def _pdb_protected(self, infos: list[PodInfo], everyone: list[PodInfo]) -> set[str]:
        """Candidate pods covered by a PDB with no disruption left."""
        out: set[str] = set()
        namespaces = sorted({i.pod["metadata"].get("namespace", "default") for i in infos})
        for ns in namespaces:
            for pdb in self._h.ctx.server.list("policy/v1", "PodDisruptionBudget", ns):
                sel = selector_from_label_selector((pdb.get("spec") or {}).get("selector"))

                def matches(i: PodInfo, ns: str = ns, sel: Any = sel) -> bool:
                    meta = i.pod["metadata"]
                    return meta.get("namespace", "default") == ns and bool(
                        sel.matches(meta.get("labels") or {})
                    )

                healthy = [
                    i
                    for i in everyone
                    if matches(i) and not i.pod["metadata"].get("deletionTimestamp")
                ]
                if _allowed(pdb.get("spec") or {}, len(healthy)) <= 0:
                    out |= {i.key for i in infos if matches(i)}
        return out

    def _evict(self, preemptor: str, victims: list[_Unit]) -> None:
        server, now = self._h.ctx.server, rfc3339(self._h.ctx.clock.now())
        msg = f"{preemptor} preempted this pod"
        self._pending[preemptor] = {p.key for u in victims for p in u.pods}
        for u in victims:
            if u.group is not None:
                _mark(server, u.group, msg, now)
            for info in sorted(u.pods, key=lambda p: p.key):
                meta = info.pod["metadata"]
                latest = server.try_get("v1", "Pod", meta["name"], meta.get("namespace"))
                if latest is not None:
                    _mark(server, latest, msg, now)
                    try:
                        server.delete("v1", "Pod", meta["name"], meta.get("namespace"))
                    except ApiError:
                        pass  # already gone
            self._h.ctx.trace.record("scheduler", "Preempted", u.name.lstrip("!"), preemptor)


def _allowed(spec: Obj, healthy: int) -> int:
    def count(v: object) -> int:
        s = str(v)
        return math.ceil(healthy * int(s[:-1]) / 100) if s.endswith("%") else int(s)

    if spec.get("maxUnavailable") is not None:
        return count(spec["maxUnavailable"])
    return healthy - count(spec.get("minAvailable", 1))


def _mark(server: Any, obj: Obj, message: str, now: str) -> None:
    """Set DisruptionTarget=True (reason PreemptionByScheduler) through /status."""
    st = {**(obj.get("status") or {})}
    st["conditions"] = [dict(c) for c in st.get("conditions") or ()]
    cond = {"type": "DisruptionTarget", "status": "True", "reason": REASON, "message": message}
    if set_condition(st, cond, now):
        try:
            server.update_status({**obj, "status": st})
        except ApiError:
            pass


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return DefaultPreemption(handle, features)


_: type[PostFilterPlugin] = DefaultPreemption

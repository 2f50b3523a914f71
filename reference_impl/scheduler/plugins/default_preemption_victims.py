"""Victims for DefaultPreemption (pkg/scheduler/framework/preemption/types.go, util.go).

A pod's *victim priority* is that of the topmost group above it (``GetPodPriority``): the
root CompositePodGroup's ``spec.priority`` if the PodGroup has composite ancestors, else
the PodGroup's (0 when unset), else the pod's own. Pods are preempted together under the
*highest* ancestor (PodGroup or CompositePodGroup) whose ``disruptionMode`` is ``all``
(``getHighestAllAncestor``); every other pod is a unit of its own. Units are ranked by
``importance`` (``MoreImportantVictim``) and PDBs weighed by ``pdb_violations``
(``FilterVictimsWithPDBViolation``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.clock import parse_rfc3339
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.gang_scheduling import POD_GROUP_VERSION, group_key

__all__ = [
    "CPG_VERSION",
    "NOT_STARTED",
    "Unit",
    "importance",
    "pdb_violations",
    "resolve_preemption_policy",
    "start_time",
    "terminating_by_preemption",
    "victim_priority",
    "victim_units",
]

Obj = dict[str, Any]
CPG_VERSION: Final = "scheduling.k8s.io/v1alpha3"
_MAX_LEVELS: Final = 4  # TraverseHierarchyUp: WorkloadMaxTreeDepth entities, the PodGroup included
# GetPodStartTime: a pod without status.startTime started "now", after every recorded start.
NOT_STARTED: Final = 2**62
_RANK: Final = {"CompositePodGroup": 3, "PodGroup": 2, "Pod": 1}


@dataclass(slots=True)
class Unit:
    """Pods that are preempted together, their victim priority, the group object to
    mark (the ``all`` ancestor), if any, and the victim's key type (``Victim.Type``)."""

    name: str
    priority: int
    pods: list[PodInfo]
    group: Obj | None = None
    kind: str = "Pod"

    @property
    def start(self) -> int:
        """``EarliestStartTime``: the earliest of its pods' start times."""
        return min((start_time(p.pod) for p in self.pods), default=NOT_STARTED)


def start_time(pod: Obj) -> int:
    """``util.GetPodStartTime``: status.startTime, or ``NOT_STARTED``."""
    st = (pod.get("status") or {}).get("startTime")
    return int(parse_rfc3339(st)) if st else NOT_STARTED


def importance(u: Unit) -> tuple[int, int, int, int, str]:
    """Sort key, most important first (``MoreImportantVictim``): higher priority, then
    CompositePodGroup over PodGroup over Pod, then more pods, then the earlier start;
    the name last, where upstream's sort leaves ties unordered."""
    return (-u.priority, -_RANK.get(u.kind, 1), -len(u.pods), u.start, u.name)


def _chain(informers: InformerFactory, pod: Obj, composite: bool) -> list[tuple[str, Obj]]:
    """The pod's PodGroup and its composite ancestors, bottom-up, as (kind:key, object)."""
    gk = group_key(pod)
    pg = informers.informer(POD_GROUP_VERSION, "PodGroup").get(gk) if gk else None
    if pg is None:
        return []
    ns = pod["metadata"].get("namespace", "default")
    out: list[tuple[str, Obj]] = [(f"PodGroup:{gk}", pg)]
    parent = (pg.get("spec") or {}).get("parentCompositePodGroupName") if composite else None
    while parent and len(out) < _MAX_LEVELS:
        cpg = informers.informer(CPG_VERSION, "CompositePodGroup").get(f"{ns}/{parent}")
        if cpg is None or any(k == f"CompositePodGroup:{ns}/{parent}" for k, _ in out):
            break
        out.append((f"CompositePodGroup:{ns}/{parent}", cpg))
        parent = (cpg.get("spec") or {}).get("parentCompositePodGroupName")
    return out


def _priority(chain: list[tuple[str, Obj]], info: PodInfo) -> int:
    """``GetPodPriority``: the topmost group's spec.priority (0 when unset), else the pod's."""
    return int((chain[-1][1].get("spec") or {}).get("priority") or 0) if chain else info.priority


def victim_priority(informers: InformerFactory, info: PodInfo, *, workload: bool, composite: bool) -> int:
    """``GetPodPriority`` of one pod (nil listers: ``workload``/``composite`` off)."""
    return _priority(_chain(informers, info.pod, composite) if workload else [], info)


def resolve_preemption_policy(group: Obj, pods: list[Obj], *, group_policy: bool) -> str:
    """``resolvePreemptionPolicy`` / ``resolveCompositePreemptionPolicy``: with
    PodGroupPreemptionPolicy on, the (Composite)PodGroup's own policy (PreemptLowerPriority
    when unset); off, Never if any member pod says Never."""
    if group_policy:
        policy = (group.get("spec") or {}).get("preemptionPolicy")
        if not policy or policy == "PreemptLowerPriority":
            return "PreemptLowerPriority"
        return "Never"
    never = any((p.get("spec") or {}).get("preemptionPolicy") == "Never" for p in pods)
    return "Never" if never else "PreemptLowerPriority"


def terminating_by_preemption(pod: Obj) -> bool:
    """``PodTerminatingByPreemption``: deleting, and its first DisruptionTarget condition
    is True with reason PreemptionByScheduler."""
    if not pod["metadata"].get("deletionTimestamp"):
        return False
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "DisruptionTarget":
            return bool(c.get("status") == "True" and c.get("reason") == "PreemptionByScheduler")
    return False


def victim_units(
    informers: InformerFactory,
    nodes: Iterable[NodeInfo],
    below: int,
    *,
    workload: bool,
    composite: bool,
    exclude: frozenset[str] = frozenset(),
) -> list[Unit]:
    """Units of victim priority below ``below``, least important first; pods of the
    PodGroups in ``exclude`` (the preemptor's own) and terminating pods are left out."""
    units: dict[str, Unit] = {}
    for ni in nodes:
        for info in ni.pods.values():
            if info.pod["metadata"].get("deletionTimestamp"):
                continue
            chain = _chain(informers, info.pod, composite) if workload else []
            if chain and chain[0][0].partition(":")[2] in exclude:
                continue
            prio = _priority(chain, info)
            if prio >= below:
                continue
            top_all = [
                (k, o)
                for k, o in chain
                if "all" in ((o.get("spec") or {}).get("disruptionMode") or {})
            ]
            if top_all:
                key, obj = top_all[-1]
                kind = key.partition(":")[0]
                units.setdefault(key, Unit(key, prio, [], obj, kind)).pods.append(info)
            else:
                # NewPodVictim: a pod naming a PodGroup is of the PodGroup key type.
                grouped = workload and bool(group_key(info.pod))
                units[info.key] = Unit(info.key, prio, [info], None, "PodGroup" if grouped else "Pod")
    for u in units.values():
        u.pods.sort(key=lambda p: p.key)
    return sorted(units.values(), key=importance, reverse=True)


def pdb_violations(units: list[Unit], pdbs: list[Obj]) -> dict[str, int]:
    """``FilterVictimsWithPDBViolation``: unit name -> its pods that would take a PDB below
    its budget, spending ``status.disruptionsAllowed`` over ``units`` in the given order
    (most important first). A pod listed in ``status.disruptedPods`` spends nothing; a
    PDB with a nil or empty selector matches nothing; a pod without labels never violates."""
    left = [int((p.get("status") or {}).get("disruptionsAllowed") or 0) for p in pdbs]
    selectors = [selector_from_label_selector((p.get("spec") or {}).get("selector")) for p in pdbs]
    out: dict[str, int] = {}

    def violates(pod: Obj) -> bool:
        meta = pod["metadata"]
        labels = meta.get("labels") or {}
        if not labels:
            return False
        for i, pdb in enumerate(pdbs):
            if pdb["metadata"].get("namespace") != meta.get("namespace", "default"):
                continue
            sel = (pdb.get("spec") or {}).get("selector")
            if not sel or not (sel.get("matchLabels") or sel.get("matchExpressions")):
                continue
            if not selectors[i].matches(labels):
                continue
            if meta["name"] in ((pdb.get("status") or {}).get("disruptedPods") or {}):
                continue  # already being disrupted: the budget has paid for it
            left[i] -= 1
            if left[i] < 0:
                return True
        return False

    for u in units:
        n = sum(violates(p.pod) for p in u.pods)
        if n:
            out[u.name] = n
    return out

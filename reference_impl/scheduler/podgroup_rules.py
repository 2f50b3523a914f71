"""Pure rules of pkg/scheduler/schedule_one_podgroup.go that the pod-group cycle applies
before and after an attempt: ``validatePodGroup`` (with ``validateScheduledPods``) and
``updatePodGroupCondition``'s merge of the PodGroupInitiallyScheduled condition.

Kept free of the scheduler so the upstream tables can drive them directly.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any, Final

__all__ = [
    "INITIALLY_SCHEDULED",
    "REASON_SCHEDULER_ERROR",
    "REASON_UNSCHEDULABLE",
    "initially_scheduled_status",
    "validate_pod_group",
]

Obj = dict[str, Any]
INITIALLY_SCHEDULED: Final = "PodGroupInitiallyScheduled"
REASON_UNSCHEDULABLE: Final = "Unschedulable"
REASON_SCHEDULER_ERROR: Final = "SchedulerError"
_PREEMPT_LOWER: Final = "PreemptLowerPriority"


def _spec(obj: Obj) -> Obj:
    return obj.get("spec") or {}


def validate_pod_group(
    pods: Iterable[Obj],
    scheduled: Iterable[Obj],
    root: Obj,
    *,
    profiles: Container[str],
    preemption_policy_gate: bool,
) -> str | None:
    """``validatePodGroup``: the error message, or None when the group may be scheduled.

    ``pods`` are the popped members (every leaf group of a hierarchy), ``scheduled`` the
    members already on a node, ``root`` the root PodGroup or CompositePodGroup. Every pod
    must share the first popped pod's schedulerName, have the root's priority, and share
    one preemption policy: the root's with PodGroupPreemptionPolicy on, else the first
    pod's. The schedulerName must name a profile.
    """
    group_priority = int(_spec(root).get("priority") or 0)  # PodGroupPriority: nil reads 0
    policy = (_spec(root).get("preemptionPolicy") or _PREEMPT_LOWER) if preemption_policy_gate else ""
    name: str | None = None

    def check(pod: Obj) -> str | None:
        nonlocal policy
        spec = _spec(pod)
        sched = spec.get("schedulerName") or ""
        if sched != name:
            return (
                "all pods in a single pod group should have the same .spec.schedulerName set, "
                f'got: "{sched}" and "{name}"'
            )
        prio = int(spec.get("priority") or 0)
        if prio != group_priority:
            return (
                "all pods in a single pod group should have the same priority as the pod "
                f"group's priority, got {prio} and {group_priority}"
            )
        own = spec.get("preemptionPolicy") or _PREEMPT_LOWER
        if preemption_policy_gate:
            if own != policy:
                return (
                    "all pods in a single pod group should have the same preemption policy as "
                    f"the pod group's preemption policy, got {own} and {policy}"
                )
        elif not policy:
            policy = own  # the first pod decides
        elif own != policy:
            return (
                "all pods in a single pod group should have the same preemption policy, "
                f"got {own} and {policy}"
            )
        return None

    for pod in pods:
        if name is None:
            name = _spec(pod).get("schedulerName") or ""
        if (err := check(pod)) is not None:
            return err
    if name is None:
        name = ""  # no popped pod: already-scheduled ones are held to the empty name
    for pod in scheduled:  # validateScheduledPods
        if (err := check(pod)) is not None:
            return err
    if name not in profiles:
        return f'profile not found for scheduler name "{name}"'
    return None


def initially_scheduled_status(pg: Obj, cond: Obj, now: str) -> Obj | None:
    """``updatePodGroupCondition``: the PodGroup's status with ``cond`` merged in, or None
    when nothing changes. A True condition never goes back to False (a later cycle for
    extra pods must not regress it), though True to True takes the new reason and
    message. ObservedGeneration is the PodGroup's generation; lastTransitionTime moves
    only when the status changes (``meta.SetStatusCondition``)."""
    status = pg.get("status") or {}
    conds = [dict(c) for c in status.get("conditions") or ()]
    generation = int(pg["metadata"].get("generation") or 0)
    want = {k: v for k, v in cond.items() if k != "observedGeneration"}
    for i, old in enumerate(conds):
        if old.get("type") != want["type"]:
            continue
        if old.get("status") == "True" and want["status"] != "True":
            return None
        new = {**old, **want}
        new.pop("observedGeneration", None)
        if generation:  # 0 is omitted (omitempty)
            new["observedGeneration"] = generation
        if old.get("status") != want["status"]:
            new["lastTransitionTime"] = now
        if new == old:
            return None
        conds[i] = new
        break
    else:
        added = {**want, "lastTransitionTime": now}
        if generation:
            added["observedGeneration"] = generation
        conds.append(added)
    return {**status, "conditions": conds}

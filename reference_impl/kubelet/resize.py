"""Models the kubelet's in-place resize: pkg/kubelet/allocation (``handlePodResourcesResize``,
``canResizePod``) and the resize status of pkg/kubelet/status.

A pod's *allocated* resources are what the node admitted; its *actual* resources are what
the runtime applies. When ``spec.containers[*].resources`` (written through pods/resize)
differs from the allocation, the kubelet checks the node:

* it does not fit next to the other pods' allocations (or beyond the node's allocatable):
  ``PodResizePending`` reason ``Deferred`` (retried when a pod leaves the node); the
  handler's Infeasible cases live in ``allocation.py``;
* otherwise it is allocated at once and actuated ``actuation`` later; meanwhile the pod has
  ``PodResizeInProgress``. Containers whose changed resource has ``resizePolicy``
  ``RestartContainer`` are restarted (restartCount + 1); ``NotRequired`` is applied live.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.clock import Duration, Instant
from reference_impl.kubelet.allocation import fit_message
from reference_impl.kubelet.resize_conditions import DEFERRED, INFEASIBLE

__all__ = [
    "INFEASIBLE",
    "DEFERRED",
    "ResizeState",
    "apply_resize",
    "pod_requests",
    "reconcile",
    "retry_key",
]

Obj = dict[str, Any]
_CHECKED: Final = ("cpu", "memory")


@dataclass(slots=True)
class ResizeState:
    """Per-pod allocation bookkeeping: container name -> ``{"requests", "limits"}``."""

    allocated: dict[str, Obj]
    actual: dict[str, Obj]
    restarts: dict[str, int] = field(default_factory=dict)
    done_at: Instant | None = None
    pending: tuple[str, str] | None = None  # (reason, message) of PodResizePending
    # metadata.generation when the resize in flight was allocated: PodResizeInProgress
    # keeps it (SetPodResizeInProgressCondition) while later resizes wait.
    allocated_gen: int = 0


def desired(pod: Mapping[str, Any]) -> dict[str, Obj]:
    """What the spec asks for, per app container."""
    out: dict[str, Obj] = {}
    for c in pod["spec"].get("containers") or ():
        res = c.get("resources") or {}
        out[c["name"]] = {k: dict(res[k]) for k in ("requests", "limits") if res.get(k)}
    return out


def admitted(pod: Mapping[str, Any]) -> ResizeState:
    """The state at admission: the spec as it is when the node accepts the pod."""
    want = desired(pod)
    return ResizeState(want, {k: dict(v) for k, v in want.items()})


def _milli(resource: str, q: object) -> int:
    d = parse_quantity(q)
    if resource == "cpu":
        d *= 1000
    return int(d.to_integral_value(rounding=ROUND_CEILING))


def pod_requests(resources: Mapping[str, Obj]) -> dict[str, int]:
    """Summed cpu (milli) and memory (bytes) requests of a per-container resource map."""
    out = dict.fromkeys(_CHECKED, 0)
    for res in resources.values():
        for k, v in (res.get("requests") or {}).items():
            if k in out:
                out[k] += _milli(k, v)
    return out


def _check(want: dict[str, int], used: dict[str, int], alloc: dict[str, int]) -> tuple[str, str]:
    """``canAdmitPod`` for a resize (the predicate handler's ``fitsRequest``): ("", "")
    when the resize fits, else (reason, upstream message). In v1.37.2 a resize beyond the
    node's allocatable is Deferred like any other misfit (the apiserver's PodResizeValidator
    refuses most of those up front); cpu is checked before memory."""
    for k in _CHECKED:
        cap = alloc.get(k, 0)
        if want[k] > 0 and want[k] > cap - used[k]:
            return DEFERRED, fit_message(k, want[k], used[k], cap)
    return "", ""


def retry_key(pod: Mapping[str, Any], st: ResizeState) -> tuple[int, int, int, int, str]:
    """``sortPendingResizes`` as a sort key: resizes that do not increase cpu or memory
    requests first, then higher ``spec.priority``, then Guaranteed pods, then the longest
    pending (PodResizePending's lastTransitionTime; none last)."""
    old, new = pod_requests(st.allocated), pod_requests(desired(pod))
    increasing = new["cpu"] > old["cpu"] or new["memory"] > old["memory"]
    status = pod.get("status") or {}
    since = next(
        (
            str(c.get("lastTransitionTime", ""))
            for c in status.get("conditions") or ()
            if c.get("type") == "PodResizePending"
        ),
        None,
    )
    return (
        int(increasing),
        -int(pod["spec"].get("priority") or 0),
        int(status.get("qosClass") != "Guaranteed"),
        int(since is None),
        since or "",
    )


def _restart_needed(pod: Mapping[str, Any], name: str, old: Obj, new: Obj) -> bool:
    container = next(c for c in pod["spec"]["containers"] if c["name"] == name)
    policies = {p["resourceName"]: p["restartPolicy"] for p in container.get("resizePolicy") or ()}
    changed = {
        r
        for part in ("requests", "limits")
        for r in set(old.get(part) or {}) | set(new.get(part) or {})
        if (old.get(part) or {}).get(r) != (new.get(part) or {}).get(r)
    }
    return any(policies.get(r, "NotRequired") == "RestartContainer" for r in changed)


def reconcile(
    pod: Mapping[str, Any],
    st: ResizeState,
    used: dict[str, int],
    allocatable: dict[str, int],
    now: Instant,
    actuation: Duration,
) -> Instant | None:
    """Allocate a pending resize if it fits, finish an actuation that is due; returns the
    instant the kubelet must look again (an actuation in flight), or None."""
    want = desired(pod)
    if want != st.allocated:
        reason, message = _check(pod_requests(want), used, allocatable)
        if reason:
            st.pending = (reason, message)
        else:
            for name, res in want.items():
                if _restart_needed(pod, name, st.allocated.get(name, {}), res):
                    st.restarts[name] = st.restarts.get(name, 0) + 1
            st.allocated, st.pending = want, None
            st.allocated_gen = int(pod["metadata"].get("generation", 1))
            st.done_at = Instant(now + actuation)
    else:
        st.pending = None  # a reverted resize: ClearPodResizePendingCondition
    if st.done_at is not None and now >= st.done_at:
        st.actual = {k: dict(v) for k, v in st.allocated.items()}
        st.done_at = None
    return st.done_at


def _cond(ctype: str, gen: int, now: str, reason: str = "", message: str = "") -> Obj:
    c: Obj = {"type": ctype, "status": "True", "lastTransitionTime": now, "observedGeneration": gen}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def apply_resize(pod: Mapping[str, Any], status: Obj, st: ResizeState, now: str) -> Obj:
    """``status`` with container allocated/actual resources, restarts and resize conditions."""
    for cs in status.get("containerStatuses") or ():
        name = cs["name"]
        alloc, actual = st.allocated.get(name, {}), st.actual.get(name, {})
        cs.pop("allocatedResources", None)
        cs.pop("resources", None)
        if alloc.get("requests"):
            cs["allocatedResources"] = dict(alloc["requests"])
        if actual:
            cs["resources"] = {k: dict(v) for k, v in actual.items()}
        cs["restartCount"] = st.restarts.get(name, 0)
    gen = int(pod["metadata"].get("generation", 1))
    old = {c["type"]: c for c in (pod.get("status") or {}).get("conditions") or ()}
    conds = [
        c
        for c in status.get("conditions") or ()
        if c["type"] not in ("PodResizePending", "PodResizeInProgress")
    ]
    wanted: Iterable[Obj] = ()
    if st.pending is not None:
        wanted = [_cond("PodResizePending", gen, now, *st.pending)]
    if st.allocated != st.actual:
        wanted = [*wanted, _cond("PodResizeInProgress", st.allocated_gen or gen, now)]
    for c in wanted:
        # updatedPodResizeCondition keeps the time while the reason stays; a new
        # allocation clears InProgress first, so its time moves with the generation.
        prev = old.get(c["type"])
        if (
            prev is not None
            and prev.get("reason") == c.get("reason")
            and (c["type"] != "PodResizeInProgress" or prev.get("observedGeneration") == c["observedGeneration"])
        ):
            c["lastTransitionTime"] = prev.get("lastTransitionTime", now)
        conds.append(c)
    status["conditions"] = conds
    return status

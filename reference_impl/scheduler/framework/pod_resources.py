"""Models k8s.io/component-helpers/resource/helpers.go (``PodRequests``).

A pod's effective request is the larger of its app containers' sum (plus sidecars) and
its largest init container, then pod-level requests where set, then the RuntimeClass
overhead. In-place resize: a container counts the larger of its spec and its actual
(status) requests, or only the actual ones while the resize is infeasible.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.quantity import quantity_value

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "is_pod_resize_deferred",
    "node_allocatable_amounts",
    "node_allocatable_requests",
    "pod_requests",
    "to_int",
]

Obj = dict[str, Any]
Requests = dict[str, int]

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what scoring assumes for a
# container that requests nothing, so best-effort pods still spread.
DEFAULT_MILLI_CPU_REQUEST: Final = 100
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024
_POD_LEVEL: Final = ("cpu", "memory")


@lru_cache(maxsize=16_384)
def to_int(resource: str, quantity: str | int | float) -> int:
    """A quantity as the scheduler's integer: milli-CPU for cpu, else the value, rounded up."""
    d = parse_quantity(quantity)
    if resource == "cpu":
        d *= 1000
    return int(d.to_integral_value(rounding=ROUND_CEILING))


def _as_ints(raw: Obj | None) -> Requests:
    return {k: to_int(k, v) for k, v in (raw or {}).items()}


def _add(into: Requests, other: Requests) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max_into(into: Requests, other: Requests) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def _resize_infeasible(pod: Obj) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodResizePending" and c.get("reason") == "Infeasible":
            return True
    return False


def is_pod_resize_deferred(pod: Obj) -> bool:
    """``IsPodResizeDeferred``: the first PodResizePending condition has reason Deferred.

    As upstream, the condition's status is not read.
    """
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return bool(c.get("reason") == "Deferred")
    return False


def _container_requests(
    c: Obj, status: Obj | None, infeasible: bool, defaults: Requests | None
) -> Requests:
    req = _as_ints((c.get("resources") or {}).get("requests"))
    actual = (status or {}).get("resources") or {}
    if "requests" in actual:
        got = _as_ints(actual["requests"])
        if infeasible:
            req = got
        else:
            _max_into(req, got)
    if defaults:
        for k, v in defaults.items():
            req.setdefault(k, v)
    return req


def _statuses(pod: Obj, field: str) -> dict[str, Obj]:
    return {s["name"]: s for s in (pod.get("status") or {}).get(field) or () if "name" in s}


def node_allocatable_amounts(statuses: Sequence[Obj]) -> dict[str, Decimal]:
    """``addDRANodeAllocatableClaimResources``: what node-allocatable claim statuses add
    (DRANodeAllocatableResources): each mapping's quantity, each overhead's perPod plus
    perContainer per listed container."""
    total: dict[str, Decimal] = {}
    for st in statuses:
        for m in st.get("mapping") or ():
            if m.get("quantity") is not None:
                total[m["name"]] = total.get(m["name"], Decimal(0)) + quantity_value(m["quantity"])
        n = len(st.get("containers") or ())
        for o in st.get("overhead") or ():
            q = total.get(o["name"], Decimal(0))
            if o.get("perPod") is not None:
                q += quantity_value(o["perPod"])
            if o.get("perContainer") is not None and n:
                q += quantity_value(o["perContainer"]) * n
            total[o["name"]] = q
    return total


def node_allocatable_requests(pod: Obj) -> Requests:
    """``node_allocatable_amounts`` of the pod's ``status.nodeAllocatableResourceClaimStatuses``,
    as the scheduler's integers."""
    statuses = (pod.get("status") or {}).get("nodeAllocatableResourceClaimStatuses") or ()
    return {k: int((v * 1000 if k == "cpu" else v).to_integral_value(rounding=ROUND_CEILING))
            for k, v in node_allocatable_amounts(statuses).items()}


def pod_requests(
    pod: Obj, non_missing: Requests | None = None, *, node_allocatable: bool = False
) -> Requests:
    """The pod's effective requests; ``non_missing`` fills per-container gaps (scoring);
    ``node_allocatable`` (the DRANodeAllocatableResources gate) adds the amounts its
    node-allocatable claims recorded to the containers' total."""
    spec = pod.get("spec") or {}
    infeasible = _resize_infeasible(pod)
    app_status = _statuses(pod, "containerStatuses")
    reqs: Requests = {}
    for c in spec.get("containers") or ():
        _add(reqs, _container_requests(c, app_status.get(c["name"]), infeasible, non_missing))
    init_status = _statuses(pod, "initContainerStatuses")
    sidecars: Requests = {}
    init_max: Requests = {}
    for c in spec.get("initContainers") or ():
        one = _container_requests(c, init_status.get(c["name"]), infeasible, non_missing)
        if c.get("restartPolicy") == "Always":
            # A sidecar keeps running next to the app containers, so it adds to the sum.
            _add(reqs, one)
            _add(sidecars, one)
            one = dict(sidecars)
        else:
            _add(one, sidecars)
        _max_into(init_max, one)
    _max_into(reqs, init_max)
    if node_allocatable:  # before pod-level requests, which replace cpu and memory
        _add(reqs, node_allocatable_requests(pod))
    pod_level = _as_ints((spec.get("resources") or {}).get("requests"))
    for k, v in pod_level.items():
        # IsSupportedPodLevelResource: cpu, memory and hugepages-<size>.
        if k in _POD_LEVEL or k.startswith("hugepages-"):
            reqs[k] = v
    _add(reqs, _as_ints(spec.get("overhead")))
    return reqs

"""Models ``k8s.io/component-helpers/resource`` ``PodRequests``/``PodLimits`` with the
options the pod quota evaluator passes, and ``pkg/apis/core/v1/helper/qos.GetPodQOS``.

Unlike LimitRanger's own ``podRequests`` (``admission.limit_ranger.pod_requests``), these
read the container statuses when ``use_status`` (InPlacePodVerticalScaling: the larger of
spec, allocated and actuated resources, or only the latter two while a resize is
Infeasible), apply pod-level hugepages too, and add ``spec.overhead``. The quota evaluator
leaves InPlacePodLevelResourcesVerticalScaling and DRA node-allocatable options off.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota.resources import from_wire, q_add
from reference_impl.apiserver.quota.types import ResourceList

__all__ = [
    "aggregate_container_limits",
    "aggregate_container_requests",
    "compute_pod_qos",
    "get_pod_qos",
    "is_pod_level_requests_set",
    "is_pod_level_resources_set",
    "pod_limits",
    "pod_requests",
]

Obj = dict[str, Any]
# (container, its status or None, resize infeasible) -> the container's resource list
_Getter = Callable[[Obj, Obj | None, bool], ResourceList | None]
_POD_LEVEL: Final = ("cpu", "memory")


def _supported_pod_level(name: str) -> bool:
    """``IsSupportedPodLevelResource``."""
    return name in _POD_LEVEL or name.startswith("hugepages-")


def _pod_level(pod: Obj, part: str | None) -> bool:
    res = (pod.get("spec") or {}).get("resources")
    if not isinstance(res, dict):
        return False
    parts = ("requests", "limits") if part is None else (part,)
    return any(_supported_pod_level(k) for p in parts for k in res.get(p) or {})


def is_pod_level_resources_set(pod: Obj) -> bool:
    """``IsPodLevelResourcesSet``: a supported resource in pod-level requests or limits."""
    return _pod_level(pod, None)


def is_pod_level_requests_set(pod: Obj) -> bool:
    """``IsPodLevelRequestsSet``."""
    return _pod_level(pod, "requests")


def _add_into(into: ResourceList, more: ResourceList | None) -> None:
    """``addResourceList``."""
    for k, q in (more or {}).items():
        into[k] = q_add(into[k], q) if k in into else q


def _max_into(into: ResourceList, more: ResourceList | None) -> None:
    """``maxResourceList``."""
    for k, q in (more or {}).items():
        if k not in into or q.amount > into[k].amount:
            into[k] = q


def _max(a: ResourceList, *others: ResourceList) -> ResourceList:
    out = dict(a)
    for o in others:
        _max_into(out, o)
    return out


def _resize_infeasible(pod: Obj) -> bool:
    """``IsPodResizeInfeasible``: the first PodResizePending condition says Infeasible."""
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return bool(c.get("reason") == "Infeasible")
    return False


def _status_of(pod: Obj, name: str) -> Obj | None:
    """``findContainerStatus``: containers first, then init containers."""
    status = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses"):
        for cs in status.get(key) or ():
            if cs.get("name", "") == name:
                return cs  # type: ignore[no-any-return]
    return None


def _spec(part: str) -> _Getter:
    return lambda c, cs, infeasible: from_wire((c.get("resources") or {}).get(part))


def _allocated(c: Obj, cs: Obj | None, infeasible: bool) -> ResourceList | None:
    """``containerAllocatedRequests``."""
    if cs is not None and isinstance(cs.get("allocatedResources"), dict):
        return from_wire(cs["allocatedResources"])
    return None if infeasible else from_wire((c.get("resources") or {}).get("requests"))


def _actuated(part: str) -> _Getter:
    """``containerActuatedRequests``/``containerActuatedLimits``."""

    def get(c: Obj, cs: Obj | None, infeasible: bool) -> ResourceList | None:
        res = (cs or {}).get("resources")
        if isinstance(res, dict) and isinstance(res.get(part), dict):
            return from_wire(res[part])
        if part == "requests" and cs is not None and isinstance(cs.get("allocatedResources"), dict):
            return from_wire(cs["allocatedResources"])
        return None if infeasible else from_wire((c.get("resources") or {}).get(part))

    return get


def _aggregate(pod: Obj, use_status: bool, get: _Getter) -> ResourceList:
    """``aggregateContainerResourcesByFn``: containers and sidecars summed, each init
    container on top of the sidecars before it, the larger of the two."""
    spec = pod.get("spec") or {}
    infeasible = use_status and _resize_infeasible(pod)

    def one(c: Obj) -> ResourceList | None:
        cs = _status_of(pod, c.get("name", "")) if use_status else None
        return get(c, cs, infeasible)

    total: ResourceList = {}
    for c in spec.get("containers") or ():
        _add_into(total, one(c))
    sidecars: ResourceList = {}
    init: ResourceList = {}
    for c in spec.get("initContainers") or ():
        own = one(c)
        if c.get("restartPolicy") == "Always":
            _add_into(total, own)
            _add_into(sidecars, own)
            step = dict(sidecars)
        else:
            step = {}
            _add_into(step, own)
            _add_into(step, sidecars)
        _max_into(init, step)
    _max_into(total, init)
    return total


def aggregate_container_requests(pod: Obj) -> ResourceList:
    """``AggregateContainerRequests`` without options: the containers' spec requests."""
    return _aggregate(pod, False, _spec("requests"))


def aggregate_container_limits(pod: Obj) -> ResourceList:
    """``AggregateContainerLimits`` without options: the containers' spec limits."""
    return _aggregate(pod, False, _spec("limits"))


def pod_requests(pod: Obj, *, use_status: bool, pod_level: bool) -> ResourceList:
    """``PodRequests`` (``UseStatusResources``, ``!SkipPodLevelResources``), overhead in."""
    spec_reqs = _aggregate(pod, use_status, _spec("requests"))
    if use_status:
        allocated = _aggregate(pod, True, _allocated)
        actuated = _aggregate(pod, True, _actuated("requests"))
        if _resize_infeasible(pod):
            reqs = _max(actuated, allocated)
        else:
            reqs = _max(spec_reqs, actuated, allocated)
    else:
        reqs = spec_reqs
    if pod_level and is_pod_level_requests_set(pod):
        pod_reqs = from_wire(pod["spec"]["resources"].get("requests"))
        reqs.update({k: q for k, q in pod_reqs.items() if _supported_pod_level(k)})
    _add_into(reqs, from_wire((pod.get("spec") or {}).get("overhead")))
    return reqs


def pod_limits(pod: Obj, *, use_status: bool, pod_level: bool) -> ResourceList:
    """``PodLimits``: overhead added only to limits that are set and non-zero."""
    limits = _aggregate(pod, use_status, _spec("limits"))
    if use_status:
        actuated = _aggregate(pod, True, _actuated("limits"))
        limits = actuated if _resize_infeasible(pod) else _max(limits, actuated)
    if pod_level and is_pod_level_resources_set(pod):
        pod_lims = from_wire(pod["spec"]["resources"].get("limits"))
        limits.update({k: q for k, q in pod_lims.items() if _supported_pod_level(k)})
    for k, q in from_wire((pod.get("spec") or {}).get("overhead")).items():
        if k in limits and limits[k].amount != 0:
            limits[k] = q_add(limits[k], q)
    return limits


def _requirements_qos(res: Obj) -> str:
    """``requirementsQOS``: per cpu and memory, request == limit (absent = zero) is
    BestEffort at zero, Guaranteed otherwise; unequal is Burstable; mixed is Burstable."""
    if not (res.get("requests") or res.get("limits")):
        return "BestEffort"
    req, lim = from_wire(res.get("requests")), from_wire(res.get("limits"))
    zero = Quantity.of("0")
    seen = set()
    for name in ("cpu", "memory"):
        r, li = req.get(name, zero).amount, lim.get(name, zero).amount
        seen.add("Burstable" if r != li else "BestEffort" if r == 0 else "Guaranteed")
    return seen.pop() if len(seen) == 1 else "Burstable"


def compute_pod_qos(pod: Obj, *, pod_level: bool, fix_kubelet_qos: bool) -> str:
    """``ComputePodQOS``: pod-level resources decide when set (PodLevelResources on;
    with PodLevelResourcesFixKubeletQOSClass, only when a supported one is set), else
    the containers' classes (init first) agree or the pod is Burstable."""
    spec = pod.get("spec") or {}
    pod_res = spec.get("resources")
    if pod_level and isinstance(pod_res, dict):
        if not fix_kubelet_qos or is_pod_level_resources_set(pod):
            return _requirements_qos(pod_res)
    qos = ""
    for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        one = _requirements_qos(c.get("resources") or {})
        if one == "Burstable" or (qos and qos != one):
            return "Burstable"
        qos = one
    return qos or "BestEffort"


def get_pod_qos(pod: Obj, *, pod_level: bool, fix_kubelet_qos: bool) -> str:
    """``GetPodQOS``: ``status.qosClass`` when set, else computed."""
    stored = (pod.get("status") or {}).get("qosClass")
    if stored:
        return str(stored)
    return compute_pod_qos(pod, pod_level=pod_level, fix_kubelet_qos=fix_kubelet_qos)

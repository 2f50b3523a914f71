"""Pod-level resource defaulting: ``podutil.DefaultPodLevelResources``
(``pkg/api/pod/util.go``), which PrepareForCreate (``core.prepare_pod_qos``) and the
resize strategy apply."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.quota.pod_resources import (
    aggregate_container_limits,
    aggregate_container_requests,
)
from reference_impl.apiserver.quota.resources import from_wire
from reference_impl.features import FeatureGates

__all__ = ["default_pod_level_resources"]

Obj = dict[str, Any]


def _supported(name: str) -> bool:
    """``IsSupportedPodLevelResource``."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _all_limit(spec: Obj, name: str) -> bool:
    """Every container, init and sidecar included, sets a limit for ``name``."""
    containers = [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]
    return all(name in ((c.get("resources") or {}).get("limits") or {}) for c in containers)


def _default_requests(spec: Obj, res: Obj) -> None:
    """``defaultPodLevelRequests``: the containers' aggregate cpu and memory requests,
    then the pod-level limits, where no request is set."""
    reqs = dict(res.get("requests") or {})
    for name, q in aggregate_container_requests({"spec": spec}).items():
        if name not in reqs and name in ("cpu", "memory"):
            reqs[name] = str(q)
    for name, v in (res.get("limits") or {}).items():
        if name not in reqs and _supported(name):
            reqs[name] = v
    if reqs:
        res["requests"] = reqs


def _default_limits(spec: Obj, res: Obj) -> None:
    """``defaultPodLevelLimits``: a requested resource without a pod limit gets the larger
    of its request and the containers' aggregate limit, when every container has one."""
    limits = res.get("limits") or {}
    todo = [n for n in res.get("requests") or {} if _supported(n) and n not in limits]
    todo = [n for n in todo if _all_limit(spec, n)]
    if not todo:
        return
    aggr = aggregate_container_limits({"spec": spec})
    reqs = from_wire(res.get("requests"))
    for name in todo:
        if name in aggr:
            best = max(aggr[name], reqs[name], key=lambda q: q.amount) if name in reqs else aggr[name]
            res.setdefault("limits", {})[name] = str(best)


def _default_hugepages(spec: Obj, res: Obj) -> None:
    """``defaultHugePagePodLevelLimits``: hugepages limits from the containers' aggregate."""
    lims = dict(res.get("limits") or {})
    for name, q in aggregate_container_limits({"spec": spec}).items():
        if name.startswith("hugepages-") and name not in (res.get("requests") or {}):
            lims.setdefault(name, str(q))
    if lims:
        res["limits"] = lims


def default_pod_level_resources(spec: Obj, gates: FeatureGates) -> None:
    """Fill pod-level requests and limits in place, when some are set."""
    res = spec.get("resources")  # first: most pods have none
    if not isinstance(res, dict) or not (res.get("requests") or res.get("limits")):
        return
    if not (gates.enabled("PodLevelResources") and gates.enabled("PodLevelResourcesFixDefaulting")):
        return
    _default_hugepages(spec, res)
    _default_requests(spec, res)
    _default_limits(spec, res)

"""Models ``pkg/quota/v1/evaluator/core/services.go``: the service evaluator.

A service is charged ``count/services`` and ``services``; a NodePort service one
``services.nodeports`` per port; a LoadBalancer one ``services.loadbalancers`` and, unless
``allocateLoadBalancerNodePorts`` is false (then only ports with an explicit node port),
a node port per port. Creates and updates are handled (the type can change).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota import generic
from reference_impl.apiserver.quota.resources import ZERO, intersection
from reference_impl.apiserver.quota.types import Env, ResourceList, UsageStatsOptions
from reference_impl.apiserver.registry import Operation

__all__ = ["SERVICE_OBJECT_COUNT", "ServiceEvaluator", "quota_service_type", "service_usage"]

Obj = dict[str, Any]
SERVICE_OBJECT_COUNT: Final = "count/services"
_SERVICE_RESOURCES: Final = (
    SERVICE_OBJECT_COUNT,
    "services",
    "services.nodeports",
    "services.loadbalancers",
)


def _count(n: int) -> Quantity:
    return Quantity(Decimal(n), "DecimalSI")


def service_usage(svc: Obj) -> ResourceList:
    """``serviceEvaluator.Usage``."""
    spec = svc.get("spec") or {}
    ports = spec.get("ports") or []
    out: ResourceList = {
        SERVICE_OBJECT_COUNT: generic.ONE,
        "services": generic.ONE,
        "services.loadbalancers": ZERO,
        "services.nodeports": ZERO,
    }
    kind = spec.get("type")
    if kind == "NodePort":
        out["services.nodeports"] = _count(len(ports))
    elif kind == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is False:
            out["services.nodeports"] = _count(sum(1 for p in ports if p.get("nodePort")))
        else:
            out["services.nodeports"] = _count(len(ports))
        out["services.loadbalancers"] = generic.ONE
    return out


def quota_service_type(svc: Obj) -> str:
    """``GetQuotaServiceType``: NodePort or LoadBalancer, else ``""``."""
    kind = (svc.get("spec") or {}).get("type")
    return kind if kind in ("NodePort", "LoadBalancer") else ""


@dataclass(frozen=True)
class ServiceEvaluator:
    """``serviceEvaluator``."""

    env: Env
    group_resource: str = "services"

    def constraints(self, required: Sequence[str], obj: Obj) -> str | None:
        return None

    def handles(self, operation: Operation, subresource: str, obj: Obj, old: Obj | None) -> bool:
        return not subresource and operation in (Operation.CREATE, Operation.UPDATE)

    def matches(self, quota: Obj, obj: Obj) -> bool:
        return generic.matches(quota, obj, self.matching_resources, generic.matches_no_scope)

    def matching_resources(self, names: Sequence[str]) -> list[str]:
        return intersection(names, _SERVICE_RESOURCES)

    def matching_scopes(self, obj: Obj, selectors: Sequence[Obj]) -> list[Obj]:
        return []

    def uncovered_quota_scopes(self, limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
        return []

    def usage(self, obj: Obj) -> ResourceList:
        return service_usage(obj)

    def usage_stats(self, options: UsageStatsOptions) -> ResourceList:
        items = self.env.ctx.list("v1", "Service", options.namespace)
        return generic.calculate_usage_stats(options, items, generic.matches_no_scope, self.usage)

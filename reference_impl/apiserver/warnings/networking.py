"""The networking strategies' warnings: NetworkPolicy's ``networkPolicyWarnings`` and
Ingress's deprecated class annotation and status IPs (``pkg/registry/networking/
{networkpolicy,ingress}/strategy.go``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.util import cidr_warnings, ip_warnings

__all__ = ["ingress_status_warnings", "ingress_warnings", "network_policy_warnings"]

Obj = dict[str, Any]

_INGRESS_CLASS: Final = "kubernetes.io/ingress.class"


@warner("NetworkPolicy")
def network_policy_warnings(np: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """Non-standard ipBlock CIDRs, ingress rules first."""
    spec = np.get("spec") or {}
    out: list[str] = []
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(spec.get(direction) or ()):
            for j, peer in enumerate(rule.get(peers) or ()):
                block = peer.get("ipBlock")
                if block is None:
                    continue
                at = f"spec.{direction}[{i}].{peers}[{j}].ipBlock"
                out += cidr_warnings(f"{at}.cidr", block.get("cidr", ""))
                for k, cidr in enumerate(block.get("except") or ()):
                    out += cidr_warnings(f"{at}.except[{k}]", cidr)
    return out


@warner("Ingress")
def ingress_warnings(ing: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """On create only: the class annotation without spec.ingressClassName."""
    if old is None and _INGRESS_CLASS in (ing["metadata"].get("annotations") or {}) and (
        (ing.get("spec") or {}).get("ingressClassName") is None
    ):
        return [f'annotation "{_INGRESS_CLASS}" is deprecated, please use \'spec.ingressClassName\' instead']
    return []


@warner("Ingress", status=True)
def ingress_status_warnings(ing: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """Non-standard load-balancer ingress IPs."""
    ingress = ((ing.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    out: list[str] = []
    for i, item in enumerate(ingress):
        if item.get("ip"):
            out += ip_warnings(f"status.loadBalancer.ingress[{i}]", item["ip"])
    return out

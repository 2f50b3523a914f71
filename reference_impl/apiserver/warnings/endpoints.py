"""The Endpoints and EndpointSlice strategies' warnings (``pkg/registry/core/endpoint`` and
``pkg/registry/discovery/endpointslice/strategy.go``): non-standard IPs, skipped for the
controllers' own objects, and (EndpointSlice create) the deprecated FQDN address type."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.util import ip_warnings

__all__ = ["endpoint_slice_warnings", "endpoints_warnings"]

Obj = dict[str, Any]

_EP_MANAGED_BY: Final = "endpoints.kubernetes.io/managed-by"
_SLICE_MANAGED_BY: Final = "endpointslice.kubernetes.io/managed-by"
_SLICE_CONTROLLERS: Final = ("endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io")


@warner("Endpoints")
def endpoints_warnings(ep: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``endpointsWarnings``."""
    if (ep["metadata"].get("labels") or {}).get(_EP_MANAGED_BY) == "endpoint-controller":
        return []
    out: list[str] = []
    for i, subset in enumerate(ep.get("subsets") or ()):
        for field in ("addresses", "notReadyAddresses"):
            for j, addr in enumerate(subset.get(field) or ()):
                out += ip_warnings(f"subsets[{i}].{field}[{j}].ip", addr.get("ip", ""))
    return out


@warner("EndpointSlice")
def endpoint_slice_warnings(eps: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``warnOnDeprecatedAddressType`` (create only), then ``warnOnBadIPs``."""
    out = []
    if old is None and eps.get("addressType") == "FQDN":
        out.append("spec.addressType: FQDN endpoints are deprecated")
    if (eps["metadata"].get("labels") or {}).get(_SLICE_MANAGED_BY) in _SLICE_CONTROLLERS:
        return out
    for i, endpoint in enumerate(eps.get("endpoints") or ()):
        for j, addr in enumerate(endpoint.get("addresses") or ()):
            out += ip_warnings(f"endpoints[{i}].addresses[{j}]", addr)
    return out

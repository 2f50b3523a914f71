"""Service health-check node port (1.37.2): the allocator's step in the service REST
(``pkg/registry/core/service/storage/alloc.go``: ``allocHealthCheckNodePort``,
``updateHealthCheckNodePort``), the strategy's wipe on a type change
(``dropTypeDependentFields``), the storage's keep-the-old-port patch, and
``validateServiceExternalTrafficPolicy``'s port half with its update rule.

A dry-run allocation never checks the port range (``PortAllocationOperation.Allocate``),
so neither does the reference: a requested port is refused only when another Service
holds it. The reference keeps no node-port bitmap; the stored Services are it."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.strategies.pod_containers import port_number_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import ApiError, Cause

__all__ = ["needs_health_check"]

Obj = dict[str, Any]
_FIRST_NODE_PORT: Final = 30000  # kube-apiserver's default --service-node-port-range
_LAST_NODE_PORT: Final = 32767
_HCNP: Final = "spec.healthCheckNodePort"


def needs_health_check(svc: Obj | None) -> bool:
    """``service.NeedsHealthCheck``: a LoadBalancer with externalTrafficPolicy Local."""
    spec = (svc or {}).get("spec")
    if not isinstance(spec, dict):
        return False
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _hcnp(svc: Obj | None) -> int:
    spec = (svc or {}).get("spec")
    value = spec.get("healthCheckNodePort") if isinstance(spec, dict) else None
    return value if isinstance(value, int) else 0


def _ports_in_use(ctx: Context, me: Obj) -> set[int]:
    """Node ports and health-check ports that other stored Services hold."""
    meta = me.get("metadata") or {}
    used: set[int] = set()
    for other in ctx.list("v1", "Service", None):
        ometa = other.get("metadata") or {}
        if (ometa.get("namespace"), ometa.get("name")) == (meta.get("namespace"), meta.get("name")):
            continue
        spec = other.get("spec") or {}
        used.add(_hcnp(other))
        used.update(p.get("nodePort") or 0 for p in spec.get("ports") or [] if isinstance(p, dict))
    used.discard(0)
    return used


def _allocate(svc: Obj, ctx: Context) -> None:
    """``allocHealthCheckNodePort``: reserve the requested port, or take a free one."""
    used = _ports_in_use(ctx, svc)
    spec = svc["spec"]
    port = _hcnp(svc)
    if port:
        if port in used:
            raise ApiError(
                f"failed to allocate requested HealthCheck NodePort {port}: provided port is already allocated"
            )
        return
    for candidate in range(_FIRST_NODE_PORT, _LAST_NODE_PORT + 1):
        if candidate not in used:
            spec["healthCheckNodePort"] = candidate
            return
    raise ApiError("failed to allocate a HealthCheck NodePort 0: range is full")


@preparer("Service")
def prepare_health_check_node_port(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The strategy's wipe, then the allocator's transition, then the storage's patch."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    needed, needs = needs_health_check(old), needs_health_check(svc)
    if old is not None and needed and not needs and _hcnp(svc) == _hcnp(old):
        spec.pop("healthCheckNodePort", None)  # dropTypeDependentFields: released later
    if needs and not needed:
        _allocate(svc, ctx)
    elif needs and needed and not _hcnp(svc):
        spec["healthCheckNodePort"] = _hcnp(old)  # patchAllocatedValues keeps the old port


@validator("Service")
def validate_health_check_node_port(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateServiceExternalTrafficPolicy``'s health-check half, and
    ``validateServiceExternalTrafficFieldsUpdate``."""
    port = _hcnp(svc)
    causes: list[Cause] = []
    if not needs_health_check(svc):
        if port:
            causes.append(
                fe.invalid(
                    _HCNP,
                    port,
                    "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
                )
            )
    elif not port:
        causes.append(fe.required(_HCNP))
    else:
        causes += [fe.invalid(_HCNP, port, e) for e in port_number_errors(port)]
    if (
        old is not None
        and needs_health_check(old)
        and needs_health_check(svc)
        and port != _hcnp(old)
    ):
        causes.append(fe.forbidden(_HCNP, "field is immutable"))
    return causes

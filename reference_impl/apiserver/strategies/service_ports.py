"""Service health-check node port (1.37.2): the allocator's step in the service REST
(``pkg/registry/core/service/storage/alloc.go``: ``allocHealthCheckNodePort``,
``updateHealthCheckNodePort``), the strategy's wipe on a type change
(``dropTypeDependentFields``), the storage's keep-the-old-port patch, and
``validateServiceExternalTrafficPolicy``'s port half with its update rule.

On create, ``initNodePorts`` runs first: requested node ports are reserved and missing
ones filled (node ports on update are left as sent). A dry-run allocation never checks
the port range (``PortAllocationOperation.Allocate``), so neither does the reference: a
requested port is refused only when another Service, or an earlier port of the same one,
holds it. The reference keeps no node-port bitmap; the stored Services are it."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.strategies.pod_containers import port_number_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import ApiError, Cause, Invalid

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


def _next_free(used: set[int]) -> int:
    for candidate in range(_FIRST_NODE_PORT, _LAST_NODE_PORT + 1):
        if candidate not in used:
            used.add(candidate)
            return candidate
    raise ApiError("failed to allocate a nodePort: range is full")


def _allocate(svc: Obj, used: set[int]) -> None:
    """``allocHealthCheckNodePort``: reserve the requested port, or take a free one."""
    spec = svc["spec"]
    port = _hcnp(svc)
    if port:
        if port in used:
            raise ApiError(
                f"failed to allocate requested HealthCheck NodePort {port}: provided port is already allocated"
            )
        used.add(port)
        return
    spec["healthCheckNodePort"] = _next_free(used)


def _taken(svc: Obj, i: int, port: int) -> Invalid:
    msg = "provided port is already allocated"
    name = str((svc.get("metadata") or {}).get("name", ""))
    return Invalid("Service", name, [fe.invalid(f"spec.ports[{i}].nodePort", port, msg)])


def _init_node_ports(svc: Obj, used: set[int]) -> None:
    """``initNodePorts`` (create): requested node ports are reserved (one taken is
    answered alone, before validation); the rest get free ones when the type allocates."""
    spec = svc["spec"]
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    allocates = (
        spec.get("type") == "NodePort" or spec.get("allocateLoadBalancerNodePorts") is not False
    )
    by_port: dict[Any, int] = {}
    for i, sp in enumerate(ports):
        wanted = sp.get("nodePort") or 0
        if not wanted and not allocates:
            continue
        have = by_port.get(sp.get("port"), 0)
        if not have:
            # findRequestedNodePort: the first node port asked for this port number
            req = next(
                (
                    p.get("nodePort")
                    for p in ports
                    if p.get("port") == sp.get("port") and p.get("nodePort")
                ),
                0,
            )
            if req:
                if req in used:
                    raise _taken(svc, i, req)
                used.add(req)
            sp["nodePort"] = req or _next_free(used)
            by_port[sp.get("port")] = sp["nodePort"]
        elif wanted != have:
            if not wanted:
                sp["nodePort"] = have
            elif wanted in used:
                raise _taken(svc, i, wanted)
            else:
                used.add(wanted)


@preparer("Service")
def prepare_health_check_node_port(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The strategy's wipe, then the allocator's transition, then the storage's patch."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    needed, needs = needs_health_check(old), needs_health_check(svc)
    used = _ports_in_use(ctx, svc) if needs or old is None else set()
    if old is None and spec.get("type") in ("NodePort", "LoadBalancer"):
        _init_node_ports(svc, used)
    if old is not None and needed and not needs and _hcnp(svc) == _hcnp(old):
        spec.pop("healthCheckNodePort", None)  # dropTypeDependentFields: released later
    if needs and not needed:
        _allocate(svc, used)
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

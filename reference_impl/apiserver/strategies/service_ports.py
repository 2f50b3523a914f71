"""Service node ports and health-check node port (1.37.2): the allocator's steps in the
service REST (``pkg/registry/core/service/storage/alloc.go``: ``initNodePorts``,
``updateNodePorts``, ``allocHealthCheckNodePort``, ``updateHealthCheckNodePort``), the
storage's ``patchAllocatedValues`` for ports, the strategy's wipe on a type change
(``dropTypeDependentFields``), and ``validateServiceExternalTrafficPolicy``'s port half
with its update rule.

Requested node ports are reserved and missing ones filled, on create and on update (an
update may keep the ports its old version holds). A dry-run allocation never checks the
port range (``PortAllocationOperation.Allocate``), so neither does the reference: a
requested port is refused only when another Service, or an earlier port of the same one,
holds it. The reference keeps no node-port bitmap; the stored Services are it, so a write
that drops a port releases it. A dynamic port comes from above the static band first
(``randomScanStrategyWithOffset``), lowest first where upstream starts at random."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.strategies.pod_containers import port_number_errors
from reference_impl.apiserver.strategies.service_dry_run import DryRunPorts
from reference_impl.apiserver.strategies.service_ips_alloc import dynamic_order, range_offset
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import ApiError, Cause, Invalid

__all__ = ["needs_health_check", "patch_allocated_ports"]

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


def _ports_held(svc: Obj | None) -> set[int]:
    """The node ports and health-check port a stored Service holds."""
    spec = (svc or {}).get("spec") or {}
    held = {p.get("nodePort") or 0 for p in spec.get("ports") or [] if isinstance(p, dict)}
    held.add(_hcnp(svc))
    held.discard(0)
    return held


def _ports_in_use(ctx: Context, me: Obj) -> set[int]:
    """Node ports and health-check ports that other stored Services hold (read from the
    lister: decoded once per stored revision, not once per write)."""
    meta = me.get("metadata") or {}
    used: set[int] = set()
    for other in ctx.lister_list("v1", "Service", None):
        ometa = other.get("metadata") or {}
        if (ometa.get("namespace"), ometa.get("name")) != (meta.get("namespace"), meta.get("name")):
            used |= _ports_held(other)
    return used


# portallocator calculateRangeOffset (min 16, max 128, step 32): dynamic ports come from
# above the offset first, leaving the bottom of the range to requested ports.
_ORDER: Final = dynamic_order(
    _FIRST_NODE_PORT,
    _LAST_NODE_PORT,
    range_offset(_LAST_NODE_PORT - _FIRST_NODE_PORT + 1, 16, 128, 32),
)


def _next_free(used: set[int], what: str = "a nodePort") -> int:
    """``AllocateNext``: the first free port in the dynamic order."""
    if isinstance(used, DryRunPorts):
        return used.allocate_next()
    for candidate in _ORDER:
        if candidate not in used:
            used.add(candidate)
            return candidate
    raise ApiError(f"Internal error occurred: failed to allocate {what}: range is full")


def _allocate(svc: Obj, used: set[int]) -> None:
    """``allocHealthCheckNodePort``: reserve the requested port, or take a free one."""
    spec = svc["spec"]
    port = _hcnp(svc)
    if port:
        if port in used:
            raise ApiError(
                "Internal error occurred: failed to allocate requested HealthCheck NodePort "
                f"{port}: provided port is already allocated"
            )
        used.add(port)
        return
    spec["healthCheckNodePort"] = _next_free(used, "a HealthCheck NodePort 0")  # Go prints the 0


def _taken(svc: Obj, i: int, port: int) -> Invalid:
    msg = "provided port is already allocated"
    name = str((svc.get("metadata") or {}).get("name", ""))
    return Invalid("Service", name, [fe.invalid(f"spec.ports[{i}].nodePort", port, msg)])


def _allocates(spec: Obj) -> bool:
    """``shouldAllocateNodePorts``."""
    kind = spec.get("type")
    return kind == "NodePort" or (
        kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False
    )


def _init_node_ports(svc: Obj, used: set[int]) -> None:
    """``initNodePorts`` (create): requested node ports are reserved (one taken is
    answered alone, before validation); the rest get free ones when the type allocates."""
    spec = svc["spec"]
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    allocates = _allocates(spec)
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


def patch_allocated_ports(spec: Obj, ospec: Obj) -> None:
    """``patchAllocatedValues``' port half: while both types need node ports, a port the
    update sent without one keeps the one the old port of that name had (unless another
    new port already uses it); while both need a health check, its port is kept."""
    if _allocates(ospec) and _allocates(spec):
        old_ports = [p for p in ospec.get("ports") or [] if isinstance(p, dict)]
        new_ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
        taken = {p.get("nodePort") for p in new_ports if p.get("nodePort")}
        taken &= {p.get("nodePort") for p in old_ports if p.get("nodePort")}
        by_name = {p.get("name") or "": p.get("nodePort") or 0 for p in old_ports}
        for p in new_ports:
            old = by_name.get(p.get("name") or "", 0)
            if not p.get("nodePort") and old and old not in taken:
                p["nodePort"] = old
    both = needs_health_check({"spec": ospec}) and needs_health_check({"spec": spec})
    if both and not spec.get("healthCheckNodePort") and _hcnp({"spec": ospec}):
        spec["healthCheckNodePort"] = _hcnp({"spec": ospec})


def _update_node_ports(svc: Obj, old: Obj, used: set[int]) -> None:
    """``updateNodePorts``: requested ports the old Service did not hold are reserved,
    missing ones are allocated when the type allocates; a protocol and port twice is an
    error."""
    spec = svc["spec"]
    held = {p.get("nodePort") for p in (old.get("spec") or {}).get("ports") or [] if isinstance(p, dict)}
    allocates = _allocates(spec)
    seen: set[tuple[Any, int]] = set()
    reserved: set[int] = set()  # portAllocated: requested ports reserved by this update
    for i, sp in enumerate(p for p in spec.get("ports") or [] if isinstance(p, dict)):
        port = sp.get("nodePort") or 0
        if not port and not allocates:
            continue
        if not port:
            port = sp["nodePort"] = _next_free(used)
        elif port not in held and port not in reserved:
            if port in used:
                raise _taken(svc, i, port)
            used.add(port)
            reserved.add(port)
        key = (sp.get("protocol") or "TCP", port)
        if key in seen:
            raise ApiError(f"duplicate nodePort: {{{key[0]} {port}}}")
        seen.add(key)


@preparer("Service")
def prepare_health_check_node_port(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The storage's ``patchAllocatedValues`` for ports, then ``txnAllocNodePorts`` (create)
    or ``txnUpdateNodePorts`` (update); ports a write drops are released with it, the
    stored Services being the allocator's state. The strategy's wipe of a health-check
    port the new type does not use comes after (``dropTypeDependentFields``)."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    ospec = (old or {}).get("spec") or {}
    node_type = spec.get("type") in ("NodePort", "LoadBalancer")
    if old is not None:
        patch_allocated_ports(spec, ospec)
    needed, needs = needs_health_check(old), needs_health_check(svc)
    # An update's new ports may not take what the old version still holds.
    used = _ports_in_use(ctx, svc) | _ports_held(old)
    if ctx.dry_run:
        used = DryRunPorts(used)
    if old is None and node_type:
        _init_node_ports(svc, used)
    elif old is not None and node_type:
        _update_node_ports(svc, old, used)
    if needs and not needed:
        _allocate(svc, used)
    if old is not None and needed and not needs and _hcnp(svc) == _hcnp(old):
        spec.pop("healthCheckNodePort", None)  # dropTypeDependentFields


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

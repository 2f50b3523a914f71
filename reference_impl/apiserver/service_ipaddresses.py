"""The Service REST's IPAddress writes: ``ipallocator.Allocator``'s ``createIPAddress``
and ``Release`` (``pkg/registry/core/service/ipallocator/ipallocator.go``) as the service
storage's ``allocateCreate``/``allocateUpdate`` and ``releaseAllocatedResources``
(``pkg/registry/core/service/storage/alloc.go``) call them.

The allocation is decided before the Service is stored (``strategies.service_ips_alloc``
over the IPAddress objects); the objects are written once the write is stored, from an
apiserver event handler, so an address the write refused takes nothing to undo (upstream
creates first and reverts on failure). A Service that is gone, or that dropped an address
(a downgrade to single-stack, a change to ExternalName), deletes those IPAddresses.
Their uids come from a stream of their own, so the objects' uids elsewhere stay as they
were.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from reference_impl.apiserver.strategies.service_cidr_alloc import (
    IPADDRESS_FAMILY_LABEL,
    IPADDRESS_MANAGED_BY_LABEL,
    IPALLOCATOR_NAME,
    NETWORKING_V1,
)
from reference_impl.apiserver.validation.ip_formats import go_ip_string
from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.errors import AlreadyExists, ApiError, NotFound
from reference_impl.rng import Rng

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["install", "ip_address", "own_uids", "service_ips"]

Obj = dict[str, Any]


def _canonical(ip: str) -> str | None:
    """An address as ``net.IP.String()`` prints it (an IPv4-mapped one in IPv4 form);
    None for "None", "" and what does not parse."""
    try:
        return go_ip_string(ipaddress.ip_address(ip))
    except ValueError:
        return None


def service_ips(svc: Obj | None) -> list[str]:
    """The addresses a Service holds (``spec.clusterIPs``), canonical."""
    spec = (svc or {}).get("spec") or {}
    out = [_canonical(str(ip)) for ip in spec.get("clusterIPs") or []]
    return [ip for ip in out if ip]


def ip_address(ip: str, svc: Obj) -> Obj:
    """``createIPAddress``'s object: named after the address, labelled with its family and
    the allocator, its parentRef the Service (``serviceToRef``)."""
    meta = svc.get("metadata") or {}
    family = "IPv4" if ipaddress.ip_address(ip).version == 4 else "IPv6"
    return {
        "apiVersion": NETWORKING_V1,
        "kind": "IPAddress",
        "metadata": {
            "name": ip,
            "labels": {
                IPADDRESS_FAMILY_LABEL: family,
                IPADDRESS_MANAGED_BY_LABEL: IPALLOCATOR_NAME,
            },
        },
        "spec": {
            "parentRef": {
                "resource": "services",
                "namespace": str(meta.get("namespace", "")),
                "name": str(meta.get("name", "")),
            }
        },
    }


@contextmanager
def own_uids(srv: APIServer, rng: Rng) -> Iterator[None]:
    """Draw the nested writes' uids from ``rng`` (the apiserver's own stream is left)."""
    saved = srv._rng
    srv._rng = rng
    try:
        yield
    finally:
        srv._rng = saved


def _allocate(srv: APIServer, ips: list[str], svc: Obj) -> None:
    for ip in ips:
        if srv.try_get(NETWORKING_V1, "IPAddress", ip) is not None:
            continue  # held already (the allocation checked whose)
        try:
            srv.create(ip_address(ip, svc))
        except AlreadyExists:
            continue
        except ApiError:
            continue  # upstream's Create error refuses the write; here it stays unheld


def _release(srv: APIServer, ips: list[str]) -> None:
    """``Release``: delete the IPAddress whatever holds it; errors are ignored."""
    for ip in ips:
        try:
            srv.delete(NETWORKING_V1, "IPAddress", ip)
        except NotFound:
            continue


def install(srv: APIServer) -> None:
    """Write and delete the IPAddresses of each stored Service's cluster IPs."""
    uids = srv.rng_stream("ipallocator")

    def on_event(ev: ObjectEvent) -> None:
        if ev.info.kind != "Service" or ev.info.group:
            return
        new = [] if ev.type == "DELETED" else service_ips(ev.obj)
        old = service_ips(ev.obj if ev.type == "DELETED" else ev.old)
        gone, wanted = [ip for ip in old if ip not in new], [ip for ip in new if ip not in old]
        if not gone and not wanted:
            return
        with own_uids(srv, uids):
            _release(srv, gone)
            _allocate(srv, wanted, ev.obj)

    srv.add_event_handler(on_event)

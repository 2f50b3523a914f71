"""Helpers for the ipallocator ports: an ``APIServer`` whose ServiceCIDRs the test makes
(``newTestAllocator``/``newTestMetaAllocator``: no "kubernetes" one), the allocator's
calls over it (``Allocator``), and the same through Service creates; ``used`` lists the
allocator's IPAddress objects."""

from __future__ import annotations

import itertools

from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.service_ipaddresses import ip_address
from reference_impl.apiserver.strategies import service_cidr_alloc as cidr_alloc
from reference_impl.apiserver.strategies.service_ip_ranges import Held
from reference_impl.errors import AlreadyExists, ApiError, NotFound
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    make_service,
    new_server,
)

NET: str = "networking.k8s.io/v1"
_NAMES = itertools.count()
_PARENT = {"metadata": {"name": "test", "namespace": "default"}}


def service_cidr(name: str, *cidrs: str, ready: str | None = "True") -> dict[str, object]:
    """``newServiceCIDR``: the CIDRs, with a Ready condition of ``ready`` (None: none)."""
    obj: dict[str, object] = {
        "apiVersion": NET,
        "kind": "ServiceCIDR",
        "metadata": {"name": name},
        "spec": {"cidrs": list(cidrs)},
    }
    return obj if ready is None else {**obj, "status": {"conditions": [_cond(ready)]}}


def _cond(status: str) -> dict[str, str]:
    return {"type": "Ready", "status": status, "reason": "", "message": "",
            "lastTransitionTime": "2026-09-01T00:00:00Z"}  # fmt: skip


def add_cidr(s: APIServer, name: str, *cidrs: str, ready: str | None = "True") -> None:
    """Create the ServiceCIDR and, as its controller would, set its Ready condition."""
    created = s.create(service_cidr(name, *cidrs))
    if ready is not None:
        s.update_status({**created, "status": {"conditions": [_cond(ready)]}})


def bare_server(family: str = "IPv4") -> APIServer:
    """A single-stack server of ``family`` without its default ServiceCIDR."""
    s = new_server((family,))
    s.delete(NET, "ServiceCIDR", "kubernetes")
    return s


class Allocator:
    """``ipallocator.Allocator``/``MetaAllocator`` of one family as its tests call it:
    the reference's allocation over the server's ServiceCIDRs and IPAddresses, then the
    IPAddress write (parentRef a Service "test") or delete."""

    def __init__(self, s: APIServer, family: str = "IPv4") -> None:
        self.s, self.family = s, family

    def _state(self) -> tuple[list[cidr_alloc.Allocator], Held]:
        ctx = self.s._context()
        cidrs = ctx.lister_list(NET, "ServiceCIDR", None)
        return cidr_alloc.allocators(cidrs, self.family), cidr_alloc.held_addresses(ctx)

    def _create(self, ip: str) -> str:
        try:
            self.s.create(ip_address(ip, _PARENT))
        except AlreadyExists:
            return "provided IP is already allocated"  # ErrAllocated
        return ""

    def allocate_next(self) -> str | None:
        """``AllocateNext``: the address allocated; None is ErrFull."""
        allocs, held = self._state()
        ip = cidr_alloc.allocate_next(allocs, held)
        if ip is not None:
            assert self._create(ip) == ""
        return ip

    def allocate(self, ip: str) -> str:
        """``Allocate``: "" when allocated, else the error's text."""
        allocs, held = self._state()
        return cidr_alloc.allocate_static(allocs, ip, held) or self._create(ip)

    def release(self, ip: str) -> None:
        """``Release``: delete the IPAddress; a missing one is no error."""
        try:
            self.s.delete(NET, "IPAddress", ip)
        except NotFound:
            return

    def fill(self) -> list[str]:
        """``for r.Free() > 0 { AllocateNext }``: allocate until full."""
        got: list[str] = []
        while (ip := self.allocate_next()) is not None:
            got.append(ip)
        return got


def allocate_next(s: APIServer) -> str:
    """A Service asking no address: the one it got (ApiError when full)."""
    return str(s.create(make_service(f"next-{next(_NAMES)}"))["spec"]["clusterIP"])


def allocate(s: APIServer, ip: str) -> str:
    """A Service asking ``ip``: "" when it got it, else the refusal's text."""
    name = "ip-" + ip.replace(".", "-").replace(":", "x")
    try:
        s.create(make_service(name, cluster_ips=(ip,)))
    except ApiError as e:
        return str(e)
    return ""


def used(s: APIServer) -> set[str]:
    """The addresses the allocator's IPAddress objects hold."""
    sel = "ipaddress.kubernetes.io/managed-by=ipallocator.k8s.io"
    return {o["metadata"]["name"] for o in s.list(NET, "IPAddress", label_selector=sel)}

"""Models pkg/controller/servicecidrs (servicecidrs_controller.go): the
``service-cidr-controller`` of kube-controller-manager.

A live ServiceCIDR gets the ``networking.k8s.io/service-cidr-finalizer`` and a Ready=True
condition. One being deleted keeps the finalizer while an allocator-managed IPAddress
would be left in no ServiceCIDR (Ready=False, reason Terminating); once none would, the
finalizer goes after a 10-second grace from the deletionTimestamp, so the allocators
have stopped allocating from it (they skip a ServiceCIDR being deleted).
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.strategies.service_cidr_alloc import (
    IPADDRESS_FAMILY_LABEL,
    IPADDRESS_MANAGED_BY_LABEL,
    IPALLOCATOR_NAME,
    NETWORKING_V1,
    prefix_contains_ip,
)
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.pvc_protection import add_finalizer, release_finalizer
from reference_impl.errors import NotFound

__all__ = [
    "SERVICE_CIDR_PROTECTION_FINALIZER",
    "ServiceCIDRController",
    "can_delete_cidr",
    "contains_address",
    "contains_prefix",
    "containing_service_cidrs",
    "overlapping_service_cidrs",
]

Obj = dict[str, Any]
Net = ipaddress.IPv4Network | ipaddress.IPv6Network
SERVICE_CIDR_PROTECTION_FINALIZER: Final = "networking.k8s.io/service-cidr-finalizer"
DELETION_GRACE_PERIOD: Final = seconds(10)
MAX_RETRIES: Final = 15
READY_MESSAGE: Final = "Kubernetes Service CIDR is ready"
TERMINATING_MESSAGE: Final = (
    "There are still IPAddresses referencing the ServiceCIDR, please remove them or "
    "create a new ServiceCIDR"
)


def _nets(sc: Obj) -> list[Net]:
    out: list[Net] = []
    for c in (sc.get("spec") or {}).get("cidrs") or []:
        try:
            out.append(ipaddress.ip_network(str(c), strict=False))
        except ValueError:
            continue
    return out


def contains_prefix(cidrs: list[Obj], prefix: Net) -> list[Obj]:
    """``servicecidr.ContainsPrefix``: the ServiceCIDRs with a CIDR holding ``prefix``
    (the same or shorter), once per CIDR that does."""
    return [
        sc for sc in cidrs for p in _nets(sc)
        if p.version == prefix.version and p.overlaps(prefix) and p.prefixlen <= prefix.prefixlen
    ]  # fmt: skip


def contains_address(cidrs: list[Obj], ip: str) -> list[Obj]:
    """``servicecidr.ContainsAddress``: the ServiceCIDRs with a CIDR holding ``ip``."""
    return [sc for sc in cidrs for p in _nets(sc) if prefix_contains_ip(p, ip)]


def _name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def overlapping_service_cidrs(cidrs: list[Obj], sc: Obj) -> list[str]:
    """``overlappingServiceCIDRs``: the names of the ServiceCIDRs overlapping one of
    ``sc``'s CIDRs (``servicecidr.OverlapsPrefix``), ``sc`` among them when listed."""
    mine = _nets(sc)
    return sorted({
        _name(o) for o in cidrs for p in _nets(o)
        if any(p.version == m.version and p.overlaps(m) for m in mine)
    })  # fmt: skip


def containing_service_cidrs(cidrs: list[Obj], ip: Obj) -> list[str]:
    """``containingServiceCIDRs``: the names of the ServiceCIDRs holding an
    allocator-managed IPAddress (none for another manager's)."""
    labels = (ip.get("metadata") or {}).get("labels") or {}
    if labels.get(IPADDRESS_MANAGED_BY_LABEL) != IPALLOCATOR_NAME:
        return []
    return sorted({_name(o) for o in contains_address(cidrs, _name(ip))})


def can_delete_cidr(sc: Obj, cidrs: list[Obj], ips: list[Obj]) -> bool:
    """``canDeleteCIDR``: yes when each CIDR lies in another ServiceCIDR, or when no
    allocator-managed IPAddress of its family lies in it alone."""
    name, has_parent = _name(sc), True
    for prefix in _nets(sc):
        holders = contains_prefix(cidrs, prefix)
        if not holders or (len(holders) == 1 and _name(holders[0]) == name):
            has_parent = False
    if has_parent:
        return True
    for prefix in _nets(sc):
        family = f"IPv{prefix.version}"
        for ip in ips:
            labels = (ip.get("metadata") or {}).get("labels") or {}
            if labels.get(IPADDRESS_FAMILY_LABEL) != family:
                continue
            if labels.get(IPADDRESS_MANAGED_BY_LABEL) != IPALLOCATOR_NAME:
                continue
            holders = contains_address(cidrs, _name(ip))
            if len(holders) == 1 and _name(holders[0]) == name:
                return False
    return True


class ServiceCIDRController:
    """Keeps each ServiceCIDR's finalizer and Ready condition."""

    name: Final = "service-cidr-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="ipaddresses",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now),
                                max_retries=MAX_RETRIES)  # fmt: skip
        self._cidrs: SharedInformer | None = None
        self._ips: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to ServiceCIDRs and IPAddresses; queue every ServiceCIDR."""
        self._cidrs = self._ctx.informers.informer(NETWORKING_V1, "ServiceCIDR")
        self._ips = self._ctx.informers.informer(NETWORKING_V1, "IPAddress")
        self._cidrs.add_handler(self._on_cidr)
        self._ips.add_handler(self._on_ip)
        for sc in self._cidrs.items():
            self._queue.add(_name(sc))

    def _all_cidrs(self) -> list[Obj]:
        assert self._cidrs is not None
        return list(self._cidrs.items())

    def _on_cidr(self, ev: ObjectEvent) -> None:
        """addServiceCIDR (with the ServiceCIDRs it overlaps), update and delete."""
        self._queue.add(_name(ev.obj))
        if ev.type == "ADDED":
            for name in overlapping_service_cidrs(self._all_cidrs(), ev.obj):
                self._queue.add(name)

    def _on_ip(self, ev: ObjectEvent) -> None:
        """addIPAddress / deleteIPAddress: the ServiceCIDRs holding an allocator's address."""
        if ev.type == "MODIFIED":
            return
        for name in containing_service_cidrs(self._all_cidrs(), ev.obj):
            self._queue.add(name)

    def _sync(self, key: str) -> None:
        assert self._cidrs is not None and self._ips is not None
        sc = self._cidrs.get(key)
        if sc is None:
            return
        deleted = (sc.get("metadata") or {}).get("deletionTimestamp")
        if deleted:
            if not can_delete_cidr(sc, self._all_cidrs(), list(self._ips.items())):
                self._set_condition(sc, "False", "Terminating", TERMINATING_MESSAGE)
                return
            left = DELETION_GRACE_PERIOD - (self._ctx.clock.now() - parse_rfc3339(str(deleted)))
            if left > 0:
                self._queue.add_after(key, Duration(left))
                return
            if SERVICE_CIDR_PROTECTION_FINALIZER in (sc["metadata"].get("finalizers") or ()):
                release_finalizer(self._ctx, NETWORKING_V1, "ServiceCIDR", sc,
                                  SERVICE_CIDR_PROTECTION_FINALIZER)  # fmt: skip
            return
        if SERVICE_CIDR_PROTECTION_FINALIZER not in (sc["metadata"].get("finalizers") or ()):
            add_finalizer(self._ctx, NETWORKING_V1, "ServiceCIDR", sc,
                          SERVICE_CIDR_PROTECTION_FINALIZER)  # fmt: skip
        self._set_condition(sc, "True", "", READY_MESSAGE)

    def _set_condition(self, sc: Obj, status: str, reason: str, message: str) -> None:
        """``updateConditionIfNeeded``: an apply of the one Ready condition (its
        lastTransitionTime now) unless status, reason and message are as they are."""
        conds = [c for c in (sc.get("status") or {}).get("conditions") or [] if isinstance(c, dict)]
        cur = next((c for c in conds if c.get("type") == "Ready"), None)
        if cur is not None and (
            cur.get("status"),
            cur.get("reason", ""),
            cur.get("message", ""),
        ) == (status, reason, message):
            return
        ready = {"type": "Ready", "status": status, "lastTransitionTime": rfc3339(self._ctx.clock.now()),
                 "reason": reason, "message": message}  # fmt: skip
        latest = self._ctx.server.try_get(NETWORKING_V1, "ServiceCIDR", _name(sc))
        if latest is None:
            return
        kept = [
            c
            for c in (latest.get("status") or {}).get("conditions") or []
            if c.get("type") != "Ready"
        ]
        body = {**latest, "status": {**(latest.get("status") or {}), "conditions": [*kept, ready]}}
        try:
            self._ctx.server.update_status(body)
        except NotFound:
            return

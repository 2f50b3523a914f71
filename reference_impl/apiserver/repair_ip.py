"""The ClusterIP repair loop over IPAddress objects: kube-apiserver's
``ipallocator-repair-controller`` (``RepairIPAddress``,
``pkg/registry/core/service/ipallocator/controller/repairip.go``).

``sync_service`` makes each of a Service's cluster IPs held by an IPAddress referencing
it (creating a missing one, recreating one with a wrong reference or labels) and warns
of addresses outside every ServiceCIDR or given to two Services; ``sync_ip_address``
deletes an allocator-owned IPAddress whose Service is gone (after a 60 s grace period) or
no longer holds it (after 5 s when it is newer than the Service). Events are the
recorder's "<type> <reason> <message>" strings.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Protocol

from reference_impl.apiserver.service_ipaddresses import own_uids
from reference_impl.apiserver.strategies.service_cidr_alloc import (
    IPADDRESS_FAMILY_LABEL,
    IPADDRESS_MANAGED_BY_LABEL,
    IPALLOCATOR_NAME,
    prefix_contains_ip,
)
from reference_impl.apiserver.validation import ip_formats
from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.clock import Instant, Priority, rfc3339, seconds
from reference_impl.errors import ApiError, NotFound

if TYPE_CHECKING:
    from reference_impl.apiserver.component import Trace
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "CONTROLLER_NAME",
    "GRACE_PERIOD",
    "RepairView",
    "ServerView",
    "do_run_once",
    "install",
    "trace_recorder",
    "is_ip_out_of_range",
    "new_ip_address",
    "parse_ip_sloppy",
    "sync_ip_address",
    "sync_service",
]

Obj = dict[str, Any]
CONTROLLER_NAME: Final = "ipallocator-repair-controller"
GRACE_PERIOD: Final = timedelta(seconds=60)  # kube-apiserver's default request timeout
CREATE_RACE_PERIOD: Final = timedelta(seconds=5)
WARNING: Final = "Warning"


class RepairView(Protocol):
    """The listers, client and recorder the repair loop uses."""

    def services(self) -> list[Obj]: ...

    def service(self, namespace: str, name: str) -> Obj | None: ...

    def ip_addresses(self) -> list[Obj]: ...

    def ip_address(self, name: str) -> Obj | None: ...

    def service_cidrs(self) -> list[Obj]: ...

    def create_ip_address(self, obj: Obj) -> None: ...

    def delete_ip_address(self, name: str) -> None:
        """Raises NotFound when absent."""

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None: ...

    def now(self) -> datetime: ...


def parse_ip_sloppy(text: str) -> str | None:
    """``netutils.ParseIPSloppy(...).String()``: IPv4 octets may carry leading zeros;
    an IPv4-mapped IPv6 address prints as IPv4; None when it does not parse."""
    addr = ip_formats.parse_ip_sloppy(text)
    return None if addr is None else ip_formats.go_ip_string(addr)


def _family(ip: str) -> str:
    return "IPv6" if ":" in ip else "IPv4"


def _created(obj: Obj) -> datetime:
    text = str((obj.get("metadata") or {}).get("creationTimestamp") or "")
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)  # Go's zero time


def _ref(obj: Obj) -> Obj:
    return (obj.get("spec") or {}).get("parentRef") or {}


def _labels(obj: Obj) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def _ns_name(obj: Obj) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace", "")), str(meta.get("name", ""))


def new_ip_address(name: str, svc: Obj) -> Obj:
    """``newIPAddress``: labelled with its family and the allocator, its parentRef the
    Service (``serviceToRef``)."""
    ns, svc_name = _ns_name(svc)
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IPAddress",
        "metadata": {
            "name": name,
            "labels": {
                IPADDRESS_FAMILY_LABEL: _family(name),
                IPADDRESS_MANAGED_BY_LABEL: IPALLOCATOR_NAME,
            },  # fmt: skip
        },
        "spec": {
            "parentRef": {"group": "", "resource": "services", "namespace": ns, "name": svc_name}
        },  # fmt: skip
    }


def _managed_by_controller(ip: Obj) -> bool:
    return _labels(ip).get(IPADDRESS_MANAGED_BY_LABEL) == IPALLOCATOR_NAME


def _verify_labels(ip: Obj) -> bool:
    """``verifyIPAddressLabels``: the family label matches the name; the allocator owns it."""
    fam = _labels(ip).get(IPADDRESS_FAMILY_LABEL)
    return fam == _family(_name(ip)) and _managed_by_controller(ip)


def is_ip_out_of_range(view: RepairView, ip: str) -> bool:
    """``isIPOutOfRange``: no ServiceCIDR's prefix contains it (``servicecidr.ContainsIP``:
    the network address and the IPv4 broadcast address are outside)."""
    for sc in view.service_cidrs():
        for cidr in (sc.get("spec") or {}).get("cidrs") or []:
            try:
                net = ipaddress.ip_network(str(cidr), strict=False)
            except ValueError:
                continue
            if prefix_contains_ip(net, ip):
                return False
    return True


def _recreate(view: RepairView, name: str, svc: Obj) -> None:
    """``recreateIPAddress``."""
    try:
        view.delete_ip_address(name)
    except NotFound:
        pass
    view.create_ip_address(new_ip_address(name, svc))


def _wrong_ref(view: RepairView, svc: Obj, family: str, ip: str) -> None:
    ns, name = _ns_name(svc)
    view.event(svc, WARNING, "ClusterIPNotAllocated",
               f"the ClusterIP [{family}]: {ip} for Service {ns}/{name} has a wrong reference; "
               "repairing")  # fmt: skip


def sync_service(view: RepairView, namespace: str, name: str) -> None:
    """``syncService``: every cluster IP of the Service held by a correct IPAddress."""
    svc = view.service(namespace, name)
    if svc is None:
        return
    spec = svc.get("spec") or {}
    if spec.get("clusterIP", "") in ("", "None"):  # helper.IsServiceIPSet
        return
    for cluster_ip in spec.get("clusterIPs") or []:
        ip = parse_ip_sloppy(str(cluster_ip))
        if ip is None:
            view.event(svc, WARNING, "ClusterIPNotValid",
                       "Cluster IP <nil> is not a valid IP; please recreate Service")  # fmt: skip
            continue
        family = _family(ip)
        if is_ip_out_of_range(view, ip):
            view.event(svc, WARNING, "ClusterIPOutOfRange",
                       f"Cluster IP [{family}]: {ip} is not within any configured Service "
                       "CIDR; please recreate service")  # fmt: skip
            continue
        held = view.ip_address(ip)
        if held is None:
            view.event(svc, WARNING, "ClusterIPNotAllocated",
                       f"Cluster IP [{family}]: {ip} is not allocated; repairing")  # fmt: skip
            view.create_ip_address(new_ip_address(ip, svc))
            continue
        ref = _ref(held)
        if ref.get("group", "") != "" or ref.get("resource", "") != "services":
            _wrong_ref(view, svc, family, ip)
            _recreate(view, _name(held), svc)
            continue
        ref_ns, ref_name = str(ref.get("namespace", "")), str(ref.get("name", ""))
        if (ref_ns, ref_name) != (namespace, name):
            other = view.service(ref_ns, ref_name)
            if other is None:
                _wrong_ref(view, svc, family, ip)
                _recreate(view, _name(held), svc)
                continue
            if _name(held) in ((other.get("spec") or {}).get("clusterIPs") or []):
                view.event(svc, WARNING, "ClusterIPAlreadyAllocated",
                           f"Cluster IP [{family}]:{ip} was assigned to multiple services; "
                           "please recreate service")  # fmt: skip
        if not _verify_labels(held):
            _recreate(view, _name(held), svc)


def sync_ip_address(view: RepairView, name: str) -> timedelta | None:
    """``syncIPAddress``: an allocator-owned IPAddress whose Service is gone or does not
    hold it is deleted once past its grace period; returns the requeue delay, if any."""
    ip = view.ip_address(name)
    if ip is None or not _managed_by_controller(ip):
        return None
    ref = _ref(ip)
    if ref.get("group", "") != "" or ref.get("resource", "") != "services":
        view.event(ip, WARNING, "IPAddressNotAllocated",
                   f"IPAddress {name} appears to have been modified, not referencing a "
                   f"Service {_go_ref(ref)}: cleaning up")  # fmt: skip
        _delete(view, name)
        return None
    ref_ns, ref_name = str(ref.get("namespace", "")), str(ref.get("name", ""))
    svc = view.service(ref_ns, ref_name)
    lifetime = view.now() - _created(ip)
    if svc is None:
        if lifetime > GRACE_PERIOD:
            view.event(ip, WARNING, "IPAddressNotAllocated",
                       f"IPAddress: {name} for Service {ref_ns}/{ref_name} appears to have "
                       "leaked: cleaning up")  # fmt: skip
            _delete(view, name)
        return GRACE_PERIOD - lifetime  # requeued either way (AddAfter of a negative: now)
    spec = svc.get("spec") or {}
    if name in (spec.get("clusterIPs") or []):
        return None
    if spec.get("type") == "ExternalName" and lifetime < GRACE_PERIOD:
        return GRACE_PERIOD - lifetime
    if _created(ip) > _created(svc) and lifetime < CREATE_RACE_PERIOD:
        return CREATE_RACE_PERIOD
    ns, svc_name = _ns_name(svc)
    view.event(ip, WARNING, "IPAddressWrongReference",
               f"IPAddress: {name} for Service {ns}/{svc_name} has a wrong reference; "
               "cleaning up")  # fmt: skip
    _delete(view, name)
    return None


def _go_ref(ref: Obj) -> str:
    """``%v`` of the *ParentReference: ``&{group resource namespace name}``."""
    return "&{" + " ".join(str(ref.get(k, "")) for k in ("group", "resource", "namespace",
                                                          "name")) + "}"  # fmt: skip


def _delete(view: RepairView, name: str) -> None:
    try:
        view.delete_ip_address(name)
    except NotFound:
        pass


def do_run_once(view: RepairView) -> dict[str, timedelta]:
    """``doRunOnce``: every Service, then every allocator-owned IPAddress; returns the
    IPAddresses to look at again and when."""
    for svc in view.services():
        sync_service(view, *_ns_name(svc))
    requeue: dict[str, timedelta] = {}
    for ip in view.ip_addresses():
        if not _managed_by_controller(ip):
            continue
        after = sync_ip_address(view, _name(ip))
        if after is not None:
            requeue[_name(ip)] = after
    return requeue


NET: Final = "networking.k8s.io/v1"
Recorder = Callable[[Obj, str, str, str], None]
_EPOCH: Final = datetime.fromisoformat(rfc3339(Instant(0)).replace("Z", "+00:00"))


class ServerView:
    """``RepairView`` over the apiserver: its reads are the listers, its writes the
    client (uids from a stream of their own), its events go to ``record``."""

    def __init__(self, srv: APIServer, record: Recorder) -> None:
        self._srv = srv
        self._record = record
        self._uids = srv.rng_stream(CONTROLLER_NAME)

    def services(self) -> list[Obj]:
        return self._srv.list("v1", "Service")

    def service(self, namespace: str, name: str) -> Obj | None:
        return self._srv.try_get("v1", "Service", name, namespace)

    def ip_addresses(self) -> list[Obj]:
        return self._srv.list(NET, "IPAddress")

    def ip_address(self, name: str) -> Obj | None:
        return self._srv.try_get(NET, "IPAddress", name)

    def service_cidrs(self) -> list[Obj]:
        return self._srv.list(NET, "ServiceCIDR")

    def create_ip_address(self, obj: Obj) -> None:
        with own_uids(self._srv, self._uids):
            self._srv.create(obj)

    def delete_ip_address(self, name: str) -> None:
        self._srv.delete(NET, "IPAddress", name)

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None:
        self._record(obj, event_type, reason, message)

    def now(self) -> datetime:
        """The clock to the microsecond (timestamps are whole seconds)."""
        return _EPOCH + timedelta(microseconds=self._srv.clock.now() // 1000)


def trace_recorder(trace: Trace) -> Recorder:
    """The recorder's events as trace records (type and message in the detail)."""

    def record(obj: Obj, event_type: str, reason: str, message: str) -> None:
        ns, name = _ns_name(obj)
        trace.record(CONTROLLER_NAME, reason, f"{ns}/{name}" if ns else name,
                     f"{event_type} {message}")  # fmt: skip

    return record


def install(srv: APIServer, record: Recorder) -> None:
    """``RunUntil``: one ``runOnce`` now (the default ServiceCIDR exists: the apiserver
    made it), then each Service and IPAddress event queues its key, synced once the
    write's own handlers are done (the workers). A sync's API error drops the key
    (upstream requeues it rate-limited)."""
    view = ServerView(srv, record)
    clock = srv.clock
    pending: dict[tuple[str, str], None] = {}

    def requeue_ip(name: str, after: timedelta) -> None:
        # At least 1 µs: a key due now at the same simulated instant would spin.
        delay = seconds(max(after.total_seconds(), 1e-6))
        clock.call_later(delay, lambda: enqueue(("ip", name)), priority=Priority.LATE)

    def work() -> None:
        while pending:
            key = next(iter(pending))
            del pending[key]
            try:
                if key[0] == "svc":
                    ns, _, name = key[1].partition("/")
                    sync_service(view, ns, name)
                else:
                    after = sync_ip_address(view, key[1])
                    if after is not None:
                        requeue_ip(key[1], after)
            except ApiError:
                continue

    def enqueue(key: tuple[str, str]) -> None:
        if not pending:
            clock.call_later(seconds(0), work, priority=Priority.LATE)
        pending[key] = None

    def on_event(ev: ObjectEvent) -> None:
        kind = ev.info.kind
        if kind == "Service" and not ev.info.group:
            ns, name = _ns_name(ev.obj)
            enqueue(("svc", f"{ns}/{name}"))
        elif kind == "IPAddress" and ev.info.group == "networking.k8s.io":
            enqueue(("ip", _name(ev.obj)))

    try:
        for name, after in do_run_once(view).items():
            requeue_ip(name, after)
    except ApiError:
        pass
    srv.add_event_handler(on_event)

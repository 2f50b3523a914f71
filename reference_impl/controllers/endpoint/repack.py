"""pkg/api/v1/endpoints/util.go of upstream v1.37.2: ``RepackSubsets``, ``SortSubsets`` and
``LessEndpointAddress``, over v1 wire dicts.

Upstream orders ports and subsets by the FNV-128a hash of their go-spew ``%#v`` dump
(``hashutil.DeepHashObject``); ``spew_subset``/``spew_port`` write that dump for the v1
structs, so the reference's order is upstream's. An absent or empty list is Go's nil slice
(what ``RepackSubsets`` builds, and what JSON decoding gives for an absent field).

Upstream keys ports by the ``v1.EndpointPort`` struct, whose ``AppProtocol`` is a pointer;
the reference keys them by value, which is the same for the ports the controller builds
(one pointer per Service port).
"""

from __future__ import annotations

import copy
from typing import Any, Final

__all__ = [
    "fnv128a",
    "less_endpoint_address",
    "repack_subsets",
    "sort_subsets",
    "spew_port",
    "spew_subset",
]

Obj = dict[str, Any]
PortKey = tuple[str, int, str, str | None]
AddressKey = tuple[str, str]

_FNV128_OFFSET: Final = 0x6C62272E07BB014262B821756295C58D
_FNV128_PRIME: Final = 0x0000000001000000000000000000013B
_MASK128: Final = (1 << 128) - 1
_SENTINEL: Final[PortKey] = ("", -1, "", None)  # EndpointPort{Port: -1}
_REF_FIELDS: Final = (
    ("Kind", "kind", "string"), ("Namespace", "namespace", "string"),
    ("Name", "name", "string"), ("UID", "uid", "types.UID"),
    ("APIVersion", "apiVersion", "string"), ("ResourceVersion", "resourceVersion", "string"),
    ("FieldPath", "fieldPath", "string"),
)  # fmt: skip


def fnv128a(data: bytes) -> bytes:
    """Go's ``fnv.New128a`` sum."""
    h = _FNV128_OFFSET
    for b in data:
        h = ((h ^ b) * _FNV128_PRIME) & _MASK128
    return h.to_bytes(16, "big")


def _s(v: Any) -> str:
    return "" if v is None else str(v)


def _ptr_str(v: Any) -> str:
    """A ``*string`` field, type shown (spew ``%#v``)."""
    return "(*string)<nil>" if v is None else f"(*string){v}"


def _spew_ref(ref: Any) -> str:
    if not isinstance(ref, dict):
        return "(*v1.ObjectReference)<nil>"
    fields = " ".join(f"{g}:({t}){_s(ref.get(k))}" for g, k, t in _REF_FIELDS)
    return "(*v1.ObjectReference){" + fields + "}"


def _spew_address(a: Obj) -> str:
    return (f"{{IP:(string){_s(a.get('ip'))} Hostname:(string){_s(a.get('hostname'))} "
            f"NodeName:{_ptr_str(a.get('nodeName'))} TargetRef:{_spew_ref(a.get('targetRef'))}}}")  # fmt: skip


def _port_fields(p: Obj) -> str:
    return (f"{{Name:(string){_s(p.get('name'))} Port:(int32){int(p.get('port') or 0)} "
            f"Protocol:(v1.Protocol){_s(p.get('protocol'))} "
            f"AppProtocol:{_ptr_str(p.get('appProtocol'))}}}")  # fmt: skip


def _spew_list(type_name: str, items: Any, fmt: Any) -> str:
    if not items:
        return f"([]{type_name})<nil>"
    return f"([]{type_name})[" + " ".join(fmt(i) for i in items) + "]"


def spew_port(p: Obj) -> str:
    """``dump.ForHash`` of a ``v1.EndpointPort``."""
    return "(v1.EndpointPort)" + _port_fields(p)


def spew_subset(ss: Obj) -> str:
    """``dump.ForHash`` of a ``v1.EndpointSubset``."""
    return (
        "(v1.EndpointSubset){"
        f"Addresses:{_spew_list('v1.EndpointAddress', ss.get('addresses'), _spew_address)} "
        f"NotReadyAddresses:{_spew_list('v1.EndpointAddress', ss.get('notReadyAddresses'), _spew_address)} "
        f"Ports:{_spew_list('v1.EndpointPort', ss.get('ports'), _port_fields)}}}"
    )


def _address_sort_key(a: Obj) -> tuple[bytes, int, str]:
    # LessEndpointAddress: IP bytes, then no targetRef before one, then the target's UID.
    ref = a.get("targetRef")
    if not isinstance(ref, dict):
        return (_s(a.get("ip")).encode(), 0, "")
    return (_s(a.get("ip")).encode(), 1, _s(ref.get("uid")))


def less_endpoint_address(a: Obj, b: Obj) -> bool:
    """``LessEndpointAddress``."""
    return _address_sort_key(a) < _address_sort_key(b)


def sort_subsets(subsets: list[Obj]) -> list[Obj]:
    """``SortSubsets``: addresses by IP and UID, ports and subsets by their hash; in place."""
    for ss in subsets:
        for field in ("addresses", "notReadyAddresses"):
            if ss.get(field):
                ss[field].sort(key=_address_sort_key)
        if len(ss.get("ports") or []) > 1:
            ss["ports"].sort(key=lambda p: fnv128a(spew_port(p).encode()))
    if len(subsets) > 1:  # a dump of 1000 addresses is 250 kB: hash only to order
        subsets.sort(key=lambda ss: fnv128a(spew_subset(ss).encode()))
    return subsets


def _port_key(p: Obj) -> PortKey:
    app = p.get("appProtocol")
    return (_s(p.get("name")), int(p.get("port") or 0), _s(p.get("protocol")),
            None if app is None else str(app))  # fmt: skip


def _port_obj(key: PortKey) -> Obj:
    name, port, protocol, app = key
    out: Obj = {"port": port}
    if name:
        out["name"] = name
    if protocol:
        out["protocol"] = protocol
    if app is not None:
        out["appProtocol"] = app
    return out


def _address_key(a: Obj) -> AddressKey:
    ref = a.get("targetRef")
    return (_s(a.get("ip")), _s(ref.get("uid")) if isinstance(ref, dict) else "")


def repack_subsets(subsets: list[Obj]) -> list[Obj]:
    """``RepackSubsets``: expand to (port, address) pairs and regroup, one subset per set of
    addresses (deduplicated by IP and target UID; not ready wins over ready) with the ports
    they all offer; subsets without ports keep their addresses. A new, sorted list."""
    all_addrs: dict[AddressKey, Obj] = {}
    by_port: dict[PortKey, dict[AddressKey, bool]] = {}

    def map_by_port(ss: Obj, port: PortKey) -> None:
        for field, ready in (("addresses", True), ("notReadyAddresses", False)):
            for a in ss.get(field) or []:
                key = _address_key(a)
                all_addrs.setdefault(key, copy.deepcopy(a))
                addrs = by_port.setdefault(port, {})
                if addrs.get(key, True):
                    addrs[key] = ready

    for given in subsets:
        ports = given.get("ports") or []
        if not ports:
            map_by_port(given, _SENTINEL)
        for p in ports:
            map_by_port(given, _port_key(p))
    groups: dict[
        frozenset[tuple[AddressKey, bool]], tuple[dict[AddressKey, bool], list[PortKey]]
    ] = {}
    for port, addrs in by_port.items():
        _, port_list = groups.setdefault(frozenset(addrs.items()), (addrs, []))
        if port[1] > 0:  # not the sentinel
            port_list.append(port)
    final: list[Obj] = []
    for addrs, ports in groups.values():
        ss: Obj = {}
        ready = [copy.deepcopy(all_addrs[k]) for k, r in addrs.items() if r]
        not_ready = [copy.deepcopy(all_addrs[k]) for k, r in addrs.items() if not r]
        if ready:
            ss["addresses"] = ready
        if not_ready:
            ss["notReadyAddresses"] = not_ready
        if ports:
            ss["ports"] = [_port_obj(p) for p in ports]
        final.append(ss)
    return sort_subsets(final)

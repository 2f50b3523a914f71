"""Pure helpers of the EndpointSlice controller: k8s.io/endpointslice@v0.37.2 utils.go and
util/controller_utils.go, util/endpointset.go.

Objects are v1 wire dicts. Upstream hashes endpoints and port lists with FNV over a spew
dump; the reference keys them by equal tuples instead, which identify the same groups.
"""

from __future__ import annotations

import copy
import ipaddress
import re
from typing import Any, Final

from reference_impl.controllers.controller_utils import is_pod_ready

__all__ = [
    "CONTROLLER_NAME",
    "HEADLESS_LABEL",
    "LAST_CHANGE_TRIGGER_TIME",
    "MANAGED_BY_LABEL",
    "MAX_ENDPOINTS_PER_SLICE",
    "SERVICE_NAME_LABEL",
    "EndpointKey",
    "PortMapKey",
    "endpoint_key",
    "endpoints_equal_beyond_hash",
    "find_port",
    "get_address_types_for_service",
    "get_endpoint_addresses",
    "get_endpoint_ports",
    "get_endpoint_slice_prefix",
    "get_slice_to_fill",
    "hints_enabled",
    "is_service_ip_set",
    "new_endpoint_slice",
    "owned_by",
    "pod_to_endpoint",
    "port_map_key",
    "service_controller_key",
    "set_endpoint_slice_labels",
    "should_pod_be_in_endpoints",
    "should_set_hostname",
]

Obj = dict[str, Any]
CONTROLLER_NAME: Final = "endpointslice-controller.k8s.io"
MANAGED_BY_LABEL: Final = "endpointslice.kubernetes.io/managed-by"
SERVICE_NAME_LABEL: Final = "kubernetes.io/service-name"
HEADLESS_LABEL: Final = "service.kubernetes.io/headless"
LAST_CHANGE_TRIGGER_TIME: Final = "endpoints.kubernetes.io/last-change-trigger-time"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE: Final = 100  # kube-controller-manager's --max-endpoints-per-slice

_DNS1123_SUBDOMAIN: Final = re.compile(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
)

EndpointKey = tuple[tuple[str, ...], str, str, str]
PortMapKey = tuple[tuple[tuple[str, int, str, str], ...], ...]


def should_pod_be_in_endpoints(pod: Obj, include_terminating: bool) -> bool:
    """``ShouldPodBeInEndpoints``: not terminal, has an IP, and (unless asked) not deleting."""
    status = pod.get("status") or {}
    if status.get("phase") in ("Failed", "Succeeded"):
        return False
    if not status.get("podIP") and not status.get("podIPs"):
        return False
    return include_terminating or not pod["metadata"].get("deletionTimestamp")


def should_set_hostname(pod: Obj, svc: Obj) -> bool:
    """``ShouldSetHostname``: the pod names a hostname and the Service as its subdomain."""
    spec = pod.get("spec") or {}
    return (
        bool(spec.get("hostname"))
        and spec.get("subdomain") == svc["metadata"]["name"]
        and svc["metadata"].get("namespace") == pod["metadata"].get("namespace")
    )


def is_service_ip_set(svc: Obj) -> bool:
    """``isServiceIPSet``: a ClusterIP that is neither empty nor None."""
    ip = (svc.get("spec") or {}).get("clusterIP") or ""
    return ip not in ("", "None")


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return ":" in text


def _canonical_ip(text: str) -> str:
    # ParseIPSloppy then String(): IPv6 compressed, IPv4 with leading zeros dropped.
    if ":" not in text:
        parts = text.split(".")
        if len(parts) == 4 and all(p.isdigit() for p in parts):
            return ".".join(str(int(p)) for p in parts)
    else:  # a group may have more than four hex digits while its value fits 16 bits
        text = ":".join(g.lstrip("0") or "0" if len(g) > 4 else g for g in text.split(":"))
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return text


def get_endpoint_addresses(pod_status: Obj, address_type: str) -> list[str]:
    """``getEndpointAddresses``: the pod IPs of ``address_type``'s family."""
    out: list[str] = []
    for entry in pod_status.get("podIPs") or []:
        ip = str(entry.get("ip") or "")
        v6 = _is_ipv6(ip)
        if (v6 and address_type == "IPv6") or (not v6 and address_type == "IPv4"):
            out.append(_canonical_ip(ip))
    return out


def find_port(pod: Obj, svc_port: Obj) -> int | None:
    """``FindPort``: the target port number; a named port is looked up in the containers,
    then in restartable (sidecar) init containers, matching the protocol. None: no port."""
    target = svc_port.get("targetPort")
    if target is None:
        target = svc_port.get("port")
    if isinstance(target, int):
        return target
    protocol = svc_port.get("protocol") or "TCP"
    spec = pod.get("spec") or {}
    containers = list(spec.get("containers") or []) + [
        c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"
    ]
    for c in containers:
        for p in c.get("ports") or []:
            if p.get("name") == target and (p.get("protocol") or "TCP") == protocol:
                return int(p["containerPort"])
    return None


def get_endpoint_ports(svc: Obj, pod: Obj) -> list[Obj]:
    """``getEndpointPorts``: one port per Service port the pod resolves (others dropped)."""
    spec = svc.get("spec") or {}
    out: list[Obj] = []
    for sp in spec.get("ports") or []:
        num = find_port(pod, sp)
        if num is None:
            continue
        port: Obj = {"name": sp.get("name") or "", "port": num,
                     "protocol": sp.get("protocol") or "TCP"}  # fmt: skip
        if sp.get("appProtocol") is not None:
            port["appProtocol"] = sp["appProtocol"]
        out.append(port)
    return out


def pod_to_endpoint(pod: Obj, node: Obj | None, svc: Obj, address_type: str) -> Obj:
    """``podToEndpoint``: serving = Ready; terminating = being deleted; ready = serving and
    not terminating, or always with publishNotReadyAddresses."""
    serving = is_pod_ready(pod)
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
    meta = pod["metadata"]
    ep: Obj = {
        "addresses": get_endpoint_addresses(pod.get("status") or {}, address_type),
        "conditions": {"ready": publish or (serving and not terminating),
                       "serving": serving, "terminating": terminating},  # fmt: skip
        "targetRef": {"kind": "Pod", "namespace": meta.get("namespace") or "",
                      "name": meta["name"], "uid": meta.get("uid") or ""},  # fmt: skip
    }
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        ep["nodeName"] = node_name
    zone = ((node or {}).get("metadata") or {}).get("labels", {}).get(ZONE_LABEL)
    if zone:
        ep["zone"] = zone
    if should_set_hostname(pod, svc):
        ep["hostname"] = pod["spec"]["hostname"]
    return ep


def endpoint_key(ep: Obj) -> EndpointKey:
    """``hashEndpoint``: sorted addresses, hostname and the target's namespace/name."""
    ref = ep.get("targetRef") or {}
    return (
        tuple(sorted(ep.get("addresses") or [])),
        str(ep.get("hostname") or ""),
        str(ref.get("namespace") or ""),
        str(ref.get("name") or ""),
    )


def _port_tuple(p: Obj) -> tuple[tuple[str, int, str, str], ...]:
    app = p.get("appProtocol")
    return ((str(p.get("name") or ""), int(p.get("port") or 0), str(p.get("protocol") or ""),
             "" if app is None else "=" + str(app)),)  # fmt: skip


def port_map_key(ports: list[Obj] | None) -> PortMapKey:
    """``NewPortMapKey``: the port list as an order-free key (nil and empty alike)."""
    return tuple(sorted(_port_tuple(p) for p in ports or []))


_REF_FIELDS: Final = ("kind", "namespace", "name", "uid", "apiVersion", "fieldPath")


def endpoints_equal_beyond_hash(a: Obj, b: Obj) -> bool:
    """``EndpointsEqualBeyondHash``: node, zone, conditions and target (not its
    resourceVersion) agree; hints are not compared."""
    if a.get("nodeName") != b.get("nodeName") or a.get("zone") != b.get("zone"):
        return False
    ca, cb = a.get("conditions") or {}, b.get("conditions") or {}
    if any(ca.get(k) != cb.get(k) for k in ("ready", "serving", "terminating")):
        return False
    ra, rb = a.get("targetRef"), b.get("targetRef")
    if ra is None or rb is None:
        return ra is None and rb is None
    return all((ra.get(k) or "") == (rb.get(k) or "") for k in _REF_FIELDS)


def get_endpoint_slice_prefix(service_name: str) -> str:
    """``getEndpointSlicePrefix``: ``<name>-`` unless that is no valid generateName prefix."""
    prefix = f"{service_name}-"
    # NameIsDNSSubdomain(prefix, true): a trailing dash is masked before the check.
    masked = prefix[:-1] + "a"
    return prefix if len(masked) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(masked) else service_name


def owned_by(slice_: Obj, svc: Obj) -> bool:
    """``ownedBy``: an owner reference to this Service (uid, kind Service, apiVersion v1)."""
    uid = svc["metadata"].get("uid")
    return any(
        o.get("uid") == uid and o.get("kind") == "Service" and o.get("apiVersion") == "v1"
        for o in slice_["metadata"].get("ownerReferences") or []
    )


def is_reserved_label_key(key: str) -> bool:
    """``isReservedLabelKey``: the labels the controller owns."""
    return key in (SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL)


def set_endpoint_slice_labels(
    slice_: Obj, svc: Obj, controller_name: str = CONTROLLER_NAME
) -> tuple[dict[str, str], bool]:
    """``setEndpointSliceLabels``: the Service's labels plus the reserved ones; changed
    when the non-reserved labels differ from the Service's."""
    ep_labels = {k: v for k, v in (slice_["metadata"].get("labels") or {}).items()
                 if not is_reserved_label_key(k)}  # fmt: skip
    svc_labels = {k: v for k, v in (svc["metadata"].get("labels") or {}).items()
                  if not is_reserved_label_key(k)}  # fmt: skip
    updated = ep_labels != svc_labels
    if not is_service_ip_set(svc):
        svc_labels[HEADLESS_LABEL] = ""
    svc_labels[SERVICE_NAME_LABEL] = svc["metadata"]["name"]
    svc_labels[MANAGED_BY_LABEL] = controller_name
    return svc_labels, updated


def new_endpoint_slice(
    svc: Obj, ports: list[Obj], address_type: str, controller_name: str = CONTROLLER_NAME
) -> Obj:
    """``newEndpointSlice``: generateName ``<service>-``, a controller owner reference to
    the Service, the Service's labels plus the reserved ones, no endpoints."""
    meta = svc["metadata"]
    owner = {"apiVersion": "v1", "kind": "Service", "name": meta["name"],
             "uid": meta.get("uid") or "", "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    out: Obj = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"labels": {}, "generateName": get_endpoint_slice_prefix(meta["name"]),
                     "ownerReferences": [owner], "namespace": meta.get("namespace") or ""},  # fmt: skip
        "ports": copy.deepcopy(ports),
        "addressType": address_type,
        "endpoints": [],
    }
    out["metadata"]["labels"], _ = set_endpoint_slice_labels(out, svc, controller_name)
    return out


def get_slice_to_fill(slices: list[Obj], num_endpoints: int, max_endpoints: int) -> Obj | None:
    """``getSliceToFill``: the slice that ``num_endpoints`` more would fill most closely
    without overflowing; None when none has room."""
    closest_diff = max_endpoints
    closest: Obj | None = None
    for s in slices:
        diff = max_endpoints - (num_endpoints + len(s.get("endpoints") or []))
        if 0 <= diff < closest_diff:
            closest_diff, closest = diff, s
            if diff == 0:
                return s
    return closest


def service_controller_key(slice_: Obj | None) -> str:
    """``ServiceControllerKey``: ``namespace/<service-name label>``; ValueError without one."""
    if slice_ is None:
        raise ValueError("nil EndpointSlice passed to ServiceControllerKey()")
    name = (slice_["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL)
    if not name:
        raise ValueError(f"EndpointSlice missing {SERVICE_NAME_LABEL} label")
    return f"{slice_['metadata'].get('namespace') or ''}/{name}"


def get_address_types_for_service(svc: Obj) -> list[str]:
    """``getAddressTypesForService``: from ipFamilies; else the ClusterIP's family; else
    (headless, no families) both."""
    spec = svc.get("spec") or {}
    fams = spec.get("ipFamilies") or []
    out = [t for f, t in (("IPv4", "IPv4"), ("IPv6", "IPv6")) if f in fams]
    if out:
        return out
    ip = spec.get("clusterIP") or ""
    if ip and ip != "None":
        return ["IPv6" if _is_ipv6(ip) else "IPv4"]
    return ["IPv4", "IPv6"]


def hints_enabled(annotations: dict[str, str] | None) -> bool:
    """``hintsEnabled``: the topology-aware-hints (or topology-mode) annotation is Auto."""
    ann = annotations or {}
    val = ann.get("service.kubernetes.io/topology-aware-hints")
    if val is None:
        val = ann.get("service.kubernetes.io/topology-mode")
        if val is None:
            return False
    return val in ("Auto", "auto")

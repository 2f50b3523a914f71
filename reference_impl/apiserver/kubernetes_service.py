"""The ``default/kubernetes`` Service and its endpoints: kube-apiserver's bootstrap
controller (``pkg/controlplane/controller/kubernetesservice/controller.go``) with the
lease endpoint reconciler (``pkg/controlplane/reconcilers/lease.go``) writing through the
``EndpointsAdapter`` (``endpointsadapter.go``).

The reference runs one apiserver, so the master leases (``/registry/masterleases/<ip>``,
a TTL key refreshed every interval) always list just its own address: the lease keys
themselves are not stored (their refreshes would move etcd's revision every 10 s). The
apiserver's address is ``PUBLIC_IP`` and its secure port ``SECURE_PORT`` (kind's control
plane defaults); the Service's ClusterIP is the first address of the primary service
range (``ServiceIPRange``'s ``GetIndexedIP(1)``).
"""

from __future__ import annotations

import copy
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from reference_impl.apiserver.service_ipaddresses import own_uids
from reference_impl.clock import Priority, seconds
from reference_impl.errors import AlreadyExists, ApiError, NotFound

__all__ = [
    "ENDPOINT_INTERVAL_SECONDS",
    "KUBERNETES_SERVICE_NAME",
    "LABEL_SERVICE_NAME",
    "LABEL_SKIP_MIRROR",
    "PUBLIC_IP",
    "SECURE_PORT",
    "SERVICE_PORT",
    "Client",
    "Config",
    "check_endpoint_subset_format_with_lease",
    "check_service_format",
    "create_or_update_master_service_if_needed",
    "create_endpoint_port_spec",
    "create_port_and_service_spec",
    "default_config",
    "endpoint_slice_from_endpoints",
    "ensure_endpoint_slice_from_endpoints",
    "reconcile_endpoints",
    "start",
    "update_kubernetes_service",
]

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

Obj = dict[str, Any]
CONTROLLER_NAME: Final = "bootstrap-controller"  # its post-start hook's name
KUBERNETES_SERVICE_NAME: Final = "kubernetes"
NAMESPACE_DEFAULT: Final = "default"
SERVICE_PORT: Final = 443  # --apiserver's APIServerServicePort
SECURE_PORT: Final = 6443  # --secure-port's default (the endpoints' port)
PUBLIC_IP: Final = "172.18.0.2"  # the reference's --advertise-address (kind's first node)
ENDPOINT_INTERVAL_SECONDS: Final = 10.0  # --endpoint-reconciler interval
LABEL_SKIP_MIRROR: Final = "endpointslice.kubernetes.io/skip-mirror"
LABEL_SERVICE_NAME: Final = "kubernetes.io/service-name"
DISCOVERY_V1: Final = "discovery.k8s.io/v1"
NO_MASTER_IPS: Final = (
    "no API server IP addresses were listed in storage, refusing to erase all endpoints "
    "for the kubernetes Service"
)


class Client(Protocol):
    """The writes the controller makes (the APIServer answers them; tests record them)."""

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj: ...

    def create(self, manifest: Obj) -> Obj: ...

    def update(self, manifest: Obj) -> Obj: ...

    def delete(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> Any: ...


@dataclass(frozen=True, slots=True)
class Config:
    """``kubernetesservice.Config``."""

    public_ip: str
    service_ip: str
    service_port: int = SERVICE_PORT
    public_service_port: int = SECURE_PORT
    kubernetes_service_node_port: int = 0


def default_config(service_cidrs: Sequence[str]) -> Config:
    """The reference apiserver's: ServiceIP is the primary range's first address."""
    net = ipaddress.ip_network(service_cidrs[0], strict=False)
    return Config(public_ip=PUBLIC_IP, service_ip=str(net.network_address + 1))


def create_port_and_service_spec(
    service_port: int, target_port: int, node_port: int, name: str
) -> tuple[list[Obj], str]:
    """``createPortAndServiceSpec``: one TCP port; NodePort type when a node port is set."""
    port: Obj = {"name": name, "protocol": "TCP", "port": service_port, "targetPort": target_port}
    if node_port > 0:
        port["nodePort"] = node_port
        return [port], "NodePort"
    return [port], "ClusterIP"


def create_endpoint_port_spec(port: int, name: str) -> list[Obj]:
    """``createEndpointPortSpec``."""
    return [{"name": name, "port": port, "protocol": "TCP"}]


# ServicePort's and EndpointPort's fields with Go's zero values: ``port != s.Spec.Ports[i]``
# is struct equality (appProtocol a pointer: set on either side is unequal).
_SERVICE_PORT_ZERO: Final[Obj] = {
    "name": "", "protocol": "", "appProtocol": None, "port": 0, "targetPort": 0, "nodePort": 0,
}  # fmt: skip
_ENDPOINT_PORT_ZERO: Final[Obj] = {"name": "", "port": 0, "protocol": "", "appProtocol": None}


def _port_key(port: Obj, zero: Obj) -> tuple[Any, ...]:
    return tuple((port.get(k) if port.get(k) is not None else z) for k, z in zero.items()) + (
        tuple(sorted(set(port) - set(zero))),
    )


def _ports_equal(want: Sequence[Obj], have: Sequence[Obj], zero: Obj) -> bool:
    if len(want) != len(have):
        return False
    return all(_port_key(w, zero) == _port_key(h, zero) for w, h in zip(want, have, strict=True))


def check_service_format(svc: Obj, ports: Sequence[Obj], service_type: str) -> bool:
    """``checkServiceFormat``: the type and every port as expected."""
    spec = svc.get("spec") or {}
    if spec.get("type", "") != service_type:
        return False
    return _ports_equal(ports, spec.get("ports") or [], _SERVICE_PORT_ZERO)


def _master_service(name: str, service_ip: str, ports: list[Obj], service_type: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE_DEFAULT,
            "labels": {"provider": "kubernetes", "component": "apiserver"},
        },
        "spec": {
            "ports": copy.deepcopy(ports),
            "clusterIP": service_ip,
            "ipFamilyPolicy": "SingleStack",
            "sessionAffinity": "None",
            "type": service_type,
        },
    }


def create_or_update_master_service_if_needed(
    client: Client,
    name: str,
    service_ip: str,
    ports: list[Obj],
    service_type: str,
    reconcile: bool,
) -> None:
    """``CreateOrUpdateMasterServiceIfNeeded``: create the Service when missing; when it
    exists and ``reconcile``, reset its ports and type (nothing else) if they differ."""
    try:
        svc = client.get("v1", "Service", name, NAMESPACE_DEFAULT)
    except NotFound:
        try:
            client.create(_master_service(name, service_ip, ports, service_type))
        except AlreadyExists:
            create_or_update_master_service_if_needed(
                client, name, service_ip, ports, service_type, reconcile
            )
        return
    if reconcile and not check_service_format(svc, ports, service_type):
        svc = copy.deepcopy(svc)
        svc["spec"]["ports"] = copy.deepcopy(ports)
        svc["spec"]["type"] = service_type
        client.update(svc)


# -- the lease endpoint reconciler and its EndpointsAdapter ---------------------------------


def _is_ipv6(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).version == 6
    except ValueError:
        return False


def _endpoints_from_addresses(addresses: list[Obj], ipv6: bool, ready: bool) -> list[Obj]:
    """``getEndpointsFromAddresses``: those of the slice's family."""
    out = []
    for a in addresses:
        if _is_ipv6(str(a.get("ip", ""))) != ipv6:
            continue
        ep: Obj = {"addresses": [a.get("ip", "")], "conditions": {"ready": ready}}
        if a.get("targetRef") is not None:
            ep["targetRef"] = a["targetRef"]
        if a.get("nodeName") is not None:
            ep["nodeName"] = a["nodeName"]
        out.append(ep)
    return out


def endpoint_slice_from_endpoints(endpoints: Obj) -> Obj:
    """``endpointSliceFromEndpoints``: the slice named as the Endpoints, labelled with the
    service name only, from the first subset; IPv6 when all its addresses are."""
    meta = endpoints.get("metadata") or {}
    name = str(meta.get("name", ""))
    out: Obj = {
        "apiVersion": DISCOVERY_V1,
        "kind": "EndpointSlice",
        "metadata": {
            "name": name,
            "namespace": meta.get("namespace", ""),
            "labels": {LABEL_SERVICE_NAME: name},
        },
        "addressType": "IPv4",
        "endpoints": [],
    }
    subsets = endpoints.get("subsets") or []
    if subsets:
        sub = subsets[0]
        ports = [
            {"name": p.get("name", ""), "port": p.get("port", 0), "protocol": p.get("protocol", "")}
            for p in sub.get("ports") or []
        ]
        if ports:
            out["ports"] = ports
        addrs = [*(sub.get("addresses") or []), *(sub.get("notReadyAddresses") or [])]
        ipv6 = bool(addrs) and all(_is_ipv6(str(a.get("ip", ""))) for a in addrs)
        if ipv6:
            out["addressType"] = "IPv6"
        out["endpoints"] = [
            *_endpoints_from_addresses(sub.get("addresses") or [], ipv6, True),
            *_endpoints_from_addresses(sub.get("notReadyAddresses") or [], ipv6, False),
        ]
    return out


def _semantic(v: Any) -> Any:
    """``Semantic.DeepEqual``'s view: an empty list or map is nil's equal."""
    if isinstance(v, dict):
        return {k: _semantic(x) for k, x in v.items() if x not in (None, [], {})}
    if isinstance(v, list):
        return [_semantic(x) for x in v]
    return v


def ensure_endpoint_slice_from_endpoints(client: Client, namespace: str, endpoints: Obj) -> None:
    """``EnsureEndpointSliceFromEndpoints``: create the slice, recreate it on an address
    type change, or update it when its endpoints, ports or labels differ."""
    want = endpoint_slice_from_endpoints(endpoints)
    name = want["metadata"]["name"]
    try:
        have = client.get(DISCOVERY_V1, "EndpointSlice", name, namespace)
    except NotFound:
        try:
            client.create(want)
        except AlreadyExists:
            pass
        return
    if have.get("addressType") != want["addressType"]:
        client.delete(DISCOVERY_V1, "EndpointSlice", name, namespace)
        client.create(want)
        return
    if all(
        _semantic(have.get(k)) == _semantic(want.get(k)) for k in ("endpoints", "ports")
    ) and _semantic((have.get("metadata") or {}).get("labels")) == _semantic(
        want["metadata"]["labels"]
    ):
        return
    # Update sends the built slice: no resourceVersion, an unconditional update.
    client.update(want)


def check_endpoint_subset_format_with_lease(
    endpoints: Obj, expected_ips: Sequence[str], ports: Sequence[Obj], reconcile_ports: bool
) -> tuple[bool, bool, bool]:
    """``checkEndpointSubsetFormatWithLease``: (one subset, its addresses are exactly the
    lease IPs, its ports are as expected when ``reconcile_ports``)."""
    subsets = endpoints.get("subsets") or []
    if len(subsets) != 1:
        return False, False, False
    sub = subsets[0]
    ports_ok = not reconcile_ports or _ports_equal(ports, sub.get("ports") or [],
                                                  _ENDPOINT_PORT_ZERO)  # fmt: skip
    addrs = [str(a.get("ip", "")) for a in sub.get("addresses") or []]
    ips_ok = len(addrs) == len(expected_ips)
    if ips_ok:
        seen: dict[str, bool] = dict.fromkeys(expected_ips, False)
        for ip in addrs:
            if ip not in seen or seen[ip]:
                ips_ok = False
                break
            seen[ip] = True
    return True, ips_ok, ports_ok


def _repack(subsets: list[Obj]) -> list[Obj]:
    """``endpoints.RepackSubsets`` for the one subset the reconciler writes: addresses
    sorted and deduplicated, none when there are no addresses. Its ports keep their order
    (upstream's regroup sorts several by hash; the apiserver writes one)."""
    out = []
    for sub in subsets:
        addrs = {str(a.get("ip", "")): a for a in sub.get("addresses") or []}
        if not addrs:
            continue
        new = {**sub, "addresses": [addrs[ip] for ip in sorted(addrs)]}
        out.append(new)
    return out


def reconcile_endpoints(
    client: Client,
    service_name: str,
    master_ips: Sequence[str],
    ports: list[Obj],
    reconcile_ports: bool,
    stopped: bool = False,
) -> None:
    """``leaseEndpointReconciler.doReconcile`` over the lease IPs ``master_ips``: the
    Endpoints (labelled skip-mirror) list them with ``ports``, and the EndpointSlice
    follows. ``stopped`` is ``StopReconciling`` having been called."""
    try:
        e = copy.deepcopy(client.get("v1", "Endpoints", service_name, NAMESPACE_DEFAULT))
        create = False
    except NotFound:
        if stopped:
            return
        create = True
        e = {"apiVersion": "v1", "kind": "Endpoints",
             "metadata": {"name": service_name, "namespace": NAMESPACE_DEFAULT}}  # fmt: skip
    if not stopped and not master_ips:
        raise RuntimeError(NO_MASTER_IPS)
    meta = e.setdefault("metadata", {})
    labels = meta.get("labels") or {}
    skip_changed = labels.get(LABEL_SKIP_MIRROR) != "true"
    if skip_changed:
        meta["labels"] = {**labels, LABEL_SKIP_MIRROR: "true"}
    fmt_ok, ips_ok, ports_ok = check_endpoint_subset_format_with_lease(
        e, master_ips, ports, reconcile_ports
    )
    if not skip_changed and fmt_ok and ips_ok and ports_ok:
        ensure_endpoint_slice_from_endpoints(client, NAMESPACE_DEFAULT, e)
        return
    if not fmt_ok:
        e["subsets"] = [{"addresses": [], "ports": copy.deepcopy(ports)}]
    if not fmt_ok or not ips_ok:
        e["subsets"][0]["addresses"] = [{"ip": ip} for ip in master_ips]
        e["subsets"] = _repack(e["subsets"])
    if e.get("subsets") and not ports_ok:
        e["subsets"][0]["ports"] = copy.deepcopy(ports)
    if create:
        try:
            out = client.create(e)
        except AlreadyExists:
            return
    else:
        out = client.update(e)
    ensure_endpoint_slice_from_endpoints(client, NAMESPACE_DEFAULT, out)


def update_kubernetes_service(client: Client, cfg: Config, reconcile: bool) -> None:
    """``UpdateKubernetesService``: the Service, then the endpoints (this apiserver's lease
    only)."""
    ports, service_type = create_port_and_service_spec(
        cfg.service_port, cfg.public_service_port, cfg.kubernetes_service_node_port, "https"
    )
    create_or_update_master_service_if_needed(
        client, KUBERNETES_SERVICE_NAME, cfg.service_ip, ports, service_type, reconcile
    )
    ep_ports = create_endpoint_port_spec(cfg.public_service_port, "https")
    reconcile_endpoints(client, KUBERNETES_SERVICE_NAME, [cfg.public_ip], ep_ports, reconcile)


def start(srv: APIServer, cfg: Config | None = None) -> None:
    """``Controller.Start``/``Run``: one sync now, then every ``EndpointInterval``
    (``wait.NonSlidingUntil`` of ``UpdateKubernetesService(false)``); a failed sync waits
    for the next tick (``runtime.HandleError``). Its uids come from a stream of its own."""
    conf = cfg or default_config(srv.service_cidrs)
    interval = seconds(ENDPOINT_INTERVAL_SECONDS)
    uids = srv.rng_stream(CONTROLLER_NAME)

    def tick() -> None:
        try:
            with own_uids(srv, uids):
                update_kubernetes_service(srv, conf, False)
        except (ApiError, RuntimeError):
            pass
        srv.clock.call_later(interval, tick, priority=Priority.LATE)

    tick()

"""Helpers for the service REST storage ports: ``pkg/api/service/testing/make.go``'s
``MakeService`` and its tweaks as v1 dicts, and storage_test.go's ``prove*`` checks.

The reference keeps no allocator bitmaps (the IPAddress objects and the stored Services'
node ports are the allocation state), so "is allocated" is asked the way a client would: a probe Service requesting the address
or port is refused as already allocated, or accepted (and deleted again)."""

from __future__ import annotations

import copy
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.registry import DEFAULT_SERVICE_CIDRS
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


# storage_test.go ``newStorage``'s range per family, and its tables' cluster families.
CIDRS: dict[str, str] = {"IPv4": "10.0.0.0/16", "IPv6": "2000::/108"}
CLUSTERS: dict[str, tuple[str, ...]] = {
    "singlestack:v4": ("IPv4",),
    "singlestack:v6": ("IPv6",),
    "dualstack:v4v6": ("IPv4", "IPv6"),
    "dualstack:v6v4": ("IPv6", "IPv4"),
}


def new_server(families: tuple[str, ...] | None = None) -> APIServer:
    """A server over the reference's default range, or ``newStorage(t, families)``'s."""
    cidrs = DEFAULT_SERVICE_CIDRS if families is None else tuple(CIDRS[f] for f in families)
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates(), cidrs)
    s.create(make_namespace("default").build())
    return s


def make_service(
    name: str,
    *,
    type_: str = "ClusterIP",
    cluster_ips: tuple[str, ...] | None = None,
    policy: str | None = None,
    families: tuple[str, ...] | None = None,
    node_ports: tuple[int, ...] | None = None,
    ports: list[Obj] | None = None,
    etp: str | None = None,
    hcnp: int | None = None,
    alloc_lb_node_ports: bool | None = None,
    selector: Obj | None = None,
    affinity: str | None = None,
    external_name: str | None = None,
) -> Obj:
    """``svctest.MakeService`` with the tweaks these tests use (SetTypeX, SetClusterIPs,
    SetIPFamilyPolicy, SetIPFamilies, SetNodePorts, SetExternalTrafficPolicy,
    SetHealthCheckNodePort, SetAllocateLoadBalancerNodePorts, SetSelector,
    SetSessionAffinity, SetExternalName)."""
    spec: Obj = {
        "selector": {"k": "v"},
        "sessionAffinity": "None",
        "type": type_,
        "internalTrafficPolicy": "Cluster",
        "ports": copy.deepcopy(ports)
        if ports is not None
        else [{"port": 93, "targetPort": 76, "protocol": "TCP"}],
    }
    if type_ in ("NodePort", "LoadBalancer"):
        spec["externalTrafficPolicy"] = "Cluster"
    if type_ == "LoadBalancer":
        spec["allocateLoadBalancerNodePorts"] = True
    if type_ == "ExternalName":
        spec["externalName"] = "example.com"
        spec.pop("internalTrafficPolicy")
    if cluster_ips is not None:
        spec["clusterIP"], spec["clusterIPs"] = cluster_ips[0], list(cluster_ips)
    if policy is not None:
        spec["ipFamilyPolicy"] = policy
    if families is not None:
        spec["ipFamilies"] = list(families)
    for i, port in enumerate(node_ports or ()):
        spec["ports"][i]["nodePort"] = port
    if etp == "":
        spec.pop("externalTrafficPolicy", None)
    elif etp is not None:
        spec["externalTrafficPolicy"] = etp
    if selector is not None:
        spec["selector"] = selector
    if affinity is not None:  # SetSessionAffinity: ClientIP comes with its config
        spec["sessionAffinity"] = affinity
        if affinity == "ClientIP":
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10}}
        else:
            spec.pop("sessionAffinityConfig", None)
    if external_name is not None:
        spec["externalName"] = external_name
    if hcnp is not None:
        spec["healthCheckNodePort"] = hcnp
    if alloc_lb_node_ports is not None:
        spec["allocateLoadBalancerNodePorts"] = alloc_lb_node_ports
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def _probe(s: APIServer, svc: Obj) -> str:
    """Create ``svc`` and delete it again; the refusal's text, or "" when it was taken."""
    try:
        s.create(svc)
    except ApiError as err:
        return str(err)
    s.delete("v1", "Service", svc["metadata"]["name"], "default")
    return ""


def ip_is_allocated(s: APIServer, ip: str) -> bool:
    why = _probe(s, make_service("probe-ip", cluster_ips=(ip,)))
    assert why == "" or "already allocated" in why, why
    return bool(why)


def port_is_allocated(s: APIServer, port: int) -> bool:
    why = _probe(s, make_service("probe-port", type_="NodePort", node_ports=(port,)))
    assert why == "" or "already allocated" in why, why
    return bool(why)


def _family(ip: str) -> str:
    return f"IPv{ipaddress.ip_address(ip).version}"


def prove_cluster_ips_allocated(s: APIServer, before: Obj | None, after: Obj) -> None:
    """storage_test.go ``proveClusterIPsAllocated``."""
    spec, ips = after["spec"], after["spec"]["clusterIPs"]
    assert spec["clusterIP"] == ips[0]
    for ip in ips:
        assert ip_is_allocated(s, ip), ip
    fams = spec.get("ipFamilies") or []
    assert len(ips) == len(fams)
    assert [_family(ip) for ip in ips] == fams
    policy = spec.get("ipFamilyPolicy")
    assert policy is not None
    clus = len(s.service_cidrs)  # PreferDualStack: as many as the cluster has
    assert len(fams) == {"SingleStack": 1, "RequireDualStack": 2}.get(policy, clus)
    if before is not None:
        bspec = before["spec"]
        if bspec.get("clusterIP"):
            assert spec["clusterIP"] == bspec["clusterIP"]
        for want, got in zip(bspec.get("clusterIPs") or [], ips, strict=False):
            assert want == got
        for want, got in zip(bspec.get("ipFamilies") or [], fams, strict=False):
            assert want == got


def prove_cluster_ips_deallocated(s: APIServer, before: Obj | None, after: Obj | None) -> None:
    """storage_test.go ``proveClusterIPsDeallocated``."""
    if after is not None and after["spec"].get("clusterIP") != "None":
        assert not after["spec"].get("clusterIP")
        assert not after["spec"].get("clusterIPs")
    if before is not None and before["spec"].get("clusterIP") != "None":
        for ip in before["spec"].get("clusterIPs") or []:
            assert not ip_is_allocated(s, ip), ip


def prove_headless(after: Obj) -> None:
    """storage_test.go ``proveHeadless``."""
    assert after["spec"]["clusterIP"] == after["spec"]["clusterIPs"][0]
    assert after["spec"]["clusterIPs"] == ["None"]


def prove_node_ports_allocated(s: APIServer, after: Obj) -> None:
    """storage_test.go ``proveNodePortsAllocated``."""
    for p in after["spec"]["ports"]:
        assert port_is_allocated(s, p.get("nodePort") or 0), p


def prove_node_ports_deallocated(s: APIServer, before: Obj | None, after: Obj | None) -> None:
    """storage_test.go ``proveNodePortsDeallocated``."""
    if after is not None:
        assert all(not p.get("nodePort") for p in after["spec"]["ports"])
    for p in (before or {}).get("spec", {}).get("ports") or []:
        if p.get("nodePort"):
            assert not port_is_allocated(s, p["nodePort"]), p


def prove_hcnp_allocated(s: APIServer, after: Obj) -> None:
    """storage_test.go ``proveHealthCheckNodePortAllocated``."""
    assert port_is_allocated(s, after["spec"].get("healthCheckNodePort") or 0)


def prove_hcnp_deallocated(s: APIServer, before: Obj | None, after: Obj | None) -> None:
    """storage_test.go ``proveHealthCheckNodePortDeallocated``."""
    if after is not None:
        assert not after["spec"].get("healthCheckNodePort")
    port = ((before or {}).get("spec") or {}).get("healthCheckNodePort")
    if port:
        assert not port_is_allocated(s, port)


@dataclass
class Case:
    """storage_test.go ``svcTestCase``: the Service sent and what the write should give."""

    svc: Obj
    error: bool = False
    cluster_ips: bool = False
    stack_downgrade: bool = False
    headless: bool = False
    node_ports: bool = False
    hcnp: bool = False
    prove: list[Callable[[APIServer, Obj | None, Obj], None]] = field(default_factory=list)


def _drop_empty(value: Any) -> Any:
    """cmpopts.EquateEmpty: nil and empty slices and maps are the same."""
    if isinstance(value, dict):
        return {k: _drop_empty(v) for k, v in value.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_drop_empty(v) for v in value]
    return value


def verify_equiv(case: Case, got: Obj) -> None:
    """storage_test.go ``verifyEquiv``: the result is the input, with the allocated fields
    the case expects filled from the result (the spec is compared; metadata is the
    server's)."""
    want, gspec = copy.deepcopy(case.svc["spec"]), got["spec"]
    if case.cluster_ips or case.headless:
        if not want.get("clusterIP"):
            want["clusterIP"] = gspec.get("clusterIP")
        if want.get("ipFamilyPolicy") is None:
            want["ipFamilyPolicy"] = gspec.get("ipFamilyPolicy")
        gips = list(gspec.get("clusterIPs") or [])
        for key in ("clusterIPs", "ipFamilies"):
            have, more = list(want.get(key) or []), list(gspec.get(key) or [])
            # upstream sizes both downgrades by the result's clusterIPs
            if case.stack_downgrade and len(have) > len(gips):
                want[key] = have[:1]
            else:
                want[key] = have + more[len(have) :]
    if case.node_ports:
        for i, p in enumerate(want.get("ports") or []):
            if not p.get("nodePort"):
                p["nodePort"] = gspec["ports"][i].get("nodePort")
    if case.hcnp and not want.get("healthCheckNodePort"):
        want["healthCheckNodePort"] = gspec.get("healthCheckNodePort")
    assert _drop_empty(gspec) == _drop_empty(want)


def verify_expectations(s: APIServer, case: Case, before: Obj | None, after: Obj | None) -> None:
    """storage_test.go ``verifyExpectations``."""
    if case.cluster_ips:
        assert after is not None
        prove_cluster_ips_allocated(s, before, after)
    elif case.headless:
        assert after is not None
        prove_headless(after)
    else:
        prove_cluster_ips_deallocated(s, before, after)
    if case.node_ports:
        assert after is not None
        prove_node_ports_allocated(s, after)
    else:
        prove_node_ports_deallocated(s, before, after)
    if case.hcnp:
        assert after is not None
        prove_hcnp_allocated(s, after)
    else:
        prove_hcnp_deallocated(s, before, after)
    for proof in case.prove:
        assert after is not None
        proof(s, before, after)


def create_update_delete(
    create: Case,
    update: Case | None,
    families: tuple[str, ...] | None = None,
    before_update: Callable[[APIServer], None] | None = None,
) -> None:
    """storage_test.go ``helpTestCreateUpdateDeleteWithFamilies`` for one case, on a fresh
    server (``new_server(families)``); ``before_update`` is the case's ``beforeUpdate``."""
    s = new_server(families)
    if create.error:
        with pytest.raises(ApiError):
            s.create(copy.deepcopy(create.svc))
        return
    created = s.create(copy.deepcopy(create.svc))
    verify_equiv(create, created)
    verify_expectations(s, create, create.svc, created)  # upstream passes the input
    last = created
    if update is not None:
        if before_update is not None:
            before_update(s)
        sent = copy.deepcopy(update.svc)
        sent["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
        if update.error:
            with pytest.raises(ApiError):
                s.update(sent)
            return
        updated = s.update(sent)
        verify_equiv(update, updated)
        verify_expectations(s, update, created, updated)
        last = updated
    s.delete("v1", "Service", last["metadata"]["name"], "default")
    verify_expectations(s, Case(svc={}), last, None)

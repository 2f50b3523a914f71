"""The default ServiceCIDR: kube-apiserver's ``kubernetes-service-cidr-controller``
(``pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go``).

``sync`` creates the ServiceCIDR "kubernetes" from ``--service-cluster-ip-range`` when it
is missing, upgrades it from single- to dual-stack when the flags gained a secondary
range, and sets its Ready condition when none is set and its CIDRs match the flags. The
apiserver runs it once as it starts (upstream's Start blocks until one sync succeeds);
the 10-second resync is the caller's (``Cluster``).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any, Final

from reference_impl.apiserver.service_ipaddresses import own_uids
from reference_impl.apiserver.strategies.service_cidr_alloc import NETWORKING_V1
from reference_impl.clock import rfc3339
from reference_impl.errors import AlreadyExists, ApiError

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "CONTROLLER_NAME",
    "DEFAULT_SERVICE_CIDR_NAME",
    "RESYNC_SECONDS",
    "flag_cidrs",
    "sync",
    "sync_status",
]

Obj = dict[str, Any]
CONTROLLER_NAME: Final = "kubernetes-service-cidr-controller"
DEFAULT_SERVICE_CIDR_NAME: Final = "kubernetes"
RESYNC_SECONDS: Final = 10.0  # the controller's interval
READY_MESSAGE: Final = "Kubernetes default Service CIDR is ready"


def flag_cidrs(service_cidrs: tuple[str, ...]) -> list[str]:
    """The flag's ranges as ``net.IPNet.String()`` prints them (masked), primary first."""
    return [str(ipaddress.ip_network(c, strict=False)) for c in service_cidrs]


def _ready(obj: Obj) -> Obj | None:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            return cond
    return None


def sync_status(srv: APIServer, obj: Obj, cidrs: list[str]) -> None:
    """``syncStatus``: a ServiceCIDR being deleted, or one whose CIDRs differ from the
    flags, is left alone; Ready absent or Unknown becomes True (an apply of the one
    condition, reason unset); Ready True or False stays."""
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return
    if list((obj.get("spec") or {}).get("cidrs") or []) != cidrs:
        return
    cond = _ready(obj)
    if cond is not None and cond.get("status") in ("True", "False"):
        return
    others = [c for c in (obj.get("status") or {}).get("conditions") or [] if c is not cond]
    ready = {
        "type": "Ready",
        "status": "True",
        "lastTransitionTime": rfc3339(srv.clock.now()),
        "reason": "",
        "message": READY_MESSAGE,
    }
    body = {**obj, "status": {**(obj.get("status") or {}), "conditions": [*others, ready]}}
    try:
        srv.update_status(body)
    except ApiError:
        return  # upstream records an event and retries on the next sync


def sync(srv: APIServer) -> None:
    """``sync``: create, upgrade to dual-stack, or sync the status of "kubernetes"."""
    cidrs = flag_cidrs(srv.service_cidrs)
    obj = srv.try_get(NETWORKING_V1, "ServiceCIDR", DEFAULT_SERVICE_CIDR_NAME)
    if obj is not None:
        have = list((obj.get("spec") or {}).get("cidrs") or [])
        if len(cidrs) == 2 and len(have) == 1 and cidrs[0] == have[0]:
            try:
                srv.update({**obj, "spec": {**obj["spec"], "cidrs": cidrs}})
            except ApiError:
                pass  # upstream records a warning event
            return
        sync_status(srv, obj, cidrs)
        return
    body = {
        "apiVersion": NETWORKING_V1,
        "kind": "ServiceCIDR",
        "metadata": {"name": DEFAULT_SERVICE_CIDR_NAME},
        "spec": {"cidrs": cidrs},
    }
    try:
        with own_uids(srv, srv.rng_stream(CONTROLLER_NAME)):
            obj = srv.create(body)
    except AlreadyExists:
        obj = srv.try_get(NETWORKING_V1, "ServiceCIDR", DEFAULT_SERVICE_CIDR_NAME)
        if obj is None:
            return
    sync_status(srv, obj, cidrs)

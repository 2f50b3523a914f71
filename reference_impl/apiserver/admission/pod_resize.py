"""Models plugin/pkg/admission/podresize/admission.go: the PodResizeValidator plugin.

A validating plugin for ``pods/resize`` updates that change the spec of a bound pod: the
pod's node must exist, be Linux (or unlabelled), and have allocatable cpu and memory for the
pod's requests as ``resource.PodRequests`` computes them from the spec alone. A refusal is
Forbidden (403), so a resize that could never fit is refused instead of being left
Infeasible by the kubelet. InPlacePodVerticalScaling is GA, so the plugin always runs.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver import keys
from reference_impl.apiserver.quota.pod_resources import pod_requests as quota_pod_requests
from reference_impl.errors import Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["PLUGIN_NAME", "pod_requests", "validate_pod_resize"]

Obj = dict[str, Any]
PLUGIN_NAME: Final = "PodResizeValidator"
_RESOURCES: Final = ("cpu", "memory")
_OS_LABEL: Final = "kubernetes.io/os"


def pod_requests(spec: Obj) -> dict[str, Decimal]:
    """``resource.PodRequests`` with no options (the quota evaluator's, from the spec
    alone, pod-level requests included), for cpu and memory."""
    reqs = quota_pod_requests({"spec": spec}, use_status=False, pod_level=True)
    return {k: reqs[k].amount for k in _RESOURCES if k in reqs}


def _shortfall(requests: dict[str, Decimal], allocatable: Obj) -> str:
    """Upstream's message, cpu in millicores and memory in bytes; "" when both fit."""
    msg = []
    cpu_req, cpu_alloc = requests.get("cpu", Decimal(0)), parse_quantity(allocatable.get("cpu", "0"))
    if cpu_req > cpu_alloc:
        msg.append(f"cpu, requested: {math.ceil(cpu_req * 1000)}, allocatable: {math.ceil(cpu_alloc * 1000)}")
    mem_req, mem_alloc = requests.get("memory", Decimal(0)), parse_quantity(allocatable.get("memory", "0"))
    if mem_req > mem_alloc:
        msg.append(f"memory, requested: {math.ceil(mem_req)}, allocatable: {math.ceil(mem_alloc)}")
    return "node didn't have enough allocatable resources: " + "; ".join(msg) if msg else ""


def validate_pod_resize(srv: APIServer, pod: Obj) -> None:
    """Raise Forbidden when the resized ``pod`` (already validated, its spec changed) may
    not be resized on its node; an unbound pod passes."""
    node_name = pod["spec"].get("nodeName")
    if not node_name:
        return
    name = pod["metadata"].get("name", "")
    prefix = f'pods "{name}" is forbidden: '
    kv = srv.store.get(keys.key(srv.resource("v1", "Node"), node_name, None))
    if kv is None:
        raise Forbidden(f'{prefix}node "{node_name}" not found')
    node = kv.decode()
    os_name = (node["metadata"].get("labels") or {}).get(_OS_LABEL, "linux")
    if os_name != "linux":
        raise Forbidden(f'{prefix}pod resize is only supported on linux nodes, node "{node_name}" is "{os_name}"')
    why = _shortfall(pod_requests(pod["spec"]), (node.get("status") or {}).get("allocatable") or {})
    if why:
        raise Forbidden(prefix + why)

"""DRANodeAllocatableResources outside the DynamicResources plugin: a pod's recorded
``status.nodeAllocatableResourceClaimStatuses`` add to its requests. Upstream's rows of
``TestPodInfoCalculateResources`` (framework/types_test.go) that mention NodeAllocatable,
``TestComputePodResourceRequestWithNodeAllocatableDRA`` (noderesources/fit_test.go), and
the scheduler cache accounting them on the node (gate on) or not (gate off).

``CalculateResource`` is ``request_totals`` (requests, and the non-zero ones scoring
uses); ``computePodResourceRequest`` is ``pod_requests``.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.pod_resources import pod_requests
from reference_impl.scheduler.framework.types import request_totals

Obj = dict[str, Any]
MI = 1024 * 1024
CLAIM = "node-allocatable-claim"


def _c(cpu: str, mem: str, *claims: str, name: str = "c") -> Obj:
    return {"name": name, "image": "i", "resources": {
        "requests": {"cpu": cpu, "memory": mem}, "claims": [{"name": c} for c in claims]}}


def _map(claim: str, **q: str) -> Obj:
    return {"resourceClaimName": claim, "mapping": [{"name": k, "quantity": v} for k, v in q.items()]}


def _overhead(claim: str, mapping: dict[str, str] | None = None) -> Obj:
    st: Obj = {"resourceClaimName": claim, "containers": ["c1"], "overhead": [
        {"name": "cpu", "perPod": "100m", "perContainer": "100m"},
        {"name": "memory", "perPod": "200Mi", "perContainer": "200Mi"}]}
    if mapping:
        st["mapping"] = [{"name": k, "quantity": v} for k, v in mapping.items()]
    return st


def _pod(containers: list[Obj], statuses: list[Obj], *, init: list[Obj] | None = None,
         pod_level: dict[str, str] | None = None, overhead: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"containers": containers}
    if init:
        spec["initContainers"] = init
    if pod_level:
        spec["resources"] = {"requests": pod_level}
    if overhead:
        spec["overhead"] = overhead
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": spec, "status": {"nodeAllocatableResourceClaimStatuses": statuses}}


ONE = [_map(CLAIM, cpu="100m", memory="200Mi")]

# name -> (gate, pod, (milliCPU, memory), (non0CPU, non0Mem)); one row per upstream row.
CALCULATE_ROWS: dict[str, tuple[bool, Obj, tuple[int, int], tuple[int, int]]] = {
    "DRA gate disabled, with node allocatable resource claim": (
        False, _pod([_c("500m", "500Mi", CLAIM)], ONE), (500, 500 * MI), (500, 500 * MI)),
    "container with DRA node allocatable resource claim": (
        True, _pod([_c("500m", "500Mi", CLAIM)], ONE), (600, 700 * MI), (600, 700 * MI)),
    "Multiple DRA node allocatable resource claims": (
        True, _pod([_c("500m", "500Mi", "node-allocatable-claim-1", "node-allocatable-claim-2")],
                   [_map("node-allocatable-claim-1", cpu="100m", memory="200Mi"),
                    _map("node-allocatable-claim-2", cpu="100m")]),
        (700, 700 * MI), (700, 700 * MI)),
    "Single DRA claim with multiple resources": (
        True, _pod([_c("500m", "500Mi", "node-allocatable-claim-1")],
                   [_map("node-allocatable-claim-1", cpu="1000m", memory="200Mi")]),
        (1500, 700 * MI), (1500, 700 * MI)),
    "DRA node allocatable Resources with Init Container": (
        True, _pod([_c("500m", "1200Mi", "node-allocatable-claim-1")],
                   [_map("node-allocatable-claim-1", cpu="100m", memory="200Mi")],
                   init=[_c("1200m", "500Mi", "node-allocatable-claim-1", name="i")]),
        (1300, 1400 * MI), (1300, 1400 * MI)),
    "DRA node allocatable Resources with Pod Level Resources": (
        True, _pod([_c("500m", "500Mi", "node-allocatable-claim-1")],
                   [_map("node-allocatable-claim-1", cpu="100m", memory="200Mi")],
                   pod_level={"cpu": "700m", "memory": "800Mi"}),
        (700, 800 * MI), (700, 800 * MI)),
    "DRA node allocatable Resources with Pod Overhead": (
        True, _pod([_c("500m", "500Mi", "node-allocatable-claim-1")],
                   [_map("node-allocatable-claim-1", cpu="100m", memory="200Mi")],
                   overhead={"cpu": "100m", "memory": "200Mi"}),
        (700, 900 * MI), (700, 900 * MI)),
    "DRA gate enabled, with node allocatable resource claim specifying Overhead": (
        True, _pod([_c("500m", "500Mi", CLAIM, name="c1")], [_overhead(CLAIM)]),
        (700, 900 * MI), (700, 900 * MI)),
    "DRA gate enabled, with node allocatable resource claim specifying both Mapping and Overhead": (
        True, _pod([_c("500m", "500Mi", CLAIM, name="c1")],
                   [_overhead(CLAIM, {"cpu": "100m", "memory": "200Mi"})]),
        (800, 1100 * MI), (800, 1100 * MI)),
}


@pytest.mark.parametrize("name", list(CALCULATE_ROWS))
def test_pod_info_calculate_resources(name: str) -> None:
    """TestPodInfoCalculateResources (the NodeAllocatable rows; PodLevelResources is on
    in the reference, which the pod-level row enables)."""
    gate, pod, want, want_non0 = CALCULATE_ROWS[name]
    req, non0 = request_totals(pod, gate)
    assert (req.milli_cpu, req.memory) == want
    assert (non0.milli_cpu, non0.memory) == want_non0


GI = 1024 * MI


def _fit_pod(status: Obj) -> Obj:
    return _pod([_c("100m", "1Gi", CLAIM, name="c1")], [{"resourceClaimName": CLAIM, "containers": ["c1"],
                                                           **status}])


FIT_ROWS: dict[str, tuple[bool, Obj, dict[str, int]]] = {
    "Pod with DRA claim and EnableDRANodeAllocatableResources enabled": (
        True, _fit_pod({"mapping": [{"name": "cpu", "quantity": "50m"}]}), {"cpu": 150, "memory": GI}),
    "Pod with DRA claim and EnableDRANodeAllocatableResources disabled": (
        False, _fit_pod({"mapping": [{"name": "cpu", "quantity": "50m"}]}), {"cpu": 100, "memory": GI}),
    "Pod with DRA claim specifying Overhead and EnableDRANodeAllocatableResources enabled": (
        True, _fit_pod({"overhead": [{"name": "cpu", "perPod": "50m", "perContainer": "50m"}]}),
        {"cpu": 200, "memory": GI}),
    "Pod with DRA claim specifying both Mapping and Overhead and EnableDRANodeAllocatableResources enabled": (
        True, _fit_pod({"mapping": [{"name": "cpu", "quantity": "50m"}],
                        "overhead": [{"name": "cpu", "perPod": "50m", "perContainer": "50m"}]}),
        {"cpu": 250, "memory": GI}),
}


@pytest.mark.parametrize("name", list(FIT_ROWS))
def test_compute_pod_resource_request_with_node_allocatable_dra(name: str) -> None:
    """TestComputePodResourceRequestWithNodeAllocatableDRA."""
    gate, pod, want = FIT_ROWS[name]
    assert pod_requests(pod, node_allocatable=gate) == want


@pytest.mark.parametrize(("gate", "want"), [pytest.param(False, 500, id="gate off"),
                                             pytest.param(True, 600, id="gate on")])
def test_cache_counts_recorded_amounts_on_the_node(gate: bool, want: int) -> None:
    """NodeInfo.AddPod through CalculateResource: a bound pod's recorded amounts are part
    of its node's requested resources only with the gate on."""
    cache = SchedulerCache(gate)
    cache.add_node(make_node("n").capacity(cpu="4", memory="8Gi", pods="10").build())
    pod = _pod([_c("500m", "500Mi", CLAIM)], ONE)
    pod["metadata"]["uid"] = "u"
    pod["spec"]["nodeName"] = "n"
    assert cache.add_pod(pod) == ""
    ni = next(n for n in cache.node_infos() if n.name == "n")
    assert ni.requested.milli_cpu == want

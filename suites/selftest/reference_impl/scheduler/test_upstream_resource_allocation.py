"""Ports noderesources/resource_allocation_test.go's
TestResourceAllocationScorerCalculateRequests: the non-zero requests scoring uses
(per-container defaults for missing cpu and memory, init containers, overhead).
TestCalculateResourceAllocatableRequest needs DRA ResourceSlices and is not ported."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.pod_resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
)
from reference_impl.scheduler.framework.types import request_totals

Obj = dict[str, Any]
MI = 1024 * 1024
CPU, MEM = DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST
_OVERHEAD = {"cpu": "1", "memory": "1Mi"}


def c(cpu: str | None = None, mem: str | None = None) -> Obj:
    req = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v is not None}
    return {"name": "c", "image": "i", **({"resources": {"requests": req}} if req else {})}


def spec(*containers: Obj, init: tuple[Obj, ...] = (), overhead: bool = False) -> Obj:
    out: Obj = {"containers": [dict(x, name=f"c{i}") for i, x in enumerate(containers)]}
    if init:
        out["initContainers"] = [dict(x, name=f"i{i}") for i, x in enumerate(init)]
    if overhead:
        out["overhead"] = dict(_OVERHEAD)
    return out


@pytest.mark.parametrize(
    ("pod_spec", "want_cpu", "want_mem"),
    [
        pytest.param(spec(overhead=True), 1000, MI, id="overhead only"),
        pytest.param(spec(c()), CPU, MEM, id="1x requestless container"),
        pytest.param(spec(c(), c()), 2 * CPU, 2 * MEM, id="2x requestless container"),
        pytest.param(spec(c("1", "1Mi"), c()), 1000 + CPU, MI + MEM, id="request container + requestless container"),
        pytest.param(spec(c("1", "1Mi"), c(), overhead=True), 2000 + CPU, 2 * MI + MEM,
                     id="container + requestless container + overhead"),
        pytest.param(spec(c("1", "1Mi"), c(), init=(c("3"),), overhead=True), 4000, 2 * MI + MEM,
                     id="init container + container + requestless container + overhead"),
        pytest.param(spec(c("3m", "3"), init=(c(), c("1m", "1"))), CPU, MEM,
                     id="requestless init container + small init container + small container "),
        pytest.param(spec(c("3m", "3"), c(), init=(c(), c("1m", "1"))), 3 + CPU, 3 + MEM,
                     id="requestless init container + small init container + small container + requestless container "),
    ],
)
def test_resource_allocation_scorer_calculate_requests(pod_spec: Obj, want_cpu: int, want_mem: int) -> None:
    _, non_zero = request_totals({"metadata": {"name": "p"}, "spec": pod_spec})
    assert (non_zero.milli_cpu, non_zero.memory) == (want_cpu, want_mem)

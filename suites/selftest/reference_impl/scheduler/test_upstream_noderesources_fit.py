"""Ports noderesources/fit_test.go: TestEnoughRequests, TestPreFilterDisabled,
TestNotEnoughRequests, TestStorageRequests, TestRestartableInitContainers, TestFitScore.

Each Filter row checks the status (code and reasons) and the insufficient resources'
names and unresolvable flags (the reference keeps no Requested/Used/Capacity numbers).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.node_resources_fit import (
    NAME,
    NodeResourcesFit,
    NodeResourcesFitArgs,
    fits_request,
)
from suites.selftest.reference_impl.scheduler.upstream_noderesources_util import (
    EXT_A,
    EXT_B,
    EXT_DRA,
    HUGE_A,
    K8S_A,
    K8S_B,
    FixedClasses,
    alloc,
    init_pod,
    node,
    node_info,
    overhead_pod,
    pod_level_pod,
    r,
    res_pod,
)

Obj = dict[str, Any]
Want = tuple[tuple[str, bool], ...]  # (insufficient resource, unresolvable)
U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def _status(want: Want) -> Status:
    # Fit.Filter: every reason kept; unresolvable if any resource is.
    if not want:
        return OK
    reasons = tuple("Too many pods" if n == "pods" else f"Insufficient {n}" for n, _ in want)
    return Status(UU if any(u for _, u in want) else U, reasons, NAME)


def _row(
    name: str,
    pod: Obj,
    existing: Obj | None,
    want: Want = (),
    args: NodeResourcesFitArgs | None = None,
    dra: bool = False,
    nil_dra: bool = False,
) -> Any:
    return pytest.param(pod, existing, want, args or NodeResourcesFitArgs(), dra and not nil_dra, id=name)


_ENOUGH = [
    _row("no resources requested always fits", res_pod(), res_pod(r(10, 20))),
    _row("too many resources fails", res_pod(r(1, 1)), res_pod(r(10, 20)),
         (("cpu", False), ("memory", False))),
    _row("too many resources fails due to init container cpu",
         init_pod(res_pod(r(1, 1)), r(3, 1)), res_pod(r(8, 19)), (("cpu", False),)),
    _row("too many resources fails due to highest init container cpu",
         init_pod(res_pod(r(1, 1)), r(3, 1), r(2, 1)), res_pod(r(8, 19)), (("cpu", False),)),
    _row("too many resources fails due to init container memory",
         init_pod(res_pod(r(1, 1)), r(1, 3)), res_pod(r(9, 19)), (("memory", False),)),
    _row("too many resources fails due to highest init container memory",
         init_pod(res_pod(r(1, 1)), r(1, 3), r(1, 2)), res_pod(r(9, 19)), (("memory", False),)),
    _row("init container fits because it's the max, not sum, of containers and init containers",
         init_pod(res_pod(r(1, 1)), r(1, 1)), res_pod(r(9, 19))),
    _row("multiple init containers fit because it's the max, not sum, of containers and init containers",
         init_pod(res_pod(r(1, 1)), r(1, 1), r(1, 1)), res_pod(r(9, 19))),
    _row("both resources fit", res_pod(r(1, 1)), res_pod(r(5, 5))),
    _row("one resource memory fits", res_pod(r(2, 1)), res_pod(r(9, 5)), (("cpu", False),)),
    _row("one resource cpu fits", res_pod(r(1, 2)), res_pod(r(5, 19)), (("memory", False),)),
    _row("equal edge case", res_pod(r(5, 1)), res_pod(r(5, 19))),
    _row("equal edge case for init container", init_pod(res_pod(r(4, 1)), r(5, 1)), res_pod(r(5, 19))),
    _row("extended resource fits", res_pod(r(scalars={EXT_A: 1})), res_pod(r())),
    _row("extended resource fits for init container",
         init_pod(res_pod(r()), r(scalars={EXT_A: 1})), res_pod(r())),
    _row("extended resource capacity enforced", res_pod(r(1, 1, scalars={EXT_A: 10})),
         res_pod(r(scalars={EXT_A: 0})), ((EXT_A, True),)),
    _row("extended resource capacity enforced for init container",
         init_pod(res_pod(r()), r(1, 1, scalars={EXT_A: 10})), res_pod(r(scalars={EXT_A: 0})),
         ((EXT_A, True),)),
    _row("extended resource allocatable enforced", res_pod(r(1, 1, scalars={EXT_A: 1})),
         res_pod(r(scalars={EXT_A: 5})), ((EXT_A, False),)),
    _row("extended resource allocatable enforced for init container",
         init_pod(res_pod(r()), r(1, 1, scalars={EXT_A: 1})), res_pod(r(scalars={EXT_A: 5})),
         ((EXT_A, False),)),
    _row("extended resource allocatable enforced for multiple containers",
         res_pod(r(1, 1, scalars={EXT_A: 3}), r(1, 1, scalars={EXT_A: 3})),
         res_pod(r(scalars={EXT_A: 2})), ((EXT_A, True),)),
    _row("extended resource allocatable admits multiple init containers",
         init_pod(res_pod(r()), r(1, 1, scalars={EXT_A: 3}), r(1, 1, scalars={EXT_A: 3})),
         res_pod(r(scalars={EXT_A: 2}))),
    _row("extended resource allocatable enforced for multiple init containers",
         init_pod(res_pod(r()), r(1, 1, scalars={EXT_A: 6}), r(1, 1, scalars={EXT_A: 3})),
         res_pod(r(scalars={EXT_A: 2})), ((EXT_A, True),)),
    _row("extended resource allocatable enforced for unknown resource",
         res_pod(r(1, 1, scalars={EXT_B: 1})), res_pod(r()), ((EXT_B, True),)),
    _row("extended resource allocatable enforced for unknown resource for init container",
         init_pod(res_pod(r()), r(1, 1, scalars={EXT_B: 1})), res_pod(r()), ((EXT_B, True),)),
    _row("kubernetes.io resource capacity enforced", res_pod(r(1, 1, scalars={K8S_A: 10})),
         res_pod(r()), ((K8S_A, True),)),
    _row("kubernetes.io resource capacity enforced for init container",
         init_pod(res_pod(r()), r(1, 1, scalars={K8S_B: 10})), res_pod(r()), ((K8S_B, True),)),
    _row("hugepages resource capacity enforced", res_pod(r(1, 1, scalars={HUGE_A: 10})),
         res_pod(r(scalars={HUGE_A: 0})), ((HUGE_A, True),)),
    _row("hugepages resource capacity enforced for init container",
         init_pod(res_pod(r()), r(1, 1, scalars={HUGE_A: 10})), res_pod(r(scalars={HUGE_A: 0})),
         ((HUGE_A, True),)),
    _row("hugepages resource allocatable enforced for multiple containers",
         res_pod(r(1, 1, scalars={HUGE_A: 3}), r(1, 1, scalars={HUGE_A: 3})),
         res_pod(r(scalars={HUGE_A: 2})), ((HUGE_A, True),)),
    _row("skip checking ignored extended resource", res_pod(r(1, 1, scalars={EXT_B: 1})),
         res_pod(r()), args=NodeResourcesFitArgs(ignored_resources=("example.com/bbb",))),
    _row("resources + pod overhead fits",
         overhead_pod(res_pod(r(1, 1)), {"cpu": "3m", "memory": "13"}), res_pod(r(5, 5))),
    _row("requests + overhead does not fit for memory",
         overhead_pod(res_pod(r(1, 1)), {"cpu": "1m", "memory": "15"}), res_pod(r(5, 5)),
         (("memory", False),)),
    _row("skip checking ignored extended resource via resource groups",
         res_pod(r(1, 1, scalars={EXT_B: 1, K8S_A: 1})), res_pod(r()), ((K8S_A, True),),
         args=NodeResourcesFitArgs(ignored_resource_groups=("example.com",))),
    _row("skip checking extended resource request with quantity zero via resource groups",
         res_pod(r(1, 1, scalars={EXT_A: 0})), res_pod(r(scalars={EXT_A: 6}))),
    _row("skip checking resource request with quantity zero",
         res_pod(r(scalars={EXT_A: 1})), res_pod(r(20, 30, scalars={EXT_A: 1}))),
    _row("both pod-level and container-level resources fit",
         pod_level_pod(res_pod(r(1, 1)), {"cpu": "1m", "memory": "2"}), res_pod(r(5, 5))),
    _row("pod-level cpu resource not fit",
         pod_level_pod(res_pod(r(1, 1)), {"cpu": "7m", "memory": "2"}), res_pod(r(5, 5)),
         (("cpu", False),)),
    _row("pod-level memory resource not fit",
         pod_level_pod(res_pod(r(1, 1)), {"cpu": "3m", "memory": "2"}), res_pod(r(5, 19)),
         (("memory", False),)),
    _row("pod-level hugepages resource fit",
         pod_level_pod(res_pod(), {"cpu": "3m", "memory": "2", HUGE_A: "5"}), None),
    _row("both pod-level and container-level hugepages resource fit",
         pod_level_pod(res_pod(r(1, 1, scalars={HUGE_A: 3})), {"cpu": "3m", "memory": "2", HUGE_A: "5"}),
         None),
    _row("pod-level hugepages resource not fit",
         pod_level_pod(res_pod(), {"cpu": "3m", "memory": "2", HUGE_A: "10"}), None,
         ((HUGE_A, True),)),
    _row("one pod-level cpu resource fits and all init and non-init containers resources fit",
         init_pod(pod_level_pod(res_pod(r(1, 1)), {"cpu": "3m", "memory": "2"}), r(1, 1)),
         res_pod(r(5, 19)), (("memory", False),)),
    _row("extended resource backed by device plugin", res_pod(r(scalars={EXT_A: 1})), res_pod(r()),
         dra=True),
    _row("extended resource backed by DRA", res_pod(r(1, 1, scalars={EXT_DRA: 1})), res_pod(r()),
         dra=True),
    _row("extended resource backed by DRA, nil draManager", res_pod(r(1, 1, scalars={EXT_A: 1})),
         res_pod(r()), dra=True, nil_dra=True),
    _row("extended resource backed by DRA not enabled", res_pod(r(1, 1, scalars={EXT_DRA: 1})),
         res_pod(r()), ((EXT_DRA, True),)),
    _row("extended resource NOT backed by DRA", res_pod(r(1, 1, scalars={EXT_B: 1})), res_pod(r()),
         ((EXT_B, True),), dra=True),
    _row("extended resource was backed by Device Plugin (Allocatable: 0)",
         res_pod(r(scalars={EXT_DRA: 1})), res_pod(r(scalars={EXT_DRA: 0})), dra=True),
    _row("extended resource was backed by Device Plugin (Allocatable: 0), global cache",
         res_pod(r(scalars={EXT_A: 1})), res_pod(r(scalars={EXT_A: 0})), dra=True),
]


def _fit(args: NodeResourcesFitArgs, dra: bool) -> NodeResourcesFit:
    classes = FixedClasses({EXT_DRA: "device-class-name"}) if dra else None
    return NodeResourcesFit(args, classes)


def _filter(fit: NodeResourcesFit, pod: Obj, ni: NodeInfo) -> Status:
    state = CycleState()
    _, s = fit.pre_filter(state, pod, [ni])
    assert s.is_success()
    return fit.filter(state, pod, ni)


@pytest.mark.parametrize(("pod", "existing", "want", "args", "dra"), _ENOUGH)
def test_enough_requests(
    pod: Obj, existing: Obj | None, want: Want, args: NodeResourcesFitArgs, dra: bool
) -> None:
    ni = node_info(node("n", alloc(10, 20, 32, 5, 20, 5)), *([existing] if existing else []))
    fit = _fit(args, dra)
    assert _filter(fit, pod, ni) == _status(want)
    classes = {EXT_DRA: "device-class-name"} if dra else {}
    got = fits_request(PodInfo(pod).requests, ni, classes, None,
                       args.ignored_resources, args.ignored_resource_groups)
    assert tuple((i.name, i.unresolvable) for i in got) == want


def test_pre_filter_disabled() -> None:
    ni = NodeInfo("", {"metadata": {"name": ""}})
    got = _fit(NodeResourcesFitArgs(), False).filter(CycleState(), res_pod(), ni)
    assert got.code is Code.ERROR and got.message().endswith("not found")


@pytest.mark.parametrize(
    ("pod", "existing"),
    [
        pytest.param(res_pod(), res_pod(r(10, 20)),
                     id="even without specified resources, predicate fails when there's no space for additional pod"),
        pytest.param(res_pod(r(1, 1)), res_pod(r(5, 5)),
                     id="even if both resources fit, predicate fails when there's no space for additional pod"),
        pytest.param(res_pod(r(5, 1)), res_pod(r(5, 19)),
                     id="even for equal edge case, predicate fails when there's no space for additional pod"),
        pytest.param(init_pod(res_pod(r(5, 1)), r(5, 1)), res_pod(r(5, 19)),
                     id="even for equal edge case, predicate fails when there's no space for additional pod due to init container"),
    ],
)
def test_not_enough_requests(pod: Obj, existing: Obj) -> None:
    ni = node_info(node("n", alloc(10, 20, 1, 0, 0, 0)), existing)
    got = _filter(_fit(NodeResourcesFitArgs(), False), pod, ni)
    assert got == Status(U, ("Too many pods",), NAME)


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        pytest.param(res_pod(r(1, 1)), res_pod(r(2, 10)), OK, id="empty storage requested, and pod fits"),
        pytest.param(res_pod(r(eph=25)), res_pod(r(2, 2)),
                     Status(UU, ("Insufficient ephemeral-storage",), NAME),
                     id="storage ephemeral local storage request exceeds allocatable"),
        pytest.param(init_pod(res_pod(r(eph=5))), res_pod(r(2, 2, 10)), OK,
                     id="ephemeral local storage is sufficient"),
        pytest.param(res_pod(r(eph=10)), res_pod(r(2, 2)), OK, id="pod fits"),
    ],
)
def test_storage_requests(pod: Obj, existing: Obj, want: Status) -> None:
    ni = node_info(node("n", alloc(10, 20, 32, 5, 20, 5)), existing)
    assert _filter(_fit(NodeResourcesFitArgs(), False), pod, ni) == want


def _sidecar_pod(req: str | None, sidecar: str | None) -> Obj:
    pod = res_pod()
    pod["spec"]["containers"] = [{"name": "regular", "image": "i"}]
    if req is not None:
        pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": req}}
    side: Obj = {"name": "restartable-init", "image": "i", "restartPolicy": "Always"}
    if sidecar is not None:
        side["resources"] = {"requests": {"cpu": sidecar}}
    pod["spec"]["initContainers"] = [side]
    return pod


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param({**res_pod(), "spec": {"containers": [{"name": "regular", "image": "i"}]}}, OK,
                     id="allow pod without restartable init containers"),
        pytest.param(_sidecar_pod(None, None), OK, id="allow pod with restartable init containers"),
        pytest.param(_sidecar_pod("1m", "1m"), OK,
                     id="allow pod if the total requested resources do not exceed the node's allocatable resources"),
        pytest.param(_sidecar_pod("1m", "2m"), Status(UU, ("Insufficient cpu",), NAME),
                     id="not allow pod if the total requested resources do exceed the node's allocatable resources"),
    ],
)
def test_restartable_init_containers(pod: Obj, want: Status) -> None:
    ni = node_info(node("n", {"cpu": "2m", "memory": "0", "pods": "1"}))
    assert _filter(_fit(NodeResourcesFitArgs(), False), pod, ni) == want

"""Upstream pkg/kubelet/allocation/allocation_manager_test.go ``TestUpdatePodFromAllocation``
and ``TestRetryPendingResizesMemoryBackedVolumes`` rows (v1.37.2) against
reference_impl/kubelet/allocation.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.kubelet.allocation import DEFAULT_GATES, AllocationManager, NodeConfig

Obj = dict[str, Any]


def _manager(gates: frozenset[str]) -> AllocationManager:
    return AllocationManager(
        allocatable={"cpu": "4", "memory": "4Gi", "pods": "40"},
        active_pods=list,
        get_pod=lambda _uid: None,
        now=lambda: "2026-01-01T00:00:00Z",
        gates=gates,
    )


def _rr(rc: str, rm: str, lc: str, lm: str) -> Obj:
    return {"requests": {"cpu": rc, "memory": rm}, "limits": {"cpu": lc, "memory": lm}}


def _upd_pods() -> dict[str, Obj]:
    pod: Obj = {
        "metadata": {"uid": "12345", "name": "test", "namespace": "default"},
        "spec": {
            "containers": [
                {"name": "c1", "resources": _rr("100m", "200", "300m", "400")},
                {"name": "c2", "resources": _rr("500m", "600", "700m", "800")},
            ],
            "initContainers": [
                {"name": "c1-restartable-init", "resources": _rr("200m", "300", "400m", "500"),
                 "restartPolicy": "Always"},
                {"name": "c1-init", "resources": _rr("500m", "600", "700m", "800")},
            ],
        },
    }
    plr = copy.deepcopy(pod)
    plr["spec"]["resources"] = _rr("1200m", "1700", "2000m", "2500")
    no_ctr = copy.deepcopy(pod)
    no_ctr["spec"]["containers"][0]["resources"] = {}
    no_ctr["spec"]["initContainers"][0]["resources"] = {}
    resized = copy.deepcopy(pod)
    resized["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "200m"
    resized["spec"]["initContainers"][0]["resources"]["requests"]["cpu"] = "300m"
    resized["spec"]["initContainers"][1]["resources"]["requests"]["cpu"] = "300m"
    resized_plr = copy.deepcopy(resized)
    resized_plr["spec"]["resources"] = _rr("1500m", "1700", "2200m", "2500")
    plr_overhead = copy.deepcopy(plr)
    plr_overhead["spec"]["overhead"] = {"cpu": "100m", "memory": "200"}
    return {"pod": pod, "plr": plr, "no_ctr": no_ctr, "resized": resized,
            "resized_plr": resized_plr, "plr_overhead": plr_overhead}


def _ctr_alloc(p: Obj) -> dict[str, Obj]:
    return {c["name"]: copy.deepcopy(c.get("resources") or {})
            for part in ("containers", "initContainers") for c in p["spec"][part]}


@pytest.mark.parametrize(
    "pod_key,alloc,expect_key,plr_gate",
    [
        pytest.param("pod", lambda p: {"containers": _ctr_alloc(p["pod"]), "pod": None}, None,
                     False, id="steady state"),
        pytest.param("pod", lambda p: {"containers": {}, "pod": None}, None, False,
                     id="no allocations"),
        pytest.param("pod", lambda p: {"containers": {"c2": _ctr_alloc(p["pod"])["c2"]},
                                       "pod": None}, None, False,
                     id="missing container allocation"),
        pytest.param("pod", lambda p: {"containers": _ctr_alloc(p["resized"]), "pod": None},
                     "resized", False, id="resized container"),
        pytest.param("pod", lambda p: {"containers": _ctr_alloc(p["resized"]),
                                       "pod": copy.deepcopy(p["resized_plr"]["spec"]["resources"])},
                     "resized_plr", True, id="resized pod-level allocation"),
        pytest.param("plr", lambda p: {"containers": _ctr_alloc(p["resized"]),
                                       "pod": copy.deepcopy(p["resized_plr"]["spec"]["resources"])},
                     "resized_plr", True, id="resized pod-level resources and allocation"),
        pytest.param("no_ctr", lambda p: {"containers": _ctr_alloc(p["resized"]),
                                          "pod": copy.deepcopy(p["resized_plr"]["spec"]["resources"])},
                     "resized_plr", True,
                     id="resized pod-level resources and no container resources"),
        pytest.param("plr_overhead",
                     lambda p: {"containers": {},
                                "pod": copy.deepcopy(p["plr_overhead"]["spec"]["resources"])},
                     None, True,
                     id="pod-level resources with overhead, checkpoint matches spec "
                        "(no overhead stored)"),
        pytest.param("plr", lambda p: {"containers": _ctr_alloc(p["pod"]), "pod": None}, None,
                     False, id="resized pod-level resources with feature gate disabled"),
    ],
)
def test_update_pod_from_allocation(
    pod_key: str, alloc: Any, expect_key: str | None, plr_gate: bool
) -> None:
    """TestUpdatePodFromAllocation."""
    pods = _upd_pods()
    gates = DEFAULT_GATES if plr_gate else DEFAULT_GATES - {"InPlacePodLevelResourcesVerticalScaling"}
    m = _manager(gates)
    pod = copy.deepcopy(pods[pod_key])
    m.allocated["12345"] = alloc(pods)
    got, updated = m.update_pod_from_allocation(pod)
    if expect_key is None:
        assert not updated and got is pod
    else:
        assert updated and got == pods[expect_key] and got != pod



def _vol_pod(req: Obj, lim: Obj, size: str) -> Obj:
    return {
        "metadata": {"uid": "1111", "name": "pod1", "namespace": "default"},
        "spec": {
            "containers": [{"name": "c1", "image": "test-image",
                            "resources": {"requests": req, "limits": lim}}],
            "volumes": [{"name": "vol-1", "emptyDir": {"medium": "Memory", "sizeLimit": size}}],
        },
        "status": {"phase": "Running"},
    }


_CG1 = "Memory-backed emptyDir volume resize is not supported on cgroups v1"


@pytest.mark.parametrize(
    "orig_cpu,new_cpu,cgroup,want,success",
    [
        pytest.param(None, None, 2, ("PodResizeInProgress", "", ""), True,
                     id="Resize succeeds on cgroups v2"),
        pytest.param(None, None, 1, ("PodResizePending", "Infeasible", _CG1), False,
                     id="Resize fails on cgroups v1"),
        pytest.param("1", "2", 1, ("PodResizePending", "Infeasible", _CG1), False,
                     id="Resize fails on cgroups v1 when accompanied by CPU resize (atomic failure)"),
        pytest.param("1", "2", 2, ("PodResizeInProgress", "", ""), True,
                     id="Resize succeeds on cgroups v2 when accompanied by CPU resize"),
    ],
)
def test_retry_pending_resizes_memory_backed_volumes(
    orig_cpu: str | None, new_cpu: str | None, cgroup: int, want: tuple[str, str, str],
    success: bool,
) -> None:
    """TestRetryPendingResizesMemoryBackedVolumes (InPlacePodVerticalScalingMemoryBackedVolumes
    on)."""
    o, n = {"cpu": orig_cpu or "100m"}, {"cpu": new_cpu or "100m"}
    original, new = _vol_pod(o, o, "100Mi"), _vol_pod(n, n, "200Mi")
    m = _manager(DEFAULT_GATES | {"InPlacePodVerticalScalingMemoryBackedVolumes"})
    m.active_pods = lambda: [original]
    m.get_pod = lambda _uid: new
    m.node = NodeConfig(cgroup_version=cgroup)
    m.set_allocated_resources(original)
    m.push_pending_resize("1111")
    m.retry_pending_resizes()
    got = m.conditions_of("1111").conditions()
    assert [(c["type"], c.get("reason", ""), c.get("message", "")) for c in got] == [want]
    allocated, _ = m.update_pod_from_allocation(copy.deepcopy(new))
    size = allocated["spec"]["volumes"][0]["emptyDir"]["sizeLimit"]
    cpu = allocated["spec"]["containers"][0]["resources"]["requests"]["cpu"]
    assert (size, cpu) == (("200Mi", n["cpu"]) if success else ("100Mi", o["cpu"]))


def test_memory_backed_volume_untracked_without_the_gate() -> None:
    """With the gate off ``UpdatePodFromAllocation`` does not restore sizeLimits, so
    ``disallowResizeForMemoryBackedVolumes`` sees no volume change and the cpu resize
    proceeds (its "...resize is disabled" message is not reached this way)."""
    o, n = {"cpu": "1"}, {"cpu": "2"}
    original, new = _vol_pod(o, o, "100Mi"), _vol_pod(n, n, "200Mi")
    m = _manager(DEFAULT_GATES)
    m.active_pods = lambda: [original]
    m.get_pod = lambda _uid: new
    m.set_allocated_resources(original)
    m.push_pending_resize("1111")
    m.retry_pending_resizes()
    got = m.conditions_of("1111").conditions()
    assert [c["type"] for c in got] == ["PodResizeInProgress"]
    assert "volumes" not in m.allocated["1111"]

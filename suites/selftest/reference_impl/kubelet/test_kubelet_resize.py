"""The running kubelet's in-place resizes, decided by its allocation manager
(reference_impl/kubelet/allocation.py wired in by reference_impl/kubelet/resize.py)."""

from __future__ import annotations

import copy
from typing import Any

from kubelet_harness import KubeletHarness, make_harness

from reference_impl.api import make_node, make_pod
from reference_impl.kubelet import KubeletConfig

Obj = dict[str, Any]


def _resize_conds(pod: Obj | None) -> list[tuple[str, str | None, str | None]]:
    assert pod is not None
    return [
        (c["type"], c.get("reason"), c.get("message"))
        for c in pod["status"].get("conditions") or ()
        if c["type"] in ("PodResizePending", "PodResizeInProgress")
    ]


def _running(k: KubeletHarness, name: str) -> Obj:
    k.wait(lambda: ((k.pod(name) or {}).get("status") or {}).get("phase") == "Running")
    pod = k.pod(name)
    assert pod is not None
    return pod


def _resize(k: KubeletHarness, name: str, edit: Any) -> None:
    pod = copy.deepcopy(k.pod(name))
    assert pod is not None
    edit(pod["spec"])
    k.server.resize(pod)
    k.clock.settle()


def _guaranteed(name: str, cpu: str) -> Obj:
    return make_pod(name, "default").req(cpu=cpu, memory="1Gi").lim(cpu=cpu, memory="1Gi").node("n1").build()


def _set_cpu(c: Obj, cpu: str) -> None:
    c["resources"]["requests"]["cpu"] = cpu
    if "cpu" in c["resources"].get("limits", {}):
        c["resources"]["limits"]["cpu"] = cpu


def test_a_sidecar_resize_is_allocated_restarted_and_actuated() -> None:
    """Sidecars are resizable containers (IsResizableContainer): allocated, in progress
    until actuated, and restarted by their RestartContainer resizePolicy."""
    k = make_harness()
    k.create(make_node("n1").capacity(cpu="4", memory="8Gi").build())
    pod = make_pod("p", "default").req(cpu="1").node("n1").build()
    pod["spec"]["initContainers"] = [
        {
            "name": "side",
            "image": "busybox",
            "restartPolicy": "Always",
            "resources": {"requests": {"cpu": "500m"}},
            "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}],
        }
    ]
    k.create(pod)
    _running(k, "p")
    _resize(k, "p", lambda s: _set_cpu(s["initContainers"][0], "1"))
    got = k.pod("p")
    assert _resize_conds(got) == [("PodResizeInProgress", None, None)]
    assert got is not None
    side = got["status"]["initContainerStatuses"][0]
    assert side["allocatedResources"] == {"cpu": "1"} and side["resources"]["requests"] == {"cpu": "500m"}
    assert side["restartCount"] == 1
    k.wait(lambda: not _resize_conds(k.pod("p")))
    got = k.pod("p")
    assert got is not None
    assert got["status"]["initContainerStatuses"][0]["resources"]["requests"] == {"cpu": "1"}


def test_a_guaranteed_cpu_resize_is_infeasible_under_the_static_cpu_manager() -> None:
    """podResizesAdmitHandler: a Guaranteed pod's cpu resize next to CPU Manager policy
    "static" is Infeasible (InPlacePodVerticalScalingExclusiveCPUs off)."""
    k = make_harness(KubeletConfig(cpu_manager_policy="static"))
    k.create(make_node("n1").capacity(cpu="4", memory="8Gi").build(), _guaranteed("p", "1"))
    _running(k, "p")
    _resize(k, "p", lambda s: _set_cpu(s["containers"][0], "2"))
    assert _resize_conds(k.pod("p")) == [
        (
            "PodResizePending",
            "Infeasible",
            'Resize is infeasible for Guaranteed Pods alongside CPU Manager policy "static"',
        )
    ]
    got = k.pod("p")
    assert got is not None
    assert got["status"]["containerStatuses"][0]["allocatedResources"]["cpu"] == "1"


def test_the_default_policies_leave_a_guaranteed_resize_feasible() -> None:
    """Policy none (the default): the same resize is allocated, then applied."""
    k = make_harness()
    k.create(make_node("n1").capacity(cpu="4", memory="8Gi").build(), _guaranteed("p", "1"))
    _running(k, "p")
    _resize(k, "p", lambda s: _set_cpu(s["containers"][0], "2"))
    assert _resize_conds(k.pod("p")) == [("PodResizeInProgress", None, None)]
    k.wait(lambda: not _resize_conds(k.pod("p")))
    got = k.pod("p")
    assert got is not None
    assert got["status"]["containerStatuses"][0]["resources"]["limits"]["cpu"] == "2"


def test_a_deferred_resize_is_retried_when_a_pod_leaves() -> None:
    """Deferred with the predicate's message; RetryPendingResizes allocates it once a
    pod is removed from the node."""
    k = make_harness()
    k.create(
        make_node("n1").capacity(cpu="4", memory="8Gi").build(),
        make_pod("a", "default").req(cpu="2").node("n1").build(),
        make_pod("b", "default").req(cpu="1").node("n1").build(),
    )
    _running(k, "b")
    _resize(k, "b", lambda s: _set_cpu(s["containers"][0], "3"))
    assert _resize_conds(k.pod("b")) == [
        (
            "PodResizePending",
            "Deferred",
            "Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000",
        )
    ]
    k.server.delete("v1", "Pod", "a", "default", grace_period_seconds=0)
    k.clock.settle()
    assert _resize_conds(k.pod("b")) == [("PodResizeInProgress", None, None)]


def test_a_pod_level_resize_is_allocated_and_reported() -> None:
    """InPlacePodLevelResourcesVerticalScaling: pod-level requests are part of the
    allocation and reported in status.allocatedResources / status.resources."""
    k = make_harness()
    pod = make_pod("p", "default").req(cpu="100m").node("n1").build()
    pod["spec"]["resources"] = {"requests": {"cpu": "1"}}
    other = make_pod("o", "default").req(cpu="2").node("n1").build()
    k.create(make_node("n1").capacity(cpu="4", memory="8Gi").build(), pod, other)
    got = _running(k, "p")
    assert got["status"]["allocatedResources"] == {"cpu": "1"}
    _resize(k, "p", lambda s: s["resources"]["requests"].update(cpu="3"))
    assert _resize_conds(k.pod("p")) == [
        (
            "PodResizePending",
            "Deferred",
            "Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000",
        )
    ]
    _resize(k, "p", lambda s: s["resources"]["requests"].update(cpu="2"))
    assert _resize_conds(k.pod("p")) == [("PodResizeInProgress", None, None)]
    k.wait(lambda: not _resize_conds(k.pod("p")))
    got = _running(k, "p")
    assert got["status"]["allocatedResources"] == {"cpu": "2"}
    assert got["status"]["resources"] == {"requests": {"cpu": "2"}}

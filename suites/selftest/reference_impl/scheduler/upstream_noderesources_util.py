"""Builders shared by the noderesources upstream-table ports (fit_test.go's helpers:
``newResourcePod``, ``newResourceInitPod``, ``makeAllocatableResources``...)."""

from __future__ import annotations

import itertools
from typing import Any, Final

from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.extended_resources import DeviceClassMapping

Obj = dict[str, Any]
Res = dict[str, int]  # resource -> integer amount (milli-CPU for cpu)

EXT_A: Final = "example.com/aaa"
EXT_B: Final = "example.com/bbb"
K8S_A: Final = "kubernetes.io/something"
K8S_B: Final = "subdomain.kubernetes.io/something"
HUGE_A: Final = "hugepages-2Mi"
EXT_DRA: Final = "extended.resource.dra.io/something"

_names = itertools.count()


def r(cpu: int = 0, mem: int = 0, eph: int = 0, scalars: Res | None = None) -> Res:
    """``framework.Resource{MilliCPU, Memory, EphemeralStorage, ScalarResources}``."""
    return {"cpu": cpu, "memory": mem, "ephemeral-storage": eph, "pods": 0, **(scalars or {})}


def rl(res: Res) -> dict[str, str]:
    """A v1 ResourceList from integer amounts."""
    return {k: f"{v}m" if k == "cpu" else str(v) for k, v in res.items()}


def _containers(usage: tuple[Res, ...], prefix: str) -> list[Obj]:
    return [
        {"name": f"{prefix}{i}", "image": "i", "resources": {"requests": rl(u)}}
        for i, u in enumerate(usage)
    ]


def res_pod(*usage: Res) -> Obj:
    """``newResourcePod``: one container per usage."""
    name = f"p{next(_names)}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": name},
        "spec": {"containers": _containers(usage, "c")},
    }


def init_pod(pod: Obj, *usage: Res) -> Obj:
    """``newResourceInitPod``."""
    pod["spec"]["initContainers"] = _containers(usage, "init")
    return pod


def overhead_pod(pod: Obj, overhead: dict[str, str]) -> Obj:
    """``newResourceOverheadPod``."""
    pod["spec"]["overhead"] = overhead
    return pod


def pod_level_pod(pod: Obj, requests: dict[str, str]) -> Obj:
    """``newPodLevelResourcesPod``."""
    pod["spec"]["resources"] = {"requests": requests}
    return pod


def alloc(cpu: int, mem: int, pods: int, ext_a: int, eph: int, huge_a: int) -> dict[str, str]:
    """``makeAllocatableResources``."""
    return {
        "cpu": f"{cpu}m", "memory": str(mem), "pods": str(pods), EXT_A: str(ext_a),
        "ephemeral-storage": str(eph), HUGE_A: str(huge_a),
    }


def node(name: str, allocatable: dict[str, str], labels: dict[str, str] | None = None) -> Obj:
    """A Node with ``allocatable`` as both capacity and allocatable."""
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "status": {"capacity": dict(allocatable), "allocatable": dict(allocatable)},
    }


def node_info(n: Obj, *pods: Obj) -> NodeInfo:
    """``framework.NewNodeInfo(pods...)`` then ``SetNode``."""
    ni = NodeInfo(n["metadata"]["name"], n)
    for p in pods:
        ni.add_pod(PodInfo(p))
    return ni


class FixedClasses(DeviceClassMapping):
    """A DeviceClass mapping without informers (``newTestDRAManager``'s classes)."""

    def __init__(self, mapping: dict[str, str]) -> None:  # no informer to watch
        self._fixed = mapping

    def get(self) -> dict[str, str]:
        """The fixed mapping."""
        return self._fixed


def pod(*reqs: dict[str, str], node_name: str = "", bare: int = 0) -> Obj:
    """st.MakePod(): a container per Req, plus ``bare`` containers without requests."""
    name = f"s{next(_names)}"
    containers = [{"name": f"c{i}", "image": "i", "resources": {"requests": dict(q)}}
                  for i, q in enumerate(reqs)]
    containers += [{"name": f"b{i}", "image": "i"} for i in range(bare)]
    spec: Obj = {"containers": containers}
    if node_name:
        spec["nodeName"] = node_name
    return {"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": spec}

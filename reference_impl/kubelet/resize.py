"""The running kubelet's in-place resize: wires ``allocation.AllocationManager`` (resize
admission, Infeasible/Deferred, pending-resize retries) and its condition cache into the
pod sync, and models what upstream's kuberuntime does once a resize is allocated.

Per node, one allocation manager (``kl.allocationManager``) decides every resize:

* a pod's spec differing from its allocation is pushed onto the pending queue and the
  queue is retried (``HandlePodUpdates`` → ``PushPendingResize``, ``RetryPendingResizes``);
  a pod leaving the node retries it too (``HandlePodRemoves``, a terminated pod);
* an allocated resize is actuated ``actuation`` later (the runtime's ``doPodResizeAction``);
  meanwhile the pod has ``PodResizeInProgress``, which is cleared once the actual
  resources match the allocation (``isPodResizeInProgress``). Containers whose changed
  resource has ``resizePolicy`` ``RestartContainer`` are restarted (restartCount + 1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.apiserver.quota.pod_resources import get_pod_qos
from reference_impl.clock import Instant
from reference_impl.features import GATES as REGISTRY
from reference_impl.kubelet import config as cfg
from reference_impl.kubelet.allocation import DEFAULT_GATES, AllocationManager, NodeConfig
from reference_impl.kubelet.resize_conditions import DEFERRED, INFEASIBLE

__all__ = [
    "DEFERRED",
    "GATES",
    "INFEASIBLE",
    "ResizeState",
    "apply_resize",
    "manager_gates",
    "new_manager",
    "restarted_containers",
]

Obj = dict[str, Any]
# The gates the allocation manager reads; one ``known`` does not set keeps its v1.37.2
# default.
GATES: Final = (
    *sorted(DEFAULT_GATES),
    "InPlacePodVerticalScalingMemoryBackedVolumes",
    "InPlacePodVerticalScalingExclusiveCPUs",
    "InPlacePodVerticalScalingExclusiveMemory",
)


@dataclass(slots=True)
class ResizeState:
    """What the runtime applied (``resource_info`` shape), restarts per container, and
    when the allocated resize in flight is applied."""

    actual: Obj
    restarts: dict[str, int] = field(default_factory=dict)
    done_at: Instant | None = None
    seen_generation: int = 0  # the generation whose resize request was last handled


def manager_gates(known: Mapping[str, bool]) -> frozenset[str]:
    """The enabled gates among ``GATES`` (``known`` maps gate -> enabled)."""
    return frozenset(g for g in GATES if (known[g] if g in known else REGISTRY[g].default))


def _swap(config: cfg.KubeletConfig) -> Callable[[Obj, Obj], bool]:
    """``GetContainerSwapBehavior``: NoSwap gives no container swap; LimitedSwap gives it
    to the containers of Burstable pods whose memory request differs from the limit."""
    if config.swap_behavior != "LimitedSwap":
        return lambda _pod, _c: False

    def has_swap(pod: Obj, c: Obj) -> bool:
        if get_pod_qos(pod, pod_level=True, fix_kubelet_qos=True) != "Burstable":
            return False
        res = c.get("resources") or {}
        req = (res.get("requests") or {}).get("memory")
        return req is not None and req != (res.get("limits") or {}).get("memory")

    return has_swap


def new_manager(
    config: cfg.KubeletConfig,
    gates: frozenset[str],
    active_pods: Callable[[], list[Obj]],
    get_pod: Callable[[str], Obj | None],
    now: Callable[[], str],
) -> AllocationManager:
    """One node's allocation manager, with the kubelet config's CPU/memory manager
    policies and swap behaviour (upstream defaults: none, None, NoSwap)."""
    node = NodeConfig(config.cpu_manager_policy, config.memory_manager_policy)
    return AllocationManager({}, active_pods, get_pod, now, gates, node, _swap(config))


def restarted_containers(pod: Mapping[str, Any], old: Obj, new: Obj) -> list[str]:
    """Containers whose changed resource has ``resizePolicy`` RestartContainer (the
    runtime's ``computePodResizeAction`` restarts them instead of resizing live)."""
    spec = pod.get("spec") or {}
    by_name = {c["name"]: c for part in ("initContainers", "containers") for c in spec.get(part) or ()}
    out = []
    for name, res in sorted((new.get("containers") or {}).items()):
        prev = (old.get("containers") or {}).get(name) or {}
        policies = {
            p["resourceName"]: p["restartPolicy"]
            for p in (by_name.get(name) or {}).get("resizePolicy") or ()
        }
        changed = {
            r
            for part in ("requests", "limits")
            for r in set(prev.get(part) or {}) | set(res.get(part) or {})
            if (prev.get(part) or {}).get(r) != (res.get(part) or {}).get(r)
        }
        if any(policies.get(r, "NotRequired") == "RestartContainer" for r in changed):
            out.append(name)
    return out


def apply_resize(status: Obj, alloc: Obj, st: ResizeState, conditions: list[Obj]) -> Obj:
    """``status`` with allocated/actual resources (containers, sidecars, pod level),
    restarts, and the status manager's cached resize conditions."""
    containers = alloc.get("containers") or {}
    for part in ("initContainerStatuses", "containerStatuses"):
        for cs in status.get(part) or ():
            name = cs["name"]
            if name not in containers:
                continue
            want, actual = containers[name], (st.actual.get("containers") or {}).get(name) or {}
            cs.pop("allocatedResources", None)
            cs.pop("resources", None)
            if want.get("requests"):
                cs["allocatedResources"] = dict(want["requests"])
            res = {k: dict(actual[k]) for k in ("requests", "limits") if actual.get(k)}
            if res:
                cs["resources"] = res
            cs["restartCount"] = st.restarts.get(name, 0)
    status.pop("allocatedResources", None)
    status.pop("resources", None)
    if alloc.get("pod") is not None:
        # Pod-level resources (KEP-5419): allocated requests and what was applied.
        if (alloc["pod"] or {}).get("requests"):
            status["allocatedResources"] = dict(alloc["pod"]["requests"])
        actual = st.actual.get("pod") or {}
        res = {k: dict(actual[k]) for k in ("requests", "limits") if actual.get(k)}
        if res:
            status["resources"] = res
    conds = [
        c
        for c in status.get("conditions") or ()
        if c["type"] not in ("PodResizePending", "PodResizeInProgress")
    ]
    status["conditions"] = conds + conditions
    return status

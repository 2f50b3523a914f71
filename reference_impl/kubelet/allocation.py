"""Models pkg/kubelet/allocation (``manager``, ``podResizesAdmitHandler``) with the resize
conditions of pkg/kubelet/status (``SetPodResizePendingCondition`` and friends).

The allocation manager keeps, per pod UID, the resources the node admitted (the
*allocation*). A resize is a pod whose spec differs from its allocation;
``handle_pod_resources_resize`` admits it (the resize handler, then the predicate fit on
cpu/memory next to the other allocated pods) and either allocates it (PodResizeInProgress)
or records why not (PodResizePending, reason Infeasible or Deferred). Deferred resizes stay
queued, ordered by ``sort_pending_resizes``, and are retried by ``retry_pending_resizes``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.quota.pod_resources import get_pod_qos
from reference_impl.kubelet.resize_conditions import INFEASIBLE, ResizeConditions

__all__ = [
    "DEFAULT_GATES",
    "AllocationManager",
    "NodeConfig",
    "fit_message",
    "memory_backed_resize_requested",
    "memory_backed_size_limit",
    "pod_requests",
    "resize_message",
    "resource_info",
]

Obj = dict[str, Any]
Admission = tuple[bool, str, str]  # (admitted, reason, message)
# Gates on in v1.37.2 that the allocation manager reads.
DEFAULT_GATES: Final = frozenset(
    {
        "InPlacePodVerticalScaling",
        "InPlacePodVerticalScalingInitContainers",
        "PodLevelResources",
        "InPlacePodLevelResourcesVerticalScaling",
    }
)
_CHECKED: Final = ("cpu", "memory")


@dataclass(frozen=True, slots=True)
class NodeConfig:
    """The ``cm.NodeConfig`` fields the resize handler reads."""

    cpu_manager_policy: str = "none"
    memory_manager_policy: str = "None"
    cgroup_version: int = 2


def _as_int(resource: str, q: object) -> int:
    d = parse_quantity(q)
    if resource == "cpu":
        d *= 1000
    return int(d.to_integral_value(rounding=ROUND_CEILING))


def _requests(c: Mapping[str, Any]) -> dict[str, int]:
    reqs = (c.get("resources") or {}).get("requests") or {}
    return {k: _as_int(k, reqs[k]) for k in _CHECKED if k in reqs}


def pod_requests(pod: Mapping[str, Any], *, pod_level: bool = True) -> dict[str, int]:
    """``resourcehelper.PodRequests`` for cpu (milli) and memory (bytes): app containers and
    sidecars summed, the largest init container (plus the sidecars started before it),
    pod-level requests where set, then the overhead."""
    spec = pod.get("spec") or {}
    out = dict.fromkeys(_CHECKED, 0)
    init_max = dict.fromkeys(_CHECKED, 0)
    sidecars = dict.fromkeys(_CHECKED, 0)
    for c in spec.get("containers") or ():
        for k, v in _requests(c).items():
            out[k] += v
    for c in spec.get("initContainers") or ():
        reqs = _requests(c)
        if c.get("restartPolicy") == "Always":
            for k, v in reqs.items():
                out[k] += v
                sidecars[k] += v
        else:
            for k in _CHECKED:
                init_max[k] = max(init_max[k], reqs.get(k, 0) + sidecars[k])
    out = {k: max(out[k], init_max[k]) for k in _CHECKED}
    pod_reqs = (spec.get("resources") or {}).get("requests") or {}
    if pod_level:
        out.update({k: _as_int(k, pod_reqs[k]) for k in _CHECKED if k in pod_reqs})
    for k, v in (spec.get("overhead") or {}).items():
        if k in out:
            out[k] += _as_int(k, v)
    return out


def fit_message(resource: str, requested: int, used: int, capacity: int) -> str:
    """``InsufficientResourceError.Error``."""
    return (
        f"Node didn't have enough resource: {resource}, requested: {requested}, "
        f"used: {used}, capacity: {capacity}"
    )


def _reason(resource: str) -> str:
    # predicateAdmitHandler.Admit: OutOfcpu / OutOfmemory (the status manager turns any
    # reason other than Infeasible into Deferred).
    return "OutOf" + resource


def _containers(pod: Mapping[str, Any], gates: frozenset[str]) -> Iterator[Obj]:
    """``podutil.ContainerIter`` (init first) filtered by ``IsResizableContainer``."""
    spec = pod.get("spec") or {}
    for c in spec.get("initContainers") or ():
        if "InPlacePodVerticalScalingInitContainers" in gates or c.get("restartPolicy") == "Always":
            yield c
    yield from spec.get("containers") or ()


def _q_equal(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Semantic equality of two resource lists (nil and empty are equal)."""
    a, b = a or {}, b or {}
    return set(a) == set(b) and all(parse_quantity(a[k]) == parse_quantity(b[k]) for k in a)


def _res_equal(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    a, b = a or {}, b or {}
    return all(_q_equal(a.get(k), b.get(k)) for k in ("requests", "limits"))


def resource_info(pod: Mapping[str, Any], gates: frozenset[str] = DEFAULT_GATES) -> Obj:
    """``ResourceInfoForPod``: the resizable containers' resources and the pod-level ones."""
    spec = pod.get("spec") or {}
    info: Obj = {"containers": {}, "pod": None}
    if "InPlacePodLevelResourcesVerticalScaling" in gates and spec.get("resources") is not None:
        info["pod"] = copy.deepcopy(spec["resources"])
    for c in _containers(pod, gates):
        info["containers"][c["name"]] = copy.deepcopy(c.get("resources") or {})
    if "InPlacePodVerticalScalingMemoryBackedVolumes" in gates:
        info["volumes"] = {
            v["name"]: v["emptyDir"]["sizeLimit"]
            for v in spec.get("volumes") or ()
            if memory_backed_size_limit(v)
        }
    return info


def memory_backed_size_limit(vol: Mapping[str, Any]) -> bool:
    """``VolHasMemoryBackedEmptyDirSizeLimit``: a Memory emptyDir with a non-zero limit."""
    ed = vol.get("emptyDir")
    if not isinstance(ed, Mapping) or ed.get("medium") != "Memory":
        return False
    return ed.get("sizeLimit") is not None and parse_quantity(ed["sizeLimit"]) != 0


def memory_backed_resize_requested(desired: Mapping[str, Any], allocated: Mapping[str, Any]) -> bool:
    """``IsMemoryBackedVolumeResizeRequested``: a memory-backed emptyDir's sizeLimit changed
    (volumes are matched by position; a different count means no resize)."""
    a = (allocated.get("spec") or {}).get("volumes") or []
    d = (desired.get("spec") or {}).get("volumes") or []
    if len(a) != len(d):
        return False
    for have, want in zip(a, d, strict=True):
        if not memory_backed_size_limit(have):
            continue
        limit = (want.get("emptyDir") or {}).get("sizeLimit")
        if limit is None or parse_quantity(limit) != parse_quantity(have["emptyDir"]["sizeLimit"]):
            return True
    return False


@dataclass(slots=True)
class AllocationManager:
    """``allocation.manager`` in memory: allocations, resize conditions, pending queue.

    ``active_pods`` are the pods the kubelet runs, ``get_pod`` finds the current spec of a
    pod by UID, ``now`` is the simulated clock as RFC 3339, ``swap`` says whether the
    runtime gives a container swap (``GetContainerSwapBehavior`` != NoSwap).
    """

    allocatable: Mapping[str, Any]
    active_pods: Callable[[], list[Obj]]
    get_pod: Callable[[str], Obj | None]
    now: Callable[[], str]
    gates: frozenset[str] = DEFAULT_GATES
    node: NodeConfig = NodeConfig()
    swap: Callable[[Obj, Obj], bool] = lambda _pod, _c: False
    allocated: dict[str, Obj] = field(default_factory=dict)
    conditions: dict[str, ResizeConditions] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)
    synced: list[str] = field(default_factory=list)  # UIDs whose pod sync was triggered
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)
    # The other admit handlers around the predicate fit for a resize (the kubelet's
    # chain: eviction, sysctls, ..., shutdown); None: the fit alone.
    handlers: Callable[[Obj, Callable[[], Admission]], Admission] | None = None

    # -- allocations ------------------------------------------------------------------

    def set_allocated_resources(self, pod: Mapping[str, Any]) -> None:
        """``SetAllocatedResources``."""
        self.allocated[_uid(pod)] = resource_info(pod, self.gates)

    def remove_pod(self, uid: str) -> None:
        """``RemovePod``."""
        self.allocated.pop(uid, None)

    def update_pod_from_allocation(self, pod: Obj) -> tuple[Obj, bool]:
        """``UpdatePodFromAllocation``: ``pod`` with its allocated resources, and whether
        they differ from its spec."""
        alloc = self.allocated.get(_uid(pod))
        if alloc is None:
            return pod, False
        out, updated = pod, False
        spec_res = (pod.get("spec") or {}).get("resources")
        if "InPlacePodLevelResourcesVerticalScaling" in self.gates and not _res_equal(
            spec_res, alloc["pod"]
        ):
            out, updated = copy.deepcopy(pod), True
            if alloc["pod"] is None:
                out["spec"].pop("resources", None)
            else:
                out["spec"]["resources"] = copy.deepcopy(alloc["pod"])
        for part in ("containers", "initContainers"):
            for i, c in enumerate((pod.get("spec") or {}).get(part) or ()):
                want = alloc["containers"].get(c["name"])
                if want is None or _res_equal(c.get("resources"), want):
                    continue
                if not updated:
                    out, updated = copy.deepcopy(pod), True
                out["spec"][part][i]["resources"] = copy.deepcopy(want)
        if "InPlacePodVerticalScalingMemoryBackedVolumes" in self.gates:
            # updateEmptyDirVolumeLimitsFromAllocation
            limits = alloc.get("volumes") or {}
            for i, v in enumerate((pod.get("spec") or {}).get("volumes") or ()):
                want = limits.get(v["name"])
                if not memory_backed_size_limit(v) or want is None:
                    continue
                if parse_quantity(want) == parse_quantity(v["emptyDir"]["sizeLimit"]):
                    continue
                if not updated:
                    out, updated = copy.deepcopy(pod), True
                out["spec"]["volumes"][i]["emptyDir"]["sizeLimit"] = want
        return out, updated

    def allocated_pods(self) -> list[Obj]:
        """``getAllocatedPods``: active pods that have an allocation, at that allocation."""
        return [
            self.update_pod_from_allocation(p)[0]
            for p in self.active_pods()
            if _uid(p) in self.allocated
        ]

    # -- admission --------------------------------------------------------------------

    def admit_resize(self, pod: Obj) -> tuple[bool, str, str]:
        """``canAdmitPod`` for a resize: ``podResizesAdmitHandler.Admit`` then the
        predicate handler's cpu/memory fit (``AdmissionCheck``/``fitsRequest``), within
        ``handlers`` when set."""
        ok, msg = self._resize_handler(pod)
        if not ok:
            return False, INFEASIBLE, msg
        if self.handlers is not None:
            return self.handlers(pod, lambda: self._fits(pod, self.allocated_pods()))
        return self._fits(pod, self.allocated_pods())

    def add_pod(self, active: list[Obj], pod: Obj) -> tuple[bool, str, str]:
        """``AddPod``: admit ``pod`` (at its checkpointed allocation, if any) next to the
        allocated ones among ``active`` (pods without an allocation take no room), and
        record its allocation when it fits."""
        pod, _ = self.update_pod_from_allocation(pod)
        allocated = [
            self.update_pod_from_allocation(p)[0] for p in active if _uid(p) in self.allocated
        ]
        ok, reason, message = self._fits(pod, allocated)
        if ok:
            self.set_allocated_resources(pod)
        return ok, reason, message

    def _fits(self, pod: Obj, allocated: list[Obj]) -> tuple[bool, str, str]:
        """The predicate handler's cpu/memory ``fitsRequest`` next to ``allocated``."""
        others = [p for p in allocated if _uid(p) != _uid(pod)]
        pod_level = "PodLevelResources" in self.gates
        want = pod_requests(pod, pod_level=pod_level)
        used = dict.fromkeys(_CHECKED, 0)
        for p in others:
            for k, v in pod_requests(p, pod_level=pod_level).items():
                used[k] += v
        for k in _CHECKED:
            cap = _as_int(k, self.allocatable.get(k, 0))
            if want[k] > 0 and want[k] > cap - used[k]:
                return False, _reason(k), fit_message(k, want[k], used[k], cap)
        return True, "", ""

    def _resize_handler(self, pod: Obj) -> tuple[bool, str]:
        """``podResizesAdmitHandler.Admit``: ("", True) or (False, the Infeasible message)."""
        allocated, _ = self.update_pod_from_allocation(pod)
        if "InPlacePodVerticalScaling" not in self.gates:
            return False, "InPlacePodVerticalScaling is disabled"
        if self._swap_resize(pod, allocated):
            return False, "In-place resize of containers with swap is not supported."
        spec_res = (pod.get("spec") or {}).get("resources")
        if not _res_equal(spec_res, (allocated.get("spec") or {}).get("resources")):
            if "InPlacePodLevelResourcesVerticalScaling" not in self.gates:
                return False, "InPlacePodLevelResourcesVerticalScaling is disabled"
        if memory_backed_resize_requested(allocated, pod):
            # disallowResizeForMemoryBackedVolumes
            if "InPlacePodVerticalScalingMemoryBackedVolumes" not in self.gates:
                return False, "Memory-backed emptyDir volume resize is disabled"
            if self.node.cgroup_version == 1:
                return False, "Memory-backed emptyDir volume resize is not supported on cgroups v1"
        if get_pod_qos(pod, pod_level="PodLevelResources" in self.gates, fix_kubelet_qos=True) == (
            "Guaranteed"
        ):
            if (
                "InPlacePodVerticalScalingExclusiveCPUs" not in self.gates
                and self.node.cpu_manager_policy == "static"
                and self._guaranteed_resize_required(pod, "cpu")
            ):
                return False, 'Resize is infeasible for Guaranteed Pods alongside CPU Manager policy "static"'
            if (
                "InPlacePodVerticalScalingExclusiveMemory" not in self.gates
                and self.node.memory_manager_policy == "Static"
                and self._guaranteed_resize_required(pod, "memory")
            ):
                return False, (
                    'Resize is infeasible for Guaranteed Pods alongside Memory Manager policy "Static"'
                )
        return True, ""

    def _swap_resize(self, desired: Obj, allocated: Obj) -> bool:
        """``disallowResizeForSwappableContainers``: a live memory-request change of a
        container that has (or would have) swap."""
        def all_of(p: Obj) -> list[Obj]:
            spec = p.get("spec") or {}
            return [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]

        by_name = {c["name"]: c for c in all_of(allocated)}
        for want in all_of(desired):
            have = by_name.get(want["name"])
            if have is None:
                continue
            a = ((want.get("resources") or {}).get("requests") or {}).get("memory")
            b = ((have.get("resources") or {}).get("requests") or {}).get("memory")
            if _q_equal({"m": a} if a else None, {"m": b} if b else None):
                continue
            if _memory_restart_policy(have) == "RestartContainer":
                continue
            if self.swap(desired, want) or self.swap(allocated, have):
                return True
        return False

    def _guaranteed_resize_required(self, pod: Obj, resource: str) -> bool:
        """``guaranteedPodResourceResizeRequired``."""
        alloc = self.allocated.get(_uid(pod), {"containers": {}})["containers"]
        for c in _containers(pod, self.gates):
            want = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            have = ((alloc.get(c["name"]) or {}).get("requests") or {}).get(resource)
            if not _q_equal({"r": want} if want else None, {"r": have} if have else None):
                return True
        return False

    # -- resizes ----------------------------------------------------------------------

    def conditions_of(self, uid: str) -> ResizeConditions:
        return self.conditions.setdefault(uid, ResizeConditions())

    def handle_pod_resources_resize(self, pod: Obj) -> bool:
        """``handlePodResourcesResize``: True when the resize was allocated."""
        conds = self.conditions_of(_uid(pod))
        _, updated = self.update_pod_from_allocation(pod)
        if not updated:
            conds.clear_pending()
            return False
        gen = int((pod.get("metadata") or {}).get("generation", 0))
        fit, reason, message = self.admit_resize(pod)
        if fit:
            self.set_allocated_resources(pod)
            conds.clear_pending()
            conds.clear_in_progress()
            conds.set_in_progress("", "", gen, self.now())
            self.events.append(("Normal", "ResizeStarted", resize_message(pod, gen, "Pod resize started")))
            return True
        if reason and conds.set_pending(reason, message, gen, self.now()):
            kind = "ResizeInfeasible" if reason == INFEASIBLE else "ResizeDeferred"
            text = resize_message(pod, gen, f"Pod resize {reason}", message)
            self.events.append(("Warning", kind, text))
        return False

    def push_pending_resize(self, uid: str) -> None:
        """``PushPendingResize``: queue ``uid`` once, then re-sort the queue."""
        if uid not in self.pending:
            self.pending.append(uid)
            self.sort_pending_resizes()

    def is_resize_increasing_requests(self, pod: Obj) -> bool:
        """``isResizeIncreasingRequests``: cpu or memory pod requests grow."""
        allocated, updated = self.update_pod_from_allocation(pod)
        if not updated:
            return False
        pod_level = "PodLevelResources" in self.gates
        old = pod_requests(allocated, pod_level=pod_level)
        new = pod_requests(pod, pod_level=pod_level)
        return new["memory"] > old["memory"] or new["cpu"] > old["cpu"]

    def sort_pending_resizes(self) -> None:
        """``sortPendingResizes``: non-increasing resizes first, then higher priority, then
        Guaranteed before the rest, then the longest Deferred (no condition last). Pods
        that are gone drop out.

        Upstream's comparator is not a strict order (two non-increasing resizes each
        sort before the other), so the result depends on the algorithm: ``slices.SortFunc``
        insertion-sorts up to 12 elements, which is what this does for any length."""
        pods = [p for p in (self.get_pod(uid) for uid in self.pending) if p is not None]
        for i in range(1, len(pods)):
            j = i
            while j > 0 and self._compare(pods[j], pods[j - 1]) < 0:
                pods[j], pods[j - 1] = pods[j - 1], pods[j]
                j -= 1
        self.pending = [_uid(p) for p in pods]

    def _compare(self, a: Obj, b: Obj) -> int:
        """The ``sortPendingResizes`` comparator, step for step."""
        if not self.is_resize_increasing_requests(a):
            return -1
        if not self.is_resize_increasing_requests(b):
            return 1
        pa = int((a.get("spec") or {}).get("priority") or 0)
        pb = int((b.get("spec") or {}).get("priority") or 0)
        if pa != pb:
            return -1 if pa > pb else 1
        qa, qb = self._qos(a) == "Guaranteed", self._qos(b) == "Guaranteed"
        if qa != qb:
            return -1 if qa else 1
        ta = self.conditions_of(_uid(a)).pending_since()
        tb = self.conditions_of(_uid(b)).pending_since()
        if ta is None:
            return 1
        if tb is None:
            return -1
        return -1 if ta < tb else 1

    def _qos(self, pod: Obj) -> str:
        return get_pod_qos(pod, pod_level="PodLevelResources" in self.gates, fix_kubelet_qos=True)

    def retry_pending_resizes(self) -> list[Obj]:
        """``retryPendingResizes``: re-handle every queued resize; Deferred and failed ones
        stay queued, Infeasible and allocated ones leave. A pod sync is triggered when the
        resize was allocated or its conditions changed. Returns the allocated pods."""
        keep: list[str] = []
        done: list[Obj] = []
        for uid in self.pending:
            pod = self.get_pod(uid)
            if pod is None:
                continue
            conds = self.conditions_of(uid)
            before = conds.snapshot()
            allocated = self.handle_pod_resources_resize(pod)
            if conds.is_deferred():
                keep.append(uid)
            elif not conds.is_infeasible():
                done.append(pod)
            if allocated or conds.snapshot() != before:
                self.synced.append(uid)
        self.pending = keep
        return done


def _canonical(res: Mapping[str, Any]) -> Obj:
    """``v1.ResourceRequirements`` as ``encoding/json`` writes it: limits, requests, claims
    in field order, names sorted, quantities canonical."""
    out: Obj = {}
    for part in ("limits", "requests"):
        if res.get(part):
            out[part] = {k: str(Quantity.of(v)) for k, v in sorted(res[part].items())}
    if res.get("claims"):
        out["claims"] = res["claims"]
    return out


def resize_message(pod: Mapping[str, Any], generation: int, prefix: str, error: str = "") -> str:
    """``podResizeMessage`` (pkg/kubelet/events/resize.go): the prefix and a JSON summary of
    the spec's container resources, the generation and the error."""
    spec = pod.get("spec") or {}
    summary: Obj = {}
    for part in ("initContainers", "containers"):
        ctrs = [{"name": c["name"], "resources": _canonical(c.get("resources") or {})}
                for c in spec.get(part) or ()]
        if ctrs:
            summary[part] = ctrs
    summary["generation"] = generation
    if error:
        summary["error"] = error
    text = json.dumps(summary, separators=(",", ":"), ensure_ascii=False)
    # encoding/json escapes HTML characters.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"{prefix}: {text}"


def _uid(pod: Mapping[str, Any]) -> str:
    return str(pod["metadata"]["uid"])


def _memory_restart_policy(c: Mapping[str, Any]) -> str:
    for p in c.get("resizePolicy") or ():
        if p.get("resourceName") == "memory":
            return str(p.get("restartPolicy", ""))
    return ""

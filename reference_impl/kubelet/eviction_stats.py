"""The parts of the kubelet's stats summary (``statsapi.Summary``, upstream v1.37.2
pkg/kubelet/apis/stats/v1alpha1) the eviction manager reads. A field left None is a
stat the provider did not report (a nil pointer upstream). ``time`` is the simulated
instant (ns) a stat was taken; None is Go's zero time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING
from typing import Any

from reference_impl.api.meta import parse_quantity

__all__ = ["ContainerStats", "FsStats", "NodeStats", "PodStats", "PodUsage", "Summary", "SummaryStats"]


@dataclass(slots=True)
class FsStats:
    """``FsStats``: bytes and inodes of one filesystem (or one volume's share)."""

    available: int | None = None
    capacity: int | None = None
    used: int | None = None
    inodes_free: int | None = None
    inodes: int | None = None
    inodes_used: int | None = None
    time: int | None = None


@dataclass(slots=True)
class ContainerStats:
    """``ContainerStats``: the working set, its writable layer and its logs."""

    name: str
    memory_working_set: int | None = None
    rootfs: FsStats | None = None
    logs: FsStats | None = None


@dataclass(slots=True)
class PodStats:
    """``PodStats`` keyed by the pod's UID."""

    uid: str
    memory_working_set: int | None = None
    process_count: int | None = None
    containers: list[ContainerStats] = field(default_factory=list)
    volumes: dict[str, FsStats] = field(default_factory=dict)
    ephemeral_used: int | None = None


@dataclass(slots=True)
class NodeStats:
    """``NodeStats``: memory (available and working set), the ``pods`` system
    container's memory (allocatable), nodefs, the runtime's imagefs and containerfs, and
    the PID limit."""

    memory_available: int | None = None
    memory_working_set: int | None = None
    memory_time: int | None = None
    pods_memory_available: int | None = None
    pods_memory_working_set: int | None = None
    fs: FsStats | None = None
    image_fs: FsStats | None = None
    container_fs: FsStats | None = None
    max_pid: int | None = None
    running_processes: int | None = None
    rlimit_time: int | None = None


@dataclass(slots=True)
class Summary:
    """``Summary``: the node's stats and its pods'."""

    node: NodeStats
    pods: list[PodStats] = field(default_factory=list)


def _amount(raw: object) -> int:
    return int(parse_quantity(raw).to_integral_value(rounding=ROUND_CEILING))


def _request(c: Mapping[str, Any], resource: str) -> int:
    raw = ((c.get("resources") or {}).get("requests") or {}).get(resource)
    return _amount(raw) if raw is not None else 0


@dataclass(slots=True)
class PodUsage:
    """A pod's usage as a test sets it: the first container carries memory, rootfs and
    logs; ``volumes`` are used bytes per volume name."""

    memory: int | None = None
    rootfs: int | None = None
    logs: int | None = None
    processes: int | None = None
    volumes: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class SummaryStats:
    """The reference kubelet's summary-stats provider. Without a usage set, a container
    uses its memory and ephemeral-storage requests (what it was admitted for) and no
    processes; the node's memory and nodefs are its status capacity (and the pods
    cgroup its allocatable) less what the pods use. Inodes, an image filesystem and the
    PID limit are only reported once a test sets them (``node_overrides``, NodeStats
    fields). The stats are taken at the cycle's instant."""

    pods: dict[str, PodUsage] = field(default_factory=dict)  # pod key -> usage
    node_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)

    def pod_stats(self, key: str, pod: Mapping[str, Any]) -> PodStats:
        """One pod's ``PodStats``."""
        spec = pod.get("spec") or {}
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        set_ = self.pods.get(key)
        containers = []
        for i, c in enumerate(spec.get("containers") or ()):
            mem, root, logs = _request(c, "memory"), _request(c, "ephemeral-storage"), 0
            if set_ is not None:
                # a set usage replaces the requests: all of it on the first container
                if set_.memory is not None:
                    mem = set_.memory if i == 0 else 0
                if set_.rootfs is not None:
                    root = set_.rootfs if i == 0 else 0
                logs = (set_.logs or 0) if i == 0 else 0
            containers.append(ContainerStats(str(c.get("name")), mem, FsStats(used=root), FsStats(used=logs)))
        volumes = {k: FsStats(used=v) for k, v in (set_.volumes if set_ else {}).items()}
        disk = sum((c.rootfs.used or 0) + (c.logs.used or 0) for c in containers if c.rootfs and c.logs)
        disk += sum(v.used or 0 for v in volumes.values())
        return PodStats(
            uid,
            memory_working_set=sum(c.memory_working_set or 0 for c in containers),
            process_count=(set_.processes if set_ is not None else None) or 0,
            containers=containers,
            volumes=volumes,
            ephemeral_used=disk,
        )

    def summary(self, node: Mapping[str, Any], pods: Mapping[str, Mapping[str, Any]], now: int) -> Summary:
        """``Summary`` of ``node`` running ``pods`` (pod key -> pod) at ``now``."""
        stats = [self.pod_stats(k, p) for k, p in sorted(pods.items())]
        status = node.get("status") or {}
        cap, alloc = status.get("capacity") or {}, status.get("allocatable") or {}
        ws = sum(p.memory_working_set or 0 for p in stats)
        used = sum(p.ephemeral_used or 0 for p in stats)
        n = NodeStats(memory_time=now, rlimit_time=now)
        if "memory" in cap:
            n.memory_available, n.memory_working_set = _amount(cap["memory"]) - ws, ws
        if "memory" in alloc:
            n.pods_memory_available, n.pods_memory_working_set = _amount(alloc["memory"]) - ws, ws
        if "ephemeral-storage" in cap:
            total = _amount(cap["ephemeral-storage"])
            n.fs = FsStats(available=total - used, capacity=total, used=used, time=now)
        over = self.node_overrides.get(str((node.get("metadata") or {}).get("name")), {})
        for k, v in over.items():
            setattr(n, k, v)
        if n.max_pid is not None and "running_processes" not in over:
            n.running_processes = sum(p.process_count or 0 for p in stats)
        return Summary(n, stats)

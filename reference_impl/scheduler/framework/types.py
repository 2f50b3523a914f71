"""Models pkg/scheduler/framework/types.go: Resource, PodInfo, NodeInfo, QueuedPodInfo.

These are the scheduler's compact views of manifests, computed once per object version:
a pod's requests are parsed when it is queued, and a node's allocatable, labels and taints
when it changes, so the Filter and Score hot paths only compare integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Any, Final

from reference_impl.api.host_ports import HostPort, host_ports
from reference_impl.api.resource_names import is_scalar_resource_name
from reference_impl.api.taints import (
    Taint,
    Toleration,
    parse_taints,
    parse_tolerations,
)
from reference_impl.clock import Instant
from reference_impl.scheduler.framework.affinity import PodAffinityTerms, parse_affinity_terms
from reference_impl.scheduler.framework.pod_resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    pod_requests,
    to_int,
)

__all__ = [
    "CHANGE_LOG_LIMIT",
    "HostPort",
    "NodeIndex",
    "NodeInfo",
    "PodInfo",
    "QueuedPodInfo",
    "Resource",
    "host_ports",
    "is_scalar_resource_name",
    "pod_key",
    "request_totals",
]

Obj = dict[str, Any]
_NON_MISSING: Final = {"cpu": DEFAULT_MILLI_CPU_REQUEST, "memory": DEFAULT_MEMORY_REQUEST}
_BASE: Final = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})
_NO_TERMS: Final = parse_affinity_terms({"spec": {}})
CHANGE_LOG_LIMIT: Final = 50_000  # NodeInfo changes a NodeIndex keeps (node_memo)


def pod_key(pod: Obj) -> str:
    """``namespace/name``, the queue's and the cache's key for a pod."""
    meta = pod["metadata"]
    return f"{meta.get('namespace', 'default')}/{meta['name']}"


@dataclass(slots=True)
class Resource:
    """Integer resources (``framework.Resource``): milli-CPU, bytes, pod slots, scalars."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_requests(cls, reqs: dict[str, int]) -> Resource:
        """From ``pod_requests`` output (already integers)."""
        # ``Resource.Add`` keeps only scalar names; others (an invalid key) are ignored.
        scalar = {k: v for k, v in reqs.items() if k not in _BASE and is_scalar_resource_name(k)}
        return cls(
            reqs.get("cpu", 0), reqs.get("memory", 0), reqs.get("ephemeral-storage", 0),
            reqs.get("pods", 0), scalar,
        )

    @classmethod
    def from_quantities(cls, raw: Obj | None) -> Resource:
        """From a ResourceList manifest such as ``status.allocatable``."""
        return cls.from_requests({k: to_int(k, v) for k, v in (raw or {}).items()})

    def is_zero(self) -> bool:
        """Whether nothing at all is requested."""
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalar)

    def add(self, other: Resource, sign: int = 1) -> None:
        """Add (or with ``sign=-1`` subtract) ``other`` in place."""
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def amount(self, name: str) -> int:
        """The quantity of one resource by its API name (milli-CPU for ``cpu``)."""
        if name == "cpu":
            return self.milli_cpu
        if name == "memory":
            return self.memory
        if name == "ephemeral-storage":
            return self.ephemeral_storage
        return self.scalar.get(name, 0)

    def copy(self) -> Resource:
        """An independent copy."""
        return Resource(
            self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number,
            dict(self.scalar),
        )


def request_totals(pod: Obj, node_allocatable: bool = False) -> tuple[Resource, Resource]:
    """The pod's requests, and the same with per-container defaults, which scoring uses
    (NonZeroRequested); ``node_allocatable``: DRANodeAllocatableResources is on
    (``CalculateResource``)."""
    return Resource.from_requests(pod_requests(pod, node_allocatable=node_allocatable)), (
        Resource.from_requests(pod_requests(pod, _NON_MISSING, node_allocatable=node_allocatable)))


class PodInfo:
    """A pod plus what the scheduler derives from it once (``framework.PodInfo``)."""

    __slots__ = ("affinity", "key", "non_zero", "pod", "ports", "priority", "requests", "tolerations")

    def __init__(self, pod: Obj, node_allocatable: bool = False) -> None:
        self.pod = pod
        self.key = pod_key(pod)
        self.priority: int = int(pod["spec"].get("priority") or 0)
        self.requests, self.non_zero = request_totals(pod, node_allocatable)
        self.tolerations: tuple[Toleration, ...] = parse_tolerations(pod)
        self.affinity: PodAffinityTerms = parse_affinity_terms(pod)
        self.ports: tuple[HostPort, ...] = host_ports(pod)

    def on_node(self, node_name: str) -> PodInfo:
        """A copy whose manifest carries ``spec.nodeName`` (for assuming), sharing the rest."""
        out = PodInfo.__new__(PodInfo)
        out.pod = {**self.pod, "spec": {**self.pod["spec"], "nodeName": node_name}}
        out.key, out.priority, out.requests = self.key, self.priority, self.requests
        out.non_zero, out.tolerations = self.non_zero, self.tolerations
        out.affinity, out.ports = self.affinity, self.ports
        return out

    @property
    def node_name(self) -> str:
        """spec.nodeName, or ""."""
        name: str = self.pod["spec"].get("nodeName") or ""
        return name


class NodeIndex:
    """Snapshot-wide lists the cache keeps current (``HavePodsWithAffinityList``,
    ``HavePodsWithRequiredAntiAffinityList``, image existence), so plugins visit only the
    nodes that matter instead of every node each cycle."""

    __slots__ = ("affinity", "anti_affinity", "changed", "cordoned", "image_nodes", "tainted")

    def __init__(self) -> None:
        self.affinity: dict[str, NodeInfo] = {}
        self.anti_affinity: dict[str, NodeInfo] = {}
        self.image_nodes: dict[str, set[str]] = {}
        # Nodes with any taint / spec.unschedulable: usually none, so the TaintToleration
        # and NodeUnschedulable filters can vouch for a whole chunk without visiting it.
        self.tainted: set[str] = set()
        self.cordoned: set[str] = set()
        # Every NodeInfo change in order (upstream's most-recently-updated list), so memos
        # by position learn which nodes changed without visiting all of them (node_memo).
        self.changed: list[NodeInfo] = []

    def note_change(self, ni: NodeInfo) -> None:
        """Log a change; a full log starts over as a new list, which memos notice."""
        if len(self.changed) >= CHANGE_LOG_LIMIT:
            self.changed = []
        self.changed.append(ni)

    def sorted_affinity(self) -> list[NodeInfo]:
        """Nodes with a pod that has any inter-pod term, by name."""
        return [self.affinity[n] for n in sorted(self.affinity) if self.affinity[n].node is not None]

    def sorted_anti_affinity(self) -> list[NodeInfo]:
        """Nodes with a pod that has required anti-affinity, by name."""
        return [self.anti_affinity[n] for n in sorted(self.anti_affinity)
                if self.anti_affinity[n].node is not None]


def _images(node: Obj) -> dict[str, int]:
    # status.images: every name of an image maps to its size (getNodeImageStates).
    out: dict[str, int] = {}
    for img in (node.get("status") or {}).get("images") or ():
        for name in img.get("names") or ():
            out[name] = int(img.get("sizeBytes") or 0)
    return out


# Upstream's nextGeneration: one counter for every NodeInfo, so a generation names one
# node's state and per-node results can be memoised by it alone.
_next_generation: Final = count(1).__next__


class NodeInfo:
    """A node and the pods on it, with running request totals (``framework.NodeInfo``)."""

    __slots__ = (
        "allocatable",
        "generation",
        "images",
        "index",
        "labels",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_ports",
        "pods_with_required_anti_affinity",
        "requested",
        "taints",
        "unschedulable",
    )

    def __init__(self, name: str, node: Obj | None = None) -> None:
        self.name = name
        self.node: Obj | None = None
        self.pods: dict[str, PodInfo] = {}
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.labels: dict[str, str] = {}
        self.taints: tuple[Taint, ...] = ()
        self.unschedulable = False
        self.generation = 0  # the empty NodeInfo; every change takes a fresh global number
        self.images: dict[str, int] = {}
        self.pods_with_affinity: dict[str, PodInfo] = {}
        self.pods_with_required_anti_affinity: dict[str, PodInfo] = {}
        self.pods_with_ports: dict[str, PodInfo] = {}
        self.index: NodeIndex | None = None  # set by the cache that owns this NodeInfo
        if node is not None:
            self.set_node(node)

    def set_node(self, node: Obj) -> None:
        """Take a new version of the Node, re-deriving allocatable, labels and taints."""
        self.node = node
        self.allocatable = Resource.from_quantities((node.get("status") or {}).get("allocatable"))
        self.labels = dict(node["metadata"].get("labels") or {})
        self.taints = parse_taints(node)
        self.unschedulable = bool((node.get("spec") or {}).get("unschedulable"))
        if self.index is not None:
            (self.index.tainted.add if self.taints else self.index.tainted.discard)(self.name)
            (self.index.cordoned.add if self.unschedulable else self.index.cordoned.discard)(self.name)
        images = _images(node)
        if images != self.images:
            self.set_images(images)
        self._bump()

    def _bump(self) -> None:
        self.generation = _next_generation()
        if self.index is not None:
            self.index.note_change(self)

    def set_images(self, images: dict[str, int]) -> None:
        """Take the node's image list, keeping the index's image -> nodes map current."""
        if self.index is not None:
            table = self.index.image_nodes
            for name in self.images.keys() - images.keys():
                nodes = table.get(name)
                if nodes is not None:
                    nodes.discard(self.name)
                    if not nodes:
                        del table[name]
            for name in images.keys() - self.images.keys():
                table.setdefault(name, set()).add(self.name)
        self.images = images

    def add_pod(self, info: PodInfo) -> None:
        """Account for a pod on this node (replacing an older version with the same key)."""
        if info.key in self.pods:
            self.remove_pod(info.key)
        self.pods[info.key] = info
        self.requested.add(info.requests)
        self.non_zero_requested.add(info.non_zero)
        if info.affinity is not _NO_TERMS:
            self._add_affinity(info)
        if info.ports:
            self.pods_with_ports[info.key] = info
        self._bump()

    def _add_affinity(self, info: PodInfo) -> None:
        if not info.affinity.any():
            return
        self.pods_with_affinity[info.key] = info
        if self.index is not None:
            self.index.affinity[self.name] = self
        if info.affinity.required_anti_affinity:
            self.pods_with_required_anti_affinity[info.key] = info
            if self.index is not None:
                self.index.anti_affinity[self.name] = self

    def _remove_affinity(self, key: str) -> None:
        if self.pods_with_affinity.pop(key, None) is None:
            return
        if self.pods_with_required_anti_affinity.pop(key, None) is not None:
            if not self.pods_with_required_anti_affinity and self.index is not None:
                self.index.anti_affinity.pop(self.name, None)
        if not self.pods_with_affinity and self.index is not None:
            self.index.affinity.pop(self.name, None)

    def remove_pod(self, key: str) -> bool:
        """Stop accounting for a pod; False when it was not here."""
        info = self.pods.pop(key, None)
        if info is None:
            return False
        self.requested.add(info.requests, -1)
        self.non_zero_requested.add(info.non_zero, -1)
        if self.pods_with_affinity:
            self._remove_affinity(key)
        if self.pods_with_ports:
            self.pods_with_ports.pop(key, None)
        self._bump()
        return True

    def __repr__(self) -> str:
        return f"NodeInfo({self.name!r}, pods={len(self.pods)})"


@dataclass(slots=True, eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue with its attempt history (``framework.QueuedPodInfo``)."""

    info: PodInfo
    timestamp: Instant
    initial_attempt_timestamp: Instant | None = None
    attempts: int = 0
    # Failures by rejection, and by error since the last rejection: the backoff counts the
    # latter when there are any (``UnschedulableCount``, ``ConsecutiveErrorsCount``).
    unschedulable_count: int = 0
    consecutive_errors: int = 0
    # Plugins that rejected the pod last cycle; only their events requeue it.
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""
    gating_message: str = ""
    seq: int = 0
    # OpportunisticBatching: computed by the queue (signPod), never in the cycle.
    signature: str | None = None
    # When the leftover flush last moved the pod (``FlushTimestamp``): paces the flushes of
    # a pod that stays gated; cleared by a new attempt's failure.
    flush_timestamp: Instant | None = None

    @property
    def pod(self) -> Obj:
        """The latest manifest."""
        return self.info.pod

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.info.key

    @property
    def gated(self) -> bool:
        """Whether a PreEnqueue plugin holds the pod back."""
        return bool(self.gating_plugin)

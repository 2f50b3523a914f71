"""Models pkg/scheduler/framework/interface.go (and kube-scheduler's ``fwk`` package).

The Status codes, one Protocol per extension point, and the cluster-event vocabulary
that queueing hints use. Every hook returns a Status; ``None`` never means success, so a
plugin that forgets to ``return`` fails type checking instead of silently passing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum, IntFlag, StrEnum
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from reference_impl.clock import Duration

if TYPE_CHECKING:
    from reference_impl.scheduler.framework.cycle_state import CycleState
    from reference_impl.scheduler.framework.types import NodeInfo, QueuedPodInfo

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "OK",
    "ActionType",
    "BindPlugin",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "EnqueueExtensions",
    "EventResource",
    "FilterPlugin",
    "NodeScore",
    "PermitPlugin",
    "Plugin",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueueingHint",
    "QueueingHintFn",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "Status",
]

Obj = dict[str, Any]

# The highest score a Score plugin may give a node after NormalizeScore.
MAX_NODE_SCORE: Final = 100
MIN_NODE_SCORE: Final = 0


class Code(Enum):
    """What a plugin decided.

    - SUCCESS: the plugin ran and the pod may proceed.
    - ERROR: an internal error; the pod is retried after backoff, never preempted for.
    - UNSCHEDULABLE: the pod does not fit now; preemption may help (PostFilter runs).
    - UNSCHEDULABLE_AND_UNRESOLVABLE: does not fit and preemption cannot help, so
      PostFilter skips the node.
    - WAIT: only from Permit; the pod waits for an allow/reject or its timeout.
    - SKIP: from PreFilter/PreScore, this plugin's Filter/Score is skipped this cycle;
      from Bind, the next binder is tried.
    - PENDING: the pod waits on something outside the scheduler; requeued without
      backoff once the event that resolves it arrives.
    """

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6


_REJECTED: Final = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


@dataclass(frozen=True, slots=True)
class Status:
    """The result of one plugin call: a code, human-readable reasons, and who said it."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @classmethod
    def of(cls, code: Code, *reasons: str) -> Status:
        """A status with ``code`` and ``reasons`` (``fwk.NewStatus``)."""
        return cls(code, reasons)

    def is_success(self) -> bool:
        """SUCCESS only."""
        return self.code is Code.SUCCESS

    def is_skip(self) -> bool:
        """SKIP only."""
        return self.code is Code.SKIP

    def is_wait(self) -> bool:
        """WAIT only."""
        return self.code is Code.WAIT

    def is_rejected(self) -> bool:
        """UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE or PENDING (``Status.IsRejected``)."""
        return self.code in _REJECTED

    def message(self) -> str:
        """The reasons joined with ", ", as ``Status.Message()``."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        """This status attributed to ``plugin`` (``Status.WithPlugin``)."""
        return self if self.plugin == plugin else Status(self.code, self.reasons, plugin)


OK: Final = Status()
SKIP: Final = Status(Code.SKIP)  # shared: a Status never changes


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """Nodes a PreFilter plugin already knows are the only candidates; None = all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        """Whether every node is still a candidate."""
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection of two results (``PreFilterResult.Merge``)."""
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """What a PostFilter plugin (preemption) nominated: a node name, or "" for none."""

    nominated_node_name: str = ""


@dataclass(slots=True)
class NodeScore:
    """One node's score from one plugin; NormalizeScore rewrites ``score`` in place."""

    name: str
    score: int


# -- cluster events and queueing hints ------------------------------------------------


class EventResource(StrEnum):
    """The kind of object an event is about (``fwk.EventResource``); DRA adds more later."""

    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULED_POD = "UnscheduledPod"
    TARGET_POD = "TargetPod"  # the queued pod's own update (``Update`` in the queue)
    NODE = "Node"
    RESOURCE_CLAIM = "ResourceClaim"
    RESOURCE_SLICE = "ResourceSlice"
    DEVICE_CLASS = "DeviceClass"
    WORKLOAD = "Workload"
    POD_GROUP = "PodGroup"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    PERSISTENT_VOLUME = "PersistentVolume"
    STORAGE_CLASS = "StorageClass"
    CSI_NODE = "CSINode"
    CSI_DRIVER = "CSIDriver"
    CSI_STORAGE_CAPACITY = "CSIStorageCapacity"
    VOLUME_ATTACHMENT = "VolumeAttachment"
    WILDCARD = "*"


class ActionType(IntFlag):
    """What happened to the object (``fwk.ActionType``); update kinds are fine-grained."""

    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_TOLERATIONS = 1 << 9
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
    UPDATE_OTHER = 1 << 12  # any other update (objects without fine-grained kinds)
    UPDATE_POD_SCALE_UP = 1 << 13
    UPDATE_NODE_PREEMPTION_POLICY = 1 << 14
    UPDATE_NODE_DECLARED_FEATURE = 1 << 15
    UPDATE = (1 << 16) - 4  # every update kind
    ALL = (1 << 16) - 1


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """An event that may make a rejected pod schedulable (``fwk.ClusterEvent``)."""

    resource: EventResource
    action: ActionType
    label: str = ""

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether a registration for ``self`` covers the ``incoming`` event.

        ``MatchClusterEvents``: ``*``/All covers everything; ``Pod`` covers its three
        sub-kinds; the incoming action must be as or more specific than the registered one.
        """
        if self.resource is EventResource.WILDCARD and self.action == ActionType.ALL:
            return True
        same = (
            self.resource is EventResource.WILDCARD
            or self.resource is incoming.resource
            or (self.resource is EventResource.POD and incoming.resource in _POD_KINDS)
        )
        return same and bool(self.action & incoming.action) and incoming.action <= self.action


class QueueingHint(Enum):
    """A hint's verdict on whether an event may make the pod schedulable."""

    QUEUE_SKIP = 0
    QUEUE = 1


# fn(pod, old, new) -> QueueingHint; ``old``/``new`` are the changed object's manifests.
QueueingHintFn = Callable[[Obj, Obj | None, Obj | None], QueueingHint]


_POD_KINDS: Final = frozenset(
    (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD, EventResource.TARGET_POD)
)


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    """A registration: the event plus an optional hint; no hint means always QUEUE."""

    event: ClusterEvent
    hint: QueueingHintFn | None = None


# -- extension points ---------------------------------------------------------------


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a name, taken from ``plugins.names``."""

    def name(self) -> str:
        """The plugin's registered name."""
        ...


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    """A plugin that can reject pods says which events may make them schedulable."""

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Events that may make a pod this plugin rejected schedulable."""
        ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Runs before a pod enters activeQ; a non-success keeps it in the unschedulable pool."""

    def pre_enqueue(self, pod: Obj) -> Status:
        """Whether ``pod`` may be queued for scheduling now."""
        ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders activeQ; exactly one per profile."""

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Whether ``a`` should be scheduled before ``b``."""
        ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Precomputes per-pod state; may narrow the candidate nodes or reject the pod."""

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP disables this plugin's Filter for the cycle."""
        ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Decides whether the pod can run on one node."""

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """SUCCESS when ``node_info`` is feasible for ``pod``."""
        ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs when no node fits (preemption); a message explains a failure."""

    def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        """SUCCESS with a nominated node, or a rejection whose message joins the FitError."""
        ...


class NodeToStatusReader(Protocol):
    """Read access to the per-node filter statuses of the failed cycle."""

    def get(self, node_name: str) -> Status:
        """The status recorded for ``node_name``."""
        ...

    def node_names(self) -> Iterable[str]:
        """Nodes with an explicit status, in sorted order."""
        ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Precomputes scoring state over the feasible nodes; SKIP disables its Score."""

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """Prepare for scoring ``nodes``."""
        ...


class ScoreExtensions(Protocol):
    """Optional normalisation of one plugin's raw scores into [0, MAX_NODE_SCORE]."""

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """Rewrite ``scores`` in place."""
        ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """Ranks one feasible node."""

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """A raw score for ``node_info``."""
        ...

    def score_extensions(self) -> ScoreExtensions | None:
        """The normaliser, or None when raw scores are already in range."""
        ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Reserves per-node resources for the chosen node; unreserve rolls back on failure."""

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Claim what the pod needs on ``node_name``."""
        ...

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Undo ``reserve``; must be idempotent."""
        ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """Approves, denies or delays binding (WAIT with a timeout)."""

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status, Duration]:
        """SUCCESS, a rejection, or WAIT for at most the returned duration."""
        ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    """Work that must finish before the binding (volumes, claims)."""

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Prepare ``node_name`` for the pod."""
        ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Binds the pod; SKIP hands it to the next binder."""

    def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Write the binding."""
        ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    """Informational, after a successful bind."""

    def post_bind(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Clean up after binding."""
        ...

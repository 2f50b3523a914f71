"""Knobs of the fake kubelet, after KWOK's stage delays and node settings."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

__all__ = [
    "ANN_EXIT_CODE",
    "ANN_IMAGE_PULL",
    "ANN_MODEL_LOAD",
    "ANN_RUN",
    "ANN_START",
    "KubeletConfig",
    "ManagedNodes",
]

ANN_START: Final = "garhwal.dev/start-seconds"
ANN_IMAGE_PULL: Final = "garhwal.dev/image-pull-seconds"
ANN_MODEL_LOAD: Final = "garhwal.dev/model-load-seconds"
ANN_RUN: Final = "garhwal.dev/run-seconds"
ANN_EXIT_CODE: Final = "garhwal.dev/exit-code"
KWOK_NODE_ANNOTATION: Final = "kwok.x-k8s.io/node"


class ManagedNodes(Enum):
    """Which nodes the fake kubelet runs: every node, or only KWOK-marked ones."""

    ALL = "all"
    # Label ``type=kwok`` or annotation ``kwok.x-k8s.io/node=fake``, as kwok's --manage-* flags.
    KWOK = "kwok"


@dataclass(frozen=True, slots=True)
class KubeletConfig:
    """Delays (simulated seconds) and node selection for the fake kubelet.

    ``pod_start_seconds`` is the default Pending→Running delay (annotation
    ``garhwal.dev/start-seconds`` overrides it); image pull and model load come on top
    from their annotations. A deleted pod stops after
    ``min(deletionGracePeriodSeconds, termination_seconds)``.
    """

    pod_start_seconds: float = 1.0
    termination_seconds: float = 0.0
    managed_nodes: ManagedNodes = ManagedNodes.ALL
    # An extra label selector ANDed with ``managed_nodes`` (None: no extra filter).
    node_label_selector: str | None = None
    node_lease: bool = True
    # Lease renewal period; None renews never, which keeps quiet clusters quiet.
    lease_renew_seconds: float | None = None
    kubelet_version: str = "v1.37.2"
    # How long an admitted in-place resize stays PodResizeInProgress before it is applied.
    resize_actuation_seconds: float = 1.0
    # Whether the container runtime implements CRI CheckpointPod/RestorePod (KEP-5823).
    checkpoint_supported: bool = True
    # --cpu-manager-policy, --memory-manager-policy and memorySwap.swapBehavior, at
    # upstream's defaults; the resize handler reads them (Guaranteed pods, swap).
    cpu_manager_policy: str = "none"
    memory_manager_policy: str = "None"
    swap_behavior: str = "NoSwap"
    # The node's kernel (which safe sysctls it namespaces), --allowed-unsafe-sysctls and
    # whether the host has AppArmor: the sysctl and AppArmor admit handlers read them.
    kernel_version: str = "6.8.0"
    allowed_unsafe_sysctls: tuple[str, ...] = ()
    apparmor_enabled: bool = True
    # --eviction-pressure-transition-period: a cleared pressure condition stays this long.
    pressure_transition_seconds: float = 300.0
    # What the container runtime's CRI status reports (RuntimeFeatures): node declared
    # features UserNamespacesHostNetworkSupport and VolumeBindMountOptions need them.
    runtime_user_namespaces_host_network: bool = False
    runtime_mount_options: bool = False
    # The eviction manager (``eviction_manager.py``): --eviction-hard, --eviction-soft,
    # --eviction-soft-grace-period and --eviction-minimum-reclaim as (signal, value)
    # pairs, --eviction-max-pod-grace-period, --enforce-node-allocatable and the
    # housekeeping interval. None set (unlike upstream's defaults): the manager's
    # monitoring only runs where thresholds are set or a test set a node's stats.
    eviction_hard: tuple[tuple[str, str], ...] = ()
    eviction_soft: tuple[tuple[str, str], ...] = ()
    eviction_soft_grace_period: tuple[tuple[str, str], ...] = ()
    eviction_minimum_reclaim: tuple[tuple[str, str], ...] = ()
    eviction_max_pod_grace_period: int = 0
    enforce_node_allocatable: tuple[str, ...] = ("pods",)
    eviction_monitoring_seconds: float = 10.0
    local_storage_capacity_isolation: bool = True

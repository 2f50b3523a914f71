"""The kubelet's side of node declared features (NodeDeclaredFeatures, GA in 1.37):
``discoverNodeDeclaredFeatures`` (published in ``status.declaredFeatures`` by
``setNodeStatus``), the ``declaredFeaturesAdmitHandler`` (lifecycle/handlers.go) and the
pod update check of ``HandlePodUpdates`` (a Warning event only, the update goes on).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from reference_impl.api.node_declared_features import (
    DEFAULT_FRAMEWORK,
    Framework,
    NodeConfiguration,
    RuntimeFeatures,
    Version,
    discover_gates,
    parse_version,
)
from reference_impl.kubelet.admission import AdmitResult
from reference_impl.kubelet.config import KubeletConfig

__all__ = [
    "DEFAULT_DECLARED",
    "FAILED_CHECK",
    "POD_FEATURE_UNSUPPORTED",
    "declared_features_admit",
    "discover_node_declared_features",
    "update_check_message",
]

POD_FEATURE_UNSUPPORTED: Final = "PodFeatureUnsupported"  # lifecycle.PodFeatureUnsupported
FAILED_CHECK: Final = "FailedNodeDeclaredFeaturesCheck"  # events.FailedNodeDeclaredFeaturesCheck
_MISSING: Final = "Pod requires node features that are not available: "


def discover_node_declared_features(known_gates: Mapping[str, bool], config: KubeletConfig) -> tuple[str, ...]:
    """``discoverNodeDeclaredFeatures``: ``DefaultFramework.DiscoverNodeFeatures`` with the
    kubelet's gates (unset ones at their v1.37.2 default), its version and the runtime's
    reported features; sorted by name as the framework returns them."""
    cfg = NodeConfiguration(
        discover_gates(known_gates),
        parse_version(config.kubelet_version),
        RuntimeFeatures(
            user_namespaces_host_network=config.runtime_user_namespaces_host_network,
            mount_options=config.runtime_mount_options,
        ),
    )
    return tuple(DEFAULT_FRAMEWORK.discover_node_features(cfg))


# What a v1.37.2 kubelet at default gates and a runtime reporting nothing declares.
DEFAULT_DECLARED: Final = discover_node_declared_features({}, KubeletConfig())


_V1_37_2: Final = parse_version(KubeletConfig().kubelet_version)


def declared_features_admit(
    pod: Mapping[str, Any],
    declared: tuple[str, ...],
    framework: Framework = DEFAULT_FRAMEWORK,
    version: Version | None = _V1_37_2,
) -> AdmitResult:
    """``declaredFeaturesAdmitHandler.Admit``: the features the pod needs for scheduling
    (``InferForPodScheduling`` at the kubelet's version) must all be among the node's
    declared features."""
    try:
        required = framework.infer_for_pod_scheduling(pod, version)
    except ValueError as err:
        return AdmitResult(False, POD_FEATURE_UNSUPPORTED, f"Failed to infer pod's feature requirements: {err}")
    if not required:
        return AdmitResult(True)
    missing = framework.match_node_feature_set(required, declared)
    if not missing:
        return AdmitResult(True)
    return AdmitResult(False, POD_FEATURE_UNSUPPORTED, _MISSING + ", ".join(missing))


def update_check_message(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    declared: tuple[str, ...],
    framework: Framework = DEFAULT_FRAMEWORK,
    version: Version = _V1_37_2,
) -> str | None:
    """``HandlePodUpdates``' check: the Warning event's message when the update needs
    features (``InferForPodUpdate``) the node does not declare, else None."""
    required = framework.infer_for_pod_update(old, new, version)
    missing = framework.match_node_feature_set(required, declared)
    return _MISSING + ", ".join(missing) if missing else None

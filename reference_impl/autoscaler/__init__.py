"""A cluster autoscaler model (kubernetes/autoscaler cluster-autoscaler) with KEP-5030
CSI attach limits in its scheduling simulation (gate VolumeLimitScaling)."""

from reference_impl.autoscaler.cluster_autoscaler import ClusterAutoscaler
from reference_impl.autoscaler.config import (
    CONFIGMAP_NAME,
    CONFIGMAP_NAMESPACE,
    GROUP_LABEL,
    AutoscalerConfig,
    NodeGroup,
    parse_config,
)

__all__ = [
    "CONFIGMAP_NAME",
    "CONFIGMAP_NAMESPACE",
    "GROUP_LABEL",
    "AutoscalerConfig",
    "ClusterAutoscaler",
    "NodeGroup",
    "parse_config",
]

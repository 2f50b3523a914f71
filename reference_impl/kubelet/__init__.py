"""The fake kubelet: KWOK-style pod and node lifecycles on simulated time."""

from reference_impl.kubelet.config import KubeletConfig, ManagedNodes
from reference_impl.kubelet.kubelet import Kubelet

__all__ = ["Kubelet", "KubeletConfig", "ManagedNodes"]

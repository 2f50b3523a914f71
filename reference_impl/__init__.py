"""garhwal's reference implementation: a deterministic Kubernetes 1.37 control plane.

Suites use only ``reference_impl.api`` (manifest builders) and ``reference_impl.errors``;
the plugin's reference target drives ``Cluster``. ``Cluster`` is imported lazily, so the
live target can use the error classes without loading the simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl import api, errors
from reference_impl.clock import SimClock

if TYPE_CHECKING:
    from reference_impl.cluster import Cluster, ClusterConfig

__all__ = ["Cluster", "ClusterConfig", "SimClock", "api", "errors"]


def __getattr__(name: str) -> Any:
    if name in ("Cluster", "ClusterConfig"):
        from reference_impl import cluster

        return getattr(cluster, name)
    raise AttributeError(f"module 'reference_impl' has no attribute {name!r}")

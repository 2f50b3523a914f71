"""Per-kind defaulting and validation (the ``pkg/registry/<group>/<kind>/strategy.go`` role).

Importing this package registers every strategy with ``reference_impl.apiserver.registry``.
"""

from reference_impl.apiserver.strategies import (
    apps,
    autoscaling,
    batch,
    certificates,  # PODCERT, CTB
    core,
    meta,
    resource,  # DRA (resource.k8s.io)
    scheduling,
)

__all__ = ["apps", "autoscaling", "batch", "certificates", "core", "meta", "resource", "scheduling"]

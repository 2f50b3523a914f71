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
    policy,  # PodDisruptionBudget
    resource,  # DRA (resource.k8s.io)
    resource_admin,  # adminAccess needs the namespace label
    resource_extended,  # DeviceClass extendedResourceName format
    resource_gates,  # gated DRA fields dropped
    resource_time,  # DeviceTaint.timeAdded
    scheduling,
    scheduling_claims,  # DRA-WLCLAIM resourceClaims
    scheduling_preemption,  # PodGroupPreemptionPolicy defaults
    status_gates,  # gated /status fields, status reset on create
)

__all__ = [
    "apps",
    "autoscaling",
    "batch",
    "certificates",
    "core",
    "meta",
    "policy",
    "resource",
    "resource_admin",
    "resource_extended",
    "resource_gates",
    "resource_time",
    "scheduling",
    "scheduling_claims",
    "scheduling_preemption",
    "status_gates",
]

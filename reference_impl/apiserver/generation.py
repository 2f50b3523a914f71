"""Which kinds keep ``metadata.generation`` (the registry strategies' PrepareForCreate and
PrepareForUpdate in ``pkg/registry/*/*/strategy.go``).

A kind that manages it starts at 1 on create and (most of them) goes up by one when its
spec changes. Any other kind keeps what the client sent at create (usually nothing) for
good: ``rest.BeforeUpdate`` puts the stored value back on every update.
"""

from __future__ import annotations

from typing import Final

from reference_impl.api.resources import ResourceInfo

__all__ = ["bumps_generation", "sets_generation"]

_ADMISSION: Final = (
    "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
)  # fmt: skip
# Strategies whose PrepareForUpdate bumps the generation on a spec change.
_BUMPS: Final = frozenset({
    *_ADMISSION, "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet",
    "HorizontalPodAutoscaler", "CronJob", "Job", "Pod", "PodTemplate", "ReplicationController",
    "EndpointSlice", "FlowSchema", "PriorityLevelConfiguration", "Eviction", "EvictionRequest",
    "Ingress", "IngressClass", "NetworkPolicy", "PodDisruptionBudget", "DeviceClass",
    "DeviceTaintRule", "ResourceSlice", "CSIDriver", "CustomResourceDefinition",
})  # fmt: skip
# Strategies whose PrepareForCreate sets generation 1 (PriorityClass does, and never bumps
# it; CSIDriver bumps it but does not set it).
_SETS: Final = (_BUMPS - {"CSIDriver"}) | {"PriorityClass"}


def sets_generation(info: ResourceInfo) -> bool:
    """Whether a create starts ``metadata.generation`` at 1."""
    return info.kind in _SETS


def bumps_generation(info: ResourceInfo) -> bool:
    """Whether a spec change on update adds one to ``metadata.generation``."""
    return info.kind in _BUMPS

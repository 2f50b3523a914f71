"""Compute-resource name classes (``k8s.io/kubernetes/pkg/apis/core/helper``), shared by
the apiserver's validation and the scheduler."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from reference_impl.api.meta import label_key_errors

__all__ = [
    "is_extended_resource_name",
    "is_hugepage_resource_name",
    "is_integer_resource_name",
    "is_native_resource",
    "is_scalar_resource_name",
    "is_standard_quota_resource_name",
    "is_standard_resource_name",
]

# standardQuotaResources; standardResources adds "storage".
_STANDARD_QUOTA: Final = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
    "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers",
})  # fmt: skip
_STANDARD: Final = _STANDARD_QUOTA | {"storage"}
# integerResources: the object counts.
_INTEGER: Final = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})  # fmt: skip


def is_native_resource(name: str) -> bool:
    """``IsNativeResource``: unprefixed, or anywhere in the ``kubernetes.io/`` namespace."""
    return "/" not in name or "kubernetes.io/" in name


def is_hugepage_resource_name(name: str) -> bool:
    """``IsHugePageResourceName``."""
    return name.startswith("hugepages-")


def _is_quota_hugepage(name: str) -> bool:
    # IsQuotaHugePageResourceName
    return name.startswith(("hugepages-", "requests.hugepages-"))


def is_extended_resource_name(name: str) -> bool:
    """``IsExtendedResourceName``: not native, no ``requests.`` prefix, and still a
    qualified name with ``requests.`` put in front (its quota name)."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not label_key_errors(f"requests.{name}")


@lru_cache(maxsize=1024)
def is_scalar_resource_name(name: str) -> bool:
    """``schedutil.IsScalarResourceName``: extended, hugepages, prefixed native
    (``kubernetes.io/``) and attachable-volume names (cached: the scheduler asks per node)."""
    return (
        name.startswith(("hugepages-", "attachable-volumes-"))
        or "kubernetes.io/" in name
        or is_extended_resource_name(name)
    )


def is_standard_resource_name(name: str) -> bool:
    """``IsStandardResourceName``."""
    return name in _STANDARD or _is_quota_hugepage(name)


def is_standard_quota_resource_name(name: str) -> bool:
    """``IsStandardQuotaResourceName``: known to quota tracking (no bare ``storage``)."""
    return name in _STANDARD_QUOTA or _is_quota_hugepage(name)


def is_integer_resource_name(name: str) -> bool:
    """``IsIntegerResourceName``: the object counts and every extended resource."""
    return name in _INTEGER or is_extended_resource_name(name)

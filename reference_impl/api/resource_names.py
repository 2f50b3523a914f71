"""Compute-resource name classes (``k8s.io/kubernetes/pkg/apis/core/v1/helper``), shared by
the apiserver's validation and the scheduler."""

from __future__ import annotations

from typing import Final

__all__ = ["is_extended_resource_name"]

_NATIVE: Final = frozenset({"cpu", "memory", "ephemeral-storage", "pods", "storage"})


def is_extended_resource_name(name: str) -> bool:
    """``IsExtendedResourceName``: domain-qualified and outside ``kubernetes.io``."""
    if name in _NATIVE or name.startswith(("hugepages-", "requests.")) or "/" not in name:
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))

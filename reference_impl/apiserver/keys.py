"""Storage keys: ``/registry/<plural.group>/[<namespace>/]<name>``, as upstream lays out etcd.

Keys name the group and resource, never the version, so every served version of a kind
reads and writes the same object (stored in the kind's storage version).
"""

from __future__ import annotations

from typing import Final

from reference_impl.api.resources import ResourceInfo

__all__ = ["PREFIX", "group_resource_of", "key", "namespace_for", "prefix"]

PREFIX: Final = "/registry/"


def namespace_for(info: ResourceInfo, namespace: str | None) -> str | None:
    """The namespace an object of ``info`` lives in: none when cluster-scoped."""
    if not info.namespaced:
        return None
    return namespace or "default"


def key(info: ResourceInfo, name: str, namespace: str | None) -> str:
    """The key of one object (``namespace`` already resolved by ``namespace_for``)."""
    if info.namespaced:
        return f"{PREFIX}{info.group_resource}/{namespace}/{name}"
    return f"{PREFIX}{info.group_resource}/{name}"


def prefix(info: ResourceInfo, namespace: str | None) -> str:
    """The key prefix of a collection, or of one namespace of it."""
    if info.namespaced and namespace:
        return f"{PREFIX}{info.group_resource}/{namespace}/"
    return f"{PREFIX}{info.group_resource}/"


def group_resource_of(storage_key: str) -> str:
    """``plural.group`` from a storage key."""
    return storage_key[len(PREFIX) :].split("/", 1)[0]

"""The strategies' WarningsOnCreate/WarningsOnUpdate, one module per upstream file; each
registers with ``registry.warner`` and the server returns what they say with the write."""

from __future__ import annotations

from reference_impl.apiserver.warnings import (
    admissionregistration,
    endpoints,
    job,
    networking,
    node,
    persistentvolume,
    persistentvolumeclaim,
    pod,
    resource,
    resourcequota,
    secret,
    service,
    serviceaccount,
    storage,
    workloads,
)

__all__ = [
    "admissionregistration", "endpoints", "job", "networking", "node", "persistentvolume",
    "persistentvolumeclaim", "pod", "resource", "resourcequota", "secret", "service",
    "serviceaccount", "storage", "workloads",
]

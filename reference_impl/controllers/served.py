"""The stored, served kinds a controller iterates over (discovery, as ``restmapper`` gives).

The namespace controller and the garbage collector walk every kind the apiserver
stores; this picks one version per resource, the most stable, and drops kinds whose
feature gates are off and request-body ("virtual") kinds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reference_impl.api.resources import RESOURCES, ResourceInfo

__all__ = ["served_kinds"]

_STABLE = re.compile(r"^v\d+$")


def _stability(info: ResourceInfo) -> tuple[int, str]:
    v = info.version
    rank = 0 if _STABLE.match(v) else 1 if "beta" in v else 2
    return (rank, v)


def served_kinds(gates: Mapping[str, bool], namespaced: bool | None = None) -> list[ResourceInfo]:
    """One ResourceInfo per stored resource, sorted by group/resource."""
    best: dict[str, ResourceInfo] = {}
    for info in RESOURCES.values():
        if info.virtual or not all(gates.get(g, False) for g in info.gates):
            continue
        if namespaced is not None and info.namespaced != namespaced:
            continue
        cur = best.get(info.group_resource)
        if cur is None or _stability(info) < _stability(cur):
            best[info.group_resource] = info
    return [best[k] for k in sorted(best)]

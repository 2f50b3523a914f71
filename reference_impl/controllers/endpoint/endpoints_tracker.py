"""pkg/controller/endpoint/endpoints_tracker.go: ``staleEndpointsTracker``, the
resourceVersion of each Endpoints the controller replaced, so that a sync that still reads
it from the informer knows its cache is out of date."""

from __future__ import annotations

from typing import Any

__all__ = ["StaleEndpointsTracker"]

Obj = dict[str, Any]


def _nn(endpoints: Obj) -> tuple[str, str]:
    meta = endpoints["metadata"]
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


class StaleEndpointsTracker:
    """``staleEndpointsTracker``."""

    def __init__(self) -> None:
        self.stale_resource_version_by_endpoints: dict[tuple[str, str], str] = {}

    def stale(self, endpoints: Obj) -> None:
        """``Stale``: this Endpoints' resourceVersion is outdated."""
        rv = str(endpoints["metadata"].get("resourceVersion") or "")
        self.stale_resource_version_by_endpoints[_nn(endpoints)] = rv

    def is_stale(self, endpoints: Obj) -> bool:
        """``IsStale``: its resourceVersion is the one recorded as outdated."""
        rv = self.stale_resource_version_by_endpoints.get(_nn(endpoints))
        return rv is not None and rv == str(endpoints["metadata"].get("resourceVersion") or "")

    def delete(self, namespace: str, name: str) -> None:
        """``Delete``."""
        self.stale_resource_version_by_endpoints.pop((namespace, name), None)

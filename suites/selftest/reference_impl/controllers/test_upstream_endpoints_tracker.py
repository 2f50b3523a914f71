"""Upstream pkg/controller/endpoint/endpoints_tracker_test.go ``TestStaleEndpointsTracker``,
against the reference's StaleEndpointsTracker
(reference_impl/controllers/endpoint/endpoints_tracker.py)."""

from __future__ import annotations

from typing import Any

from reference_impl.controllers.endpoint.endpoints_tracker import StaleEndpointsTracker


def test_stale_endpoints_tracker() -> None:
    tracker = StaleEndpointsTracker()
    endpoints: dict[str, Any] = {
        "metadata": {"name": "foo", "namespace": "default", "resourceVersion": "1"},
        "subsets": [{"addresses": [{"ip": "6.7.8.9", "nodeName": ""}], "ports": [{"port": 1000}]}],
    }
    assert not tracker.is_stale(endpoints), (
        "IsStale should return false before the endpoint is staled"
    )
    tracker.stale(endpoints)
    assert tracker.is_stale(endpoints), "IsStale should return true after the endpoint is staled"
    endpoints["metadata"]["resourceVersion"] = "2"
    assert not tracker.is_stale(endpoints), (
        "IsStale should return false after the endpoint is updated"
    )
    tracker.delete("default", "foo")
    assert tracker.stale_resource_version_by_endpoints == {}

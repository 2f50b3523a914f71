"""The cheaper write path keeps its guarantees: status writes are still schema-checked
(with paths), replies and events never alias stored state, and an event's ``old`` is the
object the previous event delivered for that key."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace, make_pod
from reference_impl.apiserver import schema
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.errors import BadRequest
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
V1, B2 = "resource.k8s.io/v1", "resource.k8s.io/v1beta2"


@pytest.fixture
def server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    return s


def _claim(api_version: str = V1) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}},
    }


def _allocation(node: str) -> Obj:
    return {
        "devices": {"results": [{"request": "r", "driver": "d.dev", "pool": node, "device": "g0"}]},
        "nodeSelector": {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
            ]
        },
    }


@pytest.mark.parametrize(
    ("status", "field"),
    [
        pytest.param({"phase": "Pending", "bogus": 1}, "status.bogus", id="unknown field"),
        pytest.param(
            {"conditions": [{"type": 7, "status": "True"}]},
            # Go's decoder names the struct fields only: no list index.
            "status.conditions.type",
            id="wrong type",
        ),
    ],
)
def test_status_writes_are_schema_checked_with_paths(
    server: APIServer, status: Obj, field: str
) -> None:
    pod = server.create(make_pod("p", "default").build())
    before = server.get("v1", "Pod", "p", "default")
    pod["status"] = status
    with pytest.raises(BadRequest) as e:  # the body does not decode: 400, as upstream
        server.update_status(pod)
    assert field in e.value.fields
    assert server.get("v1", "Pod", "p", "default") == before


def test_status_written_in_another_version_is_checked_at_the_storage_version(
    server: APIServer,
) -> None:
    server.create(_claim(V1))
    beta = server.get(B2, "ResourceClaim", "c", "default")
    beta["status"] = {"allocation": _allocation("n1")}
    reply = server.update_status(beta)
    assert reply["apiVersion"] == B2
    stored = server.get(V1, "ResourceClaim", "c", "default")
    assert stored["status"]["allocation"]["devices"]["results"][0]["device"] == "g0"
    assert schema.field_valid(stored, "status")
    stored["status"]["allocation"]["bogus"] = True
    assert not schema.field_valid(stored, "status")
    assert not schema.field_valid({"apiVersion": V1, "kind": "ResourceClaim"}, "status")


def test_status_write_replies_and_events_do_not_alias_storage(server: APIServer) -> None:
    seen: list[ObjectEvent] = []
    server.add_event_handler(seen.append)
    server.create(_claim())
    body = server.get(V1, "ResourceClaim", "c", "default")
    body["status"] = {"allocation": _allocation("n1")}
    reply = server.update_status(body)
    delivered = copy.deepcopy(seen[-1].obj)
    body["status"]["allocation"]["devices"]["results"][0]["device"] = "changed-body"
    reply["status"]["allocation"]["devices"]["results"][0]["device"] = "changed-reply"
    reply["metadata"]["labels"] = {"changed": "reply"}
    stored = server.get(V1, "ResourceClaim", "c", "default")
    assert stored["status"]["allocation"]["devices"]["results"][0]["device"] == "g0"
    assert "labels" not in stored["metadata"]
    assert seen[-1].obj == delivered  # the delivered event object is not the reply
    # A later status write leaves the objects already delivered untouched.
    # (The allocation is immutable once set; reserving the claim is a status change.)
    stored["status"]["reservedFor"] = [
        {"resource": "pods", "name": "p", "uid": "6a0a2b3c-1111-2222-3333-444455556666"}
    ]
    server.update_status(stored)
    assert seen[-2].obj == delivered and seen[-1].old is seen[-2].obj


def test_event_old_is_the_previous_event_object(server: APIServer) -> None:
    seen: list[ObjectEvent] = []
    server.create(make_pod("p", "default").build())  # before any handler: nothing to reuse
    server.add_event_handler(seen.append)
    pod = server.get("v1", "Pod", "p", "default")
    pod["metadata"]["labels"] = {"a": "1"}
    server.update(pod)
    first = seen[-1]
    assert first.old is not None and "labels" not in first.old["metadata"]
    assert first.old["metadata"]["resourceVersion"] == pod["metadata"]["resourceVersion"]
    pod = server.get("v1", "Pod", "p", "default")
    pod["metadata"]["labels"] = {"a": "2"}
    server.update(pod)
    second = seen[-1]
    assert second.type == "MODIFIED" and second.old is first.obj
    assert second.old["metadata"]["labels"] == {"a": "1"}
    server.delete("v1", "Pod", "p", "default", grace_period_seconds=0)
    assert seen[-1].type == "DELETED" and seen[-1].obj["metadata"]["labels"] == {"a": "2"}
    server.create(make_pod("p", "default").build())
    assert seen[-1].type == "ADDED" and seen[-1].old is None

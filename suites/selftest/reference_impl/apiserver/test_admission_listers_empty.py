"""Admission's lister reads of an empty resource: remembered as empty until the next write
to that resource (``APIServer._stored``), so a read after any write, delete or outage
answers as a fresh read of the store would."""

from __future__ import annotations

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ServiceUnavailable
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

_QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
          "spec": {"hard": {"pods": "10"}}}  # fmt: skip


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    s.create(make_namespace("other").build())
    return s


def _names(objs: list[dict[str, object]]) -> list[object]:
    return [o["metadata"]["name"] for o in objs]  # type: ignore[index]


@pytest.mark.parametrize("read", ["lister_list", "list"])
def test_an_empty_read_sees_the_next_create_and_delete(read: str) -> None:
    s = _server()
    ctx = s._context()
    fn = getattr(ctx, read)
    assert fn("v1", "ResourceQuota", "default") == []
    assert fn("v1", "ResourceQuota", None) == []
    s.create({**_QUOTA, "metadata": {"name": "q", "namespace": "default"}})
    assert _names(fn("v1", "ResourceQuota", "default")) == ["q"]
    assert fn("v1", "ResourceQuota", "other") == []  # stored elsewhere: read each time
    s.create({**_QUOTA, "metadata": {"name": "r", "namespace": "other"}})
    assert _names(fn("v1", "ResourceQuota", "other")) == ["r"]
    s.delete("v1", "ResourceQuota", "q", "default")
    s.delete("v1", "ResourceQuota", "r", "other")
    assert fn("v1", "ResourceQuota", None) == []
    s.create({**_QUOTA, "metadata": {"name": "again", "namespace": "other"}})
    assert _names(fn("v1", "ResourceQuota", None)) == ["again"]


def test_a_write_straight_to_the_store_is_seen() -> None:
    s = _server()
    ctx = s._context()
    assert ctx.lister_list("v1", "ResourceQuota", None) == []
    other = APIServer(s.store, s.clock, Rng(8), FeatureGates())  # a second apiserver, one etcd
    other.create({**_QUOTA, "metadata": {"name": "q", "namespace": "default"}})
    assert _names(ctx.lister_list("v1", "ResourceQuota", "default")) == ["q"]


def test_a_dry_run_create_leaves_the_resource_empty() -> None:
    s = _server()
    ctx = s._context()
    assert ctx.lister_list("v1", "ResourceQuota", None) == []
    s.create({**_QUOTA, "metadata": {"name": "q", "namespace": "default"}}, dry_run=True)
    assert ctx.lister_list("v1", "ResourceQuota", None) == []


@pytest.mark.parametrize("read", ["lister_list", "list"])
def test_an_unavailable_store_fails_the_read_remembered_empty(read: str) -> None:
    s = _server()
    fn = getattr(s._context(), read)
    assert fn("v1", "ResourceQuota", None) == []
    s.store.available = False
    with pytest.raises(ServiceUnavailable):
        fn("v1", "ResourceQuota", None)
    s.store.available = True
    assert fn("v1", "ResourceQuota", None) == []

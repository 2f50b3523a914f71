"""Admission's lister reads: decoded once per stored revision and shared, so a hook sees
each write of the object it looks up (a class's new value, a deleted default) at once."""

from __future__ import annotations

import pytest

from reference_impl.api import make_namespace, make_pod, make_priority_class
from reference_impl.apiserver.admission import priority
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Forbidden
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    priority.install_priority(s)
    return s


def test_a_class_written_again_is_read_at_its_new_value() -> None:
    s = _server()
    s.create(make_priority_class("high", 100))
    assert s.create(make_pod("a").priority_class("high").build())["spec"]["priority"] == 100
    s.delete("scheduling.k8s.io/v1", "PriorityClass", "high")
    s.create(make_priority_class("high", 200))
    assert s.create(make_pod("b").priority_class("high").build())["spec"]["priority"] == 200


def test_a_deleted_class_is_gone_for_the_next_pod() -> None:
    s = _server()
    s.create(make_priority_class("gone", 7))
    s.create(make_pod("a").priority_class("gone").build())
    s.delete("scheduling.k8s.io/v1", "PriorityClass", "gone")
    with pytest.raises(Forbidden, match="no PriorityClass with name gone"):
        s.create(make_pod("b").priority_class("gone").build())


def test_the_global_default_follows_its_class() -> None:
    s = _server()
    assert s.create(make_pod("a").build())["spec"]["priority"] == 0
    s.create(make_priority_class("dflt", 5, global_default=True))
    assert s.create(make_pod("b").build())["spec"]["priority"] == 5


def test_lister_objects_are_shared_until_the_next_write() -> None:
    s = _server()
    s.create(make_priority_class("c", 3))
    ctx = s._context()
    first = ctx.lister_get("scheduling.k8s.io/v1", "PriorityClass", "c", None)
    assert first is ctx.lister_get("scheduling.k8s.io/v1", "PriorityClass", "c", None)
    pc = s.get("scheduling.k8s.io/v1", "PriorityClass", "c")
    pc["description"] = "changed"
    s.update(pc)
    again = ctx.lister_get("scheduling.k8s.io/v1", "PriorityClass", "c", None)
    assert again is not first and again is not None and again["description"] == "changed"

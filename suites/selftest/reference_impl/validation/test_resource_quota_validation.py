"""The ResourceQuota strategy as upstream v1.37.2's ``pkg/registry/core/resourcequota`` and
``pkg/apis/core/validation``: milli round-up defaulting, the status reset on create, the
status kept by spec writes and the spec by /status writes, and the messages upstream
prints (values as ``json.Marshal`` writes them). Verdicts and paths of upstream's table
are in ``fixtures.fuzz.cases_quota``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import reference_impl.apiserver.strategies  # noqa: F401 - registers the strategies
from reference_impl.api import make_namespace
from reference_impl.api.resource_names import (
    is_extended_resource_name,
    is_integer_resource_name,
    is_standard_quota_resource_name,
)
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


@pytest.fixture
def srv() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates({}))
    s.create(make_namespace("default").build())
    return s


def _rq(spec: Obj, **extra: Any) -> Obj:
    meta = {"name": "q", "namespace": "default"}
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta, "spec": spec, **extra}


def _messages(srv: APIServer, verb: str, obj: Obj) -> list[str]:
    with pytest.raises(Invalid) as err:
        getattr(srv, verb)(obj)
    return [str(c) for c in err.value.causes]


def test_create_rounds_up_to_milli_and_empties_status(srv: APIServer) -> None:
    spec = {"hard": {"cpu": "100u", "memory": "1e-4", "pods": "2", "secrets": None}}
    got = srv.create(_rq(spec, status={"used": {"pods": "-1"}}))
    assert got["spec"]["hard"] == {"cpu": "1m", "memory": "1e-3", "pods": "2", "secrets": "0"}
    assert got["status"] == {}


def test_spec_update_keeps_status_and_status_update_keeps_spec(srv: APIServer) -> None:
    stored = srv.create(_rq({"hard": {"pods": "2"}}))
    st = copy.deepcopy(stored)
    st["status"] = {"hard": {"pods": "2"}, "used": {"pods": "1", "cpu": "1u"}}
    st["spec"]["hard"]["pods"] = "99"
    after = srv.update_status(st)
    assert after["spec"]["hard"] == {"pods": "2"}
    assert after["status"]["used"] == {"pods": "1", "cpu": "1m"}
    up = copy.deepcopy(after)
    up["spec"]["hard"]["pods"] = "3"
    up["status"] = {}
    again = srv.update(up)
    assert again["spec"]["hard"] == {"pods": "3"} and again["status"] == after["status"]


def test_resource_name_and_quantity_messages(srv: APIServer) -> None:
    spec = {"hard": {"pods": "-1.5", "storage": "1", "example.com/gpu": "1500m"}}
    assert sorted(_messages(srv, "create", _rq(spec))) == [
        'spec.hard[example.com/gpu]: FieldValueInvalid: Invalid value: "1500m": must be an integer',
        'spec.hard[pods]: FieldValueInvalid: Invalid value: "-1500m": must be an integer',
        'spec.hard[pods]: FieldValueInvalid: Invalid value: "-1500m": must be greater than or equal to 0',
        'spec.hard[storage]: FieldValueInvalid: Invalid value: "storage": must be a standard resource for quota',
    ]  # fmt: skip


def test_scope_messages_name_the_list_once_per_rule(srv: APIServer) -> None:
    spec = {"hard": {"cpu": "1", "services": "1"}, "scopes": ["BestEffort", "NotBestEffort", "foo"]}
    v = '["BestEffort","NotBestEffort","foo"]'
    applied = (
        f"spec.scopes: FieldValueInvalid: Invalid value: {v}: unsupported scope applied to resource"
    )
    assert _messages(srv, "create", _rq(spec)) == [
        applied, applied, applied,
        f"spec.scopes: FieldValueInvalid: Invalid value: {v}: unsupported scope",
        f"spec.scopes: FieldValueInvalid: Invalid value: {v}: conflicting scopes",
    ]  # fmt: skip


def test_selector_value_is_the_internal_struct(srv: APIServer) -> None:
    expr = {"scopeName": "PriorityClass", "operator": "In", "values": ["a"]}
    spec = {"hard": {"services": "1"}, "scopeSelector": {"matchExpressions": [expr]}}
    assert _messages(srv, "create", _rq(spec)) == [
        "spec.scopeSelector.matchExpressions: FieldValueInvalid: Invalid value: "
        '{"MatchExpressions":[{"ScopeName":"PriorityClass","Operator":"In","Values":["a"]}]}: '
        "unsupported scope applied to resource"
    ]


def test_scopes_immutable_as_a_set_selector_mutable(srv: APIServer) -> None:
    expr = {"scopeName": "PriorityClass", "operator": "In", "values": ["a"]}
    spec = {"hard": {"cpu": "1"}, "scopes": ["Terminating", "NotBestEffort"],
            "scopeSelector": {"matchExpressions": [expr]}}  # fmt: skip
    stored = srv.create(_rq(spec))
    same = copy.deepcopy(stored)
    same["spec"]["scopes"] = ["NotBestEffort", "Terminating"]
    same["spec"]["scopeSelector"]["matchExpressions"][0]["values"] = ["b"]
    stored = srv.update(same)
    changed = copy.deepcopy(stored)
    changed["spec"]["scopes"] = ["Terminating"]
    assert _messages(srv, "update", changed) == [
        'spec.scopes: FieldValueInvalid: Invalid value: ["Terminating"]: field is immutable'
    ]


def test_name_classes_as_the_core_helper() -> None:
    assert is_extended_resource_name("count/pods")
    assert not is_extended_resource_name("xkubernetes.io/gpu")  # "kubernetes.io/" inside
    assert not is_extended_resource_name("requests.example.com/gpu")
    assert is_integer_resource_name("example.com/gpu") and not is_integer_resource_name("cpu")
    assert is_standard_quota_resource_name("requests.hugepages-2Mi")
    assert not is_standard_quota_resource_name("storage")


def test_limit_range_accepts_hugepages_names(srv: APIServer) -> None:
    """``IsStandardResourceName`` holds every hugepages name (the shared helper)."""
    item = {"type": "Container", "max": {"hugepages-2Mi": "1Gi", "memory": "1Gi"}}
    lr = {"apiVersion": "v1", "kind": "LimitRange",
          "metadata": {"name": "lr", "namespace": "default"}, "spec": {"limits": [item]}}  # fmt: skip
    srv.create(lr)

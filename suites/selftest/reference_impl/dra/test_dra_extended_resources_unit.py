"""Selftests of the DRA extended-resource helpers and the NodeResourcesFit exemption."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_node
from reference_impl.scheduler.framework.types import NodeInfo, Resource
from reference_impl.scheduler.plugins.extended_resources import (
    class_mapping,
    device_requests,
    is_dra_extended_resource_name,
    is_extended_resource_name,
    node_claim,
    pod_requests,
    request_mappings,
)
from reference_impl.scheduler.plugins.node_resources_fit import fits_request

Obj = dict[str, Any]
GPU = "example.com/gpu"


def _cls(name: str, created: str, ern: str | None = GPU) -> Obj:
    spec = {"extendedResourceName": ern} if ern else {}
    return {"metadata": {"name": name, "creationTimestamp": created}, "spec": spec}


def test_newest_class_wins_then_first_name() -> None:
    classes = [_cls("b", "2026-09-01T00:00:01Z"), _cls("a", "2026-09-01T00:00:00Z"), _cls("z", "2026-09-01T00:00:09Z", None)]
    # Every class also serves its implicit deviceclass.resource.kubernetes.io/<class>.
    implicit = {f"deviceclass.resource.kubernetes.io/{n}": n for n in "abz"}
    assert class_mapping(classes) == {GPU: "b", **implicit}
    tie = [_cls("y", "2026-09-01T00:00:01Z"), _cls("x", "2026-09-01T00:00:01Z")]
    assert class_mapping(tie)[GPU] == "x"


def test_extended_resource_names() -> None:
    assert is_extended_resource_name(GPU)
    for name in ("cpu", "memory", "hugepages-2Mi", "kubernetes.io/foo", "requests.example.com/gpu"):
        assert not is_extended_resource_name(name)
    implicit = "deviceclass.resource.kubernetes.io/gpu"
    assert not is_extended_resource_name(implicit) and is_dra_extended_resource_name(implicit)


def _pod() -> Obj:
    return {"metadata": {"name": "p", "namespace": "d", "uid": "u1"}, "spec": {
        "initContainers": [{"name": "init", "resources": {"requests": {GPU: "3"}}}],
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "1", GPU: "1"}}},
            {"name": "b", "resources": {"requests": {GPU: "1", "memory": "1Gi"}}},
        ]}}


def test_pod_requests_take_the_max_of_init_and_sum() -> None:
    assert pod_requests(_pod(), {GPU: "gpu"}) == {GPU: 3}
    assert pod_requests(_pod(), {}) == {}


def test_requests_are_named_by_container_and_sorted_resource_index() -> None:
    reqs = device_requests(_pod(), [GPU], {GPU: "gpu"})
    assert [r["name"] for r in reqs] == ["container-0-request-0", "container-1-request-1", "container-2-request-0"]
    # createResourceRequestAndMappings: the init container first reuses the requests of
    # the containers that run after it (1 + 1) and asks only for the third device.
    assert [r["exactly"]["count"] for r in reqs] == [1, 1, 1]
    claim = {"spec": {"devices": {"requests": reqs}}}
    assert request_mappings(claim, _pod()) == [
        {"containerName": "a", "resourceName": GPU, "requestName": "container-1-request-1"},
        {"containerName": "b", "resourceName": GPU, "requestName": "container-2-request-0"},
        {"containerName": "init", "resourceName": GPU, "requestName": "container-1-request-1"},
        {"containerName": "init", "resourceName": GPU, "requestName": "container-2-request-0"},
        {"containerName": "init", "resourceName": GPU, "requestName": "container-0-request-0"},
    ]


def test_a_node_advertising_the_resource_needs_no_claim() -> None:
    plugin = NodeInfo("n", make_node("n").resource(GPU, "4").build())
    plain = NodeInfo("m", make_node("m").build())
    assert node_claim(_pod(), {GPU: 3}, {GPU: "gpu"}, plugin) is None
    claim = node_claim(_pod(), {GPU: 3}, {GPU: "gpu"}, plain)
    assert claim is not None and len(claim["spec"]["devices"]["requests"]) == 3


def test_fit_skips_dra_backed_resources_only_where_not_advertised() -> None:
    req = Resource(scalar={GPU: 2})
    plain = NodeInfo("m", make_node("m").build())
    plugin = NodeInfo("n", make_node("n").resource(GPU, "1").build())
    assert [i.name for i in fits_request(req, plain)] == [GPU]
    assert fits_request(req, plain, {GPU}) == []
    assert [i.name for i in fits_request(req, plugin, {GPU})] == [GPU]

"""API machinery conformance: lists and watches with a field selector.

After upstream's registries (pkg/registry/core/pod and resource/resourceslice
``GetAttrs``), the v1 and resource.k8s.io/v1 field label conversions
(pkg/apis/{core,resource}/v1/conversion.go) and the list/watch handlers, which refuse a
label the kind's version does not support with 400 BadRequest
(k8s.io/apiserver endpoints/handlers/get.go). The DRA kubelet plugin lists its node's
ResourceSlices with ``spec.nodeName=<node>,spec.driver=<driver>``.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import DRA_API, make_pod, make_resource_slice
from reference_impl.errors import BadRequest, NotFound

pytestmark = pytest.mark.conformance

NOWHERE = {"garhwal.dev/field-selector-nowhere": "true"}


def _names(items: list[dict[str, Any]]) -> list[str]:
    return sorted(i["metadata"]["name"] for i in items)


def _two_nodes(target: Target) -> tuple[str, str]:
    """Two schedulable, untainted nodes (a Node field selector picks the schedulable)."""
    schedulable = target.list("v1", "Node", field_selector="spec.unschedulable=false")
    nodes = _names([n for n in schedulable if not n.get("spec", {}).get("taints")])
    if len(nodes) < 2:
        pytest.skip(f"needs two schedulable untainted nodes, the cluster has {len(nodes)}")
    return nodes[0], nodes[1]


def _phase(target: Target, name: str, ns: str) -> str:
    return str(target.get("v1", "Pod", name, ns).get("status", {}).get("phase", ""))


def test_pods_by_field_selector(target: Target, namespace: str) -> None:
    """API machinery, pod field selectors in list and watch.

    With pod "a" on one node, "b" on another and "c" unschedulable, a list with
    ``spec.nodeName=<a's node>`` MUST return only "a"; ``status.phase=Pending`` only
    "c" once "a" and "b" run; ``status.phase!=Pending`` "a" and "b"; ``spec.nodeName=``
    only "c"; two terms MUST both hold. A watch with ``spec.nodeName=<a's node>`` from
    before the creates MUST deliver "a" and never "b" or "c". A field label the v1 Pod
    conversion does not support MUST be refused with BadRequest, by a list and by a watch.
    """
    n0, n1 = _two_nodes(target)
    since = target.list_page("v1", "Pod", namespace)["metadata"]["resourceVersion"]
    target.apply(make_pod("b", namespace).node(n1).build())
    target.apply(make_pod("c", namespace).node_selector(**NOWHERE).build())
    target.apply(make_pod("a", namespace).node(n0).build())

    on_n0 = f"spec.nodeName={n0}"
    watched: list[str] = []
    for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=30,
                           field_selector=on_n0):  # fmt: skip
        if ev.type == "BOOKMARK":
            continue
        watched.append(ev.object["metadata"]["name"])
        if watched[-1] == "a":
            break
    assert watched and set(watched) == {"a"}, watched

    target.wait_until(
        lambda: all(_phase(target, p, namespace) == "Running" for p in ("a", "b")),
        timeout=120, what="pods a and b Running",
    )  # fmt: skip
    assert _phase(target, "c", namespace) == "Pending"

    def listed(selector: str) -> list[str]:
        return _names(target.list("v1", "Pod", namespace, field_selector=selector))

    assert listed(on_n0) == ["a"]
    assert listed("spec.host=" + n1) == ["b"]  # old clients' name for spec.nodeName
    assert listed("status.phase=Pending") == ["c"]
    assert listed("status.phase!=Pending") == ["a", "b"]
    assert listed("spec.nodeName=") == ["c"]
    assert listed(f"{on_n0},status.phase=Running") == ["a"]
    assert listed(f"{on_n0},status.phase=Pending") == []
    assert listed(f"metadata.namespace={namespace},metadata.name=b") == ["b"]
    page = target.list_page("v1", "Pod", namespace, field_selector="status.phase=Pending")
    assert _names(page["items"]) == ["c"]

    with pytest.raises(BadRequest, match="field label not supported: spec.containers"):
        target.list("v1", "Pod", namespace, field_selector="spec.containers=x")
    with pytest.raises(BadRequest, match="field label not supported: spec.containers"):
        list(target.watch("v1", "Pod", since, namespace=namespace, timeout=5,
                          field_selector="spec.containers=x"))  # fmt: skip


def test_resource_slices_by_field_selector(target: Target, namespace: str) -> None:
    """API machinery, ResourceSlice field selectors (the DRA kubelet plugin's query).

    Of three ResourceSlices of one driver (two on one node, in pools "p0" and "p1", one
    on another node), ``spec.nodeName=<node>,spec.driver=<driver>`` MUST return the two
    on that node, ``spec.pool.name=p1`` with the driver the one in pool "p1"; a field
    the resource.k8s.io/v1 conversion does not support (``spec.pool.generation``) MUST be
    refused with BadRequest.
    """
    if target.api_versions is not None and DRA_API not in target.api_versions:
        pytest.skip(f"the cluster does not serve {DRA_API}")
    n0, n1 = _two_nodes(target)
    driver = f"{namespace}.fieldsel.garhwal.dev"  # unique to this test's run
    slices = {
        f"{namespace}-s0": make_resource_slice(f"{namespace}-s0", driver, "p0", n0),
        f"{namespace}-s1": make_resource_slice(f"{namespace}-s1", driver, "p1", n0),
        f"{namespace}-s2": make_resource_slice(f"{namespace}-s2", driver, "p2", n1),
    }
    try:
        for builder in slices.values():
            target.apply(builder.build())

        def listed(selector: str) -> list[str]:
            return _names(target.list(DRA_API, "ResourceSlice", field_selector=selector))

        assert listed(f"spec.nodeName={n0},spec.driver={driver}") == [
            f"{namespace}-s0", f"{namespace}-s1",
        ]  # fmt: skip
        assert listed(f"spec.driver={driver},spec.pool.name=p1") == [f"{namespace}-s1"]
        assert listed(f"spec.driver={driver},spec.nodeName!={n0}") == [f"{namespace}-s2"]
        with pytest.raises(BadRequest, match="spec.pool.generation"):
            target.list(DRA_API, "ResourceSlice", field_selector="spec.pool.generation=1")
    finally:
        for name in slices:
            try:
                target.delete(DRA_API, "ResourceSlice", name)
            except NotFound:
                pass

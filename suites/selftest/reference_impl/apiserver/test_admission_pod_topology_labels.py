"""PodTopologyLabels admission (``plugin/pkg/admission/podtopologylabels``), after
upstream's ``admission_test.go`` cases, through the reference's create and binding paths."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_node, make_pod
from reference_impl.apiserver.admission import pod_topology_labels
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
NODE_LABELS = {
    ZONE: "zone1", REGION: "region1",
    "topology.kubernetes.io/arbitrary": "something",  # not one of the two
    "sub.topology.kubernetes.io/zone": "zone2",  # a subdomain of the prefix
    "zone": "bare",  # no '/'
}  # fmt: skip


def _server(gate: bool = True) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates({"PodTopologyLabelsAdmission": gate}))
    s.create(make_namespace("default").build())
    node = make_node("n1")
    for k, v in NODE_LABELS.items():
        node = node.label(k, v)
    s.create(node.build())
    s.create(make_node("plain").build())
    pod_topology_labels.install(s)
    return s


def _labels(pod: Obj) -> dict[str, str]:
    return dict(pod["metadata"].get("labels") or {})


@pytest.mark.parametrize("path", ["binding", "create"])
def test_only_zone_and_region_are_copied_overwriting_the_pods(path: str) -> None:
    s = _server()
    pod = make_pod("p").label(ZONE, "mine").label("app", "a")
    if path == "create":
        got = s.create(pod.node("n1").build())
    else:
        s.create(pod.build())
        s.bind("default", "p", "n1")
        got = s.get("v1", "Pod", "p", "default")
    assert _labels(got) == {ZONE: "zone1", REGION: "region1", "app": "a"}


@pytest.mark.parametrize("node", ["plain", "missing"])
def test_a_node_without_the_labels_or_not_found_adds_nothing(node: str) -> None:
    s = _server()
    s.create(make_pod("p").label(ZONE, "mine").build())
    s.bind("default", "p", node)
    assert _labels(s.get("v1", "Pod", "p", "default")) == {ZONE: "mine"}
    assert _labels(s.create(make_pod("q").node(node).build())) == {}


def test_with_the_gate_off_nothing_is_copied() -> None:
    s = _server(gate=False)
    s.create(make_pod("p").build())
    assert _labels(s.bind("default", "p", "n1")) == {}
    assert _labels(s.create(make_pod("q").node("n1").build())) == {}


def test_an_update_is_not_admitted() -> None:
    s = _server()
    pod = s.create(make_pod("p").node("plain").build())
    pod["metadata"]["labels"] = {"app": "b"}
    assert _labels(s.update(pod)) == {"app": "b"}

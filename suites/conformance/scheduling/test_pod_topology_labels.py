"""Pods carry their node's topology labels (PodTopologyLabels admission, beta and on in 1.37).

A pod bound by the scheduler (pods/binding) or created already bound (``spec.nodeName``)
gets the node's ``topology.kubernetes.io/zone`` and ``/region`` labels, overwriting its
own values; no other node label is copied, and a node without them adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod

pytestmark = [pytest.mark.conformance]

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
TOPOLOGY = {"topology_kubernetes_io__zone": "zone-a", "topology_kubernetes_io__region": "region-1"}
Obj = dict[str, Any]


def _bound(target: Target, namespace: str, name: str) -> Obj:
    target.wait_until(
        lambda: bool(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName")),
        timeout=30,
        what=f"pod {name} bound",
    )
    return target.get("v1", "Pod", name, namespace)


def _labels(pod: Obj) -> dict[str, str]:
    return dict(pod["metadata"].get("labels") or {})


def test_a_scheduled_pod_gets_its_nodes_zone_and_region_overwriting_its_own(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """The binding MUST copy the node's zone and region onto the pod, replacing a value the
    pod set itself, and copy no other node label."""
    node = pool(cpu="2", team="ml", **TOPOLOGY)
    target.apply(make_pool_pod("plain", namespace).build())
    target.apply(make_pool_pod("claims-zone", namespace).label(ZONE, "zone-z").label("app", "x").build())
    plain = _bound(target, namespace, "plain")
    assert plain["spec"]["nodeName"] == node
    assert {k: v for k, v in _labels(plain).items() if k.startswith("topology.")} == {ZONE: "zone-a", REGION: "region-1"}
    assert "team" not in _labels(plain)
    own = _labels(_bound(target, namespace, "claims-zone"))
    assert (own[ZONE], own[REGION], own["app"]) == ("zone-a", "region-1", "x")


def test_a_pod_created_bound_gets_the_labels_and_a_plain_node_adds_none(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """A pod created with ``spec.nodeName`` MUST get the node's topology labels at create;
    a node without them MUST leave the pod's labels as they were."""
    labelled = pool(cpu="2", **TOPOLOGY)
    plain = pool(cpu="2")
    made = target.apply(make_pool_pod("direct", namespace).node(labelled).label(ZONE, "zone-z").build())
    assert (_labels(made)[ZONE], _labels(made)[REGION]) == ("zone-a", "region-1")
    other = target.apply(make_pool_pod("untouched", namespace).node(plain).label(ZONE, "zone-z").build())
    assert _labels(other)[ZONE] == "zone-z" and REGION not in _labels(other)

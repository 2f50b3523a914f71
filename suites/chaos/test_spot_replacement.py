"""After a spot reclaim the cluster autoscaler replaces the node (where the cluster has one).

The reclaimed node belongs to an autoscaled node group. The injector drains it through the
Eviction API and deletes it before the notice window ends; the ReplicaSet makes new pods,
which only a node of that group can hold, so they go Unschedulable, and the autoscaler's
next loop adds a new node of the group, on which they run. The local live cluster runs no
cluster autoscaler, so this needs CLUSTER_AUTOSCALER (the reference's model of
cluster-autoscaler; a live cluster that runs one declares it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Capability, Target
from fixtures.chaos import Scope
from fixtures.chaos.faults import SpotReclaim
from reference_impl.api import (
    AUTOSCALER_CONFIGMAP,
    AUTOSCALER_GROUP_LABEL,
    make_autoscaler_config,
    make_deployment,
    make_node_group,
    make_pod,
)
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.disruptive, pytest.mark.requires(Capability.CLUSTER_AUTOSCALER)]

GROUP = "spot-pool"
Obj = dict[str, Any]


@pytest.fixture
def spot_group(target: Target) -> Iterator[str]:
    """An autoscaled node group (0..3 nodes of 4 cpu); config and its nodes removed after."""
    group = make_node_group(GROUP, max_size=3, capacity={"cpu": "4", "memory": "16Gi", "pods": "110"})
    target.apply(make_autoscaler_config([group], scan_interval_seconds=10))
    yield GROUP
    try:
        target.delete("v1", "ConfigMap", AUTOSCALER_CONFIGMAP[1], AUTOSCALER_CONFIGMAP[0])
    except NotFound:
        pass
    for node in target.list("v1", "Node", label_selector=f"{AUTOSCALER_GROUP_LABEL}={GROUP}"):
        try:
            target.delete("v1", "Node", node["metadata"]["name"])
        except NotFound:
            pass


def _group_nodes(target: Target) -> set[str]:
    return {n["metadata"]["name"] for n in
            target.list("v1", "Node", label_selector=f"{AUTOSCALER_GROUP_LABEL}={GROUP}")}  # fmt: skip


def _running_on(target: Target, namespace: str) -> dict[str, str]:
    return {p["metadata"]["name"]: str(p["spec"].get("nodeName"))
            for p in target.list("v1", "Pod", namespace)
            if (p.get("status") or {}).get("phase") == "Running"
            and not p["metadata"].get("deletionTimestamp")}  # fmt: skip


def test_a_reclaimed_autoscaled_node_is_replaced_and_its_workload_runs_again(
    target: Target, namespace: str, spot_group: str
) -> None:
    """Spot reclaim with a cluster autoscaler.

    Two replicas that only a node of the autoscaled group can hold MUST run on the group's
    first node; on a spot reclaim of that node (AWS, 120 s) it MUST be drained and deleted
    before the deadline, and the autoscaler MUST add a different node of the group on
    which both replicas run again, without the test registering any node.
    """
    pod = make_pod("w", namespace).req(cpu="1500m").node_selector(**{AUTOSCALER_GROUP_LABEL: spot_group})
    target.apply(make_deployment("train", namespace, 2, pod).build())
    target.wait_until(lambda: len(set(_running_on(target, namespace).values()) & _group_nodes(target)) == 1
                      and len(_running_on(target, namespace)) == 2,
                      timeout=180, what="2 replicas running on one autoscaled node")  # fmt: skip
    (first,) = set(_running_on(target, namespace).values())
    victims = sorted(f"{namespace}/{p}" for p in _running_on(target, namespace))
    injector = SpotReclaim()
    rollback = injector.prepare(target, Scope(namespaces=(namespace,), nodes=(first,), params={"provider": "aws"}))
    injector.apply(target, rollback)
    rep = injector.report
    assert sorted(rep["evicted"]) == victims and not rep["pdb_blocked"]
    assert rep["drained_at"] is not None and rep["drained_at"] <= rep["deadline"]
    assert rep["node_deleted_at"] <= rep["deadline"] and first not in _group_nodes(target)

    def replaced() -> bool:
        on = _running_on(target, namespace)
        return len(on) == 2 and len(set(on.values())) == 1 and first not in on.values() \
            and set(on.values()) <= _group_nodes(target)

    target.wait_until(replaced, timeout=300, what="the replicas running on a replacement node")
    (second,) = set(_running_on(target, namespace).values())
    print(f"spot reclaim: {first} drained and deleted, replaced by {second} (the autoscaler's)")
    assert second != first and second.startswith(f"{spot_group}-")

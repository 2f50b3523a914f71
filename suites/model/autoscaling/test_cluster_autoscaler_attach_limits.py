"""Cluster autoscaler with CSI volume-attach limits (KEP-5030, gate VolumeLimitScaling).

The autoscaler reads its node groups from ConfigMap kube-system/garhwal-cluster-autoscaler.
The kwok nodes get a CSINode allowing one volume of the test driver each; pods whose volumes
exceed that are Unschedulable, and the autoscaler must add a node for them. A model test (marker ``model``,
not conformance evidence): the node groups are declared in garhwal's own ConfigMap
format and scaled by garhwal's own autoscaler model; upstream's cluster-autoscaler has
no such configuration and no cloud provider here, so no live cluster can run these.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Capability, Target
from reference_impl.api import (
    AUTOSCALER_CONFIGMAP,
    AUTOSCALER_GROUP_LABEL,
    condition,
    make_autoscaler_config,
    make_bound_pvc,
    make_csi_pv,
    make_csinode,
    make_node_group,
    make_pod,
)
from reference_impl.errors import NotFound, Timeout

pytestmark = [
    pytest.mark.model,
    pytest.mark.feature("CA-ATTACH"),
    pytest.mark.requires(Capability.CLUSTER_AUTOSCALER),
]

DRIVER = "ca-attach.csi.garhwal.dev"
KWOK_NODES = ("kwok-node-0", "kwok-node-1", "kwok-node-2")
Obj = dict[str, Any]


@pytest.fixture
def attach_limited(target: Target) -> Iterator[list[tuple[str, str, str | None]]]:
    """One-volume CSINodes on the kwok nodes; yields a list tests append cleanup keys to,
    and removes every cluster-scoped object afterwards (nodes the autoscaler made too)."""
    created: list[tuple[str, str, str | None]] = []
    for node in KWOK_NODES:
        target.apply(make_csinode(node, {DRIVER: 1}))
        created.append(("storage.k8s.io/v1", "CSINode", node))
    yield created
    try:
        target.delete("v1", "ConfigMap", AUTOSCALER_CONFIGMAP[1], AUTOSCALER_CONFIGMAP[0])
    except NotFound:
        pass
    for node in target.list("v1", "Node", label_selector=AUTOSCALER_GROUP_LABEL):
        created.append(("v1", "Node", node["metadata"]["name"]))
    for api_version, kind, name in created:
        try:
            target.delete(api_version, kind, name)
        except NotFound:
            pass


def _volume_pod(target: Target, namespace: str, name: str, created: list[Any]) -> Obj:
    """A pod using its own pre-provisioned CSI volume ``ca-<ns>-<name>``."""
    pv = f"ca-{namespace}-{name}"
    target.apply(make_csi_pv(pv, DRIVER))
    created.append(("v1", "PersistentVolume", pv))
    target.apply(make_bound_pvc(name, namespace, pv))
    pod = make_pod(name, namespace).build()
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]
    return target.apply(pod)


def _node_of(target: Target, namespace: str, name: str) -> str:
    return str(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName") or "")


def _unschedulable(target: Target, namespace: str, name: str) -> bool:
    cond = condition(target.get("v1", "Pod", name, namespace), "PodScheduled") or {}
    return cond.get("status") == "False" and cond.get("reason") == "Unschedulable"


def _group_nodes(target: Target, group: str) -> list[str]:
    nodes = target.list("v1", "Node", label_selector=f"{AUTOSCALER_GROUP_LABEL}={group}")
    return sorted(n["metadata"]["name"] for n in nodes)


def _fill_kwok_nodes(target: Target, namespace: str, created: list[Any]) -> None:
    for i in range(len(KWOK_NODES)):
        _volume_pod(target, namespace, f"fill-{i}", created)
    target.wait_until(
        lambda: all(_node_of(target, namespace, f"fill-{i}") for i in range(len(KWOK_NODES))),
        timeout=60,
        what="one volume pod on every kwok node",
    )


def test_a_pod_over_every_nodes_attach_limit_makes_the_autoscaler_add_a_node(
    target: Target, namespace: str, attach_limited: list[Any]
) -> None:
    """A pod over every node's attach limit triggers a scale-up.

    With every kwok node at its CSINode ``allocatable.count`` (one volume each, counting
    the volumes of the pods already there), a pod with one more volume of that driver MUST
    be Unschedulable, and the autoscaler MUST add a node ``<group>-1`` of the group whose
    template fits; the pod MUST then be bound to that node.
    """
    _fill_kwok_nodes(target, namespace, attach_limited)
    _volume_pod(target, namespace, "extra", attach_limited)
    target.wait_until(
        lambda: _unschedulable(target, namespace, "extra"), timeout=30, what="extra Unschedulable"
    )
    group = make_node_group("ca-cpu", max_size=3, csi_drivers={DRIVER: 25})
    target.apply(make_autoscaler_config([group]))
    target.wait_until(
        lambda: _node_of(target, namespace, "extra") == "ca-cpu-1",
        timeout=120,
        what="extra bound to the new node ca-cpu-1",
    )
    assert _group_nodes(target, "ca-cpu") == ["ca-cpu-1"]


@pytest.mark.feature_gates(VolumeLimitScaling=False)
def test_with_volume_limit_scaling_off_attach_limits_are_ignored_and_the_pod_keeps_waiting(
    target: Target, namespace: str, attach_limited: list[Any]
) -> None:
    """Without VolumeLimitScaling the autoscaler ignores attach limits.

    With the gate off, the autoscaler's simulation MUST treat the pod as fitting a kwok
    node (it has cpu and memory to spare), so it MUST NOT add a node and the pod MUST stay
    Unschedulable: the pre-KEP-5030 behaviour.
    """
    _fill_kwok_nodes(target, namespace, attach_limited)
    _volume_pod(target, namespace, "extra", attach_limited)
    group = make_node_group("ca-cpu", max_size=3, csi_drivers={DRIVER: 25})
    target.apply(make_autoscaler_config([group]))
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: bool(_group_nodes(target, "ca-cpu")), timeout=120, what="a ca-cpu node"
        )
    assert _unschedulable(target, namespace, "extra")


def test_scale_up_stops_at_the_node_group_maximum(
    target: Target, namespace: str, attach_limited: list[Any]
) -> None:
    """Scale-up respects maxSize.

    When each new node of a group also allows one volume, three pods over the limit need
    three nodes; with ``maxSize: 2`` the autoscaler MUST add exactly ``ca-one-1`` and
    ``ca-one-2``, and the pod left over MUST stay Unschedulable.
    """
    _fill_kwok_nodes(target, namespace, attach_limited)
    for i in range(3):
        _volume_pod(target, namespace, f"extra-{i}", attach_limited)
    group = make_node_group("ca-one", max_size=2, csi_drivers={DRIVER: 1})
    target.apply(make_autoscaler_config([group]))
    target.wait_until(
        lambda: sum(bool(_node_of(target, namespace, f"extra-{i}")) for i in range(3)) == 2,
        timeout=120,
        what="two of three extra pods bound",
    )
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: len(_group_nodes(target, "ca-one")) > 2, timeout=60, what="a third node"
        )
    assert _group_nodes(target, "ca-one") == ["ca-one-1", "ca-one-2"]
    left = [f"extra-{i}" for i in range(3) if not _node_of(target, namespace, f"extra-{i}")]
    assert len(left) == 1 and _unschedulable(target, namespace, left[0])


def test_an_empty_autoscaled_node_is_removed_after_the_unneeded_time_down_to_min(
    target: Target, namespace: str, attach_limited: list[Any]
) -> None:
    """Scale-down of empty nodes.

    After its only pod is deleted, an autoscaled node MUST still exist before
    ``scaleDownUnneededSeconds`` (300 s here) and MUST be deleted after it; a group at
    ``minSize`` MUST keep its node.
    """
    _fill_kwok_nodes(target, namespace, attach_limited)
    _volume_pod(target, namespace, "extra", attach_limited)
    groups = [make_node_group("ca-cpu", max_size=3, csi_drivers={DRIVER: 25})]
    target.apply(make_autoscaler_config(groups, scale_down_unneeded_seconds=300))
    target.wait_until(
        lambda: bool(_node_of(target, namespace, "extra")), timeout=120, what="extra bound"
    )
    target.delete("v1", "Pod", "extra", namespace)
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: not _group_nodes(target, "ca-cpu"), timeout=240, what="early scale-down"
        )
    target.wait_until(
        lambda: not _group_nodes(target, "ca-cpu"), timeout=180, what="ca-cpu-1 removed"
    )
    # A group already at its minimum keeps its (empty) node.
    _volume_pod(target, namespace, "again", attach_limited)
    groups = [make_node_group("ca-cpu", min_size=1, max_size=3, csi_drivers={DRIVER: 25})]
    target.apply(make_autoscaler_config(groups, scale_down_unneeded_seconds=300))
    target.wait_until(
        lambda: bool(_node_of(target, namespace, "again")), timeout=120, what="again bound"
    )
    target.delete("v1", "Pod", "again", namespace)
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: not _group_nodes(target, "ca-cpu"), timeout=900, what="scale below min"
        )


def test_the_expander_picks_a_group_whose_template_fits_gpu_and_spot_pods(
    target: Target, namespace: str, attach_limited: list[Any]
) -> None:
    """GPU and spot node groups.

    A pod requesting ``nvidia.com/gpu`` (which no kwok node has) MUST get a node of the
    GPU group, and a pod selecting ``node.kubernetes.io/lifecycle: spot`` and tolerating
    the spot taint MUST get a node of the spot group, never of the plain CPU group.
    """
    spot_taint = {"key": "node.kubernetes.io/lifecycle", "value": "spot", "effect": "NoSchedule"}
    groups = [
        make_node_group("ca-cpu", max_size=3, priority=10),
        make_node_group(
            "ca-gpu",
            max_size=2,
            capacity={"cpu": "16", "memory": "64Gi", "pods": "110", "nvidia.com/gpu": "8"},
        ),
        make_node_group(
            "ca-spot",
            max_size=2,
            labels={"node.kubernetes.io/lifecycle": "spot"},
            taints=[spot_taint],
            price=0.3,
        ),
    ]
    target.apply(make_autoscaler_config(groups))
    gpu = make_pod("gpu", namespace).build()
    gpu["spec"]["containers"][0]["resources"] = {
        "requests": {"nvidia.com/gpu": "1"},
        "limits": {"nvidia.com/gpu": "1"},
    }
    target.apply(gpu)
    spot = make_pod("spot", namespace).build()
    spot["spec"]["nodeSelector"] = {"node.kubernetes.io/lifecycle": "spot"}
    spot["spec"]["tolerations"] = [{**spot_taint, "operator": "Equal"}]
    target.apply(spot)
    target.wait_until(
        lambda: (
            _node_of(target, namespace, "gpu") == "ca-gpu-1"
            and _node_of(target, namespace, "spot") == "ca-spot-1"
        ),
        timeout=120,
        what="gpu on ca-gpu-1 and spot on ca-spot-1",
    )
    assert _group_nodes(target, "ca-cpu") == []

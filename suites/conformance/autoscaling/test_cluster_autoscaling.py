"""GPU nodes are added for pending accelerator pods and removed when idle (AI conformance
``cluster_autoscaling``), where the cluster runs karpenter.

A NodePool (karpenter.sh/v1) names the provider's NodeClass (the target's
``node_autoscaler``); its nodes are tainted for this test's pods alone. Pods requesting the
``nvidia.com/gpu`` extended resource that no node can hold MUST make the autoscaler add
nodes advertising it, within the pool's limit, and the scheduler bind them there; once the
pods are gone the empty nodes MUST be removed. Pods that no instance type can hold MUST stay
Pending and add no node. On the local cluster karpenter runs with its KWOK provider, so this
proves the provisioning loop of a real autoscaler, not a cloud's node groups.

The pods that get nodes belong to ReplicaSets, as a user's workload does: a new node carries
``karpenter.sh/unregistered:NoExecute`` until karpenter registers it, and a pod bound the
moment that taint goes can be deleted by the taint-eviction controller while its node cache
still holds it (seen on v1.37.2 about once in six runs); its ReplicaSet replaces it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Capability, Target, pause
from fixtures.targets.extensions import node_autoscaler_of
from reference_impl.api import PodBuilder, make_pod, make_replicaset
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.KARPENTER)]

NODEPOOL = ("karpenter.sh/v1", "NodePool")
NODECLAIM = ("karpenter.sh/v1", "NodeClaim")
POOL_LABEL = "karpenter.sh/nodepool"
GPU = "nvidia.com/gpu"
TAINT = "garhwal.dev/autoscaled"
UP_S, DOWN_S = 120, 180  # a batch (3 s), node Ready (s); consolidateAfter 5 s + a 10 s poll
SETTLE_S = 10  # a few more batches: a wrong decision would show by then
Obj = dict[str, Any]


def _nodepool(name: str, node_class: dict[str, str], gpu_limit: int | None) -> Obj:
    spec: Obj = {
        "template": {"spec": {
            "nodeClassRef": node_class, "requirements": [], "expireAfter": "Never",
            "taints": [{"key": TAINT, "value": name, "effect": "NoSchedule"}],
        }},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5s",
                       "budgets": [{"nodes": "100%"}]},
    }  # fmt: skip
    if gpu_limit is not None:
        spec["limits"] = {GPU: str(gpu_limit)}
    return {"apiVersion": NODEPOOL[0], "kind": NODEPOOL[1], "metadata": {"name": name}, "spec": spec}


def _gpu_pod(name: str, namespace: str | None, pool: str, gpus: int) -> PodBuilder:
    return (
        make_pod(name, namespace).req(cpu="1").request(GPU, str(gpus)).lim(**{GPU: str(gpus)})
        .toleration(TAINT, "Equal", pool, "NoSchedule").node_selector(**{POOL_LABEL: pool})
    )  # fmt: skip


def _gpu_replicas(name: str, namespace: str, pool: str, replicas: int) -> Obj:
    """A ReplicaSet of one-GPU pods labelled ``app=<name>``."""
    return make_replicaset(name, namespace, replicas, _gpu_pod(name, None, pool, 1)).build()


def _claims(target: Target, pool: str) -> list[Obj]:
    return target.list(*NODECLAIM, label_selector=f"{POOL_LABEL}={pool}")


def _nodes(target: Target, pool: str) -> dict[str, Obj]:
    return {n["metadata"]["name"]: n for n in target.list("v1", "Node", label_selector=f"{POOL_LABEL}={pool}")}


def _pods(target: Target, namespace: str, app: str) -> list[Obj]:
    """The ReplicaSet ``app``'s pods that are not being deleted."""
    pods = target.list("v1", "Pod", namespace, label_selector=f"app={app}")
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def _running(pod: Obj) -> bool:
    return bool(pod["spec"].get("nodeName")) and (pod.get("status") or {}).get("phase") == "Running"


def _unbound(pod: Obj) -> bool:
    return not pod["spec"].get("nodeName") and (pod.get("status") or {}).get("phase") == "Pending"


def _running_on(target: Target, namespace: str, app: str) -> dict[str, str]:
    """The running pods of ReplicaSet ``app`` -> their node."""
    return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in _pods(target, namespace, app) if _running(p)}


def _gpus(obj: Obj) -> int:
    return int((obj.get("status") or {}).get("allocatable", {}).get(GPU, "0"))


@pytest.fixture
def pool(target: Target, namespace: str) -> Iterator[Callable[[int | None], str]]:
    """Makes this test's NodePool (named as its namespace); afterwards its pods, the pool and
    every node it added are gone."""
    autoscaler = node_autoscaler_of(target)
    assert autoscaler is not None, "KARPENTER declared without a node_autoscaler extension"
    made: list[str] = []

    def make(gpu_limit: int | None) -> str:
        target.apply(_nodepool(namespace, autoscaler.node_class_ref(), gpu_limit))
        made.append(namespace)
        return namespace

    yield make
    for rs in target.list("apps/v1", "ReplicaSet", namespace):
        try:
            target.delete("apps/v1", "ReplicaSet", rs["metadata"]["name"], namespace)
        except NotFound:
            pass
    for p in target.list("v1", "Pod", namespace):
        try:
            target.delete("v1", "Pod", p["metadata"]["name"], namespace)
        except NotFound:
            pass
    for name in made:
        try:
            target.delete(*NODEPOOL, name)
        except NotFound:
            pass
        target.wait_until(lambda n=name: not _claims(target, n) and not _nodes(target, n),
                          timeout=DOWN_S, what=f"NodePool {name}'s nodes removed")  # fmt: skip


def test_pending_gpu_pods_grow_the_pool_within_its_limit_and_idle_nodes_are_removed(
    target: Target, namespace: str, pool: Callable[[int | None], str]
) -> None:
    """Scale-up for pending GPU pods, bounded by the pool's limit; scale-down when idle.

    With a NodePool limited to 2 GPUs and a ReplicaSet of three pods of one GPU each, the
    autoscaler MUST add nodes whose allocatable ``nvidia.com/gpu`` holds them, two of the pods
    MUST run there (one per node), and the third MUST stay Pending with no third node (the
    limit). Once the ReplicaSet is deleted, the pool MUST shrink to no nodes.
    """
    name = pool(2)
    target.apply(_gpu_replicas("gpu", namespace, name, 3))
    target.wait_until(lambda: len(_running_on(target, namespace, "gpu")) == 2, timeout=UP_S,
                      what="two GPU pods running on added nodes")  # fmt: skip
    pause(target, SETTLE_S)
    running, nodes, claims = _running_on(target, namespace, "gpu"), _nodes(target, name), _claims(target, name)
    assert len(running) == 2 and len(set(running.values())) == 2, running
    assert set(running.values()) == set(nodes), (running, sorted(nodes))
    assert sorted(c["status"].get("nodeName") for c in claims) == sorted(nodes)
    for node in nodes.values():
        assert _gpus(node) >= 1, node["status"]
        assert {"key": TAINT, "value": name, "effect": "NoSchedule"} in node["spec"].get("taints", [])
    assert all(_gpus(c) >= 1 for c in claims), [c["status"] for c in claims]
    left = [p for p in _pods(target, namespace, "gpu") if p["metadata"]["name"] not in running]
    assert len(left) == 1 and _unbound(left[0]), ("the pod over the pool's GPU limit was placed", left)

    target.delete("apps/v1", "ReplicaSet", "gpu", namespace)
    target.wait_until(lambda: not _claims(target, name) and not _nodes(target, name), timeout=DOWN_S,
                      what="the idle GPU nodes removed")  # fmt: skip


def test_pods_no_instance_type_can_hold_stay_pending_and_add_no_node(
    target: Target, namespace: str, pool: Callable[[int | None], str]
) -> None:
    """No node for what cannot fit.

    A pod requesting more GPUs than any instance type offers (64) MUST stay Pending, and the
    autoscaler MUST add no node for it, while a one-GPU pod pending beside it in the same
    pool MUST get a node and run (so the autoscaler did look at both).
    """
    name = pool(None)
    target.apply(_gpu_pod("huge", namespace, name, 64).build())
    target.apply(_gpu_replicas("fits", namespace, name, 1))
    target.wait_until(lambda: _running_on(target, namespace, "fits"), timeout=UP_S,
                      what="the one-GPU pod running on an added node")  # fmt: skip
    pause(target, SETTLE_S)
    nodes = _nodes(target, name)
    assert list(nodes) == list(_running_on(target, namespace, "fits").values()), sorted(nodes)
    assert len(_claims(target, name)) == 1
    assert _unbound(target.get("v1", "Pod", "huge", namespace))
    assert all(_gpus(n) < 64 for n in nodes.values())

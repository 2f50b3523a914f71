"""Node loss without notice: a node stops heartbeating (a KWOK node on live, the kubelet
model on the reference).

Upstream's chain: after node-monitor-grace-period (50 s) the node lifecycle controller
marks the node Ready=Unknown and taints it ``node.kubernetes.io/unreachable``
(NoSchedule + NoExecute); taint-based eviction deletes each pod after its
tolerationSeconds (300 s from DefaultTolerationSeconds unless the pod says otherwise). The
pods' DRA claims stay allocated while the pods are Terminating on the silent node and are
deallocated once the pods are gone (PodGC force-deletes them when the operator marks the
node out-of-service); a node that rejoins is Ready again and loses the taints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Capability, FakeDriver, Target
from fixtures.chaos import Scope
from fixtures.chaos.faults import NodeLoss, inject
from fixtures.helpers.chaos_probes import node_ready
from reference_impl.api import DRA_API, make_claim_template, make_pool_pod
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.disruptive, pytest.mark.requires(Capability.NODE_FAULTS)]

UNREACHABLE = "node.kubernetes.io/unreachable"
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
Obj = dict[str, Any]


def _gpu_pod(target: Target, namespace: str, name: str, toleration_s: int | None) -> Obj:
    tpl = f"{name}-gpu"
    target.apply(
        make_claim_template(tpl, namespace).request("gpu", f"chaos-gpu-{namespace}").build()
    )
    pod = make_pool_pod(name, namespace, cpu="100m").claim("gpu", template=tpl)
    manifest = pod.build()
    if toleration_s is not None:
        manifest["spec"].setdefault("tolerations", []).append(
            {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": toleration_s}  # fmt: skip
        )
    return target.apply(manifest)


def _pod(target: Target, namespace: str, name: str) -> Obj | None:
    try:
        return target.get("v1", "Pod", name, namespace)
    except NotFound:
        return None


def _running(target: Target, namespace: str, name: str) -> bool:
    pod = _pod(target, namespace, name)
    return pod is not None and (pod.get("status") or {}).get("phase") == "Running"


def _claims(target: Target, namespace: str) -> list[Obj]:
    return target.list(DRA_API, "ResourceClaim", namespace)


def _allocated(target: Target, namespace: str) -> list[str]:
    return sorted(c["metadata"]["name"] for c in _claims(target, namespace)
                  if (c.get("status") or {}).get("allocation"))  # fmt: skip


def _taints(target: Target, node: str) -> set[tuple[str, str]]:
    obj = target.get("v1", "Node", node)
    return {(t["key"], t["effect"]) for t in (obj.get("spec") or {}).get("taints") or []}


def _set_out_of_service(target: Target, node: str, on: bool) -> None:
    for _ in range(8):
        obj = target.get("v1", "Node", node)
        spec = obj.setdefault("spec", {})
        taints = [t for t in spec.get("taints") or [] if t.get("key") != OUT_OF_SERVICE]
        if on:
            taints.append({"key": OUT_OF_SERVICE, "value": "nodeshutdown", "effect": "NoExecute"})
        spec["taints"] = taints
        try:
            target.apply(obj)
            return
        except Exception as exc:  # a Conflict with the node's controllers: read again
            if "Conflict" not in type(exc).__name__:
                raise
    raise AssertionError(f"node {node} kept conflicting")


def test_a_silent_node_goes_unknown_is_tainted_and_its_pods_are_evicted_after_toleration(
    target: Target, namespace: str, pool_nodes: Callable[..., Obj], gpu_driver: FakeDriver
) -> None:
    """Node loss: NotReady, taint eviction, DRA claims freed, rejoin.

    A node whose kubelet stops heartbeating MUST become Ready=Unknown within the 50 s grace
    period plus one monitor period (and a margin for a loaded control plane) and get the
    unreachable NoSchedule and NoExecute taints. A pod tolerating unreachable for 5 s MUST
    be deleted (DisruptionTarget ``DeletionByTaintManager``) while a pod without its own
    toleration MUST carry DefaultTolerationSeconds' 300 s toleration and still run. Their
    GPU claims MUST stay allocated while the pods are Terminating on the silent node, and
    MUST be deallocated once the operator taints the node out-of-service and the pods are
    gone. When the node rejoins it MUST be Ready again without the unreachable taints.
    """
    node = pool_nodes("lost")["metadata"]["name"]
    gpu_driver.publish([node], gpus=2, numa_nodes=1)
    target.wait_until(lambda: node_ready(target, node) == "True", timeout=60, what="node Ready")
    _gpu_pod(target, namespace, "fast", toleration_s=5)
    default = _gpu_pod(target, namespace, "patient", toleration_s=None)
    assert {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 300} in default["spec"]["tolerations"]  # fmt: skip
    for name in ("fast", "patient"):
        target.wait_until(lambda n=name: _running(target, namespace, n), timeout=60, what=f"{name} Running")
    assert len(_allocated(target, namespace)) == 2
    with inject(target, NodeLoss(), Scope(namespaces=(namespace,), nodes=(node,))):
        target.wait_until(lambda: node_ready(target, node) == "Unknown", timeout=90,
                          what=f"{node} Ready=Unknown")  # fmt: skip
        target.wait_until(lambda: (UNREACHABLE, "NoExecute") in _taints(target, node),
                          timeout=30, what="the unreachable NoExecute taint")  # fmt: skip
        # Upstream adds the NoSchedule taint from its own tainting pass, not with the
        # NoExecute one, so either may land first.
        target.wait_until(lambda: (UNREACHABLE, "NoSchedule") in _taints(target, node),
                          timeout=30, what="the unreachable NoSchedule taint")  # fmt: skip
        target.wait_until(
            lambda: bool((_pod(target, namespace, "fast") or {"metadata": {"deletionTimestamp": 1}})
                         ["metadata"].get("deletionTimestamp")),
            timeout=30, what="fast evicted after its 5 s",
        )  # fmt: skip
        fast = _pod(target, namespace, "fast")
        if fast is not None:
            reasons = {c.get("reason") for c in fast["status"].get("conditions") or []
                       if c.get("type") == "DisruptionTarget"}  # fmt: skip
            assert reasons == {"DeletionByTaintManager"}
        patient = _pod(target, namespace, "patient")
        assert patient is not None and not patient["metadata"].get("deletionTimestamp")
        # The silent kubelet cannot finish the pod: its claim stays allocated.
        assert len(_allocated(target, namespace)) == 2
        _set_out_of_service(target, node, True)
        target.wait_until(
            lambda: _pod(target, namespace, "fast") is None and _pod(target, namespace, "patient") is None,
            timeout=60, what="PodGC to remove the pods of the out-of-service node",
        )  # fmt: skip
        target.wait_until(lambda: not _allocated(target, namespace), timeout=30,
                          what="the GPU claims deallocated")  # fmt: skip
        _set_out_of_service(target, node, False)
    target.wait_until(lambda: node_ready(target, node) == "True", timeout=60, what="node rejoined")
    target.wait_until(lambda: not {k for k, _ in _taints(target, node)} & {UNREACHABLE},
                      timeout=30, what="unreachable taints lifted")  # fmt: skip


@pytest.mark.requires(Capability.VIRTUAL_TIME)
def test_default_toleration_evicts_after_five_minutes_and_a_rejoining_node_finishes_it(
    target: Target, namespace: str, pool_nodes: Callable[..., Obj], gpu_driver: FakeDriver
) -> None:
    """Node loss: the 300 s default and a partition that heals.

    A pod with only DefaultTolerationSeconds' tolerations on a node that stopped
    heartbeating MUST NOT be deleted before 300 s after the unreachable taint and MUST be
    deleted by 301 s; when the partitioned node rejoins, its kubelet MUST finish the
    deleted pod, and the pod's GPU claim MUST then be deallocated.
    """
    node = pool_nodes("part")["metadata"]["name"]
    gpu_driver.publish([node], gpus=1, numa_nodes=1)
    _gpu_pod(target, namespace, "w", toleration_s=None)
    target.wait_until(lambda: _running(target, namespace, "w"), timeout=60, what="w Running")
    with inject(target, NodeLoss(), Scope(namespaces=(namespace,), nodes=(node,))):
        target.wait_until(lambda: (UNREACHABLE, "NoExecute") in _taints(target, node),
                          timeout=90, what="unreachable NoExecute")  # fmt: skip
        deleting = lambda: bool((_pod(target, namespace, "w") or {})["metadata"].get("deletionTimestamp"))  # noqa: E731
        with pytest.raises(Exception, match="timed out"):
            target.wait_until(deleting, timeout=299, what="no eviction before 300 s")
        target.wait_until(deleting, timeout=2, what="eviction at 300 s")
        assert _allocated(target, namespace)
    target.wait_until(lambda: _pod(target, namespace, "w") is None, timeout=60, what="w finished")
    target.wait_until(lambda: not _allocated(target, namespace), timeout=30, what="claim freed")

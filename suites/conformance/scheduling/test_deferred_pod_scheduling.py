"""The scheduler's side of a deferred in-place resize (KEP-5836, DeferredPodScheduling).

No kubelet is needed: as upstream's integration test does, the test writes the deferral
itself (PodResizePending reason Deferred, allocatedResources still the old size) where no
kubelet did, and asserts only what the scheduler does about it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.nodes import set_resize_preemption_policy
from fixtures.helpers.pause import pause
from fixtures.helpers.retry import retry_on_conflict
from reference_impl.api import condition, make_pool_pod, resized, with_resize_policy

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-5836"),
    pytest.mark.feature_gates(InPlacePodVerticalScalingSchedulerPreemption=True),
]

Obj = dict[str, Any]
OWNER = "garhwal-conformance"


def _get(target: Target, namespace: str, name: str) -> Obj:
    return target.get("v1", "Pod", name, namespace)


def _running(target: Target, namespace: str, name: str) -> Obj:
    target.wait_until(
        lambda: (_get(target, namespace, name).get("status") or {}).get("phase") == "Running",
        timeout=60,
        what=f"{name} running",
    )
    return _get(target, namespace, name)


def _pod(name: str, namespace: str, node: str, cpu: str, priority_class: str) -> Obj:
    pod = make_pool_pod(name, namespace, cpu=cpu).req(memory="128Mi")
    pod = pod.priority_class(priority_class).node(node)
    return with_resize_policy(pod.build(), cpu="NotRequired", memory="NotRequired")


def _as_kubelet(target: Target, namespace: str, name: str, cpu: str, *, defer: bool) -> None:
    """Write what a kubelet with in-place resize reports, unless one already did: the
    running container's resources (the apiserver resizes only such pods) and, with
    ``defer``, PodResizePending reason Deferred at the old allocation."""

    def write() -> None:  # again when the node agent wrote meanwhile
        pod = _get(target, namespace, name)
        status = dict(pod.get("status") or {})
        conds = [dict(c) for c in status.get("conditions") or ()]
        statuses = [dict(c) for c in status.get("containerStatuses") or ()]
        changed = False
        for c in statuses:
            if "resources" not in c:
                old = {"cpu": cpu, "memory": "128Mi"}
                c.update(allocatedResources=old, resources={"requests": old})
                changed = True
        if defer and (condition(pod, "PodResizePending") or {}).get("reason") != "Deferred":
            conds = [c for c in conds if c.get("type") != "PodResizePending"]
            conds.append({"type": "PodResizePending", "status": "True", "reason": "Deferred",
                          "message": "Node didn't have enough resource: cpu"})
            changed = True
        if changed:
            status.update(conditions=conds, containerStatuses=statuses)
            target.patch_status({**pod, "status": status})

    retry_on_conflict(write, f"{name}'s status")


def _scheduled_false(pod: Obj) -> bool:
    return (condition(pod, "PodScheduled") or {}).get("status") == "False"


def _gone_or_going(target: Target, namespace: str, name: str) -> bool:
    return not any(
        p["metadata"]["name"] == name and not p["metadata"].get("deletionTimestamp")
        for p in target.list("v1", "Pod", namespace)
    )


def test_a_node_that_disables_resize_preemption_is_preempted_on_only_once_it_re_enables(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """DeferredPodScheduling's Filter and its node queueing hint.

    A deferred resize of a high-priority pod on a node whose
    spec.podPreemptionPolicy.disableResizePreemption names an owner MUST NOT evict the
    lower-priority pod there. Once the list is cleared, the scheduler MUST evict it
    (DisruptionTarget reason PreemptionByScheduler). The
    resizing pod MUST stay on its node, MUST NOT get PodScheduled=False and MUST NOT get a
    status.nominatedNodeName.
    """
    low, high = classes
    node = pool(cpu="4")
    set_resize_preemption_policy(target, node, [OWNER])
    target.apply(_pod("high", namespace, node, "2", high))
    _running(target, namespace, "high")
    _as_kubelet(target, namespace, "high", "2", defer=False)
    pod = _get(target, namespace, "high")
    target.apply(_pod("low", namespace, node, "2", low))
    since = _running(target, namespace, "low")["metadata"]["resourceVersion"]
    target.resize(resized(pod, cpu="3"))
    _as_kubelet(target, namespace, "high", "2", defer=True)
    pause(target, 5)
    assert not _gone_or_going(target, namespace, "low"), "evicted despite the node's policy"
    set_resize_preemption_policy(target, node, None)
    target.wait_until(
        lambda: _gone_or_going(target, namespace, "low"), timeout=60, what="low preempted"
    )
    pod = _get(target, namespace, "high")
    assert not _scheduled_false(pod), condition(pod, "PodScheduled")
    assert not (pod.get("status") or {}).get("nominatedNodeName")
    assert pod["spec"]["nodeName"] == node
    reasons = {
        (condition(ev.object, "DisruptionTarget") or {}).get("reason")
        for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=5)
        if ev.object["metadata"]["name"] == "low"
    }
    assert "PreemptionByScheduler" in reasons


def test_a_deferred_resize_preempts_on_its_own_node_only(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """Preemption for a deferred resize stays on the pod's node.

    With the resizing pod's node full and a lower-priority pod on another node with room
    to spare, the scheduler MUST evict the lower-priority pod on the resizing pod's node,
    MUST NOT evict the one elsewhere, and MUST NOT move or nominate the resizing pod.
    """
    low, high = classes
    a, b = pool(cpu="4"), pool(cpu="8")
    target.apply(_pod("high", namespace, a, "2", high))
    _running(target, namespace, "high")
    _as_kubelet(target, namespace, "high", "2", defer=False)
    pod = _get(target, namespace, "high")
    target.apply(_pod("low-a", namespace, a, "2", low))
    target.apply(_pod("low-b", namespace, b, "2", low))
    _running(target, namespace, "low-a")
    _running(target, namespace, "low-b")
    target.resize(resized(pod, cpu="3"))
    _as_kubelet(target, namespace, "high", "2", defer=True)
    target.wait_until(
        lambda: _gone_or_going(target, namespace, "low-a"), timeout=60, what="low-a preempted"
    )
    pause(target, 3)
    assert not _gone_or_going(target, namespace, "low-b")
    pod = _get(target, namespace, "high")
    assert pod["spec"]["nodeName"] == a
    assert not (pod.get("status") or {}).get("nominatedNodeName")


def test_a_deferred_resize_preempts_on_a_node_cordoned_and_tainted_since_its_pod_started(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """The filters a running pod already passed are skipped.

    After the node is cordoned and given a NoSchedule taint the resizing pod does not
    tolerate, a deferred resize of a higher-priority pod MUST still evict the
    lower-priority pod on that node (NodeUnschedulable and TaintToleration skip a deferred
    resize), and the resizing pod MUST stay on its node.
    """
    low, high = classes
    node = pool(cpu="4")
    target.apply(_pod("high", namespace, node, "2", high))
    _running(target, namespace, "high")
    _as_kubelet(target, namespace, "high", "2", defer=False)
    pod = _get(target, namespace, "high")
    target.apply(_pod("low", namespace, node, "2", low))
    _running(target, namespace, "low")
    _cordon(target, node)
    target.resize(resized(pod, cpu="3"))
    _as_kubelet(target, namespace, "high", "2", defer=True)
    target.wait_until(
        lambda: _gone_or_going(target, namespace, "low"), timeout=60, what="low preempted"
    )
    assert _get(target, namespace, "high")["spec"]["nodeName"] == node


def _cordon(target: Target, node: str) -> None:
    taint = {"key": "garhwal.dev/drain", "value": "true", "effect": "NoSchedule"}

    def write() -> Obj:
        n = target.get("v1", "Node", node)
        spec = dict(n.get("spec") or {})
        spec["unschedulable"] = True
        spec["taints"] = [*(spec.get("taints") or ()), taint]
        return target.apply({**n, "spec": spec})

    retry_on_conflict(write, f"cordoning {node}")

"""In-place pod resize (pods/resize) and resize preemption on the same node (KEP-5836)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Capability, Target
from reference_impl.api import (
    condition,
    make_pdb,
    make_pool_pod,
    resized,
    with_resize_policy,
)
from reference_impl.errors import Forbidden, Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5836")]

Obj = dict[str, Any]
kubelet = pytest.mark.requires(Capability.KUBELET)


def _pod(name: str, namespace: str, req: str, priority_class: str = "", **policy: str) -> Obj:
    pod = make_pool_pod(name, namespace, cpu=req).req(memory="128Mi")
    if priority_class:
        pod = pod.priority_class(priority_class)
    return with_resize_policy(
        pod.build(), **(policy or {"cpu": "NotRequired", "memory": "NotRequired"})
    )


def _pending_pod(target: Target, namespace: str) -> Obj:
    """A pod no node can take (its pool has no nodes): resizes stay API-only."""
    target.apply(_pod("rz", namespace, "100m"))
    target.wait_until(
        lambda: condition(_get(target, namespace, "rz"), "PodScheduled") is not None,
        timeout=30,
        what="rz unschedulable",
    )
    return _get(target, namespace, "rz")


def _get(target: Target, namespace: str, name: str) -> Obj:
    return target.get("v1", "Pod", name, namespace)


def _running(target: Target, namespace: str, name: str) -> Obj:
    target.wait_until(
        lambda: (_get(target, namespace, name).get("status") or {}).get("phase") == "Running",
        timeout=60,
        what=f"{name} running",
    )
    return _get(target, namespace, name)


def _actuated(pod: Obj, cpu: str) -> bool:
    cs = ((pod.get("status") or {}).get("containerStatuses") or [{}])[0]
    return (
        (cs.get("allocatedResources") or {}).get("cpu") == cpu
        and ((cs.get("resources") or {}).get("requests") or {}).get("cpu") == cpu
        and condition(pod, "PodResizeInProgress") is None
        and condition(pod, "PodResizePending") is None
    )


def _held_cpu(target: Target, node: str) -> int:
    """Millicores the pods still on ``node`` request (a kubelet counts terminating ones)."""
    return sum(
        _milli(c.get("resources", {}).get("requests", {}).get("cpu", "0"))
        for p in target.list("v1", "Pod")
        if p["spec"].get("nodeName") == node and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        for c in p["spec"]["containers"]
    )


def _quarters(target: Target, node: str) -> Callable[[int], str]:
    """``q(n)``: n quarters of ``node``'s allocatable cpu, canonical ("1", "1500m"), once no
    pod holds cpu there. The tests' pools ask for 4-cpu nodes; a real node is lent at its
    real size (2 cpus here), where the same shares keep each test's fits and misfits, and
    an earlier test's pods may still be terminating on it (its kubelet would refuse a pod
    bound by name as OutOfcpu)."""
    alloc = _milli(target.get("v1", "Node", node)["status"]["allocatable"]["cpu"])
    target.wait_until(lambda: _held_cpu(target, node) == 0, timeout=90, what=f"no pod holding cpu on {node}")

    def q(n: int) -> str:
        m = alloc * n // 4
        return str(m // 1000) if m % 1000 == 0 else f"{m}m"

    return q


def _pending_reason(target: Target, namespace: str, name: str) -> str:
    return str((condition(_get(target, namespace, name), "PodResizePending") or {}).get("reason"))


def _alive(target: Target, namespace: str) -> set[str]:
    return {
        p["metadata"]["name"]
        for p in target.list("v1", "Pod", namespace)
        if not p["metadata"].get("deletionTimestamp")
    }


def test_the_resize_subresource_changes_only_container_resources(
    target: Target, namespace: str
) -> None:
    """Resize writes resources.

    A resize through pods/resize MUST change spec.containers[*].resources and bump
    metadata.generation, and MUST ignore every other field of the body (the image).
    """
    pod = _pending_pod(target, namespace)
    body = resized(pod, cpu="200m")
    body["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:3.9"
    out = target.resize(body)
    c = out["spec"]["containers"][0]
    assert c["resources"]["requests"]["cpu"] == "200m"
    assert c["image"] == pod["spec"]["containers"][0]["image"]
    assert out["metadata"]["generation"] == pod["metadata"]["generation"] + 1


def test_a_resize_that_would_change_the_qos_class_is_rejected(
    target: Target, namespace: str
) -> None:
    """Resize keeps QoS.

    A resize that turns a Burstable pod into a Guaranteed one MUST be Invalid at field
    spec, and the stored pod MUST keep its resources.
    """
    pod = _pending_pod(target, namespace)
    body = resized(pod, cpu="100m")
    body["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "100m", "memory": "128Mi"}
    with pytest.raises(Invalid) as err:
        target.resize(body)
    assert "spec" in err.value.fields
    assert "limits" not in _get(target, namespace, "rz")["spec"]["containers"][0]["resources"]


def test_a_resize_of_a_resource_other_than_cpu_or_memory_is_rejected(
    target: Target, namespace: str
) -> None:
    """Resize is cpu and memory only.

    A resize that adds an ephemeral-storage request MUST be Invalid at field spec with
    "only cpu and memory resources are mutable".
    """
    pod = _pending_pod(target, namespace)
    with pytest.raises(Invalid) as err:
        target.resize(resized(pod, ephemeral_storage="1Gi"))
    assert "spec" in err.value.fields
    assert "only cpu and memory resources are mutable" in str(err.value)


def test_an_unknown_resize_restart_policy_is_rejected(target: Target, namespace: str) -> None:
    """Resize policy values.

    A resizePolicy restartPolicy other than NotRequired or RestartContainer MUST be Invalid
    at spec.containers[0].resizePolicy (directly or through the resize subresource).
    """
    pod = _pending_pod(target, namespace)
    with pytest.raises(Invalid) as err:
        target.resize(with_resize_policy(pod, cpu="Sometimes"))
    assert any(f.startswith("spec.containers[0].resizePolicy") for f in err.value.fields)


@kubelet
def test_a_fitting_resize_with_not_required_is_actuated_without_restart(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """NotRequired actuates live.

    A resize that fits its node MUST end with allocatedResources and resources equal to the
    new spec, no PodResizePending/PodResizeInProgress left, and restartCount unchanged.
    """
    pool(cpu="4")
    target.apply(_pod("app", namespace, "1"))
    pod = _running(target, namespace, "app")
    target.resize(resized(pod, cpu="2"))
    target.wait_until(
        lambda: _actuated(_get(target, namespace, "app"), "2"), timeout=60, what="resize actuated"
    )
    cs = _get(target, namespace, "app")["status"]["containerStatuses"][0]
    assert cs["restartCount"] == 0


@kubelet
def test_a_resize_marks_itself_in_progress_before_it_completes(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """PodResizeInProgress.

    Between the resize and its actuation, the pod MUST carry PodResizeInProgress=True with
    allocatedResources already equal to the new spec.
    """
    q = _quarters(target, pool(cpu="4"))
    target.apply(_pod("app", namespace, q(1)))
    pod = _running(target, namespace, "app")
    since = pod["metadata"]["resourceVersion"]
    target.resize(resized(pod, cpu=q(3)))
    target.wait_until(
        lambda: _actuated(_get(target, namespace, "app"), q(3)), timeout=60, what="resize actuated"
    )
    seen = [
        ev.object
        for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=5)
        if condition(ev.object, "PodResizeInProgress") is not None
    ]
    assert seen, "no PodResizeInProgress observed"
    cs = seen[0]["status"]["containerStatuses"][0]
    assert cs["allocatedResources"]["cpu"] == q(3)


@kubelet
def test_restart_container_policy_restarts_the_container(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """RestartContainer restarts.

    A cpu resize of a container whose cpu resizePolicy is RestartContainer MUST be actuated
    and MUST increment that container's restartCount.
    """
    pool(cpu="4")
    target.apply(_pod("app", namespace, "1", cpu="RestartContainer", memory="NotRequired"))
    pod = _running(target, namespace, "app")
    target.resize(resized(pod, cpu="2"))
    target.wait_until(
        lambda: _actuated(_get(target, namespace, "app"), "2"), timeout=60, what="resize actuated"
    )
    assert _get(target, namespace, "app")["status"]["containerStatuses"][0]["restartCount"] == 1


@kubelet  # a KWOK node reports no container resources: "without support for resize" first
def test_a_resize_beyond_the_node_allocatable_is_refused(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """PodResizeValidator admission.

    A resize of a bound pod asking for more cpu or memory than its node's allocatable MUST
    be Forbidden, naming each short resource (cpu in millicores, memory in bytes), and
    change nothing; a resize that fits is still accepted.
    """
    node = pool(cpu="4")
    target.apply(_pod("app", namespace, "1"))
    pod = _running(target, namespace, "app")
    generation = pod["metadata"]["generation"]
    alloc = target.get("v1", "Node", node)["status"]["allocatable"]
    cpu_m = _milli(alloc["cpu"])
    prefix = "pods \"app\" is forbidden: node didn't have enough allocatable resources: "
    with pytest.raises(Forbidden) as err:
        target.resize(resized(pod, cpu="8"))
    assert prefix + f"cpu, requested: 8000, allocatable: {cpu_m}" in str(err.value)
    big = resized(pod, cpu="8")
    big["spec"]["containers"][0]["resources"]["requests"]["memory"] = "100000Gi"
    big["spec"]["containers"][0]["resources"]["limits"] = {"memory": "100000Gi"}
    with pytest.raises(Forbidden) as err:
        target.resize(big)
    assert f"cpu, requested: 8000, allocatable: {cpu_m}; memory, requested: {100000 * 2**30}" in str(err.value)
    pod = _get(target, namespace, "app")
    assert pod["metadata"]["generation"] == generation
    assert pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1"
    assert target.resize(resized(pod, cpu="2"))["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "2"


def _milli(quantity: str) -> int:
    """A cpu quantity ("4", "3500m") in millicores."""
    return int(quantity[:-1]) if quantity.endswith("m") else int(float(quantity) * 1000)


@kubelet
@pytest.mark.feature_gates(InPlacePodVerticalScalingSchedulerPreemption=False)
def test_without_the_gate_a_resize_that_does_not_fit_stays_deferred(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """Deferred without preemption.

    With the gate off, a resize that fits the node but not next to a lower-priority pod
    MUST stay PodResizePending reason Deferred, and the other pod MUST keep running.
    """
    q = _quarters(target, pool(cpu="4"))
    target.apply(_pod("high", namespace, q(2), classes[1]))
    pod = _running(target, namespace, "high")
    low = make_pool_pod("low", namespace, cpu=q(2)).priority_class(classes[0]).build()
    target.apply(low)
    _running(target, namespace, "low")
    target.resize(resized(pod, cpu=q(3)))
    target.wait_until(
        lambda: _pending_reason(target, namespace, "high") == "Deferred",
        timeout=60,
        what="resize deferred",
    )
    assert "low" in _alive(target, namespace)


@kubelet
def test_a_deferred_resize_preempts_a_lower_priority_pod_on_its_node_only(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """Resize preemption, same node only.

    With the gate on, a deferred resize of a high-priority pod MUST evict the lower-priority
    pod on its own node (DisruptionTarget reason PreemptionByScheduler), MUST NOT touch the
    lower-priority pod on another node, and MUST then be actuated. (Each node is filled
    with halves; the resize to three quarters of node a fits there only without low-a.)
    """
    a = pool(cpu="4")
    b = pool(cpu="4")  # live: a second real node, or skipped
    qa, qb = _quarters(target, a), _quarters(target, b)
    low, high = classes
    target.apply(make_pool_pod("high", namespace, cpu=qa(2)).priority_class(high).node(a).build())
    pod = _running(target, namespace, "high")
    target.apply(make_pool_pod("low-a", namespace, cpu=qa(2)).priority_class(low).node(a).build())
    target.apply(make_pool_pod("low-b", namespace, cpu=qb(2)).priority_class(low).node(b).build())
    since = _running(target, namespace, "low-a")["metadata"]["resourceVersion"]
    _running(target, namespace, "low-b")
    target.resize(resized(pod, cpu=qa(3)))
    target.wait_until(
        lambda: _actuated(_get(target, namespace, "high"), qa(3)), timeout=120, what="resized"
    )
    assert _alive(target, namespace) == {"high", "low-b"}
    reasons = {
        (condition(ev.object, "DisruptionTarget") or {}).get("reason")
        for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=5)
        if ev.object["metadata"]["name"] == "low-a"
    }
    assert "PreemptionByScheduler" in reasons


@kubelet
def test_resize_preemption_spares_the_pdb_protected_pod_when_another_victim_suffices(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """Resize preemption weighs PDBs like any preemption.

    On a node with the high-priority pod (half its cpu) and two lower-priority pods (a
    quarter each), one of them covered by a PodDisruptionBudget with no disruption allowed,
    resizing the high pod to three quarters MUST evict only the unprotected pod and MUST
    then be actuated.
    """
    a = pool(cpu="4")
    q = _quarters(target, a)
    low, high = classes
    target.apply(make_pdb("guard", namespace, {"app": "guarded"}, min_available=1))
    target.apply(make_pool_pod("high", namespace, cpu=q(2)).priority_class(high).node(a).build())
    pod = _running(target, namespace, "high")
    guarded = make_pool_pod("low-guarded", namespace, cpu=q(1)).priority_class(low).node(a)
    target.apply(guarded.label("app", "guarded").build())
    target.apply(make_pool_pod("low-free", namespace, cpu=q(1)).priority_class(low).node(a).build())
    _running(target, namespace, "low-guarded")
    _running(target, namespace, "low-free")
    target.wait_until(
        lambda: (
            (
                target.get("policy/v1", "PodDisruptionBudget", "guard", namespace).get("status")
                or {}
            ).get("currentHealthy")
            == 1
        ),
        timeout=60,
        what="PDB status counts the guarded pod",
    )
    target.resize(resized(pod, cpu=q(3)))
    target.wait_until(
        lambda: _actuated(_get(target, namespace, "high"), q(3)), timeout=120, what="resized"
    )
    assert _alive(target, namespace) == {"high", "low-guarded"}


@kubelet
def test_resize_preemption_evicts_a_pdb_protected_pod_when_nothing_else_makes_room(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """PDBs are best effort for preemption (upstream's PostFilter).

    When the only lower-priority pod on the node is protected by a PodDisruptionBudget with
    no disruption allowed, a deferred resize of a higher-priority pod MUST still evict it
    (preemption prefers, but does not require, victims within their budgets) and MUST
    then be actuated.
    """
    a = pool(cpu="4")
    q = _quarters(target, a)
    low, high = classes
    target.apply(make_pdb("guard", namespace, {"app": "guarded"}, min_available=1))
    target.apply(make_pool_pod("high", namespace, cpu=q(2)).priority_class(high).node(a).build())
    pod = _running(target, namespace, "high")
    guarded = make_pool_pod("low", namespace, cpu=q(2)).priority_class(low).node(a)
    target.apply(guarded.label("app", "guarded").build())
    _running(target, namespace, "low")
    target.resize(resized(pod, cpu=q(3)))
    target.wait_until(
        lambda: _actuated(_get(target, namespace, "high"), q(3)), timeout=120, what="resized"
    )
    assert _alive(target, namespace) == {"high"}

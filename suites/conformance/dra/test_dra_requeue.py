"""DRA-REQUEUE: pods pending on DRA capacity are retried when that capacity appears.

The reference files such pods under the DeviceClasses their claims request, so a new
ResourceSlice (or DeviceClass, or freed claim) requeues only the pods it can help; these
tests check the observable side on either target: the right pods schedule, the others
stay Pending.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import FakeDriver, Target
from reference_impl.api import DRA_API, make_claim_template, make_pod

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4247")]
NODES = ["kwok-node-0", "kwok-node-1", "kwok-node-2"]


@pytest.fixture
def drivers(target: Target) -> Iterator[tuple[FakeDriver, FakeDriver]]:
    """Two fake drivers with their own slices and classes, cleaned up afterwards."""
    a = FakeDriver(target, driver="gpua.requeue.garhwal.dev", prefix="dra-requeue")
    b = FakeDriver(target, driver="gpub.requeue.garhwal.dev", prefix="dra-requeue")
    try:
        yield a, b
    finally:
        a.cleanup()
        b.cleanup()


def _pod(target: Target, name: str, ns: str) -> dict[str, Any]:
    return target.get("v1", "Pod", name, ns)


def _bound(target: Target, name: str, ns: str) -> bool:
    return bool(_pod(target, name, ns)["spec"].get("nodeName"))


def _unschedulable(target: Target, name: str, ns: str) -> bool:
    pod = _pod(target, name, ns)
    return not pod["spec"].get("nodeName") and any(
        c["type"] == "PodScheduled"
        and c["status"] == "False"
        and c.get("reason") == "Unschedulable"
        for c in (pod.get("status") or {}).get("conditions") or ()
    )


def _gpu_pod(target: Target, name: str, ns: str, template: str) -> None:
    target.apply(make_pod(name, ns).claim("gpu", template=template).build())


def _allocated_device(target: Target, name: str, ns: str) -> tuple[str, str, str]:
    pod = _pod(target, name, ns)
    claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = target.get(DRA_API, "ResourceClaim", claim_name, ns)
    (r,) = claim["status"]["allocation"]["devices"]["results"]
    return r["driver"], r["pool"], r["device"]


def test_pod_pending_for_a_driver_schedules_once_its_slice_appears(
    target: Target, namespace: str, drivers: tuple[FakeDriver, FakeDriver]
) -> None:
    """DRA-REQUEUE, slice appears.

    A pod whose claim's DeviceClass matches no published device MUST stay Pending with
    PodScheduled=False reason Unschedulable, and MUST be scheduled onto the slice's node,
    with a device of that driver, once a matching ResourceSlice is published.
    """
    a, _ = drivers
    a.install_class("dra-requeue-a")
    target.apply(make_claim_template("gpu-a", namespace).request("gpu", "dra-requeue-a").build())
    _gpu_pod(target, "p", namespace, "gpu-a")
    target.wait_until(
        lambda: _unschedulable(target, "p", namespace), timeout=60, what="p unschedulable"
    )
    a.publish([NODES[1]], gpus=1)
    target.wait_until(lambda: _bound(target, "p", namespace), timeout=60, what="p bound")
    assert _pod(target, "p", namespace)["spec"]["nodeName"] == NODES[1]
    assert _allocated_device(target, "p", namespace) == (a.driver, NODES[1], "gpu-0")


def test_pod_pending_for_a_missing_class_schedules_once_the_class_appears(
    target: Target, namespace: str, drivers: tuple[FakeDriver, FakeDriver]
) -> None:
    """DRA-REQUEUE, class appears.

    A pod whose claim names a DeviceClass that does not exist MUST stay Pending and
    unbound while devices are already published, and MUST be scheduled once the DeviceClass
    is created.
    """
    a, _ = drivers
    a.publish([NODES[0]], gpus=1)
    target.apply(make_claim_template("gpu-a", namespace).request("gpu", "dra-requeue-late").build())
    _gpu_pod(target, "p", namespace, "gpu-a")
    target.wait_until(
        lambda: _unschedulable(target, "p", namespace), timeout=60, what="p unschedulable"
    )
    a.install_class("dra-requeue-late")
    target.wait_until(lambda: _bound(target, "p", namespace), timeout=60, what="p bound")
    assert _allocated_device(target, "p", namespace) == (a.driver, NODES[0], "gpu-0")


def test_slice_of_another_driver_does_not_bind_pending_pods(
    target: Target, namespace: str, drivers: tuple[FakeDriver, FakeDriver]
) -> None:
    """DRA-REQUEUE, unrelated slice.

    A slice of driver B MUST NOT bind a pod whose class selects only driver A: after B's
    slice is published and a probe pod for B's class has been scheduled on it (so the
    event has certainly been processed), the A pod MUST still be Pending and unbound.
    """
    a, b = drivers
    a.install_class("dra-requeue-a")
    b.install_class("dra-requeue-b")
    target.apply(make_claim_template("gpu-a", namespace).request("gpu", "dra-requeue-a").build())
    target.apply(make_claim_template("gpu-b", namespace).request("gpu", "dra-requeue-b").build())
    _gpu_pod(target, "wants-a", namespace, "gpu-a")
    target.wait_until(
        lambda: _unschedulable(target, "wants-a", namespace),
        timeout=60,
        what="wants-a unschedulable",
    )
    b.publish(NODES, gpus=2)
    _gpu_pod(target, "probe-b", namespace, "gpu-b")
    target.wait_until(lambda: _bound(target, "probe-b", namespace), timeout=60, what="probe bound")
    assert not _bound(target, "wants-a", namespace)
    assert _unschedulable(target, "wants-a", namespace)


def test_pool_of_nodes_coming_online_schedules_every_pending_pod(
    target: Target, namespace: str, drivers: tuple[FakeDriver, FakeDriver]
) -> None:
    """DRA-REQUEUE, a pool of N nodes.

    With 6 pods pending for one GPU each and no devices, publishing 3 slices of 2 GPUs
    MUST schedule all 6 pods, on 6 distinct devices, 2 per node.
    """
    a, _ = drivers
    a.install_class("dra-requeue-a")
    target.apply(make_claim_template("gpu-a", namespace).request("gpu", "dra-requeue-a").build())
    names = [f"p{i}" for i in range(6)]
    for n in names:
        _gpu_pod(target, n, namespace, "gpu-a")
    target.wait_until(
        lambda: all(_unschedulable(target, n, namespace) for n in names),
        timeout=60,
        what="all pods unschedulable",
    )
    a.publish(NODES, gpus=2)
    target.wait_until(
        lambda: all(_bound(target, n, namespace) for n in names), timeout=90, what="all pods bound"
    )
    devices = [_allocated_device(target, n, namespace) for n in names]
    assert len(set(devices)) == 6
    per_node = sorted(_pod(target, n, namespace)["spec"]["nodeName"] for n in names)
    assert per_node == sorted(NODES * 2)


def test_each_driver_slice_schedules_only_its_own_pods(
    target: Target, namespace: str, drivers: tuple[FakeDriver, FakeDriver]
) -> None:
    """DRA-REQUEUE, two classes waiting.

    With pods pending for class A and for class B, publishing A's slice MUST bind exactly
    the A pods (the B pods stay Pending), and publishing B's slice afterwards MUST bind the
    B pods.
    """
    a, b = drivers
    a.install_class("dra-requeue-a")
    b.install_class("dra-requeue-b")
    target.apply(make_claim_template("gpu-a", namespace).request("gpu", "dra-requeue-a").build())
    target.apply(make_claim_template("gpu-b", namespace).request("gpu", "dra-requeue-b").build())
    for i in range(2):
        _gpu_pod(target, f"a{i}", namespace, "gpu-a")
        _gpu_pod(target, f"b{i}", namespace, "gpu-b")
    every = ["a0", "a1", "b0", "b1"]
    target.wait_until(
        lambda: all(_unschedulable(target, n, namespace) for n in every),
        timeout=60,
        what="all unschedulable",
    )
    a.publish([NODES[0]], gpus=2)
    target.wait_until(
        lambda: _bound(target, "a0", namespace) and _bound(target, "a1", namespace),
        timeout=60,
        what="A pods bound",
    )
    assert not _bound(target, "b0", namespace) and not _bound(target, "b1", namespace)
    b.publish([NODES[2]], gpus=2)
    target.wait_until(
        lambda: _bound(target, "b0", namespace) and _bound(target, "b1", namespace),
        timeout=60,
        what="B pods bound",
    )
    assert {_pod(target, n, namespace)["spec"]["nodeName"] for n in ("b0", "b1")} == {NODES[2]}


def test_freed_device_schedules_the_waiting_pod(
    target: Target, namespace: str, drivers: tuple[FakeDriver, FakeDriver]
) -> None:
    """DRA-REQUEUE, capacity freed.

    With one GPU published and held by pod "holder", a second pod MUST stay Pending;
    deleting "holder" deallocates its claim and MUST get the waiting pod scheduled on the
    same device.
    """
    a, _ = drivers
    a.install_class("dra-requeue-a")
    a.publish([NODES[0]], gpus=1)
    target.apply(make_claim_template("gpu-a", namespace).request("gpu", "dra-requeue-a").build())
    _gpu_pod(target, "holder", namespace, "gpu-a")
    target.wait_until(lambda: _bound(target, "holder", namespace), timeout=60, what="holder bound")
    held = _allocated_device(target, "holder", namespace)
    _gpu_pod(target, "waiter", namespace, "gpu-a")
    target.wait_until(
        lambda: _unschedulable(target, "waiter", namespace), timeout=60, what="waiter unschedulable"
    )
    target.delete("v1", "Pod", "holder", namespace)
    target.wait_until(lambda: _bound(target, "waiter", namespace), timeout=120, what="waiter bound")
    assert _allocated_device(target, "waiter", namespace) == held

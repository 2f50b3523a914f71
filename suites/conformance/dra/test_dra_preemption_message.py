"""DRA unschedulable messages: DynamicResources' rejections are not resolvable by
preemption (``statusUnschedulable`` returns UnschedulableAndUnresolvable), and PreFilter
names a missing DeviceClass by request (``validateDeviceClass``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from fixtures import FakeDriver, Target
from fixtures.helpers.priority import add_priority_class
from reference_impl.api import (
    DRA_API,
    condition,
    make_pool_node,
    make_pool_pod,
    make_resource_claim,
)
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
DRIVER = "preempt.garhwal.dev"


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[tuple[str, str, str, str]]:
    """(node, class, low priority class, high priority class): a private node with one GPU."""
    node = f"dra-pre-{namespace}"[:63]
    drv = FakeDriver(target, driver=DRIVER, prefix="dra")
    pcs = [f"dra-pre-low-{namespace}"[:63], f"dra-pre-high-{namespace}"[:63]]
    try:
        target.apply(make_pool_node(node, namespace).build())
        drv.publish([node], gpus=1)
        cls = f"dra-pre-{namespace}"[:63]
        drv.install_class(cls)
        for name, value in zip(pcs, (10, 1000), strict=True):
            add_priority_class(target, name, value, namespace)
        yield node, cls, pcs[0], pcs[1]
    finally:
        drv.cleanup()
        for kind, api, name in (("Node", "v1", node), *(("PriorityClass", "scheduling.k8s.io/v1", p) for p in pcs)):
            try:
                target.delete(api, kind, name)
            except NotFound:
                pass


def _message(target: Target, namespace: str, name: str) -> str:
    cond = condition(target.get("v1", "Pod", name, namespace), "PodScheduled") or {}
    return str(cond.get("message", "")) if cond.get("reason") == "Unschedulable" else ""


def test_a_device_held_by_a_lower_priority_pod_is_not_preempted(
    target: Target, namespace: str, env: tuple[str, str, str, str]
) -> None:
    """DRA-CORE, preemption.

    When the only device of a class is allocated to a low-priority pod's claim, a
    high-priority pod with a claim for that class MUST stay Pending without preempting
    it; its message MUST report "cannot allocate all claims" and end with
    "preemption: 0/N nodes are available: N Preemption is not helpful for scheduling."
    (every node, N being all nodes).
    """
    node, cls, low, high = env
    for name, pc in (("low", low), ("high", high)):
        target.apply(make_resource_claim(f"{name}-gpu", namespace).request("gpu", cls).build())
        pod = make_pool_pod(name, namespace, cpu="100m").priority_class(pc)
        target.apply(pod.claim("gpu", claim=f"{name}-gpu").build())
        if name == "low":
            target.wait_until(
                lambda: target.get("v1", "Pod", "low", namespace)["spec"].get("nodeName") == node,
                timeout=60, what="low pod bound")
    target.wait_until(lambda: "preemption:" in _message(target, namespace, "high"), timeout=60,
                      what="high pod unschedulable")
    msg = _message(target, namespace, "high")
    assert "1 cannot allocate all claims" in msg, msg
    m = re.search(r" preemption: 0/(\d+) nodes are available: (\d+) Preemption is not helpful "
                  r"for scheduling\.$", msg)
    assert m is not None and m.group(1) == m.group(2), msg
    assert msg.startswith(f"0/{m.group(1)} nodes are available: "), msg
    low_pod = target.get("v1", "Pod", "low", namespace)
    assert not low_pod["metadata"].get("deletionTimestamp")
    assert condition(low_pod, "DisruptionTarget") is None
    claim = target.get(DRA_API, "ResourceClaim", "high-gpu", namespace)
    assert not (claim.get("status") or {}).get("allocation")


@pytest.mark.parametrize("first_available", [False, True], ids=["exactly", "firstAvailable"])
def test_a_missing_device_class_is_named_with_its_request(
    target: Target, namespace: str, env: tuple[str, str, str, str], first_available: bool
) -> None:
    """DRA-CORE, missing DeviceClass.

    A pod whose claim asks for a DeviceClass that does not exist MUST stay Pending with
    the PreFilter message "request <request>: device class <class> does not exist" (a
    subrequest named "<request>/<subrequest>"), for all nodes at once, and preemption
    MUST be reported as not helpful on every node.
    """
    _, cls, _, _ = env
    missing = f"dra-pre-missing-{namespace}"[:63]
    claim = make_resource_claim("c", namespace)
    claim = (claim.first_available("gpu", ("ok", cls, 1), ("alt", missing, 1)) if first_available
             else claim.request("gpu", missing))
    target.apply(claim.build())
    target.apply(make_pool_pod("p", namespace, cpu="100m").claim("gpu", claim="c").build())
    target.wait_until(lambda: "preemption:" in _message(target, namespace, "p"), timeout=60,
                      what="pod unschedulable")
    msg = _message(target, namespace, "p")
    request = "gpu/alt" if first_available else "gpu"
    m = re.fullmatch(rf"0/(\d+) nodes are available: request {request}: device class {missing} does not "
                     r"exist\. preemption: 0/(\d+) nodes are available: (\d+) Preemption is not helpful "
                     r"for scheduling\.", msg)
    assert m is not None and m.group(1) == m.group(2) == m.group(3), msg

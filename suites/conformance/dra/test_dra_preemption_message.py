"""DRA failures are not resolvable by preemption (``statusUnschedulable`` in the
DynamicResources plugin returns UnschedulableAndUnresolvable)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from fixtures import FakeDriver, Target
from reference_impl.api import (
    DRA_API,
    condition,
    make_pool_node,
    make_pool_pod,
    make_priority_class,
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
            target.apply(make_priority_class(name, value))
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

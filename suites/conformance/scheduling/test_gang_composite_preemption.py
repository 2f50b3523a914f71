"""Composite preemption (KEP-6012 with KEP-5710): a CompositePodGroup preempts as one.

Upstream 1.37's pod-group PostFilter takes a CompositePodGroup as the preemptor: its
priority and preemptionPolicy apply, victims are lower-priority units cluster-wide (whole
groups under a ``disruptionMode: all`` ancestor) and enough are chosen for
``minGroupCount`` children to fit.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import (
    make_child_pod_group,
    make_composite_pod_group,
    make_pod_group,
    make_pool_pod,
)
from reference_impl.errors import Forbidden

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-6012"),
    # v1.37.2 refuses CompositePodGroup without TopologyAwareWorkloadScheduling (a gate
    # dependency), so a cluster that serves composites has both on.
    pytest.mark.feature_gates(
        GenericWorkload=True, PodGroupPreemptionPolicy=True, TopologyAwareWorkloadScheduling=True
    ),
]


@pytest.fixture
def classes(priority_class: Callable[..., str]) -> tuple[str, str, str]:
    """Low (10), high (1000) and high-but-Never (1000) PriorityClasses."""
    return (
        priority_class("cp-low", 10),
        priority_class("cp-high", 1000),
        priority_class("cp-never", 1000, preemption_policy="Never"),
    )


def _bound(target: Target, namespace: str) -> dict[str, str]:
    return {
        p["metadata"]["name"]: p["spec"]["nodeName"]
        for p in target.list("v1", "Pod", namespace)
        if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")
    }


def _victims(target: Target, namespace: str, low: str) -> None:
    """A low-priority gang of 2 with disruptionMode all, filling two one-pod nodes."""
    target.apply(
        make_pod_group("victims", namespace, min_count=2, disruption="all", priority_class=low)
    )
    for i in range(2):
        target.apply(
            make_pool_pod(f"v-{i}", namespace).pod_group("victims").priority_class(low).build()
        )
    target.wait_until(
        lambda: {"v-0", "v-1"} <= set(_bound(target, namespace)), timeout=120, what="victims bound"
    )


def _composite(target: Target, namespace: str, cls: str, policy: str = "") -> None:
    """Root composite (class ``cls``, minGroupCount 1) over one gang child of 2 pods."""
    root = make_composite_pod_group("root", namespace, min_group_count=1)
    child = make_child_pod_group("ca", namespace, "root", 2)
    for group in (root, child):
        group["spec"]["priorityClassName"] = cls
        if policy:
            group["spec"]["preemptionPolicy"] = policy
    target.apply(root)
    target.apply(child)
    for i in range(2):
        target.apply(
            make_pool_pod(f"ca-{i}", namespace).pod_group("ca").priority_class(cls).build()
        )


def test_a_higher_priority_composite_preempts_a_whole_lower_priority_group(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str, str]
) -> None:
    """Composite preemption honours disruptionMode all.

    Two one-pod nodes are filled by a low-priority gang of 2 with disruptionMode all. A
    high-priority CompositePodGroup (minGroupCount 1) whose one child gang needs both
    nodes MUST preempt both victim pods (never just one) and its 2 pods MUST bind, each
    having been nominated to the node it binds to.
    """
    pool(cpu="1")
    pool(cpu="1")
    low, high, _ = classes
    _victims(target, namespace, low)
    since = target.get("v1", "Pod", "v-1", namespace)["metadata"]["resourceVersion"]
    _composite(target, namespace, high)
    # Upstream deletes all victims but the last in parallel, then the last (preemption
    # executor.go), so one victim may be seen marked a moment before the other; the
    # guarantee is the outcome: by the time the preemptor binds, no victim is left.
    target.wait_until(
        lambda: {"ca-0", "ca-1"} <= set(_bound(target, namespace)),
        timeout=180,
        what="the composite's pods bound",
    )
    bound = _bound(target, namespace)
    remaining = {
        p["metadata"]["name"]
        for p in target.list("v1", "Pod", namespace)
        if not p["metadata"].get("deletionTimestamp")
    } & {"v-0", "v-1"}
    assert not remaining
    nominated: dict[str, str] = {}
    for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=5):
        nnn = (ev.object.get("status") or {}).get("nominatedNodeName")
        if ev.object["metadata"]["name"] in ("ca-0", "ca-1") and nnn:
            nominated[ev.object["metadata"]["name"]] = str(nnn)
    assert nominated == {"ca-0": bound["ca-0"], "ca-1": bound["ca-1"]}


def test_a_composite_with_preemption_policy_never_does_not_preempt(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str, str]
) -> None:
    """preemptionPolicy Never on the composite.

    Creating a CompositePodGroup that names a class with preemptionPolicy Never but leaves
    its own preemptionPolicy unset MUST be Forbidden (defaulting fills PreemptLowerPriority
    before priority admission compares it with the class). The same high-priority
    composite spelling out ``preemptionPolicy: Never`` MUST NOT evict the low-priority
    gang, and its pods MUST stay unbound.
    """
    pool(cpu="1")
    pool(cpu="1")
    low, _, never = classes
    implicit = make_composite_pod_group("implicit", namespace, min_group_count=1)
    implicit["spec"]["priorityClassName"] = never
    with pytest.raises(Forbidden) as e:
        target.apply(implicit)
    assert "composite pod group spec" in str(e.value)
    _victims(target, namespace, low)
    _composite(target, namespace, never, "Never")
    target.apply(make_pool_pod("marker", namespace, "0").build())
    target.wait_until(
        lambda: "marker" in _bound(target, namespace), timeout=60, what="marker bound"
    )
    target.wait_until(
        lambda: all(
            any(
                c.get("type") == "PodScheduled" and c.get("status") == "False"
                for c in (target.get("v1", "Pod", f"ca-{i}", namespace).get("status") or {}).get(
                    "conditions"
                )
                or ()
            )
            for i in range(2)
        ),
        timeout=120,
        what="the composite's pods unschedulable",
    )
    assert {"v-0", "v-1"} <= set(_bound(target, namespace))
    assert not {"ca-0", "ca-1"} & set(_bound(target, namespace))

"""The preemption part of the unschedulable message (``DefaultPreemption`` PostFilter and
``framework/preemption``): each node's dry-run status in a FitError histogram."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import POOL_KEY, condition, make_pod, make_pool_pod

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5710")]


def _message(target: Target, namespace: str, name: str) -> str:
    cond = condition(target.get("v1", "Pod", name, namespace), "PodScheduled") or {}
    return str(cond.get("message", "")) if cond.get("reason") == "Unschedulable" else ""


def _wait_message(target: Target, namespace: str, name: str, needle: str) -> str:
    target.wait_until(lambda: needle in _message(target, namespace, name), timeout=60,
                      what=f"pod {name} unschedulable with {needle!r}")
    return _message(target, namespace, name)


def _bound(target: Target, namespace: str, name: str) -> None:
    target.wait_until(
        lambda: bool(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName")),
        timeout=60, what=f"pod {name} bound")


def _preemption_histogram(msg: str) -> tuple[int, str]:
    m = re.search(r" preemption: 0/(\d+) nodes are available: (.*)\.$", msg)
    assert m is not None, msg
    return int(m.group(1)), m.group(2)


def test_a_node_without_lower_priority_pods_has_no_preemption_victims(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """Preemption message, no victims.

    When the only node that could fit a pod is full of pods of higher priority, the pod
    MUST stay Pending with a message whose preemption part counts that node as "No
    preemption victims found for incoming pod" and every other node as "Preemption is not
    helpful for scheduling".
    """
    low, high = classes
    pool(cpu="1")
    target.apply(make_pool_pod("high", namespace, cpu="1").priority_class(high).build())
    _bound(target, namespace, "high")
    target.apply(make_pool_pod("low", namespace, cpu="1").priority_class(low).build())
    msg = _wait_message(target, namespace, "low", "preemption:")
    assert "1 Insufficient cpu" in msg, msg
    total, hist = _preemption_histogram(msg)
    parts = ["1 No preemption victims found for incoming pod"]
    if total > 1:
        parts.append(f"{total - 1} Preemption is not helpful for scheduling")
    assert hist == ", ".join(sorted(parts)), msg


def test_a_node_still_too_full_without_its_victims_reports_the_filter_reason(
    target: Target, namespace: str, pool: Callable[..., str], priority_class: Callable[..., str]
) -> None:
    """Preemption message, not enough room even after preemption.

    When removing every lower-priority pod from the node still leaves too little CPU
    (a higher-priority pod keeps its share), the preemption part MUST count that node
    with the filter's own reason ("Insufficient cpu"), nothing MUST be preempted, and the
    pod MUST stay Pending.
    """
    low, mid, high = (priority_class(r, v) for r, v in (("low", 10), ("mid", 500), ("high", 1000)))
    pool(cpu="2")
    target.apply(make_pool_pod("high", namespace, cpu="1").priority_class(high).build())
    target.apply(make_pool_pod("low", namespace, cpu="1").priority_class(low).build())
    _bound(target, namespace, "high")
    _bound(target, namespace, "low")
    target.apply(make_pool_pod("mid", namespace, cpu="2").priority_class(mid).build())
    msg = _wait_message(target, namespace, "mid", "preemption:")
    total, hist = _preemption_histogram(msg)
    parts = ["1 Insufficient cpu"]
    if total > 1:
        parts.append(f"{total - 1} Preemption is not helpful for scheduling")
    assert hist == ", ".join(sorted(parts)), msg
    low_pod = target.get("v1", "Pod", "low", namespace)
    assert not low_pod["metadata"].get("deletionTimestamp")
    assert condition(low_pod, "DisruptionTarget") is None


def test_a_pod_that_never_preempts_says_so(
    target: Target, namespace: str, pool: Callable[..., str], priority_class: Callable[..., str]
) -> None:
    """Preemption message, preemptionPolicy Never.

    A pod whose priority class has ``preemptionPolicy: Never`` MUST NOT preempt a
    lower-priority pod, and its message MUST end with "preemption: not eligible due to
    preemptionPolicy=Never."
    """
    low = priority_class("low", 10)
    never = priority_class("never", 1000, preemption_policy="Never")
    pool(cpu="1")
    target.apply(make_pool_pod("low", namespace, cpu="1").priority_class(low).build())
    _bound(target, namespace, "low")
    target.apply(make_pool_pod("never", namespace, cpu="1").priority_class(never).build())
    msg = _wait_message(target, namespace, "never", "preemption:")
    assert msg.endswith(" preemption: not eligible due to preemptionPolicy=Never."), msg
    assert not target.get("v1", "Pod", "low", namespace)["metadata"].get("deletionTimestamp")


def test_untolerated_taints_share_one_reason(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Unschedulable message, taints.

    Nodes whose taints a pod does not tolerate MUST be counted under the one reason
    "node(s) had untolerated taint(s)" (whatever the taints are), and, being
    UnschedulableAndUnresolvable, also as nodes where preemption is not helpful.
    """
    pool(cpu="1")
    other = pool(cpu="1")
    node = target.get("v1", "Node", other)
    node["spec"]["taints"] = [*node["spec"].get("taints", []),
                              {"key": "example.com/extra", "value": "x", "effect": "NoExecute"}]
    node["metadata"].pop("resourceVersion", None)  # replaced at the latest one
    target.apply(node)
    target.apply(make_pod("p", namespace).node_selector(**{POOL_KEY: namespace}).build())
    msg = _wait_message(target, namespace, "p", "preemption:")
    assert re.match(r"0/(\d+) nodes are available: 2 node\(s\) had untolerated taint\(s\)[,.]", msg), msg
    total, hist = _preemption_histogram(msg)
    assert hist == f"{total} Preemption is not helpful for scheduling", msg

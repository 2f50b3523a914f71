"""RuntimeClass (node.k8s.io/v1) and its admission plugin (on by default in kube-apiserver
1.37): a pod naming a class gets the class's overhead, node selector and tolerations at
create, and the scheduler places it counting that overhead.

Each test's class carries its pool's node selector and toleration, so its pods need
neither; the class is cluster-scoped and removed at teardown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import POOL_KEY, make_pod
from reference_impl.errors import Forbidden, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]


@pytest.fixture
def runtime_class(target: Target, namespace: str) -> Iterator[Callable[..., str]]:
    """``runtime_class(overhead={"cpu": "250m"})``: a class for this test's pool."""
    made: list[str] = []

    def add(overhead: Obj | None = None) -> str:
        name = f"rc-{namespace}"[:63]
        rc: Obj = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name},
                   "handler": "runc", "scheduling": {
                       "nodeSelector": {POOL_KEY: namespace},
                       "tolerations": [{"key": POOL_KEY, "operator": "Equal", "value": namespace,
                                        "effect": "NoSchedule"}]}}  # fmt: skip
        if overhead is not None:
            rc["overhead"] = {"podFixed": overhead}
        target.apply(rc)
        made.append(name)
        return name

    yield add
    for name in made:
        try:
            target.delete("node.k8s.io/v1", "RuntimeClass", name)
        except NotFound:
            pass


def _pod(name: str, namespace: str, rc: str | None, cpu: str, **spec: Any) -> Obj:
    pod = make_pod(name, namespace).req(cpu=cpu).build()
    if rc is not None:
        pod["spec"]["runtimeClassName"] = rc
    pod["spec"].update(spec)
    return pod


def _node_of(target: Target, namespace: str, name: str) -> str | None:
    return target.get("v1", "Pod", name, namespace)["spec"].get("nodeName")


def test_a_pod_gets_the_class_overhead_and_scheduling_and_is_placed_with_it(
    target: Target, namespace: str, pool: Callable[..., str], runtime_class: Callable[..., str]
) -> None:
    """A pod naming a RuntimeClass MUST get its ``overhead.podFixed`` as ``spec.overhead``
    and its scheduling node selector and tolerations merged into its own; the scheduler
    MUST count the overhead: on a 1-CPU node a 900m pod with 250m overhead stays Pending
    while a 700m one binds."""
    node = pool(cpu="1")
    rc = runtime_class(overhead={"cpu": "250m", "memory": "64Mi"})
    big = target.apply(_pod("big", namespace, rc, "900m", nodeSelector={"app": "x"}))
    assert big["spec"]["overhead"] == {"cpu": "250m", "memory": "64Mi"}
    assert big["spec"]["nodeSelector"] == {"app": "x", POOL_KEY: namespace}
    assert {"key": POOL_KEY, "operator": "Equal", "value": namespace, "effect": "NoSchedule"} in big["spec"]["tolerations"]
    target.delete("v1", "Pod", "big", namespace)
    target.apply(_pod("too-big", namespace, rc, "900m"))
    target.apply(_pod("fits", namespace, rc, "700m"))
    target.wait_until(lambda: _node_of(target, namespace, "fits") == node, timeout=30, what="fits bound to the pool node")

    def unschedulable() -> bool:
        conds = target.get("v1", "Pod", "too-big", namespace).get("status", {}).get("conditions") or []
        return any(c.get("type") == "PodScheduled" and c.get("reason") == "Unschedulable" for c in conds)

    target.wait_until(unschedulable, timeout=30, what="too-big Unschedulable (overhead counted)")
    assert _node_of(target, namespace, "too-big") is None


def test_an_unknown_class_or_a_mismatched_overhead_is_forbidden(
    target: Target, namespace: str, runtime_class: Callable[..., str]
) -> None:
    """A pod naming a RuntimeClass that does not exist, stating an overhead other than its
    class's, stating one without a class that defines one, or asking for a node label
    value the class sets otherwise MUST be Forbidden."""
    rc = runtime_class(overhead={"cpu": "250m"})
    refusals = {
        "pod rejected: RuntimeClass \"no-such-class\" not found": _pod("a", namespace, "no-such-class", "100m"),
        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead":
            _pod("b", namespace, rc, "100m", overhead={"cpu": "1"}),
        "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead":
            _pod("c", namespace, None, "100m", overhead={"cpu": "1"}),
        f"conflict: runtimeClass.scheduling.nodeSelector[{POOL_KEY}] = {namespace}; "
        f"pod.spec.nodeSelector[{POOL_KEY}] = elsewhere":
            _pod("d", namespace, rc, "100m", nodeSelector={POOL_KEY: "elsewhere"}),
    }  # fmt: skip
    for message, pod in refusals.items():
        with pytest.raises(Forbidden) as refused:
            target.apply(pod)
        assert message in str(refused.value)
    same = target.apply(_pod("e", namespace, rc, "100m", overhead={"cpu": "250m"}))
    assert same["spec"]["overhead"] == {"cpu": "250m"}

"""Workload conformance: a Deployment becomes a ReplicaSet and running pods."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import condition, make_deployment, make_pod

pytestmark = pytest.mark.conformance


def _ready_pods(target: Target, namespace: str, app: str) -> list[dict[str, Any]]:
    pods = target.list("v1", "Pod", namespace, label_selector=f"app={app}")
    return [
        p
        for p in pods
        if not p["metadata"].get("deletionTimestamp")
        and (condition(p, "Ready") or {}).get("status") == "True"
    ]


def test_deployment_runs_its_replicas_through_a_replicaset(target: Target, namespace: str) -> None:
    """Deployment to pods.

    A Deployment of 3 replicas MUST own one ReplicaSet, which MUST own 3 pods that are
    bound to nodes and become Ready, and the Deployment status MUST report 3 available.
    """
    pod = make_pod("x").req(cpu="100m", memory="64Mi")
    target.apply(make_deployment("web", namespace, replicas=3, pod=pod).build())
    target.wait_until(
        lambda: len(_ready_pods(target, namespace, "web")) == 3, timeout=120, what="3 ready pods"
    )
    dep = target.get("apps/v1", "Deployment", "web", namespace)
    rs = target.list("apps/v1", "ReplicaSet", namespace, label_selector="app=web")
    assert len(rs) == 1
    assert rs[0]["metadata"]["ownerReferences"][0]["uid"] == dep["metadata"]["uid"]
    for p in _ready_pods(target, namespace, "web"):
        assert p["spec"]["nodeName"]
        assert p["metadata"]["ownerReferences"][0]["uid"] == rs[0]["metadata"]["uid"]
    target.wait_until(
        lambda: (
            target.get("apps/v1", "Deployment", "web", namespace)
            .get("status", {})
            .get("availableReplicas")
            == 3
        ),
        timeout=60,
        what="deployment reports 3 available",
    )


def test_scaling_a_deployment_down_removes_pods(target: Target, namespace: str) -> None:
    """Deployment scaling.

    Scaling a Ready Deployment from 3 to 1 replica MUST leave exactly one pod.
    """
    target.apply(make_deployment("api", namespace, replicas=3).build())
    target.wait_until(
        lambda: len(_ready_pods(target, namespace, "api")) == 3, timeout=120, what="3 ready"
    )
    target.apply(make_deployment("api", namespace, replicas=1).build())

    def one_left() -> bool:
        return len(target.list("v1", "Pod", namespace, label_selector="app=api")) == 1

    target.wait_until(one_left, timeout=120, what="scaled to 1 pod")
    assert len(_ready_pods(target, namespace, "api")) == 1


def test_deleting_a_deployment_removes_its_replicasets_and_pods(
    target: Target, namespace: str
) -> None:
    """Deployment deletion.

    Deleting a Deployment MUST, through the garbage collector, remove its ReplicaSet and
    all of its pods.
    """
    target.apply(make_deployment("tmp", namespace, replicas=2).build())
    target.wait_until(
        lambda: len(_ready_pods(target, namespace, "tmp")) == 2, timeout=120, what="2 ready"
    )
    target.delete("apps/v1", "Deployment", "tmp", namespace)

    def all_gone() -> bool:
        return not target.list(
            "apps/v1", "ReplicaSet", namespace, label_selector="app=tmp"
        ) and not target.list("v1", "Pod", namespace, label_selector="app=tmp")

    target.wait_until(all_gone, timeout=180, what="replicasets and pods collected")


def test_revision_annotation_leaves_the_generation_alone(target: Target, namespace: str) -> None:
    """Deployment revision.

    The controller MUST record the new ReplicaSet's revision in the Deployment's
    ``deployment.kubernetes.io/revision`` annotation through the status subresource, so a
    new Deployment MUST stay at generation 1 and report observedGeneration 1.
    """
    target.apply(make_deployment("rev", namespace, replicas=1).build())

    def settled() -> dict[str, Any] | None:
        dep = target.get("apps/v1", "Deployment", "rev", namespace)
        annotations = dep["metadata"].get("annotations") or {}
        done = annotations.get("deployment.kubernetes.io/revision") == "1" and (
            dep.get("status") or {}
        ).get("observedGeneration")
        return dep if done else None

    target.wait_until(lambda: settled() is not None, timeout=60, what="the revision annotation")
    dep = settled()
    assert dep is not None
    assert dep["metadata"]["generation"] == 1
    assert dep["status"]["observedGeneration"] == 1

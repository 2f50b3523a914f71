"""Builders for scheduling.k8s.io and policy/v1 manifests in the exact 1.37 wire shape."""

from __future__ import annotations

from typing import Any

from reference_impl.api.builders import NodeBuilder, PodBuilder, make_node, make_pod

__all__ = [
    "POOL_KEY",
    "make_pdb",
    "make_pod_group",
    "make_pool_node",
    "make_pool_pod",
    "make_priority_class",
    "make_workload",
]

Obj = dict[str, Any]
SCHEDULING_V1BETA1 = "scheduling.k8s.io/v1beta1"


def _policy(min_count: int | None) -> Obj:
    return {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}


def make_pod_group(
    name: str,
    namespace: str,
    *,
    min_count: int | None = None,
    disruption: str = "",
    topology_key: str = "",
    priority_class: str = "",
    api_version: str = SCHEDULING_V1BETA1,
) -> Obj:
    """A PodGroup: ``gang: {minCount}`` when ``min_count`` is given, else ``basic: {}``."""
    spec: Obj = {"schedulingPolicy": _policy(min_count)}
    if disruption:
        spec["disruptionMode"] = {disruption: {}}
    if topology_key:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "apiVersion": api_version,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def make_workload(name: str, namespace: str, templates: dict[str, int | None]) -> Obj:
    """A Workload with one PodGroupTemplate per ``name -> minCount`` (None = basic)."""
    pgt = [{"name": n, "schedulingPolicy": _policy(m)} for n, m in sorted(templates.items())]
    return {
        "apiVersion": SCHEDULING_V1BETA1,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"podGroupTemplates": pgt},
    }


def make_priority_class(
    name: str, value: int, *, global_default: bool = False, preemption_policy: str = ""
) -> Obj:
    """A scheduling.k8s.io/v1 PriorityClass."""
    pc: Obj = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if global_default:
        pc["globalDefault"] = True
    if preemption_policy:
        pc["preemptionPolicy"] = preemption_policy
    return pc


def make_pdb(
    name: str,
    namespace: str,
    labels: dict[str, str],
    *,
    min_available: int | str | None = None,
    max_unavailable: int | str | None = None,
) -> Obj:
    """A policy/v1 PodDisruptionBudget selecting ``labels``."""
    spec: Obj = {"selector": {"matchLabels": dict(labels)}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


POOL_KEY = "garhwal.dev/sched-pool"


def make_pool_pod(name: str, namespace: str, cpu: str = "1") -> PodBuilder:
    """A pod that runs only on the nodes of pool ``namespace`` (label + taint ``POOL_KEY``)."""
    return (
        make_pod(name, namespace)
        .req(cpu=cpu)
        .node_selector(**{POOL_KEY: namespace})
        .toleration(POOL_KEY, "Equal", namespace, "NoSchedule")
    )


def make_pool_node(
    name: str, namespace: str, cpu: str = "8", memory: str = "16Gi", pods: str = "10"
) -> NodeBuilder:
    """A node only pool ``namespace``'s pods use (label + taint ``POOL_KEY``; see make_pool_pod)."""
    return (
        make_node(name)
        .capacity(cpu=cpu, memory=memory, pods=pods)
        .label(POOL_KEY, namespace)
        .taint(POOL_KEY, "NoSchedule", namespace)
    )

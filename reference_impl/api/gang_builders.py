"""Builders for CompositePodGroup hierarchies and gang-scheduled Jobs (1.37 wire shape)."""

from __future__ import annotations

from typing import Any

from reference_impl.api.builders import PodBuilder, make_job
from reference_impl.api.scheduling_builders import make_pod_group

__all__ = [
    "make_child_pod_group",
    "make_composite_pod_group",
    "make_composite_workload",
    "make_gang_job",
]

Obj = dict[str, Any]
SCHEDULING_V1ALPHA3 = "scheduling.k8s.io/v1alpha3"


def make_composite_workload(name: str, namespace: str, template: str = "root") -> Obj:
    """A v1alpha3 Workload with one CompositePodGroupTemplate holding one gang template."""
    return {
        "apiVersion": SCHEDULING_V1ALPHA3,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "compositePodGroupTemplates": [
                {
                    "name": template,
                    "schedulingPolicy": {"gang": {"minGroupCount": 1}},
                    "podGroupTemplates": [
                        {"name": "member", "schedulingPolicy": {"gang": {"minCount": 1}}}
                    ],
                }
            ]
        },
    }


def make_composite_pod_group(
    name: str,
    namespace: str,
    *,
    min_group_count: int | None = None,
    parent: str = "",
    workload: str = "wl",
    template: str = "root",
) -> Obj:
    """A CompositePodGroup: ``gang: {minGroupCount}`` when given, else ``basic: {}``."""
    policy: Obj = (
        {"basic": {}} if min_group_count is None else {"gang": {"minGroupCount": min_group_count}}
    )
    spec: Obj = {
        "schedulingPolicy": policy,
        "workloadRef": {"workloadName": workload, "templateName": template},
    }
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {
        "apiVersion": SCHEDULING_V1ALPHA3,
        "kind": "CompositePodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def make_child_pod_group(
    name: str, namespace: str, parent: str, min_count: int, workload: str = "wl"
) -> Obj:
    """A gang PodGroup whose parent is the CompositePodGroup ``parent`` (a child needs a
    workloadRef)."""
    pg = make_pod_group(name, namespace, min_count=min_count)
    pg["spec"]["parentCompositePodGroupName"] = parent
    pg["spec"]["workloadRef"] = {"workloadName": workload, "templateName": "member"}
    return pg


def make_gang_job(
    name: str,
    namespace: str,
    pod: PodBuilder,
    *,
    parallelism: int,
    min_count: int | None = None,
    disruption: str = "",
    topology_key: str = "",
    basic: bool = False,
) -> Obj:
    """A batch/v1 Job with ``spec.scheduling`` (gang unless ``basic``; minCount optional)."""
    gang: Obj = {} if min_count is None else {"minCount": min_count}
    sched: Obj = {"schedulingPolicy": {"basic": {}} if basic else {"gang": gang}}
    if disruption:
        sched["disruptionMode"] = {disruption: {}}
    if topology_key:
        sched["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    job = make_job(name, namespace, completions=parallelism, parallelism=parallelism, pod=pod)
    out = job.build()
    out["spec"]["scheduling"] = sched
    return out

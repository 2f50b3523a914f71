"""job_controller_test.go ``TestSyncJobPodSchedulingGroup`` (v1.37.2), row by row: the
Job controller's pods name the Job's PodGroup and get a plain ownerRef to it.

Runs the reference Job controller alone on a real APIServer (no kubelet, no scheduler),
so each row is one round of pod creation. The seeded Workload and PodGroup carry a gang
policy equal to the Job's (upstream's fixtures leave it empty, which only its fake client
accepts); the rows assert names, ownerRefs and creation counts, which it does not touch.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.job.controller import JobController
from reference_impl.controllers.job_workload import (
    SCHEDULING_API,
    pod_group_name,
    template_name,
    workload_name,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"


def gang_job(name: str, parallelism: int, suspend: bool = False, group: str = "") -> Obj:
    """``newGangSchedulingJob`` with backoffLimit 6 (the selector is generated)."""
    spec: Obj = {"containers": [{"name": "c", "image": "test"}], "restartPolicy": "Never"}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    job: Obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "completionMode": "Indexed",
            "backoffLimit": 6,
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": parallelism}}},
            "template": {"spec": spec},
        },
    }
    if suspend:
        job["spec"]["suspend"] = True
    return job


def basic_job() -> Obj:
    """``newJob(2, 5, 6, NonIndexed)``: no spec.scheduling."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "foobar", "namespace": NS},
        "spec": {
            "parallelism": 2,
            "completions": 5,
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "template": {
                "spec": {
                    "containers": [{"name": "c", "image": "test"}],
                    "restartPolicy": "Never",
                }
            },
        },
    }


def _job_ref(job: Obj) -> Obj:
    meta = job["metadata"]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def make_workload(job: Obj) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {
            "name": workload_name(job),
            "namespace": NS,
            "ownerReferences": [_job_ref(job)],
        },
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": job["metadata"]["name"]},
            "podGroupTemplates": [
                {"name": template_name(job), "schedulingPolicy": {"gang": {"minCount": 4}}}
            ],
        },
    }


def make_pod_group(job: Obj, wl: Obj) -> Obj:
    tpl = template_name(job)
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": pod_group_name(wl["metadata"]["name"], tpl),
            "namespace": NS,
            "ownerReferences": [_job_ref(job)],
        },
        "spec": {
            "workloadRef": {"workloadName": wl["metadata"]["name"], "templateName": tpl},
            "schedulingPolicy": {"gang": {"minCount": 4}},
        },
    }


@pytest.mark.parametrize(
    ("row", "gate", "seed", "want_group", "want_pg_owner", "want_creations"),
    [
        pytest.param(
            gang_job("test-job", 4), True, True, "<pg>", True, 4,
            id="gang-eligible job with PodGroup: pods get schedulingGroup and ownerRef",
        ),
        pytest.param(
            basic_job(), True, False, "<pg>", True, 2,
            id="basic job: Workload/PodGroup materialized and pods get schedulingGroup",
        ),
        pytest.param(
            gang_job("opt-out-job", 4, group="external-pg"), True, False, "external-pg", False, 4,
            id="job with pre-existing schedulingGroup: preserved without PodGroup ownerRef",
        ),
        pytest.param(
            gang_job("suspended-job", 4, suspend=True), True, True, "", False, 0,
            id="suspended gang-eligible job: discovers scheduling objects but creates no pods",
        ),
        pytest.param(
            gang_job("gang-job", 4), False, False, "", False, 4,
            id="feature gate disabled: gang-eligible job creates pods without scheduling objects",
        ),
    ],
)  # fmt: skip
def test_sync_job_pod_scheduling_group(
    row: Obj, gate: bool, seed: bool, want_group: str, want_pg_owner: bool, want_creations: int
) -> None:
    clock, rng = SimClock(), Rng(1)
    gates = FeatureGates({"GenericWorkload": gate, "WorkloadWithJob": gate})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    server.create(make_namespace(NS).build())
    job = server.create(row)
    pg_name = ""
    if seed:
        wl = server.create(make_workload(job))
        pg_name = server.create(make_pod_group(job, wl))["metadata"]["name"]
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, gates, Trace(clock))
    JobController(ctx).start()
    clock.settle()
    if want_group == "<pg>":
        found = server.list(SCHEDULING_API, "PodGroup", NS)
        assert len(found) == 1
        pg = found[0]
        want_group = pg["metadata"]["name"]
        assert not pg_name or want_group == pg_name
        assert want_group == pod_group_name(workload_name(job), template_name(job))
    pods = server.list("v1", "Pod", NS)
    assert len(pods) == want_creations
    for pod in pods:
        group = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName", "")
        assert group == want_group
        pg_refs = [r for r in pod["metadata"].get("ownerReferences") or [] if r["kind"] == "PodGroup"]
        assert bool(pg_refs) is want_pg_owner
        if want_pg_owner:
            pg = server.get(SCHEDULING_API, "PodGroup", want_group, NS)
            assert pg_refs == [
                {
                    "apiVersion": SCHEDULING_API,
                    "kind": "PodGroup",
                    "name": want_group,
                    "uid": pg["metadata"]["uid"],
                }
            ]


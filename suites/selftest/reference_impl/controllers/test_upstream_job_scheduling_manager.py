"""pkg/controller/job/job_scheduling_manager_test.go (v1.37.2), every table row by row,
against ``reference_impl/controllers/job_workload.py``.

Like upstream, the manager runs against a fake client (``FakeClient`` below: an object
tracker with no validation or defaulting, as ``fake.NewClientset``), so upstream's seeded
objects go in unchanged. The job_controller_test.go rows of ``TestSyncJobPodSchedulingGroup``
live in ``test_upstream_job_pod_scheduling_group.py``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.controllers.job_workload import (
    GROUP_TEMPLATE_NAME_ANNOTATION,
    MANAGE_BOTH,
    MANAGE_NONE,
    MANAGE_POD_GROUP_ONLY,
    SCHEDULING_API,
    SchedulingObjectsError,
    ensure_workload_and_pod_group,
    generate_workload,
    management_mode,
    new_pod_group,
    pod_group_name,
    should_manage_workload,
    sync_gang_min_count,
    template_name,
    workload_name,
)
from reference_impl.errors import AlreadyExists, ApiError, NotFound

Obj = dict[str, Any]
NS = "default"


class FakeClient:
    """``fake.NewClientset``: stores objects as given; ``fail_create`` maps a kind to the
    error its create reactor returns."""

    def __init__(self, *objs: Obj) -> None:
        self.objects: dict[tuple[str, str, str], Obj] = {}
        self.fail_create: dict[str, str] = {}
        self.created: list[Obj] = []
        self.updated: list[Obj] = []
        for o in objs:
            self._put(o)

    def _key(self, kind: str, ns: str | None, name: str) -> tuple[str, str, str]:
        return (kind, ns or "", name)

    def _put(self, obj: Obj) -> None:
        meta = obj["metadata"]
        self.objects[self._key(obj["kind"], meta.get("namespace"), meta["name"])] = copy.deepcopy(obj)

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[Obj]:
        return [
            copy.deepcopy(o)
            for (k, ns, _), o in sorted(self.objects.items())
            if k == kind and (namespace is None or ns == namespace)
        ]

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        obj = self.objects.get(self._key(kind, namespace, name))
        if obj is None:
            raise NotFound(f'{kind} "{name}" not found')
        return copy.deepcopy(obj)

    def create(self, manifest: Obj) -> Obj:
        kind, meta = manifest["kind"], manifest["metadata"]
        if kind in self.fail_create:
            raise ApiError(self.fail_create[kind])
        if self._key(kind, meta.get("namespace"), meta["name"]) in self.objects:
            raise AlreadyExists(f'{kind} "{meta["name"]}" already exists')
        self._put(manifest)
        self.created.append(copy.deepcopy(manifest))
        return copy.deepcopy(manifest)

    def update(self, manifest: Obj) -> Obj:
        self.get(manifest["apiVersion"], manifest["kind"], manifest["metadata"]["name"], NS)
        self._put(manifest)
        self.updated.append(copy.deepcopy(manifest))
        return copy.deepcopy(manifest)


# -- upstream's fixtures --------------------------------------------------------------


def new_gang_scheduling_job(name: str, parallelism: int) -> Obj:
    """``newGangSchedulingJob``: Indexed, gang minCount = parallelism."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS, "uid": f"{name}-uid"},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "completionMode": "Indexed",
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": parallelism}}},
            "selector": {"matchLabels": {"job-name": name}},
            "template": {
                "metadata": {"labels": {"job-name": name}},
                "spec": {"containers": [{"image": "test"}]},
            },
        },
    }


def job_controller_ref(job: Obj) -> Obj:
    """``metav1.NewControllerRef(job, controllerKind)``."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": job["metadata"]["name"],
        "uid": job["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def workload_job_controller_ref(job_name: str) -> Obj:
    """``newWorkloadJobControllerRef``."""
    return {"apiGroup": "batch", "kind": "Job", "name": job_name}


def _job(spec: Obj | None = None, meta: Obj | None = None) -> Obj:
    return {"metadata": {"name": "j", "namespace": NS, **(meta or {})}, "spec": spec or {}}


# -- TestShouldManageWorkloadForJob ---------------------------------------------------

_PARENT = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "controller": True}]
_CRON = [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj", "controller": True}]
_DELEGATE = {GROUP_TEMPLATE_NAME_ANNOTATION: "workers"}
_BYO = {"parallelism": 4, "template": {"spec": {"schedulingGroup": {"podGroupName": "existing-pg"}}}}


@pytest.mark.parametrize(
    ("gate", "job", "want"),
    [
        pytest.param(
            True,
            _job({"parallelism": 4}),
            MANAGE_BOTH,
            id="gate enabled, standalone Job -> managed (Universal Representation)",
        ),
        pytest.param(
            True,
            _job({"parallelism": 1}),
            MANAGE_BOTH,
            id="gate enabled, basic single-pod Job -> still managed",
        ),
        pytest.param(
            False, _job({"parallelism": 4}), MANAGE_NONE, id="feature gate disabled -> not managed"
        ),
        pytest.param(
            True,
            _job(_BYO),
            MANAGE_NONE,
            id="BYO PodGroup via pod template schedulingGroup -> not managed",
        ),
        pytest.param(
            True,
            _job(_BYO, {"ownerReferences": _PARENT, "annotations": _DELEGATE}),
            MANAGE_NONE,
            id="BYO schedulingGroup takes precedence over delegation annotation -> not managed",
        ),
        pytest.param(
            True,
            _job({"parallelism": 4}, {"ownerReferences": _PARENT}),
            MANAGE_NONE,
            id="parent-owned Workload without delegation annotation -> not managed",
        ),
        pytest.param(
            True,
            _job({"parallelism": 4}, {"ownerReferences": _PARENT, "annotations": _DELEGATE}),
            MANAGE_POD_GROUP_ONLY,
            id="parent-owned Workload with delegation annotation -> managed (delegated PodGroup)",
        ),
        pytest.param(
            True,
            _job({"parallelism": 4}, {"ownerReferences": _CRON}),
            MANAGE_NONE,
            id="CronJob-owned Job is treated as parent-owned (not managed)",
        ),
    ],
)
def test_should_manage_workload_for_job(gate: bool, job: Obj, want: str) -> None:
    assert management_mode(job, gate) == want
    assert should_manage_workload(job, gate) is (want != MANAGE_NONE)


# -- TestGenerateWorkload -------------------------------------------------------------


def _gw_job(name: str, parallelism: int, scheduling: Obj | None, pcn: str = "") -> Obj:
    spec: Obj = {"parallelism": parallelism}
    if scheduling is not None:
        spec["scheduling"] = scheduling
    if pcn:
        spec["template"] = {"spec": {"priorityClassName": pcn}}
    return {"metadata": {"name": name, "namespace": NS, "uid": f"{name}-uid"}, "spec": spec}


_FULL = {
    "schedulingPolicy": {"gang": {"minCount": 4}},
    "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
    "disruptionMode": {"all": {}},
    "resourceClaims": [{"name": "gpu", "resourceClaimName": "my-claim"}],
}


@pytest.mark.parametrize(
    ("job", "basic", "min_count", "topology_key", "all_disrupt", "claims", "pcn"),
    [
        pytest.param(
            _gw_job("basic-default", 4, None), True, 0, "", False, [], "",
            id="nil scheduling defaults to Basic",
        ),
        pytest.param(
            _gw_job("basic-nil-policy", 4, {}), True, 0, "", False, [], "",
            id="scheduling set but policy nil defaults to Basic",
        ),
        pytest.param(
            _gw_job("basic-explicit", 4, {"schedulingPolicy": {"basic": {}}}),
            True, 0, "", False, [], "",
            id="explicit basic policy",
        ),
        pytest.param(
            _gw_job("gang", 4, {"schedulingPolicy": {"gang": {"minCount": 3}}}),
            False, 3, "", False, [], "",
            id="gang with explicit minCount",
        ),
        pytest.param(
            _gw_job("gang-zero", 4, {"schedulingPolicy": {"gang": {}}}),
            False, 4, "", False, [], "",
            id="gang without minCount defaults to parallelism",
        ),
        pytest.param(
            _gw_job("gang-zero-parallelism", 0, {"schedulingPolicy": {"gang": {}}}),
            False, 1, "", False, [], "",
            id="gang without minCount and zero parallelism clamps to 1",
        ),
        pytest.param(
            _gw_job("full", 4, _FULL), False, 4, "topology.kubernetes.io/zone", True, ["gpu"], "",
            id="gang, topology, disruption, and claims passthrough",
        ),
        pytest.param(
            _gw_job("prio", 4, None, "high-priority"), True, 0, "", False, [], "high-priority",
            id="priorityClassName copied from pod template",
        ),
    ],
)  # fmt: skip
def test_generate_workload(
    job: Obj,
    basic: bool,
    min_count: int,
    topology_key: str,
    all_disrupt: bool,
    claims: list[str],
    pcn: str,
) -> None:
    wl = generate_workload(job)
    tpls = wl["spec"]["podGroupTemplates"]
    assert len(tpls) == 1
    tpl = tpls[0]
    assert tpl["name"] == template_name(job) == f"{job['metadata']['name']}-pgt-0"
    if basic:
        assert tpl["schedulingPolicy"] == {"basic": {}}
    else:
        assert tpl["schedulingPolicy"] == {"gang": {"minCount": min_count}}
    if topology_key:
        assert tpl["schedulingConstraints"] == {"topology": [{"key": topology_key}]}
    if all_disrupt:
        assert tpl["disruptionMode"] == {"all": {}}
    if claims:
        assert [c["name"] for c in tpl["resourceClaims"]] == claims
    assert tpl.get("priorityClassName", "") == pcn
    assert wl["spec"]["controllerRef"] == workload_job_controller_ref(job["metadata"]["name"])


# -- TestComputeWorkloadName ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "uid"),
    [
        pytest.param("my-job", "uid-123", id="short name"),
        pytest.param("a" * 300, "uid-long", id="very long name exceeding DNS limit"),
    ],
)
def test_compute_workload_name(name: str, uid: str) -> None:
    job = {"metadata": {"name": name, "uid": uid}}
    result = workload_name(job)
    assert len(result) <= 253
    assert len(result.split("-")) >= 2
    assert workload_name(job) == result
    assert workload_name({"metadata": {"name": name, "uid": "different-uid"}}) != result


# -- TestComputePodGroupName ----------------------------------------------------------


@pytest.mark.parametrize(
    ("wl", "tpl"),
    [
        pytest.param("my-workload", "my-template", id="short names"),
        pytest.param("w" * 250, "tpl", id="long workload name"),
        pytest.param("wl", "t" * 250, id="long template name"),
        pytest.param("w" * 200, "t" * 200, id="both long names"),
    ],
)
def test_compute_pod_group_name(wl: str, tpl: str) -> None:
    result = pod_group_name(wl, tpl)
    assert len(result) <= 253
    assert len(result.split("-")) >= 3
    assert pod_group_name(wl, tpl) == result
    assert pod_group_name(wl, "other-template") != result


def test_compute_pod_group_name_truncation_preserves_both_parts() -> None:
    result = pod_group_name("w" * 200, "t" * 200)
    prefix = result[: result.rindex("-")]
    assert "www" in prefix and "ttt" in prefix


def test_compute_pod_group_name_short_workload_name_is_not_truncated() -> None:
    assert pod_group_name("wl", "t" * 250).startswith("wl-")


# -- TestEnsureWorkloadAndPodGroup ----------------------------------------------------

BASE_JOB = new_gang_scheduling_job("test-job", 4)
WL_NAME = workload_name(BASE_JOB)
TPL_NAME = "test-job-pgt-0"
PG_NAME = pod_group_name(WL_NAME, TPL_NAME)


def make_workload(name: str, job_name: str) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"{name}-uid",
            "ownerReferences": [job_controller_ref(BASE_JOB)],
        },
        "spec": {
            "controllerRef": workload_job_controller_ref(job_name),
            "podGroupTemplates": [
                {"name": TPL_NAME, "schedulingPolicy": {"gang": {"minCount": 4}}}
            ],
        },
    }


def make_pod_group(name: str, wl_name: str) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"{name}-uid",
            "ownerReferences": [job_controller_ref(BASE_JOB)],
        },
        "spec": {"workloadRef": {"workloadName": wl_name, "templateName": TPL_NAME}},
    }


DELEGATED_JOB = copy.deepcopy(BASE_JOB)
DELEGATED_JOB["metadata"]["ownerReferences"] = [
    {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "name": "parent-js",
        "uid": "parent-js-uid",
        "controller": True,
    }
]
DELEGATED_JOB["metadata"]["annotations"] = {GROUP_TEMPLATE_NAME_ANNOTATION: "workers"}
DELEGATED_PG_NAME = pod_group_name("parent-workload", "workers")


def make_parent_workload(min_count: int) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {"name": "parent-workload", "namespace": NS, "uid": "parent-wl-uid"},
        "spec": {
            "controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "parent-js"},
            "podGroupTemplates": [
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": min_count}}}
            ],
        },
    }


def make_delegated_pod_group(min_count: int) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": DELEGATED_PG_NAME,
            "namespace": NS,
            "uid": "delegated-pg-uid",
            "ownerReferences": [job_controller_ref(DELEGATED_JOB)],
        },
        "spec": {
            "workloadRef": {"workloadName": "parent-workload", "templateName": "workers"},
            "schedulingPolicy": {"gang": {"minCount": min_count}},
        },
    }


def _job_with_status(**status: Any) -> Obj:
    job = copy.deepcopy(BASE_JOB)
    job["status"] = status
    return job


_POD0 = [{"metadata": {"name": "pod-0", "namespace": NS}}]
_BYO_WL = {
    "apiVersion": SCHEDULING_API,
    "kind": "Workload",
    "metadata": {"name": "user-created-workload", "namespace": NS, "uid": "user-wl-uid"},
    "spec": {
        "controllerRef": workload_job_controller_ref("test-job"),
        "podGroupTemplates": [{"name": TPL_NAME, "schedulingPolicy": {"gang": {"minCount": 4}}}],
    },
}
_BYO_PG = {
    "apiVersion": SCHEDULING_API,
    "kind": "PodGroup",
    "metadata": {"name": "external-pg", "namespace": NS, "uid": "ext-pg-uid"},
    "spec": {"workloadRef": {"workloadName": WL_NAME}},
}
_TWO_TEMPLATES = {
    **make_workload(WL_NAME, "test-job"),
    "spec": {
        "controllerRef": workload_job_controller_ref("test-job"),
        "podGroupTemplates": [{"name": "group-a"}, {"name": "group-b"}],
    },
}


class Row:
    """One ``TestEnsureWorkloadAndPodGroup`` row."""

    def __init__(
        self,
        job: Obj,
        pods: list[Obj] | None = None,
        workloads: list[Obj] | None = None,
        pod_groups: list[Obj] | None = None,
        wl_create_error: bool = False,
        pg_create_error: bool = False,
        want_pod_group: bool = False,
        want_name: str = "",
        want_min_count: int | None = None,
        want_err: bool = False,
    ) -> None:
        self.job, self.pods = job, pods or []
        self.objs = [*(workloads or []), *(pod_groups or [])]
        self.wl_create_error, self.pg_create_error = wl_create_error, pg_create_error
        self.want_pod_group, self.want_name = want_pod_group, want_name
        self.want_min_count, self.want_err = want_min_count, want_err


ENSURE_ROWS = [
    pytest.param(
        Row(BASE_JOB, want_pod_group=True, want_name=PG_NAME),
        id="creates both Workload and PodGroup when no pods exist",
    ),
    pytest.param(Row(BASE_JOB, pods=_POD0), id="skips creation when Job has pods but no Workload"),
    pytest.param(
        Row(_job_with_status(startTime="2026-01-01T00:00:00Z")),
        id="skips creation when Job has StartTime set",
    ),
    pytest.param(
        Row(_job_with_status(succeeded=1)), id="skips creation when Job has succeeded pods"
    ),
    pytest.param(Row(_job_with_status(failed=1)), id="skips creation when Job has failed pods"),
    pytest.param(
        Row(_job_with_status(conditions=[{"type": "Suspended", "status": "True"}])),
        id="skips creating Workload/PodGroup when Job was previously suspended",
    ),
    pytest.param(
        Row(
            BASE_JOB,
            workloads=[make_workload(WL_NAME, "test-job")],
            pod_groups=[make_pod_group(PG_NAME, WL_NAME)],
            want_pod_group=True,
            want_name=PG_NAME,
        ),
        id="discovers existing Workload and PodGroup",
    ),
    pytest.param(
        Row(
            BASE_JOB,
            pods=_POD0,
            workloads=[make_workload(WL_NAME, "test-job")],
            pod_groups=[make_pod_group(PG_NAME, WL_NAME)],
            want_pod_group=True,
            want_name=PG_NAME,
        ),
        id="discovers existing objects even when pods exist",
    ),
    pytest.param(
        Row(BASE_JOB, workloads=[make_workload("user-workload", "test-job")], want_pod_group=True),
        id="workload found but no PodGroup creates one",
    ),
    pytest.param(
        Row(BASE_JOB, workloads=[_BYO_WL], want_pod_group=True, want_name=PG_NAME),
        id="BYO Workload (no controller ownerRef) is ignored; controller creates its own",
    ),
    pytest.param(
        Row(
            BASE_JOB,
            workloads=[
                make_workload("workload-1", "test-job"),
                make_workload("workload-2", "test-job"),
            ],
        ),
        id="ambiguous Workloads fall back",
    ),
    pytest.param(
        Row(
            BASE_JOB,
            workloads=[make_workload(WL_NAME, "test-job")],
            pod_groups=[_BYO_PG],
            want_pod_group=True,
            want_name=PG_NAME,
        ),
        id="BYO PodGroup (no controller ownerRef) is ignored; controller creates its own",
    ),
    pytest.param(
        Row(
            BASE_JOB,
            workloads=[make_workload(WL_NAME, "test-job")],
            pod_groups=[make_pod_group("pg-1", WL_NAME), make_pod_group("pg-2", WL_NAME)],
        ),
        id="ambiguous PodGroups fall back",
    ),
    pytest.param(
        Row(BASE_JOB, workloads=[_TWO_TEMPLATES], want_err=True),
        id="unsupported PodGroupTemplate count returns an error",
    ),
    pytest.param(
        Row(BASE_JOB, wl_create_error=True, want_err=True), id="Workload create error propagates"
    ),
    pytest.param(
        Row(
            BASE_JOB,
            workloads=[make_workload(WL_NAME, "test-job")],
            pg_create_error=True,
            want_err=True,
        ),
        id="PodGroup create error propagates",
    ),
    pytest.param(
        Row(
            DELEGATED_JOB,
            workloads=[make_parent_workload(4)],
            want_pod_group=True,
            want_name=DELEGATED_PG_NAME,
            want_min_count=4,
        ),
        id="delegated Job creates the PodGroup from the parent's template",
    ),
    pytest.param(
        Row(
            DELEGATED_JOB,
            workloads=[make_parent_workload(7)],
            pod_groups=[make_delegated_pod_group(4)],
            want_pod_group=True,
            want_name=DELEGATED_PG_NAME,
            want_min_count=7,
        ),
        id="delegated PodGroup follows a parent Workload minCount change",
    ),
    pytest.param(
        Row(
            DELEGATED_JOB,
            workloads=[make_parent_workload(4)],
            pod_groups=[make_delegated_pod_group(4)],
            want_pod_group=True,
            want_name=DELEGATED_PG_NAME,
            want_min_count=4,
        ),
        id="delegated PodGroup already matching the parent template is left unchanged",
    ),
]


@pytest.mark.parametrize("row", ENSURE_ROWS)
def test_ensure_workload_and_pod_group(row: Row) -> None:
    client = FakeClient(*row.objs)
    if row.wl_create_error:
        client.fail_create["Workload"] = "synthetic API error"
    if row.pg_create_error:
        client.fail_create["PodGroup"] = "synthetic PG API error"
    if row.want_err:
        with pytest.raises(ApiError):
            ensure_workload_and_pod_group(client, row.job, row.pods)
        return
    _, pg = ensure_workload_and_pod_group(client, row.job, row.pods)
    if row.want_pod_group:
        assert pg is not None
        if row.want_name:
            assert pg["metadata"]["name"] == row.want_name
    else:
        assert pg is None
        assert client.created == []  # a fallback never creates anything either
    if row.want_min_count is not None:
        got = client.get(SCHEDULING_API, "PodGroup", row.want_name, NS)
        assert got["spec"]["schedulingPolicy"]["gang"]["minCount"] == row.want_min_count


def test_ensure_records_upstream_events_and_errors() -> None:
    """The event reasons/messages of ``createWorkloadForJob`` / ``createPodGroup`` and the
    error text of ``validateWorkloadStructure`` (not asserted by upstream's tables)."""
    events: list[tuple[str, str, str]] = []
    client = FakeClient()
    ensure_workload_and_pod_group(client, BASE_JOB, [], lambda *e: events.append(e))
    assert events == [
        ("Normal", "WorkloadCreated", f"Created Workload {WL_NAME} for Job test-job"),
        ("Normal", "PodGroupCreated", f"Created PodGroup {PG_NAME} for Job test-job"),
    ]
    events.clear()
    failing = FakeClient()
    failing.fail_create["Workload"] = "synthetic API error"
    with pytest.raises(ApiError):
        ensure_workload_and_pod_group(failing, BASE_JOB, [], lambda *e: events.append(e))
    assert events == [
        (
            "Warning",
            "FailedWorkloadCreate",
            "Failed to create Workload for Job test-job: synthetic API error",
        )
    ]
    with pytest.raises(SchedulingObjectsError) as err:
        ensure_workload_and_pod_group(FakeClient(_TWO_TEMPLATES), BASE_JOB, [])
    assert str(err.value) == (
        f"workload default/{WL_NAME} for job default/test-job has 2 PodGroupTemplates, "
        "want exactly 1"
    )


# -- TestCreateWorkloadForJob ---------------------------------------------------------


def test_create_workload_for_job() -> None:
    job = new_gang_scheduling_job("my-job", 8)
    client = FakeClient()
    wl, _ = ensure_workload_and_pod_group(client, job, [])
    assert wl is not None
    assert wl["metadata"]["name"] == workload_name(job)
    assert wl["metadata"]["namespace"] == job["metadata"]["namespace"]
    assert wl["spec"]["controllerRef"] == workload_job_controller_ref("my-job")
    tpls = wl["spec"]["podGroupTemplates"]
    assert len(tpls) == 1
    assert tpls[0]["schedulingPolicy"] == {"gang": {"minCount": 8}}
    owners = wl["metadata"]["ownerReferences"]
    assert len(owners) == 1 and owners[0]["name"] == "my-job"
    assert owners == [job_controller_ref(job)]


# -- TestCreatePodGroup ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("wl_name", "link", "want_owner_refs"),
    [
        pytest.param(
            "root-workload", True, 2, id="root Job links the Workload as a non-controller owner"
        ),
        pytest.param(
            "delegated-workload",
            False,
            1,
            id="delegated Job does not link the parent-owned Workload",
        ),
    ],
)
def test_create_pod_group(wl_name: str, link: bool, want_owner_refs: int) -> None:
    job = new_gang_scheduling_job("my-job", 4)
    tpl = "my-job-pgt-0"
    workload = {
        "metadata": {"name": wl_name, "namespace": NS, "uid": "wl-uid"},
        "spec": {
            "podGroupTemplates": [
                {
                    "name": tpl,
                    "schedulingPolicy": {"gang": {"minCount": 4}},
                    "priorityClassName": "high-priority",
                    "priority": 1000,
                }
            ]
        },
    }
    pg = new_pod_group(job, workload, "", link)
    assert pg["metadata"]["name"] == pod_group_name(wl_name, tpl)
    owners = pg["metadata"]["ownerReferences"]
    assert len(owners) == want_owner_refs
    assert owners[0] == job_controller_ref(job)
    if link:  # a plain owner: neither controller nor blocking the Workload's deletion
        assert owners[1] == {
            "apiVersion": SCHEDULING_API,
            "kind": "Workload",
            "name": wl_name,
            "uid": "wl-uid",
        }
    assert pg["spec"] == {
        "workloadRef": {"workloadName": wl_name, "templateName": tpl},
        "schedulingPolicy": {"gang": {"minCount": 4}},
        "priorityClassName": "high-priority",
        "priority": 1000,
    }


# -- TestSyncGangMinCount -------------------------------------------------------------

SCALE_JOB = new_gang_scheduling_job("scale-job", 5)
SCALE_WL = workload_name(SCALE_JOB)
SCALE_TPL = template_name(SCALE_JOB)
SCALE_PG = pod_group_name(SCALE_WL, SCALE_TPL)


def _scale_wl(min_count: int) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "Workload",
        "metadata": {
            "name": SCALE_WL,
            "namespace": NS,
            "uid": "wl-uid",
            "ownerReferences": [job_controller_ref(SCALE_JOB)],
        },
        "spec": {
            "controllerRef": workload_job_controller_ref("scale-job"),
            "podGroupTemplates": [
                {"name": SCALE_TPL, "schedulingPolicy": {"gang": {"minCount": min_count}}}
            ],
        },
    }


def _scale_pg(min_count: int) -> Obj:
    return {
        "apiVersion": SCHEDULING_API,
        "kind": "PodGroup",
        "metadata": {
            "name": SCALE_PG,
            "namespace": NS,
            "uid": "pg-uid",
            "ownerReferences": [job_controller_ref(SCALE_JOB)],
        },
        "spec": {
            "workloadRef": {"workloadName": SCALE_WL, "templateName": SCALE_TPL},
            "schedulingPolicy": {"gang": {"minCount": min_count}},
        },
    }


@pytest.mark.parametrize(
    ("have", "want"),
    [
        pytest.param(2, 5, id="controller-owned objects are resized to the Job's minCount"),
        pytest.param(5, 5, id="already at desired minCount is left unchanged"),
    ],
)
def test_sync_gang_min_count(have: int, want: int) -> None:
    wl, pg = _scale_wl(have), _scale_pg(have)
    client = FakeClient(wl, pg)
    sync_gang_min_count(client, SCALE_JOB, wl, pg)
    got_wl = client.get(SCHEDULING_API, "Workload", SCALE_WL, NS)
    assert got_wl["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] == want
    got_pg = client.get(SCHEDULING_API, "PodGroup", SCALE_PG, NS)
    assert got_pg["spec"]["schedulingPolicy"]["gang"]["minCount"] == want
    assert len(client.updated) == (0 if have == want else 2)

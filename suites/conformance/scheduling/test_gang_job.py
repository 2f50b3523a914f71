"""Job integration (KEP-5547): ``batch/v1 Job.spec.scheduling`` makes and drives a PodGroup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.priority import add_priority_class
from fixtures.helpers.retry import retry_on_conflict
from reference_impl.api import make_gang_job, make_pool_pod
from reference_impl.errors import Invalid

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-5547"),
    pytest.mark.feature_gates(GenericWorkload=True),
]
SCHED = "scheduling.k8s.io/v1beta1"
Obj = dict[str, Any]
_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.SafeEncodeString's alphabet


def _name_hash(data: str) -> str:
    """Upstream's name suffix: FNV-32a, its decimal digits safe-encoded."""
    h = 0x811C9DC5
    for b in data.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(h))


def _expected_names(job: Obj) -> tuple[str, str]:
    """(Workload, PodGroup) names as job_scheduling_manager.go computes them: the Workload
    hashes the spew dump of the Job's ``types.UID``, the PodGroup hashes both names."""
    name, uid = job["metadata"]["name"], job["metadata"]["uid"]
    wl, tpl = f"{name}-{_name_hash(f'(types.UID){uid}')}", f"{name}-pgt-0"
    return wl, f"{wl}-{tpl}-{_name_hash(wl + tpl)}"


def _owned(target: Target, namespace: str, kind: str, job: str) -> list[Obj]:
    return [
        o
        for o in target.list(SCHED, kind, namespace)
        if any(
            r.get("kind") == "Job" and r.get("name") == job and r.get("controller")
            for r in o["metadata"].get("ownerReferences") or []
        )
    ]


def _pod_group(target: Target, namespace: str, job: str) -> Obj:
    target.wait_until(
        lambda: len(_owned(target, namespace, "PodGroup", job)) == 1,
        timeout=60,
        what=f"the PodGroup of Job {job}",
    )
    return _owned(target, namespace, "PodGroup", job)[0]


def _job_pods(target: Target, namespace: str, job: str) -> list[Obj]:
    return [
        p
        for p in target.list("v1", "Pod", namespace)
        if (p["metadata"].get("labels") or {}).get("batch.kubernetes.io/job-name") == job
    ]


def _bound(target: Target, namespace: str, job: str) -> int:
    return sum(1 for p in _job_pods(target, namespace, job) if p["spec"].get("nodeName"))


def _update_job(target: Target, namespace: str, name: str, mutate: Callable[[Obj], object]) -> Obj:
    """Read, change and write a Job, again on a Conflict (its controller writes status)."""

    def write() -> Obj:
        job = target.get("batch/v1", "Job", name, namespace)
        mutate(job)
        return target.apply(job)

    return retry_on_conflict(write, f"Job {name}")


def _job(namespace: str, name: str, parallelism: int, **kw: Any) -> Obj:
    return make_gang_job(
        name, namespace, make_pool_pod("w", namespace), parallelism=parallelism, **kw
    )


def test_a_job_with_scheduling_gets_a_workload_and_pod_group_it_owns(
    target: Target, namespace: str
) -> None:
    """The Job controller makes the Workload and the PodGroup.

    For a Job ``train`` with ``spec.scheduling`` (gang minCount 2, disruptionMode all) the
    controller MUST create one Workload owned by the Job, named ``train-<hash>`` (FNV-32a of
    the Job's uid as upstream dumps it, safe-encoded), with controllerRef {apiGroup batch,
    kind Job, name train} and one template ``train-pgt-0`` carrying the same policy; and
    one PodGroup owned by the Job, named ``<workload>-train-pgt-0-<hash of both names>``,
    whose workloadRef names that Workload and template and whose spec copies minCount and
    disruptionMode.
    """
    job = target.apply(_job(namespace, "train", 2, min_count=2, disruption="all"))
    want_wl, want_pg = _expected_names(job)
    pg = _pod_group(target, namespace, "train")
    (wl,) = _owned(target, namespace, "Workload", "train")
    wname = wl["metadata"]["name"]
    assert wname == want_wl
    assert pg["metadata"]["name"] == want_pg
    assert wl["spec"]["controllerRef"] == {"apiGroup": "batch", "kind": "Job", "name": "train"}
    (tpl,) = wl["spec"]["podGroupTemplates"]
    assert tpl["name"] == "train-pgt-0"
    assert tpl["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert tpl["disruptionMode"] == {"all": {}}
    assert pg["spec"]["workloadRef"] == {"workloadName": wname, "templateName": "train-pgt-0"}
    assert pg["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert pg["spec"]["disruptionMode"] == {"all": {}}


def test_a_job_without_scheduling_gets_a_basic_pod_group_with_its_priority_class(
    target: Target, namespace: str
) -> None:
    """Every root Job is a workload.

    With WorkloadWithJob on, a Job with no ``spec.scheduling`` and no owner MUST still get
    a Workload and a PodGroup under upstream's names, with ``schedulingPolicy: {basic: {}}``;
    the pod template's ``priorityClassName`` MUST be copied into the template and the
    PodGroup, and its pods MUST name that PodGroup.
    """
    add_priority_class(target, f"{namespace}-batch", 500, namespace)
    pod = make_pool_pod("w", namespace).priority_class(f"{namespace}-batch")
    manifest = make_gang_job("plainjob", namespace, pod, parallelism=2)
    manifest["spec"].pop("scheduling")
    try:
        job = target.apply(manifest)
        _, want_pg = _expected_names(job)
        pg = _pod_group(target, namespace, "plainjob")
        assert pg["metadata"]["name"] == want_pg
        assert pg["spec"]["schedulingPolicy"] == {"basic": {}}
        assert pg["spec"]["priorityClassName"] == f"{namespace}-batch"
        assert pg["spec"]["priority"] == 500
        (wl,) = _owned(target, namespace, "Workload", "plainjob")
        assert wl["spec"]["podGroupTemplates"][0]["priorityClassName"] == f"{namespace}-batch"
        target.wait_until(
            lambda: len(_job_pods(target, namespace, "plainjob")) == 2, timeout=60, what="2 pods"
        )
        groups = {
            (p["spec"].get("schedulingGroup") or {}).get("podGroupName")
            for p in _job_pods(target, namespace, "plainjob")
        }
        assert groups == {want_pg}
    finally:
        target.delete("scheduling.k8s.io/v1", "PriorityClass", f"{namespace}-batch")


def test_job_pods_carry_the_scheduling_group_of_their_pod_group(
    target: Target, namespace: str
) -> None:
    """Pods join the Job's PodGroup.

    Every pod the Job controller creates for a Job with ``spec.scheduling`` MUST carry
    ``spec.schedulingGroup.podGroupName`` equal to the name of the Job's PodGroup.
    """
    target.apply(_job(namespace, "members", 3, min_count=3))
    pg = _pod_group(target, namespace, "members")
    target.wait_until(
        lambda: len(_job_pods(target, namespace, "members")) == 3, timeout=60, what="3 pods"
    )
    groups = {
        (p["spec"].get("schedulingGroup") or {}).get("podGroupName")
        for p in _job_pods(target, namespace, "members")
    }
    assert groups == {pg["metadata"]["name"]}


def test_min_count_defaults_to_parallelism_and_basic_stays_basic(
    target: Target, namespace: str
) -> None:
    """Defaults of the generated PodGroup.

    A Job with ``gang: {}`` and parallelism 3 MUST get a PodGroup with minCount 3 and
    disruptionMode single; a Job with ``basic: {}`` MUST get a PodGroup with
    ``schedulingPolicy: {basic: {}}``.
    """
    target.apply(_job(namespace, "dflt", 3))
    target.apply(_job(namespace, "plain", 2, basic=True))
    pg = _pod_group(target, namespace, "dflt")
    assert pg["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    assert pg["spec"]["disruptionMode"] == {"single": {}}
    assert _pod_group(target, namespace, "plain")["spec"]["schedulingPolicy"] == {"basic": {}}


def test_a_gang_job_binds_no_pod_until_all_of_them_fit(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """A Job's pods are one gang.

    A Job of 3 one-node pods (minCount 3) on 2 free nodes MUST bind no pod; once a third
    node appears all 3 MUST bind.
    """
    pool(cpu="1")
    pool(cpu="1")
    target.apply(_job(namespace, "gang", 3))
    target.wait_until(
        lambda: len(_job_pods(target, namespace, "gang")) == 3, timeout=60, what="3 pods"
    )
    target.apply(make_pool_pod("marker", namespace, "0").build())
    target.wait_until(
        lambda: any(
            p["metadata"]["name"] == "marker" and p["spec"].get("nodeName")
            for p in target.list("v1", "Pod", namespace)
        ),
        timeout=60,
        what="marker bound",
    )
    assert _bound(target, namespace, "gang") == 0
    pool(cpu="1")
    target.wait_until(
        lambda: _bound(target, namespace, "gang") == 3, timeout=180, what="3 pods bound"
    )


def test_changing_min_count_on_the_job_resizes_the_gang_in_place(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """minCount is the one mutable field.

    A Job of 3 pods with minCount 3 on 2 free nodes MUST NOT bind; after
    ``spec.scheduling.schedulingPolicy.gang.minCount`` is lowered to 2 on the same Job
    (same uid), the Job's PodGroup and Workload template MUST show minCount 2 under the
    same names, and 2 pods MUST bind.
    """
    pool(cpu="1")
    pool(cpu="1")
    job = target.apply(_job(namespace, "resize", 3, min_count=3))
    before = _pod_group(target, namespace, "resize")
    target.wait_until(
        lambda: len(_job_pods(target, namespace, "resize")) == 3, timeout=60, what="3 pods"
    )
    assert _bound(target, namespace, "resize") == 0

    def lower(job: Obj) -> None:
        job["spec"]["scheduling"]["schedulingPolicy"]["gang"]["minCount"] = 2

    stored = _update_job(target, namespace, "resize", lower)
    assert stored["metadata"]["uid"] == job["metadata"]["uid"]
    target.wait_until(
        lambda: (
            _pod_group(target, namespace, "resize")["spec"]["schedulingPolicy"]
            == {"gang": {"minCount": 2}}
        ),
        timeout=60,
        what="PodGroup minCount 2",
    )
    after = _pod_group(target, namespace, "resize")
    assert after["metadata"]["uid"] == before["metadata"]["uid"]
    (wl,) = _owned(target, namespace, "Workload", "resize")
    assert wl["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    target.wait_until(
        lambda: _bound(target, namespace, "resize") == 2, timeout=180, what="2 pods bound"
    )


def test_job_scheduling_is_immutable_but_for_min_count(target: Target, namespace: str) -> None:
    """Job.spec.scheduling validation.

    A Job with minCount 0 MUST be rejected on
    spec.scheduling.schedulingPolicy.gang.minCount; on an existing Job, changing
    disruptionMode MUST be rejected on spec.scheduling, and removing spec.scheduling
    MUST be rejected.
    """
    with pytest.raises(Invalid) as e:
        target.apply(_job(namespace, "zero", 2, min_count=0))
    assert "spec.scheduling.schedulingPolicy.gang.minCount" in {c.field for c in e.value.causes}
    target.apply(_job(namespace, "fixed", 2, min_count=2, disruption="single"))

    def switch(job: Obj) -> None:
        job["spec"]["scheduling"]["disruptionMode"] = {"all": {}}

    with pytest.raises(Invalid) as e:
        _update_job(target, namespace, "fixed", switch)
    assert any(c.field.startswith("spec.scheduling") for c in e.value.causes)
    with pytest.raises(Invalid):
        _update_job(target, namespace, "fixed", lambda job: job["spec"].pop("scheduling"))

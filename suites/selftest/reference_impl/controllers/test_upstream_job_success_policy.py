"""Upstream ``success_policy_test.go`` ``TestMatchSuccessPolicy`` (directly against
``match_success_policy``) and ``job_controller_test.go`` ``TestSyncJobWithJobSuccessPolicy``
(one sync per row), v1.37.2."""

from __future__ import annotations

from typing import Any

import pytest
from job_sync_harness import add_pod, build_sync_harness, conditions, store_job

from reference_impl.controllers.job.success_policy import match_success_policy

Obj = dict[str, Any]
IV = list[tuple[int, int]]


def _rule(indexes: str | None = None, count: int | None = None) -> Obj:
    r: Obj = {}
    if indexes is not None:
        r["succeededIndexes"] = indexes
    if count is not None:
        r["succeededCount"] = count
    return r


def _pol(*rules: Obj) -> Obj:
    return {"rules": list(rules)}


M0 = "Matched rules at index 0"
# name: (successPolicy, completions, succeededIndexes, wantMessage, wantMet)
MATCH_ROWS: dict[str, tuple[Obj | None, int, IV, str, bool]] = {
    "successPolicy is null": (None, 10, [(0, 0)], "", False),
    "any rules are nothing": (_pol(), 10, [(0, 0)], "", False),
    "rules.succeededIndexes is invalid format": (_pol(_rule("invalid-form")), 10, [(0, 0)], "", False),
    "rules.succeededIndexes is specified; succeededIndexes matched rules": (
        _pol(_rule("0-2")), 10, [(0, 2), (4, 7)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules": (
        _pol(_rule("3")), 10, [(0, 2)], "", False
    ),
    "rules.succeededCount is specified; succeededIndexes matched rules": (
        _pol(_rule(count=2)), 10, [(0, 2)], M0, True
    ),
    "rules.succeededCount is specified; succeededIndexes didn't match rules": (
        _pol(_rule(count=4)), 10, [(0, 2)], "", False
    ),
    "multiple rules; rules.succeededIndexes is specified; succeededIndexes met one of rules": (
        _pol(_rule("9"), _rule("4,6")), 10, [(0, 2), (4, 7)], "Matched rules at index 1", True
    ),
    "multiple rules; rules.succeededIndexes is specified; succeededIndexes met all rules": (
        _pol(_rule("0,1"), _rule("5")), 10, [(0, 2), (4, 7)], M0, True
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes met all rules": (
        _pol(_rule("3-6", 2)), 10, [(0, 2), (4, 7)], M0, True
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes didn't match rules": (
        _pol(_rule("3-6", 2)), 10, [(0, 2), (6, 7)], "", False
    ),
    "rules.succeededIndexes is specified; succeededIndexes are nothing": (
        _pol(_rule(count=4)), 10, [], "", False
    ),
    "rules.succeededIndexes is specified; succeededIndexes matched rules; rules is proper subset of succeededIndexes": (
        _pol(_rule("2-4,6-8")), 10, [(1, 5), (6, 9)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes matched rules; rules equals succeededIndexes": (
        _pol(_rule("2-4,6-9")), 10, [(2, 4), (6, 9)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes matched rules; rules is subset of succeededIndexes": (
        _pol(_rule("2-4,8-12")), 10, [(2, 5), (7, 15)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules is an empty set": (
        _pol(_rule("")), 10, [(1, 3)], "", False
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; succeededIndexes is an empty set": (
        _pol(_rule("")), 10, [], "", False
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules and succeededIndexes are empty set": (
        _pol(_rule("")), 10, [], "", False
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; all elements of rules.succeededIndexes aren't included in succeededIndexes": (
        _pol(_rule("10-12,14-16")), 10, [(1, 3), (5, 7)], "", False
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps succeededIndexes at first": (
        _pol(_rule("1-3,5-7")), 10, [(2, 4), (6, 8)], "", False
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps succeededIndexes at first": (
        _pol(_rule("1-3,5-7", 4)), 10, [(2, 4), (6, 8)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps succeededIndexes at last": (
        _pol(_rule("2-4,6-9")), 10, [(1, 3), (5, 7)], "", False
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps succeededIndexes at last": (
        _pol(_rule("2-4,6-9", 4)), 10, [(1, 3), (5, 7)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules completely overlaps succeededIndexes": (
        _pol(_rule("0-4,6-9")), 10, [(1, 3), (7, 8)], "", False
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules completely overlaps succeededIndexes": (
        _pol(_rule("0-4,6-9", 5)), 10, [(1, 3), (7, 8)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps multiple succeededIndexes at last": (
        _pol(_rule("0-6,8-9")), 10, [(1, 3), (5, 9)], "", False
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps multiple succeededIndexes at last": (
        _pol(_rule("0-6,8-9", 7)), 10, [(1, 3), (5, 9)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps succeededIndexes at first, and rules equals succeededIndexes at last": (
        _pol(_rule("0-5,7-9")), 10, [(1, 5), (7, 10)], "", False
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules overlaps succeededIndexes at first, and rules equals succeededIndexes at last": (
        _pol(_rule("0-5,7-9", 8)), 10, [(1, 5), (7, 10)], M0, True
    ),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; the first rules overlaps succeededIndexes at first": (
        _pol(_rule("0-3,6-9")), 10, [(1, 10)], "", False
    ),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; the first rules overlaps succeededIndexes at first": (
        _pol(_rule("0-3,6-9", 7)), 10, [(1, 10)], M0, True
    ),
}


@pytest.mark.parametrize(
    ("policy", "completions", "succeeded", "want_msg", "want_met"),
    [pytest.param(*r, id=n) for n, r in MATCH_ROWS.items()],
)
def test_match_success_policy(
    policy: Obj | None, completions: int, succeeded: IV, want_msg: str, want_met: bool
) -> None:
    assert match_success_policy(policy, completions, succeeded) == (want_msg, want_met)


# -- TestSyncJobWithJobSuccessPolicy ------------------------------------------------------

MAX_INT32 = 2147483647
SP_01_1 = _pol(_rule("0,1", 1))
PFP_DISRUPTION = {
    "rules": [
        {"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    ]
}
DISRUPTED = [{"type": "DisruptionTarget", "status": "True"}]
SCM_POLICY = ("SuccessCriteriaMet", "True", "SuccessPolicy", M0)
COMPLETE_POLICY = ("Complete", "True", "SuccessPolicy", M0)
PFP_MSG = "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"
NEEDS_R = "needs podFailurePolicy/backoffLimitPerIndex (helper R's port)"


def _spec(par: int, comp: int, backoff: int = MAX_INT32, **extra: Any) -> Obj:
    spec: Obj = {
        "completionMode": "Indexed",
        "parallelism": par,
        "completions": comp,
        "backoffLimit": backoff,
    }
    spec.update(extra)
    return spec


def _cond(t: str, reason: str, msg: str) -> Obj:
    return {"type": t, "status": "True", "reason": reason, "message": msg}


# Pods: (index, phase, pod conditions, index-failure-count or None, tracking finalizer)
Pod = tuple[str, str, list[Obj], str | None, bool]


def _p(ix: str, phase: str, conds: list[Obj] | None = None, ifc: str | None = None, fin: bool = True) -> Pod:
    return (ix, phase, conds or [], ifc, fin)


# name: (spec, initial status, pods, wanted status fields, JobManagedBy)
SYNC_ROWS: dict[str, tuple[Obj, Obj | None, list[Pod], Obj]] = {
    "job with successPolicy; job has SuccessCriteriaMet condition if job meets to successPolicy and some indexes fail": (
        _spec(3, 3, successPolicy=SP_01_1),
        None,
        [_p("0", "Failed"), _p("0", "Running"), _p("1", "Succeeded"), _p("2", "Running")],
        {"failed": 1, "succeeded": 1, "terminating": 2, "completedIndexes": "1", "conditions": [SCM_POLICY]},
    ),
    "job with podFailurePolicy and successPolicy; job has SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet to podFailurePolicy": (
        _spec(2, 2, successPolicy=SP_01_1, podFailurePolicy=PFP_DISRUPTION),
        None,
        [_p("0", "Failed"), _p("0", "Running"), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 1, "completedIndexes": "1", "conditions": [SCM_POLICY]},
    ),
    "job with backoffLimitPerIndex and successPolicy; job has SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet backoffLimitPerIndex": (
        _spec(2, 2, successPolicy=SP_01_1, backoffLimitPerIndex=2),
        None,
        [_p("0", "Failed"), _p("0", "Running"), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 1, "completedIndexes": "1", "failedIndexes": "",
         "conditions": [SCM_POLICY]},
    ),
    "job with successPolicy; job has both Complete and SuccessCriteriaMet condition when job meets to successPolicy and all pods have been already removed": (
        _spec(2, 2, successPolicy=SP_01_1, backoffLimitPerIndex=2),
        {"conditions": [_cond("SuccessCriteriaMet", "SuccessPolicy", M0)]},
        [_p("0", "Failed"), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 0, "completedIndexes": "1", "failedIndexes": "",
         "conditions": [SCM_POLICY, COMPLETE_POLICY]},
    ),
    "job with successPolicy; job has SuccessCriteriaMet condition when job meets to successPolicy and some pods still are running": (
        _spec(3, 3, successPolicy=SP_01_1, backoffLimitPerIndex=3),
        {"conditions": [_cond("SuccessCriteriaMet", "SuccessPolicy", M0)]},
        [_p("0", "Failed"), _p("1", "Running"), _p("1", "Succeeded"), _p("2", "Running")],
        {"failed": 1, "succeeded": 1, "terminating": 2, "completedIndexes": "1", "failedIndexes": "",
         "conditions": [SCM_POLICY]},
    ),
    "job with successPolicy; JobManagedBy feature enabled; job has SuccessCriteriaMet condition when job meets to successPolicy and some pods still are running": (
        _spec(3, 3, successPolicy=SP_01_1, backoffLimitPerIndex=3),
        {"conditions": [_cond("SuccessCriteriaMet", "SuccessPolicy", M0)]},
        [_p("0", "Failed"), _p("1", "Running"), _p("1", "Succeeded"), _p("2", "Running")],
        {"failed": 1, "succeeded": 1, "terminating": 2, "completedIndexes": "1", "failedIndexes": "",
         "conditions": [SCM_POLICY]},
    ),
    "job with successPolicy and podFailurePolicy; job has a failed condition when job meets to both successPolicy and podFailurePolicy": (
        _spec(2, 2, successPolicy=SP_01_1, podFailurePolicy=PFP_DISRUPTION),
        None,
        [_p("0", "Failed", DISRUPTED), _p("0", "Running"), _p("1", "Succeeded")],
        {"failed": 2, "succeeded": 1, "terminating": 1, "completedIndexes": "1",
         "conditions": [("FailureTarget", "True", "PodFailurePolicy", PFP_MSG)]},
    ),
    "job with successPolicy and backoffLimitPerIndex; job has a failed condition when job meets to both successPolicy and backoffLimitPerIndex": (
        _spec(2, 2, successPolicy=SP_01_1, backoffLimitPerIndex=1),
        None,
        [_p("0", "Failed", ifc="1"), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 0, "completedIndexes": "1", "failedIndexes": "0",
         "conditions": [("FailureTarget", "True", "FailedIndexes", "Job has failed indexes"),
                        ("Failed", "True", "FailedIndexes", "Job has failed indexes")]},
    ),
    "job with successPolicy and backoffLimit; job has a failed condition when job meets to both successPolicy and backoffLimit": (
        _spec(2, 2, 1, successPolicy=SP_01_1),
        None,
        [_p("0", "Failed"), _p("0", "Failed"), _p("1", "Succeeded")],
        {"failed": 2, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
                        ("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")]},
    ),
    "job with successPolicy and podFailurePolicy; job with SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meets podFailurePolicy": (
        _spec(2, 2, successPolicy=_pol(_rule(count=1)), podFailurePolicy=PFP_DISRUPTION),
        {"failed": 0, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [_cond("SuccessCriteriaMet", "SuccessPolicy", M0)]},
        [_p("0", "Failed", DISRUPTED), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [SCM_POLICY, COMPLETE_POLICY]},
    ),
    "job with successPolicy and backoffLimitPerIndex; job with SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meet backoffLimitPerIndex": (
        _spec(2, 2, successPolicy=_pol(_rule("1")), backoffLimitPerIndex=1),
        {"failed": 0, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [_cond("SuccessCriteriaMet", "SuccessPolicy", M0)]},
        [_p("0", "Failed", ifc="1"), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 0, "completedIndexes": "1", "failedIndexes": "0",
         "conditions": [SCM_POLICY, COMPLETE_POLICY]},
    ),
    "job with successPolicy and backoffLimit; job with SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meets backoffLimit": (
        _spec(2, 2, 1, successPolicy=SP_01_1),
        {"failed": 0, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [_cond("SuccessCriteriaMet", "SuccessPolicy", M0)]},
        [_p("0", "Failed"), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [SCM_POLICY, COMPLETE_POLICY]},
    ),
    "job with successPolicy and podFailureTarget; job with FailureTarget has never been transitioned to SuccessCriteriaMet even if job meets successPolicy": (
        _spec(2, 2, successPolicy=SP_01_1, podFailurePolicy=PFP_DISRUPTION),
        {"failed": 1, "succeeded": 0, "terminating": 0, "completedIndexes": "1",
         "conditions": [_cond("FailureTarget", "PodFailurePolicy", PFP_MSG)]},
        [_p("0", "Failed", DISRUPTED, fin=False), _p("1", "Succeeded")],
        {"failed": 1, "succeeded": 1, "terminating": 0, "completedIndexes": "1",
         "conditions": [("FailureTarget", "True", "PodFailurePolicy", PFP_MSG),
                        ("Failed", "True", "PodFailurePolicy", PFP_MSG)]},
    ),
    "job without successPolicy; job got SuccessCriteriaMet and Completion with CompletionsReached reason conditions": (
        _spec(1, 1),
        None,
        [_p("0", "Succeeded")],
        {"failed": 0, "succeeded": 1, "terminating": 0, "completedIndexes": "0",
         "conditions": [("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
                        ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")]},
    ),
}


@pytest.mark.parametrize(
    ("spec", "initial", "pods", "want"), [pytest.param(*r, id=n) for n, r in SYNC_ROWS.items()]
)
def test_sync_job_with_job_success_policy(
    spec: Obj, initial: Obj | None, pods: list[Pod], want: Obj
) -> None:
    h = build_sync_harness()
    full = {
        "selector": {"matchLabels": {"foo": "bar"}},
        "manualSelector": True,
        "template": {
            "metadata": {"labels": {"foo": "bar"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foobar"}]},
        },
        **spec,
    }
    status = None
    if initial is not None:
        status = dict(initial)
        status["conditions"] = [
            {**c, "lastProbeTime": h.now(), "lastTransitionTime": h.now()} for c in initial["conditions"]
        ]
        status["uncountedTerminatedPods"] = {}
    job = store_job(
        h, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "foobar", "namespace": "default"}, "spec": full},
        status,
    )
    for n, (ix, phase, conds, ifc, fin) in enumerate(pods):
        ann = {} if ifc is None else {"batch.kubernetes.io/job-index-failure-count": ifc}
        add_pod(
            h, job, phase, index=ix, annotations=ann, name=f"mypod-{n}", pod_conditions=conds,
            finalizer=fin,
        )

    assert h.sync() is None

    got = h.job()["status"]
    assert got.get("active", 0) == 0
    assert got.get("failed", 0) == want["failed"]
    assert got.get("succeeded", 0) == want["succeeded"]
    assert got.get("terminating") == want["terminating"]
    assert got.get("completedIndexes", "") == want["completedIndexes"]
    assert got.get("failedIndexes") == want.get("failedIndexes")
    assert got.get("uncountedTerminatedPods") == {}
    assert conditions(got) == want["conditions"]


def test_success_policy_end_to_end() -> None:
    """Through the whole control plane (apiserver validation, kubelet): two of three
    indexes succeed, the rule ``succeededCount: 2`` matches, and the Job completes with
    reason SuccessPolicy without ever starting index 2."""
    from controller_harness import build_harness

    from reference_impl.api import condition, make_job, make_pod

    h = build_harness()
    pod_b = make_pod("x").annotation("garhwal.dev/run-seconds", "2")
    b = (
        make_job("sp", "default", completions=3, parallelism=2, pod=pod_b)
        .set("spec.completionMode", "Indexed")
        .set("spec.successPolicy", {"rules": [{"succeededCount": 2}]})
    )
    h.create(b.build())

    def job() -> Obj:
        j = h.get("batch/v1", "Job", "sp")
        assert j is not None
        return j

    h.run_until(lambda: (condition(job(), "Complete") or {}).get("status") == "True")
    s = job()["status"]
    assert conditions(s) == [SCM_POLICY, COMPLETE_POLICY]
    assert s["completedIndexes"] == "0,1" and s["succeeded"] == 2
    created = sorted(
        p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        for p in h.pods(selector="app=sp")
    )
    assert created == ["0", "1"]

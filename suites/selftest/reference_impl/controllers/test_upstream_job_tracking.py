"""Upstream ``job_controller_test.go`` ``TestTrackJobStatusAndRemoveFinalizers`` (the
status writes, in order, and the finalizers removed) and ``TestGetNewFinshedPods``,
v1.37.2, against ``JobStatusWriter.track`` and ``JobController.newly_finished``.

Pods are named after upstream's uids (``uid("a")`` is pod ``a``); the uid lists in
``uncountedTerminatedPods`` are compared as sorted names, as their order is only the
pod lister's.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from job_sync_harness import SyncHarness, add_pod, build_sync_harness, store_job

from reference_impl.controllers.controller_utils import is_pod_active
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job import per_index as pi
from reference_impl.controllers.job.indexed_job_utils import parse_intervals, with_ordered_indexes
from reference_impl.controllers.job.status import count_terminating
from reference_impl.controllers.job.sync_ctx import SyncCtx
from reference_impl.errors import ServiceUnavailable

Obj = dict[str, Any]

# A pod: (name or "" for unnamed, phase, tracking finalizer, deletionTimestamp, index, failure count)
P = tuple[str, str, bool, bool, str | None, str | None]


def pod(name: str, phase: str, fin: bool = False, deleted: bool = False,
        index: str | None = None, ifc: str | None = None) -> P:
    return (name, phase, fin, deleted, index, ifc)


def W(active: int = 0, succeeded: int = 0, failed: int = 0, us: tuple[str, ...] = (),
      uf: tuple[str, ...] = (), completed: str = "", failed_indexes: str | None = None,
      conds: tuple[tuple[str, str], ...] = (), completion_time: bool = False) -> Obj:
    """One expected status write; conditions as (type, status) with empty reason/message."""
    return {
        "active": active, "succeeded": succeeded, "failed": failed,
        "uncounted": (sorted(us), sorted(uf)), "completedIndexes": completed,
        "failedIndexes": failed_indexes,
        "conditions": [(t, s, "", "") for t, s in conds],
        "completionTime": completion_time,
    }


def _norm(st: Obj, names: dict[str, str]) -> Obj:
    u = st.get("uncountedTerminatedPods") or {}
    return {
        "active": st.get("active", 0), "succeeded": st.get("succeeded", 0),
        "failed": st.get("failed", 0),
        "uncounted": (sorted(names[x] for x in u.get("succeeded") or []),
                      sorted(names[x] for x in u.get("failed") or [])),
        "completedIndexes": st.get("completedIndexes", ""),
        "failedIndexes": st.get("failedIndexes"),
        "conditions": [(c["type"], c["status"], c.get("reason", ""), c.get("message", ""))
                       for c in st.get("conditions") or []],
        "completionTime": bool(st.get("completionTime")),
    }


SCM = ("SuccessCriteriaMet", "True")
COMPLETE = ("Complete", "True")
FT = ("FailureTarget", "True")
FAILED = ("Failed", "True")
_FAILED_NO_TARGET = (
    "Failed without a recorded FailureTarget: the apiserver refuses that status "
    "(reference strategy, as upstream's), and the reference always records the interim "
    "condition first"
)
_COMPLETE_NO_SCM = (
    "Complete without a recorded SuccessCriteriaMet: the apiserver refuses that status, and "
    "the reference always records the interim condition first"
)
class Row:
    def __init__(
        self, pods: list[P], want: list[Obj], rm: int = 0, *, status: Obj | None = None,
        flush: Obj | None = None, spec: Obj | None = None, finished: str | None = None,
        deleting: bool = False, status_err: bool = False, pod_err: bool = False,
        expected_rm: tuple[str, ...] = (),
    ) -> None:
        self.expected_rm = expected_rm  # expectedRmFinalizers, by pod name
        self.pods, self.want, self.rm, self.status, self.flush = pods, want, rm, status, flush
        self.spec, self.finished, self.deleting = spec or {}, finished, deleting
        self.status_err, self.pod_err = status_err, pod_err


IDX6 = {"completionMode": "Indexed", "completions": 6}

ROWS: dict[str, Row | str] = {
    "no updates": Row([], []),
    "new active": Row([], [W(active=1)], flush={"active": 1}),
    "track finished pods": Row(
        [pod("a", "Succeeded", True), pod("b", "Failed", True), pod("c", "Succeeded", True, True),
         pod("d", "Failed", True, True), pod("e", "Pending", True, True), pod("", "Pending", True),
         pod("", "Running", True)],
        [W(us=("a", "c"), uf=("b", "d", "e")), W(succeeded=2, failed=3)],
        5,
    ),
    "past and new finished pods": Row(
        [pod("e", "Succeeded"), pod("", "Failed"), pod("", "Pending"), pod("a", "Succeeded", True),
         pod("b", "Failed", True), pod("c", "Succeeded", True), pod("d", "Failed", True)],
        [W(active=1, succeeded=3, failed=4, us=("a", "c"), uf=("b", "d")),
         W(active=1, succeeded=5, failed=6)],
        4,
        status={"active": 1, "succeeded": 2, "failed": 3,
                "uncountedTerminatedPods": {"succeeded": ["a", "e"], "failed": ["b", "f"]}},
    ),
    "expecting removed finalizers": Row(
        [pod("a", "Succeeded", True), pod("b", "Failed", True), pod("c", "Succeeded", True),
         pod("d", "Failed", True), pod("e", "Succeeded", True), pod("f", "Failed", True),
         pod("g", "Succeeded", True), pod("h", "Failed", True)],
        [W(succeeded=3, failed=4, us=("a", "e"), uf=("b", "f")), W(succeeded=5, failed=6)],
        4,
        status={"succeeded": 2, "failed": 3,
                "uncountedTerminatedPods": {"succeeded": ["a", "g"], "failed": ["b", "h"]}},
        expected_rm=("c", "d", "g", "h"),
    ),
    "succeeding job by JobSuccessPolicy": Row(
        [pod("a", "Succeeded", True), pod("b", "Failed", True), pod("c", "Pending", True)],
        [W(us=("a",), uf=("b",), conds=(SCM,)),
         W(succeeded=1, failed=1, conds=(SCM, COMPLETE), completion_time=True)],
        3,
        finished="success",
    ),
    "completing job": _COMPLETE_NO_SCM,
    "failing job": _FAILED_NO_TARGET,
    "deleted job": Row(
        [pod("a", "Succeeded", True), pod("b", "Failed", True), pod("", "Running", True)],
        [W(active=1, us=("a",), uf=("b",)), W(active=1, succeeded=1, failed=1)],
        3,
        status={"active": 1},
        deleting=True,
    ),
    "status update error": Row(
        [pod("a", "Succeeded", True), pod("b", "Failed", True)],
        [W(us=("a",), uf=("b",))],
        0,
        status_err=True,
    ),
    "pod patch errors": Row(
        [pod("a", "Succeeded", True), pod("b", "Failed", True)],
        [W(us=("a",), uf=("b",))],
        2,
        pod_err=True,
    ),
    "pod patch errors with partial success": Row(
        [pod("a", "Succeeded"), pod("c", "Succeeded", True), pod("d", "Failed", True)],
        [W(succeeded=1, failed=1, us=("c",), uf=("d",))],
        2,
        status={"uncountedTerminatedPods": {"succeeded": ["a"], "failed": ["b"]}},
        pod_err=True,
    ),
    "indexed job new successful pods": Row(
        [pod("", "Succeeded", True, index="1"), pod("", "Succeeded", True, index="3"),
         pod("", "Succeeded", True, index="3"), pod("", "Running", True, index="5"),
         pod("", "Succeeded", True)],
        [W(active=1, succeeded=2, completed="1,3")],
        4,
        spec=IDX6,
        status={"active": 1},
    ),
    "indexed job prev successful pods outside current completions index range with no new succeeded pods": Row(
        [pod("", "Running", True, index="0"), pod("", "Running", True, index="1")],
        [W(active=2, succeeded=0, completed="")],
        0,
        spec={"completionMode": "Indexed", "completions": 2, "parallelism": 2},
        status={"active": 2, "succeeded": 1, "completedIndexes": "3"},
    ),
    "indexed job prev successful pods outside current completions index range with new succeeded pods in range": Row(
        [pod("", "Running", True, index="0"), pod("", "Succeeded", True, index="1")],
        [W(active=2, succeeded=1, completed="1")],
        1,
        spec={"completionMode": "Indexed", "completions": 2, "parallelism": 2},
        status={"active": 2, "succeeded": 1, "completedIndexes": "3"},
    ),
    "indexed job new failed pods": Row(
        [pod("a", "Failed", True, index="1"), pod("b", "Failed", True, index="3"),
         pod("c", "Failed", True, index="3"), pod("d", "Running", True, index="5"),
         pod("", "Failed", True)],
        [W(active=1, uf=("a", "b", "c")), W(active=1, failed=3)],
        4,
        spec=IDX6,
        status={"active": 1},
    ),
    "indexed job past and new pods": Row(
        [pod("", "Succeeded", index="0"), pod("", "Failed", index="1"),
         pod("", "Succeeded", True, index="1"), pod("", "Succeeded", True, index="3"),
         pod("a", "Failed", True, index="2"), pod("b", "Failed", True, index="5")],
        [W(succeeded=6, failed=2, completed="0-4,6", uf=("a", "b")),
         W(succeeded=6, failed=4, completed="0-4,6")],
        4,
        spec={"completionMode": "Indexed", "completions": 7},
        status={"failed": 2, "succeeded": 5, "completedIndexes": "0-2,4,6,7"},
    ),
    "too many finished": Row(
        [*(pod(str(i), "Succeeded", True) for i in range(500)), pod("b", "Failed", True)],
        [W(failed=1, us=tuple(str(i) for i in range(499)), uf=("b",)),
         W(succeeded=499, failed=1, uf=("b",))],
        499,
        status={"uncountedTerminatedPods": {"failed": ["a", "b"]}},
    ),
    "too many indexed finished": Row(
        [pod(str(i), "Succeeded", True, index=str(i)) for i in range(501)],
        [W(succeeded=500, completed="0-499")],
        500,
        spec={"completionMode": "Indexed", "completions": 501},
    ),
    "pod flips from failed to succeeded": _FAILED_NO_TARGET,
    "pod is terminal; JobFailed condition is set": _FAILED_NO_TARGET,
    "pod is terminating; counted as failed, but the JobFailed condition is delayed": Row(
        [pod("a", "Running", deleted=True)],
        [W(failed=1, conds=(FT,))],
        0,
        spec={"completions": 1, "parallelism": 1},
        status={"uncountedTerminatedPods": {"failed": ["a"]}, "conditions": [FT]},
        finished="failure",
    ),
    "pod is terminating; counted as failed, but the JobFailed condition is delayed; JobManagedBy enabled": Row(
        [pod("a", "Running", deleted=True)],
        [W(failed=1, conds=(FT,))],
        0,
        spec={"completions": 1, "parallelism": 1},
        status={"uncountedTerminatedPods": {"failed": ["a"]}, "conditions": [FT]},
        finished="failure",
    ),
    "pod is terminating; counted as failed, JobFailed condition is not delayed; JobManagedBy disabled": Row(
        [pod("a", "Running", deleted=True)],
        [W(failed=1, conds=(FT,))],
        0,
        spec={"completions": 1, "parallelism": 1},
        status={"uncountedTerminatedPods": {"failed": ["a"]}, "conditions": [FT]},
        finished="failure",
    ),
    "pod is terminating; JobSuccessCriteriaMet, but JobComplete condition is delayed; JobManagedBy disabled": Row(
        [pod("a", "Running", deleted=True)],
        [W(succeeded=1, failed=1, conds=(SCM,))],
        0,
        spec={"completions": 1, "parallelism": 1},
        status={"uncountedTerminatedPods": {"failed": ["a"], "succeeded": ["b"]}, "conditions": [SCM]},
        finished="success",
    ),
    "pod is terminating; JobSuccessCriteriaMet, but JobComplete condition is delayed; JobManagedBy enabled": Row(
        [pod("a", "Running", deleted=True)],
        [W(succeeded=1, failed=1, conds=(SCM,))],
        0,
        spec={"completions": 1, "parallelism": 1},
        status={"uncountedTerminatedPods": {"failed": ["a"], "succeeded": ["b"]}, "conditions": [SCM]},
        finished="success",
    ),
    "pod is terminating; JobSuccessCriteriaMet, JobComplete condition is not delayed; JobManagedBy disabled": Row(
        [pod("a", "Running", deleted=True)],
        [W(succeeded=1, failed=1, conds=(SCM,))],
        0,
        spec={"completions": 1, "parallelism": 1},
        status={"uncountedTerminatedPods": {"failed": ["a"], "succeeded": ["b"]}, "conditions": [SCM]},
        finished="success",
    ),
    "indexed job with a failed pod with delayed finalizer removal; the pod is not counted": Row(
        [pod("a", "Failed", True, index="1", ifc="0")],
        [W(failed_indexes="")],
        0,
        spec={**IDX6, "backoffLimitPerIndex": 1},
    ),
    "indexed job with a failed pod which is recreated by a running pod; the pod is counted": Row(
        [pod("a1", "Failed", True, index="1", ifc="0"), pod("a2", "Running", True, index="1", ifc="1")],
        [W(active=1, uf=("a1",), failed_indexes=""), W(active=1, failed=1, failed_indexes="")],
        1,
        spec={**IDX6, "backoffLimitPerIndex": 1},
        status={"active": 1},
    ),
    "indexed job with a failed pod for a failed index; the pod is counted": Row(
        [pod("a", "Failed", True, index="1", ifc="1")],
        [W(uf=("a",), failed_indexes="1"), W(failed=1, failed_indexes="1")],
        1,
        spec={**IDX6, "backoffLimitPerIndex": 1},
    ),
}


def _params() -> list[Any]:
    out = []
    for name, row in ROWS.items():
        if isinstance(row, str):
            out.append(pytest.param(None, id=name, marks=pytest.mark.skip(reason=row)))
        else:
            out.append(pytest.param(row, id=name))
    return out


def _setup(h: SyncHarness, row: Row) -> tuple[Obj, dict[str, str], dict[str, str]]:
    spec: Obj = {
        "selector": {"matchLabels": {"foo": "bar"}},
        "manualSelector": True,
        "template": {
            "metadata": {"labels": {"foo": "bar"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foo/bar"}]},
        },
        **row.spec,
    }
    # A status with indexes past completions only arises when completions shrank (elastic
    # Indexed Jobs): store it under a larger completions first, then shrink.
    shrink_to = None
    done = (row.status or {}).get("completedIndexes")
    if done and spec.get("completions") is not None:
        top = max(int(x) for x in done.replace("-", ",").split(","))
        if top >= spec["completions"]:
            shrink_to = (spec["completions"], spec.get("parallelism", spec["completions"]))
            spec["completions"] = spec["parallelism"] = top + 1
    job = store_job(
        h, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "foobar", "namespace": "default"},
            "spec": spec},
        deleting=row.deleting,
    )
    uid_of: dict[str, str] = {}
    for n, (name, phase, fin, deleted, ix, ifc) in enumerate(row.pods):
        ann = {} if ifc is None else {"batch.kubernetes.io/job-index-failure-count": ifc}
        p = add_pod(h, job, phase, index=ix, terminating=deleted, finalizer=fin, annotations=ann,
                    name=name or f"unnamed-{n}", statuses=[])
        uid_of[name or f"unnamed-{n}"] = p["metadata"]["uid"]
    # uids in the recorded status that name no stored pod ("f" above) get a uid of their own
    for u in (row.status or {}).get("uncountedTerminatedPods", {}).values():
        for name in u:
            uid_of.setdefault(name, f"gone-{name}")
    status = copy.deepcopy(row.status or {})
    unc = status.get("uncountedTerminatedPods")
    if unc:
        status["uncountedTerminatedPods"] = {k: [uid_of[x] for x in v] for k, v in unc.items()}
    stamp = h.now()
    status["conditions"] = [
        {"type": t, "status": s, "reason": "", "message": "", "lastProbeTime": stamp,
         "lastTransitionTime": stamp}
        for t, s in status.get("conditions", [])
    ]
    if not status["conditions"]:
        del status["conditions"]
    status["startTime"] = stamp  # a sync sets it before tracking; finished Jobs need it
    job = h.server.update_status({**h.job(), "status": status})
    if shrink_to is not None:
        job = copy.deepcopy(job)
        job["spec"]["completions"], job["spec"]["parallelism"] = shrink_to
        job = h.server.update(job)
    return job, uid_of, {v: k for k, v in uid_of.items()}


@pytest.mark.parametrize("row", _params())
def test_track_job_status_and_remove_finalizers(row: Row) -> None:
    h = build_sync_harness()
    job, uid_of, names = _setup(h, row)
    # In the row's order, as upstream hands tc.pods to the tracking step.
    order = {uid: n for n, uid in enumerate(uid_of.values())}
    pods = sorted(h.server.list("v1", "Pod", "default"), key=lambda p: order[p["metadata"]["uid"]])
    status = copy.deepcopy(job.get("status") or {})
    status.update(row.flush or {})
    active = [p for p in pods if is_pod_active(p)]
    ctx = SyncCtx(job=copy.deepcopy(job), status=status, pods=pods, active_pods=active,
                  active=len(active), ready=0, terminating=count_terminating(pods),
                  indexed=job["spec"].get("completionMode") == "Indexed",
                  expected_rm_finalizers={uid_of[n] for n in row.expected_rm})
    if ctx.indexed:
        completions = int(job["spec"]["completions"])
        ctx.succeeded_indexes = parse_intervals(status.get("completedIndexes"), completions)
        if pi.has_backoff_limit_per_index(job):
            failed = pi.calculate_failed_indexes(job, status, pods)
            ctx.failed_indexes = with_ordered_indexes([], sorted(failed))
            done = {i for a, b in ctx.succeeded_indexes for i in range(a, b + 1)}
            ctx.delayed = pi.pods_with_delayed_deletion(job, pods, done, failed)
    if row.finished == "success":
        ctx.finished = jc.succeeded("", "")
    elif row.finished == "failure":
        ctx.finished = jc.failed("", "")
    if row.pod_err:
        h.spy.err = ServiceUnavailable("mock error")
    if row.status_err:
        h.spy.status_err = ServiceUnavailable("mock error")

    raised = None
    try:
        h.ctrl._status.track(ctx, h.clock.now())
    except ServiceUnavailable as err:
        raised = err

    assert (raised is not None) == row.status_err
    assert bool(ctx.errors) == row.pod_err
    assert [_norm(s, names) for s in h.spy.statuses] == row.want
    assert len(h.spy.patches) == row.rm


# -- TestGetNewFinshedPods ----------------------------------------------------------------

# name: (status succeeded, failed, uncounted (succeeded, failed), pods, wantSucceeded, wantFailed
# [, expectedRmFinalizers by name])
NEW_FINISHED: dict[str, tuple[Any, ...] | str] = {
    "some counted": (
        2, 1, ([], []),
        [pod("a", "Succeeded"), pod("b", "Succeeded", True), pod("c", "Succeeded", True),
         pod("d", "Failed"), pod("e", "Failed", True), pod("f", "Running")],
        4, 2,
    ),
    "some uncounted": (
        1, 1, (["a", "c"], ["e", "f"]),
        [pod("a", "Succeeded"), pod("b", "Succeeded"), pod("c", "Succeeded", True),
         pod("d", "Succeeded", True), pod("e", "Failed"), pod("f", "Failed", True),
         pod("g", "Failed", True)],
        4, 4,
    ),
    "with expected removed finalizers": (
        2, 2, (["a"], ["d"]),
        [pod("a", "Succeeded"), pod("b", "Succeeded", True), pod("c", "Succeeded", True),
         pod("d", "Failed"), pod("e", "Failed", True), pod("f", "Failed", True),
         pod("g", "Failed", True)],
        4, 5, ("b", "f"),
    ),
    "deleted pods": (
        1, 1, ([], []),
        [pod("a", "Succeeded", True, True), pod("b", "Failed", True, True),
         pod("c", "Running", True, True), pod("d", "Pending", True, True),
         pod("e", "Running", False, True), pod("f", "Pending", False, True)],
        2, 4,
    ),
}


def _nf_params() -> list[Any]:
    out = []
    for name, row in NEW_FINISHED.items():
        if isinstance(row, str):
            out.append(pytest.param(0, 0, ([], []), [], 0, 0, (), id=name, marks=pytest.mark.skip(reason=row)))
        else:
            out.append(pytest.param(*row, *([()] if len(row) == 6 else []), id=name))
    return out


@pytest.mark.parametrize(
    ("succ", "fail", "uncounted", "pods", "want_s", "want_f", "expected_rm"), _nf_params()
)
def test_get_new_finished_pods(
    succ: int, fail: int, uncounted: tuple[list[str], list[str]], pods: list[P], want_s: int,
    want_f: int, expected_rm: tuple[str, ...],
) -> None:
    h = build_sync_harness()
    row = Row(pods, [], status={"succeeded": succ, "failed": fail,
                                "uncountedTerminatedPods": {"succeeded": uncounted[0], "failed": uncounted[1]}},
              spec={"completions": 1, "parallelism": 1})
    job, uid_of, _ = _setup(h, row)
    all_pods = h.server.list("v1", "Pod", "default")
    status = copy.deepcopy(job["status"])
    ctx = SyncCtx(job=job, status=status, pods=all_pods, active_pods=[], active=0, ready=0, terminating=0,
                  expected_rm_finalizers={uid_of[n] for n in expected_rm})
    new_s, new_f = h.ctrl.newly_finished(ctx)
    u = status.get("uncountedTerminatedPods") or {}
    assert len(new_s) + succ + len(u.get("succeeded") or []) == want_s
    assert len(new_f) + fail + len(u.get("failed") or []) == want_f

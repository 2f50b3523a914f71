"""Upstream ``pkg/controller/replicaset`` (v1.37.2) pure-function rows:
``replica_set_utils_test.go`` ``TestCalculateStatus`` and ``TestCalculateStatusConditions``,
``replica_set_test.go`` ``TestGetCondition``, ``TestSetCondition``, ``TestRemoveCondition``,
``TestSlowStartBatch``, ``TestGetPodsToDelete`` and ``TestGetPodKeys``, against
``reference_impl/controllers/replicaset_status.py``, ``replicaset_ranking.py`` and
``replicaset.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.clock import Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.replicaset import slow_start_batch
from reference_impl.controllers.replicaset_ranking import get_pods_to_delete, pod_keys
from reference_impl.controllers.replicaset_status import (
    calculate_status,
    get_condition,
    remove_condition,
    set_condition,
)

Obj = dict[str, Any]
NOW = parse_rfc3339("2026-01-01T12:00:00Z")
LONG_MIN_READY = 3600


def _rs(replicas: int, selector: dict[str, str], min_ready: int = 0) -> Obj:
    """``newReplicaSet``: the template always carries name=foo,type=production."""
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "foobar", "namespace": "default", "uid": "rs-uid"},
        "spec": {
            "replicas": replicas,
            "minReadySeconds": min_ready,
            "selector": {"matchLabels": dict(selector)},
            "template": {"metadata": {"labels": {"name": "foo", "type": "production"}}},
        },
    }


def _pod(name: str, rs: Obj, phase: str, ready_since: Instant | None = None) -> Obj:
    """``newPod``: Running pods get Ready=True (lastTransitionTime zero unless given)."""
    conditions = []
    if phase == "Running":
        cond: Obj = {"type": "Ready", "status": "True"}
        if ready_since is not None:
            cond["lastTransitionTime"] = rfc3339(ready_since)
        conditions.append(cond)
    return {
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "labels": dict(rs["spec"]["selector"]["matchLabels"]),
        },
        "spec": {},
        "status": {"phase": phase, "conditions": conditions},
    }


def _terminating(pod: Obj) -> Obj:
    pod["metadata"]["deletionTimestamp"] = rfc3339(NOW)
    return pod


LABELS = {"name": "foo"}
FULL = {"name": "foo", "type": "production"}


def _status_rows() -> list[Any]:
    not_full = _rs(1, LABELS)
    full = _rs(2, FULL)
    long_rs = _rs(1, FULL, LONG_MIN_READY)
    rows: dict[str, tuple[bool, Obj, list[Obj], list[Obj], tuple[int, int, int, int, int | None]]]
    rows = {
        "1 fully labelled pod": (
            False, full, [_pod("pod1", full, "Running")], [], (1, 1, 1, 1, None)
        ),
        "1 not fully labelled pod": (
            False, not_full, [_pod("pod1", not_full, "Running")], [], (1, 0, 1, 1, None)
        ),
        "2 fully labelled pods": (
            False,
            full,
            [_pod("pod1", full, "Running"), _pod("pod2", full, "Running")],
            [],
            (2, 2, 2, 2, None),
        ),
        "2 fully labelled pods with DeploymentReplicaSetTerminatingReplicas": (
            True,
            full,
            [_pod("pod1", full, "Running"), _pod("pod2", full, "Running")],
            [],
            (2, 2, 2, 2, 0),
        ),
        "2 not fully labelled pods": (
            False,
            not_full,
            [_pod("pod1", not_full, "Running"), _pod("pod2", not_full, "Running")],
            [],
            (2, 0, 2, 2, None),
        ),
        "1 fully labelled pod, 1 not fully labelled pod": (
            False,
            not_full,
            [_pod("pod1", not_full, "Running"), _pod("pod2", full, "Running")],
            [],
            (2, 1, 2, 2, None),
        ),
        "1 non-ready pod": (False, full, [_pod("pod1", full, "Pending")], [], (1, 1, 0, 0, None)),
        "1 ready but non-available pod": (
            False, long_rs, [_pod("pod1", long_rs, "Running", NOW)], [], (1, 1, 1, 0, None)
        ),
        "1 available pod with minReadySeconds": (
            False,
            long_rs,
            [_pod("pod1", long_rs, "Running", Instant(NOW - seconds(LONG_MIN_READY)))],
            [],
            (1, 1, 1, 1, None),
        ),
        "1 available pod for a long time with minReadySeconds": (
            False,
            long_rs,
            [_pod("pod1", long_rs, "Running", Instant(NOW - 2 * seconds(LONG_MIN_READY)))],
            [],
            (1, 1, 1, 1, None),
        ),
        "1 fully labelled pod and 1 terminating without DeploymentReplicaSetTerminatingReplicas": (
            False,
            full,
            [_pod("pod1", full, "Running")],
            [_terminating(_pod("pod2", full, "Running"))],
            (1, 1, 1, 1, None),
        ),
        "1 fully labelled pods and 2 terminating with DeploymentReplicaSetTerminatingReplicas": (
            True,
            full,
            [_pod("pod1", full, "Running")],
            [
                _terminating(_pod("pod2", full, "Running")),
                _terminating(_pod("pod3", full, "Running")),
            ],
            (1, 1, 1, 1, 2),
        ),
        # EnableStatusTerminatingReplicas=false (the ReplicationController) switches the
        # field off exactly as the gate does.
        "1 fully labelled pods and 2 terminating with DeploymentReplicaSetTerminatingReplicas "
        "(ReplicationController)": (
            False,
            full,
            [_pod("pod1", full, "Running")],
            [
                _terminating(_pod("pod2", full, "Running")),
                _terminating(_pod("pod3", full, "Running")),
            ],
            (1, 1, 1, 1, None),
        ),
    }
    return [pytest.param(*r, id=n) for n, r in rows.items()]


@pytest.mark.parametrize(("gate", "rs", "active", "terminating", "want"), _status_rows())
def test_calculate_status(
    gate: bool,
    rs: Obj,
    active: list[Obj],
    terminating: list[Obj],
    want: tuple[int, int, int, int, int | None],
) -> None:
    status = calculate_status(rs, active, terminating, None, NOW, count_terminating=gate)
    replicas, labeled, ready, available, term = want
    expected: Obj = {
        "replicas": replicas,
        "fullyLabeledReplicas": labeled,
        "readyReplicas": ready,
        "availableReplicas": available,
    }
    if term is not None:
        expected["terminatingReplicas"] = term
    assert status == expected


def _failure_rs() -> Obj:
    rs = _rs(10, LABELS)
    rs["status"] = {"conditions": [{"type": "ReplicaFailure", "status": "True"}]}
    return rs


def _failure(reason: str, message: str) -> Obj:
    return {"type": "ReplicaFailure", "status": "True", "reason": reason, "message": message}


def _condition_rows() -> list[Any]:
    rs = _rs(2, LABELS)
    failing = _failure_rs()
    err = "fake manageReplicasErr"
    rows: dict[str, tuple[Obj, int, str | None, list[Obj]]] = {
        "manageReplicasErr != nil && failureCond == nil, diff < 0": (
            rs,
            1,
            err,
            [_failure("FailedCreate", err)],
        ),
        "manageReplicasErr != nil && failureCond == nil, diff > 0": (
            rs,
            3,
            err,
            [_failure("FailedDelete", err)],
        ),
        "manageReplicasErr == nil && failureCond != nil": (failing, 1, None, []),
        "manageReplicasErr != nil && failureCond != nil": (
            failing,
            1,
            err,
            [{"type": "ReplicaFailure", "status": "True"}],
        ),
        "manageReplicasErr == nil && failureCond == nil": (rs, 1, None, []),
    }
    return [pytest.param(*r, id=n) for n, r in rows.items()]


@pytest.mark.parametrize(("rs", "pods", "err", "want"), _condition_rows())
def test_calculate_status_conditions(rs: Obj, pods: int, err: str | None, want: list[Obj]) -> None:
    active = [_pod(f"pod{i + 1}", rs, "Running") for i in range(pods)]
    status = calculate_status(rs, active, [], err, NOW)
    got = [dict(c) for c in status.get("conditions") or []]
    for c in got:
        if "lastTransitionTime" in c:
            assert c.pop("lastTransitionTime") == rfc3339(NOW)
    assert got == want


# -- TestGetCondition / TestSetCondition / TestRemoveCondition ------------------------------


def _c(kind: str) -> Obj:
    return {
        "failure": {"type": "ReplicaFailure", "status": "True", "reason": "OtherFailure"},
        "failure2": {"type": "ReplicaFailure", "status": "True", "reason": "AnotherFailure"},
        "pull": {"type": "ImagePullBackOff", "status": "True", "reason": "NonExistentImage"},
    }[kind]


def _example_status() -> Obj:
    return {"conditions": [_c("failure")]}


@pytest.mark.parametrize(
    ("ctype", "exists"),
    [
        pytest.param("ReplicaFailure", True, id="condition exists"),
        pytest.param("ImagePullBackOff", False, id="condition does not exist"),
    ],
)
def test_get_condition(ctype: str, exists: bool) -> None:
    assert (get_condition(_example_status(), ctype) is not None) is exists


@pytest.mark.parametrize(
    ("start", "cond", "want"),
    [
        pytest.param([], "failure", ["failure"], id="set for the first time"),
        pytest.param(["pull"], "failure", ["pull", "failure"], id="simple set"),
        pytest.param(["failure"], "failure2", ["failure2"], id="overwrite"),
    ],
)
def test_set_condition(start: list[str], cond: str, want: list[str]) -> None:
    status: Obj = {"conditions": [_c(k) for k in start]} if start else {}
    set_condition(status, _c(cond))
    assert status == {"conditions": [_c(k) for k in want]}


@pytest.mark.parametrize(
    ("start", "ctype", "want"),
    [
        pytest.param({}, "ReplicaFailure", {}, id="remove from empty status"),
        pytest.param({"conditions": [_c("failure")]}, "ReplicaFailure", {}, id="simple remove"),
        pytest.param(
            _example_status(), "ImagePullBackOff", _example_status(), id="doesn't remove anything"
        ),
    ],
)
def test_remove_condition(start: Obj, ctype: str, want: Obj) -> None:
    status = {k: list(v) for k, v in start.items()}
    remove_condition(status, ctype)
    assert status == want


# -- TestSlowStartBatch ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "limit", "successes", "error", "calls"),
    [
        pytest.param(10, 0, 0, True, 1, id="callLimit = 0 (all fail)"),
        pytest.param(10, 10, 10, False, 10, id="callLimit = count (all succeed)"),
        pytest.param(10, 5, 5, True, 7, id="callLimit < count (some succeed)"),
    ],
)
def test_slow_start_batch(count: int, limit: int, successes: int, error: bool, calls: int) -> None:
    made = 0

    def fn() -> str | None:
        nonlocal made
        made += 1
        return "fake error" if made > limit else None

    got, err = slow_start_batch(count, 1, fn)
    assert (got, err, made) == (successes, "fake error" if error else None, calls)


# -- TestGetPodsToDelete / TestGetPodKeys ---------------------------------------------------


def _ranked_pods() -> dict[str, Obj]:
    rs = _rs(1, LABELS)
    unscheduled = _pod("unscheduled-pending-pod", rs, "Pending")
    scheduled = _pod("scheduled-pending-pod", rs, "Pending")
    scheduled["spec"]["nodeName"] = "fake-node"
    not_ready = _pod("scheduled-running-not-ready-pod", rs, "Running")
    not_ready["spec"]["nodeName"] = "fake-node"
    not_ready["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    on1 = _pod("scheduled-running-ready-pod-on-node-1", rs, "Running")
    on1["spec"]["nodeName"] = "fake-node-1"
    on2 = _pod("scheduled-running-ready-pod-on-node-2", rs, "Running")
    on2["spec"]["nodeName"] = "fake-node-2"
    return {
        "unsched": unscheduled,
        "sched": scheduled,
        "notready": not_ready,
        "on1": on1,
        "on2": on2,
    }


ALL6 = ["on1", "on1", "on2", "notready", "sched", "unsched"]
DELETE_ROWS: dict[str, tuple[list[str], list[str] | None, int, list[str]]] = {
    "len(pods) = 0 (i.e., diff = 0 too)": ([], None, 0, []),
    "diff = len(pods)": (["notready", "on1"], None, 2, ["notready", "on1"]),
    "diff < len(pods)": (["on1", "notready"], None, 1, ["notready"]),
    "various pod phases and conditions, diff = len(pods)": (ALL6, None, 6, ALL6),
    "various pod phases and conditions, diff = len(pods), relatedPods empty": (ALL6, [], 6, ALL6),
    "scheduled vs unscheduled, diff < len(pods)": (["sched", "unsched"], None, 1, ["unsched"]),
    "ready vs not-ready, diff < len(pods)": (
        ["on1", "notready", "notready"],
        None,
        2,
        ["notready", "notready"],
    ),
    "ready and colocated with another ready pod vs not colocated, diff < len(pods)": (
        ["on1", "on2"],
        ["on1", "on2", "on2"],
        1,
        ["on2"],
    ),
    "pending vs running, diff < len(pods)": (["sched", "notready"], None, 1, ["sched"]),
    "various pod phases and conditions, diff < len(pods)": (
        ["on1", "on2", "notready", "sched", "unsched"],
        None,
        3,
        ["unsched", "sched", "notready"],
    ),
}


@pytest.mark.parametrize(
    ("pods", "related", "diff", "want"), [pytest.param(*r, id=n) for n, r in DELETE_ROWS.items()]
)
def test_get_pods_to_delete(
    pods: list[str], related: list[str] | None, diff: int, want: list[str]
) -> None:
    fx = _ranked_pods()
    objs = [fx[n] for n in pods]
    rel = objs if related is None else [fx[n] for n in related]
    got = get_pods_to_delete(objs, rel, diff, NOW)
    assert [p["metadata"]["name"] for p in got] == [fx[n]["metadata"]["name"] for n in want]


@pytest.mark.parametrize(
    ("names", "want"),
    [
        pytest.param([], [], id="len(pods) = 0 (i.e., pods = nil)"),
        pytest.param(["pod1", "pod2"], ["default/pod1", "default/pod2"], id="len(pods) > 0"),
    ],
)
def test_get_pod_keys(names: list[str], want: list[str]) -> None:
    rs = _rs(1, LABELS)
    assert pod_keys([_pod(n, rs, "Running") for n in names]) == want

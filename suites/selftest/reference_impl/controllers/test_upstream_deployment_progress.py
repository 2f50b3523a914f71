"""Upstream ``pkg/controller/deployment/progress_test.go`` (v1.37.2): ``TestRequeueStuckDeployment``
and ``TestSyncRolloutStatus`` against ``reference_impl/controllers/deployment/progress.py``.

``rollout_status`` is the status ``syncRolloutStatus`` writes; ``requeue_after`` is
``requeueStuckDeployment``'s returned delay (-1 never, 0 now).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.clock import Instant, parse_rfc3339, seconds
from reference_impl.controllers.deployment.progress import (
    paused_status,
    requeue_after,
    rollout_status,
)
from reference_impl.controllers.deployment.util import condition_of

Obj = dict[str, Any]
STUCK_AT = "2017-02-15T18:49:00Z"
TEST_TIME = STUCK_AT
INFINITE = 2**31 - 1


def _current(
    pds: int | None,
    replicas: int,
    status_replicas: int,
    updated: int,
    available: int,
    conditions: list[Obj] | None,
) -> Obj:
    """``currentDeployment``: a Recreate Deployment with the given status."""
    d: Obj = {
        "metadata": {"name": "progress-test"},
        "spec": {"replicas": replicas, "strategy": {"type": "Recreate"}},
        "status": {
            "replicas": status_replicas,
            "updatedReplicas": updated,
            "availableReplicas": available,
        },
    }
    if pds is not None:
        d["spec"]["progressDeadlineSeconds"] = pds
    if conditions is not None:
        d["status"]["conditions"] = conditions
    return d


def _failed() -> list[Obj]:
    return [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]


def _stuck() -> list[Obj]:
    return [{"type": "Progressing", "status": "True", "lastUpdateTime": STUCK_AT}]


def _at(text: str, nanos: int = 0) -> Instant:
    return Instant(parse_rfc3339(text) + nanos)


REQUEUE_ROWS: dict[str, tuple[Obj, tuple[int, int, int], Instant, int]] = {
    "nil progressDeadlineSeconds specified": (
        _current(None, 4, 3, 3, 2, None), (3, 3, 2), _at(STUCK_AT), -1
    ),
    "infinite progressDeadlineSeconds specified": (
        _current(INFINITE, 4, 3, 3, 2, None), (3, 3, 2), _at(STUCK_AT), -1
    ),
    "no progressing condition found": (
        _current(60, 4, 3, 3, 2, None), (3, 3, 2), _at(STUCK_AT), -1
    ),
    "complete deployment does not need to be requeued": (
        _current(60, 3, 3, 3, 3, None), (3, 3, 3), _at(STUCK_AT), -1
    ),
    "already failed deployment does not need to be requeued": (
        _current(60, 3, 3, 3, 0, _failed()), (3, 3, 0), _at(STUCK_AT), -1
    ),
    "stuck deployment - 30s": (
        _current(60, 3, 3, 3, 1, _stuck()), (3, 3, 1), _at("2017-02-15T18:49:30Z"), seconds(30)
    ),
    "stuck deployment - 1s": (
        _current(60, 3, 3, 3, 1, _stuck()), (3, 3, 1), _at("2017-02-15T18:49:59Z"), seconds(1)
    ),
    "failed deployment - less than a second => now": (
        _current(60, 3, 3, 3, 1, _stuck()), (3, 3, 1), _at("2017-02-15T18:49:59Z", 1), 0
    ),
    "failed deployment - now": (
        _current(60, 3, 3, 3, 1, _stuck()), (3, 3, 1), _at("2017-02-15T18:50:00Z"), 0
    ),
    "failed deployment - 1s after deadline": (
        _current(60, 3, 3, 3, 1, _stuck()), (3, 3, 1), _at("2017-02-15T18:50:01Z"), 0
    ),
    "failed deployment - 60s after deadline": (
        _current(60, 3, 3, 3, 1, _stuck()), (3, 3, 1), _at("2017-02-15T18:51:00Z"), 0
    ),
}


@pytest.mark.parametrize(
    ("d", "status", "now", "want"), [pytest.param(*r, id=n) for n, r in REQUEUE_ROWS.items()]
)
def test_requeue_stuck_deployment(
    d: Obj, status: tuple[int, int, int], now: Instant, want: int
) -> None:
    replicas, updated, available = status
    new = {"replicas": replicas, "updatedReplicas": updated, "availableReplicas": available}
    assert requeue_after(d, new, now) == want


# -- TestSyncRolloutStatus ------------------------------------------------------------------


def _rs(name: str, spec: int, replicas: int, available: int) -> Obj:
    """``newRSWithAvailable``."""
    return {
        "metadata": {"name": name},
        "spec": {"replicas": spec},
        "status": {"replicas": replicas, "availableReplicas": available},
    }


def _timed_out() -> Obj:
    return {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}


def _new_rs_available() -> Obj:
    return {
        "type": "Progressing",
        "status": "True",
        "reason": "NewReplicaSetAvailable",
        "lastUpdateTime": TEST_TIME,
        "lastTransitionTime": TEST_TIME,
    }


def _rs_updated() -> Obj:
    return {
        "type": "Progressing",
        "status": "True",
        "reason": "ReplicaSetUpdated",
        "lastUpdateTime": TEST_TIME,
        "lastTransitionTime": TEST_TIME,
    }


# name: (deployment, other sets, new set, want (status, reason) or None, lastUpdate kept,
#        lastTransition kept)
SYNC_ROWS: dict[str, tuple[Obj, list[Obj], Obj | None, tuple[str, str] | None, bool, bool]] = {
    "General: remove Progressing condition and do not estimate progress if deployment has no "
    "Progress Deadline": (
        _current(None, 3, 2, 2, 2, [_rs_updated()]),
        [_rs("bar", 0, 1, 1)],
        _rs("foo", 3, 2, 2),
        None,
        False,
        False,
    ),
    "General: do not estimate progress of deployment with only one active ReplicaSet": (
        _current(60, 3, 3, 3, 3, [_new_rs_available()]),
        [_rs("bar", 3, 3, 3)],
        None,
        ("True", "NewReplicaSetAvailable"),
        True,
        True,
    ),
    "DeploymentProgressing: dont update lastTransitionTime if deployment already has "
    "Progressing=True": (
        _current(60, 3, 2, 2, 2, [_rs_updated()]),
        [_rs("bar", 0, 1, 1)],
        _rs("foo", 3, 2, 2),
        ("True", "ReplicaSetUpdated"),
        False,
        True,
    ),
    "DeploymentProgressing: update everything if deployment has Progressing=False": (
        _current(60, 3, 2, 2, 2, [_timed_out()]),
        [_rs("bar", 0, 1, 1)],
        _rs("foo", 3, 2, 2),
        ("True", "ReplicaSetUpdated"),
        False,
        False,
    ),
    "DeploymentProgressing: create Progressing condition if it does not exist": (
        _current(60, 3, 2, 2, 2, []),
        [_rs("bar", 0, 1, 1)],
        _rs("foo", 3, 2, 2),
        ("True", "ReplicaSetUpdated"),
        False,
        False,
    ),
    "DeploymentComplete: dont update lastTransitionTime if deployment already has "
    "Progressing=True": (
        _current(60, 3, 3, 3, 3, [_rs_updated()]),
        [],
        _rs("foo", 3, 3, 3),
        ("True", "NewReplicaSetAvailable"),
        False,
        True,
    ),
    "DeploymentComplete: update everything if deployment has Progressing=False": (
        _current(60, 3, 3, 3, 3, [_timed_out()]),
        [],
        _rs("foo", 3, 3, 3),
        ("True", "NewReplicaSetAvailable"),
        False,
        False,
    ),
    "DeploymentComplete: create Progressing condition if it does not exist": (
        _current(60, 3, 3, 3, 3, []),
        [],
        _rs("foo", 3, 3, 3),
        ("True", "NewReplicaSetAvailable"),
        False,
        False,
    ),
    "DeploymentComplete: defend against NPE when newRS=nil": (
        _current(60, 0, 3, 3, 3, [_rs_updated()]),
        [_rs("foo", 0, 0, 0)],
        None,
        ("True", "NewReplicaSetAvailable"),
        False,
        False,
    ),
    "DeploymentTimedOut: update status if rollout exceeds Progress Deadline": (
        _current(60, 3, 2, 2, 2, [_rs_updated()]),
        [],
        _rs("foo", 3, 2, 2),
        ("False", "ProgressDeadlineExceeded"),
        False,
        False,
    ),
    "DeploymentTimedOut: do not update status if deployment has existing timedOut condition": (
        _current(60, 3, 2, 2, 2, [_timed_out()]),
        [],
        _rs("foo", 3, 2, 2),
        ("False", "ProgressDeadlineExceeded"),
        True,
        True,
    ),
}
NOW = Instant(parse_rfc3339(TEST_TIME) + seconds(3600))  # upstream runs at wall-clock now


@pytest.mark.parametrize(
    ("d", "others", "new_rs", "want", "keep_update", "keep_transition"),
    [pytest.param(*r, id=n) for n, r in SYNC_ROWS.items()],
)
def test_sync_rollout_status(
    d: Obj,
    others: list[Obj],
    new_rs: Obj | None,
    want: tuple[str, str] | None,
    keep_update: bool,
    keep_transition: bool,
) -> None:
    all_rss = [*others, *([new_rs] if new_rs else [])]
    before = condition_of(d["status"], "Progressing") or {}
    status = rollout_status(d, all_rss, new_rs, NOW)
    cond = condition_of(status, "Progressing")
    if want is None:
        assert cond is None
        return
    assert cond is not None
    assert (cond["status"], cond["reason"]) == want
    if keep_update:
        assert cond.get("lastUpdateTime") == before.get("lastUpdateTime")
    if keep_transition:
        assert cond.get("lastTransitionTime") == before.get("lastTransitionTime")


def test_sync_rollout_status_messages_name_the_set_or_the_deployment() -> None:
    """The messages of ``syncRolloutStatus`` (``ReplicaSet %q`` / ``Deployment %q``)."""
    d = _current(60, 3, 2, 2, 2, [])
    foo = _rs("foo", 3, 2, 2)
    status = rollout_status(d, [_rs("bar", 0, 1, 1), foo], foo, NOW)
    cond = condition_of(status, "Progressing") or {}
    assert cond["message"] == 'ReplicaSet "foo" is progressing.'
    d = _current(60, 0, 3, 3, 3, [_rs_updated()])
    status = rollout_status(d, [_rs("foo", 0, 0, 0)], None, NOW)
    cond = condition_of(status, "Progressing") or {}
    assert cond["message"] == 'Deployment "progress-test" has successfully progressed.'
    d = _current(60, 3, 2, 2, 2, [_rs_updated()])
    foo = _rs("foo", 3, 2, 2)
    status = rollout_status(d, [foo], foo, NOW)
    cond = condition_of(status, "Progressing") or {}
    assert cond["message"] == 'ReplicaSet "foo" has timed out progressing.'


def test_replica_failure_is_promoted_from_the_new_set_first() -> None:
    """``getReplicaFailures``: the new set's ReplicaFailure wins over an old set's; none left
    removes the Deployment's."""

    def failing(name: str, reason: str) -> Obj:
        rs = _rs(name, 1, 0, 0)
        rs["status"]["conditions"] = [
            {
                "type": "ReplicaFailure",
                "status": "True",
                "reason": reason,
                "message": f"{name} failed",
                "lastTransitionTime": TEST_TIME,
            }
        ]
        return rs

    d = _current(60, 1, 0, 0, 0, [])
    old, new = failing("old", "FailedDelete"), failing("new", "FailedCreate")
    cond = condition_of(rollout_status(d, [old, new], new, NOW), "ReplicaFailure") or {}
    got = (cond["status"], cond["reason"], cond["message"])
    assert got == ("True", "FailedCreate", "new failed")
    assert cond["lastUpdateTime"] == cond["lastTransitionTime"] == TEST_TIME
    healthy = _rs("new", 1, 0, 0)
    cond = condition_of(rollout_status(d, [old, healthy], healthy, NOW), "ReplicaFailure") or {}
    assert cond["reason"] == "FailedDelete"
    d["status"]["conditions"] = [cond]
    assert condition_of(rollout_status(d, [healthy], healthy, NOW), "ReplicaFailure") is None


@pytest.mark.parametrize(
    ("paused", "current", "want"),
    [
        pytest.param(
            True, None, ("Unknown", "DeploymentPaused", "Deployment is paused"), id="pause"
        ),
        pytest.param(
            False,
            "DeploymentPaused",
            ("Unknown", "DeploymentResumed", "Deployment is resumed"),
            id="resume",
        ),
        pytest.param(True, "DeploymentPaused", None, id="already paused"),
        pytest.param(True, "ProgressDeadlineExceeded", None, id="timed out stays"),
    ],
)
def test_check_paused_conditions(
    paused: bool, current: str | None, want: tuple[str, str, str] | None
) -> None:
    """``checkPausedConditions``."""
    conds = [{"type": "Progressing", "status": "False", "reason": current}] if current else []
    d = _current(60, 1, 0, 0, 0, conds)
    d["spec"]["paused"] = paused
    status = paused_status(d, NOW)
    if want is None:
        assert status is None
        return
    assert status is not None
    cond = condition_of(status, "Progressing") or {}
    assert (cond["status"], cond["reason"], cond["message"]) == want

"""Upstream ``pkg/controller/deployment`` (v1.37.2) rows that drive one step of the
controller on in-memory objects: ``rolling_test.go`` (``reconcileNewReplicaSet``,
``reconcileOldReplicaSets``, ``cleanupUnhealthyReplicas``,
``scaleDownOldReplicaSetsForRollingUpdate``), ``recreate_test.go``
(``TestScaleDownOldReplicaSets``, ``TestOldPodsRunning``) and ``sync_test.go``
(``TestScale``, ``cleanupDeployment``, ``cleanupDeploymentOrder``).

The controller's writes go to ``Recorder`` (upstream's fake clientset): updates and
deletes are recorded and echoed back, nothing is stored.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.deployment import DeploymentController, recreate, rolling, sync
from reference_impl.controllers.deployment.util import (
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    REVISION,
    max_surge,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NEW_TS = "2016-05-20T02:00:00Z"
OLD_TS = "2016-05-20T01:00:00Z"
OLDER_TS = "2016-05-20T00:00:00Z"


class Recorder:
    """The fake clientset: records ReplicaSet updates and deletes."""

    def __init__(self) -> None:
        self.updates: list[Obj] = []
        self.deletes: list[str] = []

    def update(self, obj: Obj) -> Obj:
        self.updates.append(copy.deepcopy(obj))
        return copy.deepcopy(obj)

    def delete(self, api_version: str, kind: str, name: str, namespace: str, **_: Any) -> None:
        self.deletes.append(name)


def _dc() -> tuple[DeploymentController, Recorder]:
    clock = SimClock()
    rng = Rng(1)
    fg = FeatureGates({})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock))
    dc = DeploymentController(ctx)
    rec = Recorder()
    dc.server = rec  # type: ignore[assignment]
    return dc, rec


def _deployment(
    replicas: int,
    surge: int | str | None = None,
    unavailable: int | str | None = None,
    selector: dict[str, str] | None = None,
    history: int | None = None,
) -> Obj:
    """``newDeployment``: RollingUpdate with both fenceposts 0 unless given."""
    d: Obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "foo", "namespace": "default", "uid": "d-uid", "annotations": {}},
        "spec": {
            "replicas": replicas,
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {
                    "maxSurge": 0 if surge is None else surge,
                    "maxUnavailable": 0 if unavailable is None else unavailable,
                },
            },
            "selector": {"matchLabels": dict(selector or {})},
            "template": {
                "metadata": {"labels": dict(selector or {})},
                "spec": {"containers": [{"image": "foo/bar"}]},
            },
        },
    }
    if history is not None:
        d["spec"]["revisionHistoryLimit"] = history
    return d


def _rs(name: str, replicas: int, created: str | None = None, available: int = 0) -> Obj:
    """``rs``: a bare ReplicaSet (no template), optionally with availableReplicas."""
    meta: Obj = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    if created:
        meta["creationTimestamp"] = created
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": meta,
        "spec": {"replicas": replicas, "template": {}},
        "status": {"availableReplicas": available},
    }


def _sizes(rec: Recorder) -> dict[str, int]:
    return {u["metadata"]["name"]: int(u["spec"]["replicas"]) for u in rec.updates}


# -- TestDeploymentController_reconcileNewReplicaSet ----------------------------------------


@pytest.mark.parametrize(
    ("replicas", "surge", "old", "new", "want"),
    [
        pytest.param(10, 0, 10, 0, None, id="0: should not scale up"),
        pytest.param(10, 2, 10, 0, 2, id="1"),
        pytest.param(10, 2, 5, 0, 7, id="2"),
        pytest.param(10, 2, 10, 2, None, id="3"),
        pytest.param(10, 2, 2, 11, 10, id="4: should scale down"),
    ],
)
def test_reconcile_new_replica_set(
    replicas: int, surge: int, old: int, new: int, want: int | None
) -> None:
    dc, rec = _dc()
    new_rs, old_rs = _rs("foo-v2", new), _rs("foo-v2", old)
    d = _deployment(replicas, surge, 0, {"foo": "bar"})
    scaled = rolling.reconcile_new_replica_set(dc, d, [new_rs, old_rs], new_rs)
    if want is None:
        assert (scaled, rec.updates) == (False, [])
        return
    assert scaled
    assert [int(u["spec"]["replicas"]) for u in rec.updates] == [want]


# -- TestDeploymentController_reconcileOldReplicaSets ---------------------------------------


@pytest.mark.parametrize(
    ("replicas", "unavailable", "old", "new", "ready_old", "ready_new", "scaled", "want_old"),
    [
        pytest.param(10, 0, 10, 0, 10, 0, True, 9, id="0"),
        pytest.param(10, 2, 10, 0, 10, 0, True, 8, id="1"),
        pytest.param(
            10, 2, 10, 0, 8, 0, True, 8, id="2: unhealthy old replicas are cleaned up"
        ),
        pytest.param(
            10, 2, 10, 0, 9, 0, True, 8, id="3: one unhealthy cleaned up, one ready scaled down"
        ),
        pytest.param(
            10, 2, 8, 2, 8, 0, False, None, id="4: unavailable new pods block old scale down"
        ),
    ],
)
def test_reconcile_old_replica_sets(
    replicas: int,
    unavailable: int,
    old: int,
    new: int,
    ready_old: int,
    ready_new: int,
    scaled: bool,
    want_old: int | None,
) -> None:
    dc, rec = _dc()
    new_rs = _rs("foo-new", new, available=ready_new)
    old_rs = _rs("foo-old", old, available=ready_old)
    d = _deployment(replicas, 0, unavailable, {"foo": "new"})
    got = rolling.reconcile_old_replica_sets(dc, d, [old_rs, new_rs], [old_rs], new_rs)
    assert got is scaled
    if want_old is not None:
        # upstream checks only that scaling happened; the final size is its comment's
        assert _sizes(rec)["foo-old"] == want_old


# -- TestDeploymentController_cleanupUnhealthyReplicas --------------------------------------


@pytest.mark.parametrize(
    ("old", "ready", "limit", "want"),
    [
        pytest.param(10, 8, 1, 1, id="0"),
        pytest.param(10, 8, 3, 2, id="1"),
        pytest.param(10, 8, 0, 0, id="2"),
        pytest.param(10, 10, 3, 0, id="3"),
    ],
)
def test_cleanup_unhealthy_replicas(old: int, ready: int, limit: int, want: int) -> None:
    dc, _ = _dc()
    old_rs = _rs("foo-v2", old, available=ready)
    d = _deployment(10, 2, 2)
    assert rolling.cleanup_unhealthy_replicas(dc, d, [old_rs], limit) == want


# -- TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate -----------------------


@pytest.mark.parametrize(
    ("replicas", "unavailable", "ready", "old", "want"),
    [
        pytest.param(10, 0, 10, 10, 9, id="0"),
        pytest.param(10, 2, 10, 10, 8, id="1"),
        pytest.param(10, 2, 8, 10, None, id="2"),
        pytest.param(10, 2, 10, 0, None, id="3"),
        pytest.param(10, 2, 1, 10, None, id="4"),
    ],
)
def test_scale_down_old_replica_sets_for_rolling_update(
    replicas: int, unavailable: int, ready: int, old: int, want: int | None
) -> None:
    dc, rec = _dc()
    old_rs = _rs("foo-v2", old, available=ready)
    d = _deployment(replicas, 0, unavailable, {"foo": "bar"})
    scaled = rolling.scale_down_old_replica_sets(dc, d, [old_rs], [old_rs])
    if want is None:
        assert scaled == 0
        return
    assert scaled > 0
    assert [int(u["spec"]["replicas"]) for u in rec.updates] == [want]


# -- recreate_test.go ----------------------------------------------------------------------


def test_scale_down_old_replica_sets() -> None:
    """``TestScaleDownOldReplicaSets`` through ``rolloutRecreate``'s scale-down step."""
    dc, rec = _dc()
    d = _deployment(3, selector={"foo": "bar"})
    d["spec"]["strategy"] = {"type": "Recreate"}
    old = [_rs("foo-0", 3)]
    for rs in old:
        if int(rs["spec"]["replicas"]) > 0:
            dc.scale_replica_set(rs, 0, d)
    assert [int(rs["spec"]["replicas"]) for rs in old] == [0]
    assert _sizes(rec) == {"foo-0": 0}


def _pods(*phases: str) -> list[Obj]:
    return [{"metadata": {}, "status": {"phase": p}} for p in phases]


def _with_status_replicas(name: str, spec: int, replicas: int) -> Obj:
    rs = _rs(name, spec)
    rs["status"] = {"replicas": replicas}
    return rs


OLD_PODS_ROWS: dict[str, tuple[list[Obj], dict[str, list[Obj]], bool]] = {
    "no old RSs": ([], {}, False),
    "old RSs with running pods": (
        [_rs("foo-some-uid", 0), _rs("foo-other-uid", 0)],
        {"some-uid": _pods("", ""), "other-uid": _pods("", "")},
        True,
    ),
    "old RSs without pods but with non-zero status replicas": (
        [_with_status_replicas("rs-1", 0, 1)], {}, True
    ),
    "old RSs without pods or non-zero status replicas": (
        [_with_status_replicas("rs-1", 0, 0)], {}, False
    ),
    "old RSs with zero status replicas but pods in terminal state are present": (
        [_with_status_replicas("rs-1", 0, 0)],
        {"uid-1": _pods("Failed", "Succeeded")},
        False,
    ),
    "old RSs with zero status replicas but pod in unknown phase present": (
        [_with_status_replicas("rs-1", 0, 0)], {"uid-1": _pods("Unknown")}, True
    ),
    "old RSs with zero status replicas with pending pod present": (
        [_with_status_replicas("rs-1", 0, 0)], {"uid-1": _pods("Pending")}, True
    ),
    "old RSs with zero status replicas with running pod present": (
        [_with_status_replicas("rs-1", 0, 0)], {"uid-1": _pods("Running")}, True
    ),
    "old RSs with zero status replicas but pods in terminal state and pending are present": (
        [_with_status_replicas("rs-1", 0, 0)],
        {"uid-1": _pods("Failed", "Succeeded"), "uid-2": [], "uid-3": _pods("Pending")},
        True,
    ),
}


@pytest.mark.parametrize(
    ("old", "pod_map", "want"), [pytest.param(*r, id=n) for n, r in OLD_PODS_ROWS.items()]
)
def test_old_pods_running(old: list[Obj], pod_map: dict[str, list[Obj]], want: bool) -> None:
    assert recreate.old_pods_running(None, old, pod_map) is want


# -- TestScale ------------------------------------------------------------------------------

# name: (replicas, old replicas, surge, old surge, new (name, size, ts) or None,
#        old sets, want sizes, names whose updates are ignored (upstream's wasntUpdated),
#        desired-replicas annotation overrides)
ScaleRow = tuple[
    int,
    int,
    int | None,
    int | None,
    tuple[str, int, str] | None,
    list[tuple[str, int, str]],
    dict[str, int],
    set[str],
    dict[str, int],
]
SCALE_ROWS: dict[str, ScaleRow] = {
    "normal scaling event: 10 -> 12": (
        12, 10, None, None, ("foo-v1", 10, NEW_TS), [], {"foo-v1": 12}, set(), {}
    ),
    "normal scaling event: 10 -> 5": (
        5, 10, None, None, ("foo-v1", 10, NEW_TS), [], {"foo-v1": 5}, set(), {}
    ),
    "proportional scaling: 5 -> 10": (
        10, 5, None, None, ("foo-v2", 2, NEW_TS), [("foo-v1", 3, OLD_TS)],
        {"foo-v2": 4, "foo-v1": 6}, set(), {},
    ),
    "proportional scaling: 5 -> 3": (
        3, 5, None, None, ("foo-v2", 2, NEW_TS), [("foo-v1", 3, OLD_TS)],
        {"foo-v2": 1, "foo-v1": 2}, set(), {},
    ),
    "proportional scaling: 9 -> 4": (
        4, 9, None, None, ("foo-v2", 8, NEW_TS), [("foo-v1", 1, OLD_TS)],
        {"foo-v2": 4, "foo-v1": 0}, set(), {},
    ),
    "proportional scaling: 7 -> 10": (
        10, 7, None, None, ("foo-v3", 2, NEW_TS), [("foo-v2", 3, OLD_TS), ("foo-v1", 2, OLDER_TS)],
        {"foo-v3": 3, "foo-v2": 4, "foo-v1": 3}, set(), {},
    ),
    "proportional scaling: 13 -> 8": (
        8, 13, None, None, ("foo-v3", 2, NEW_TS), [("foo-v2", 8, OLD_TS), ("foo-v1", 3, OLDER_TS)],
        {"foo-v3": 1, "foo-v2": 5, "foo-v1": 2}, set(), {},
    ),
    "leftover distribution: 3 -> 4": (
        4, 3, None, None, ("foo-v3", 1, NEW_TS), [("foo-v2", 1, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        {"foo-v3": 2, "foo-v2": 1, "foo-v1": 1}, set(), {},
    ),
    "leftover distribution: 3 -> 2": (
        2, 3, None, None, ("foo-v3", 1, NEW_TS), [("foo-v2", 1, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        {"foo-v3": 1, "foo-v2": 1, "foo-v1": 0}, set(), {},
    ),
    "proportional scaling (no new rs): 4 -> 5": (
        5, 4, None, None, None, [("foo-v2", 2, OLD_TS), ("foo-v1", 2, OLDER_TS)],
        {"foo-v2": 3, "foo-v1": 2}, set(), {},
    ),
    "proportional scaling: 6 -> 0": (
        0, 6, None, None, ("foo-v3", 3, NEW_TS), [("foo-v2", 2, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        {"foo-v3": 0, "foo-v2": 0, "foo-v1": 0}, set(), {},
    ),
    "proportional scaling: 0 -> 6": (
        6, 6, None, None, ("foo-v3", 0, NEW_TS), [("foo-v2", 0, OLD_TS), ("foo-v1", 0, OLDER_TS)],
        {"foo-v3": 6, "foo-v2": 0, "foo-v1": 0}, {"foo-v2", "foo-v1"}, {},
    ),
    "failed rs update": (
        5, 5, None, None, ("foo-v3", 2, NEW_TS), [("foo-v2", 1, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        {"foo-v3": 2, "foo-v2": 2, "foo-v1": 1}, {"foo-v3", "foo-v1"}, {"foo-v2": 3},
    ),
    "deployment with surge pods": (
        20, 10, 2, 2, ("foo-v2", 6, NEW_TS), [("foo-v1", 6, OLD_TS)],
        {"foo-v2": 11, "foo-v1": 11}, set(), {},
    ),
    "change both surge and size": (
        50, 10, 6, 3, ("foo-v2", 5, NEW_TS), [("foo-v1", 8, OLD_TS)],
        {"foo-v2": 22, "foo-v1": 34}, set(), {},
    ),
}


@pytest.mark.parametrize(
    ("replicas", "old_replicas", "surge", "old_surge", "new", "olds", "want", "ignored", "desired"),
    [pytest.param(*r, id=n) for n, r in SCALE_ROWS.items()],
)
def test_scale(
    replicas: int,
    old_replicas: int,
    surge: int | None,
    old_surge: int | None,
    new: tuple[str, int, str] | None,
    olds: list[tuple[str, int, str]],
    want: dict[str, int],
    ignored: set[str],
    desired: dict[str, int],
) -> None:
    d, old_d = _deployment(replicas, surge), _deployment(old_replicas, old_surge)
    _check_scale(d, old_d, new, olds, want, ignored, desired)


def test_scale_change_both_size_and_template() -> None:
    """``TestScale`` "change both size and template": no new set yet, old ones scale."""
    d = _deployment(14, selector={"foo": "bar"})
    d["spec"]["template"]["metadata"]["labels"]["another"] = "label"
    old_d = _deployment(10, selector={"foo": "bar"})
    olds = [("foo-v2", 7, NEW_TS), ("foo-v1", 3, OLD_TS)]
    _check_scale(d, old_d, None, olds, {"foo-v2": 10, "foo-v1": 4}, set(), {})


def test_scale_saturated_but_broken_new_replica_set_does_not_affect_old_pods() -> None:
    """``TestScale`` "saturated but broken new replica set does not affect old pods"."""
    d = _deployment(2, 1, 1)
    new = ("foo-v2", 2, NEW_TS)
    want = {"foo-v2": 2, "foo-v1": 1}
    _check_scale(d, _deployment(2, 1, 1), new, [("foo-v1", 1, OLD_TS)], want, set(), {})


def _check_scale(
    d: Obj,
    old_d: Obj,
    new: tuple[str, int, str] | None,
    olds: list[tuple[str, int, str]],
    want: dict[str, int],
    ignored: set[str],
    desired: dict[str, int],
) -> None:
    dc, rec = _dc()

    def annotated(name: str, size: int, ts: str) -> Obj:
        rs = _rs(name, size, ts)
        n = desired.get(name, int(old_d["spec"]["replicas"]))
        rs["metadata"]["annotations"] = {
            DESIRED_REPLICAS: str(n),
            MAX_REPLICAS: str(n + max_surge(old_d)),
        }
        return rs

    new_rs = annotated(*new) if new else None
    old_rss = [annotated(*o) for o in olds]
    every = [*old_rss, *([new_rs] if new_rs else [])]
    before = {rs["metadata"]["name"]: int(rs["spec"]["replicas"]) for rs in every}
    sync.scale(dc, d, new_rs, old_rss)
    sizes = dict(before)
    for u in rec.updates:
        if u["metadata"]["name"] not in ignored:
            sizes[u["metadata"]["name"]] = int(u["spec"]["replicas"])
    assert sizes == want


# -- TestDeploymentController_cleanupDeployment / cleanupDeploymentOrder --------------------


def _rs_status(name: str, spec: int, replicas: int, deleting: bool = False) -> Obj:
    rs = _rs(name, spec)
    rs["status"] = {"replicas": replicas}
    if deleting:
        rs["metadata"]["deletionTimestamp"] = NEW_TS
    return rs


@pytest.mark.parametrize(
    ("old", "limit", "want"),
    [
        pytest.param([("foo-1", 0, 0), ("foo-2", 0, 0), ("foo-3", 0, 0)], 1, 2, id="0"),
        pytest.param(
            [("foo-1", 0, 0), ("foo-2", 0, 1), ("foo-3", 1, 0), ("foo-4", 1, 1)], 0, 1, id="1"
        ),
        pytest.param([("foo-1", 0, 0), ("foo-2", 0, 0)], 0, 2, id="2"),
        pytest.param([("foo-1", 1, 1), ("foo-2", 1, 1)], 0, 0, id="3"),
        pytest.param([("deleted", 0, 0)], 0, 0, id="4: already deleted"),
        pytest.param(
            [("foo-1", 0, 0), ("foo-2", 0, 0), ("foo-3", 0, 0)], 2**31 - 1, 0, id="5: MaxInt32"
        ),
    ],
)
def test_cleanup_deployment(old: list[tuple[str, int, int]], limit: int, want: int) -> None:
    dc, rec = _dc()
    rss = [_rs_status(n, s, r, deleting=n == "deleted") for n, s, r in old]
    sync.cleanup_deployment(dc, _deployment(1, selector={"foo": "bar"}, history=limit), rss)
    assert len(rec.deletes) == want


NOW_TS = "2026-01-01T12:00:00Z"
MINUS_1 = "2026-01-01T11:59:00Z"
PLUS_1 = "2026-01-01T12:01:00Z"
PLUS_2 = "2026-01-01T12:02:00Z"


@pytest.mark.parametrize(
    ("old", "limit", "want"),
    [
        pytest.param([("foo-1", 0, MINUS_1, "1"), ("foo-2", 0, NOW_TS, "2")], 1, {"foo-1"}, id="0"),
        pytest.param([("foo-1", 0, MINUS_1, "2"), ("foo-2", 0, NOW_TS, "1")], 1, {"foo-2"}, id="1"),
        pytest.param([("foo-1", 0, MINUS_1, "1"), ("foo-2", 0, NOW_TS, "")], 1, {"foo-2"}, id="2"),
        pytest.param([("foo-1", 0, MINUS_1, ""), ("foo-2", 0, NOW_TS, "2")], 1, {"foo-1"}, id="3"),
        pytest.param(
            [("foo-1", 1, MINUS_1, "1"), ("foo-2", 0, NOW_TS, "2"), ("foo-3", 0, PLUS_1, "3")],
            1,
            {"foo-2"},
            id="4",
        ),
        pytest.param(
            [("foo-1", 1, MINUS_1, "1"), ("foo-2", 1, NOW_TS, "2"), ("foo-3", 0, PLUS_1, "3")],
            1,
            set(),
            id="5",
        ),
        pytest.param(
            [
                ("foo-1", 0, MINUS_1, "3"),
                ("foo-2", 0, NOW_TS, "1"),
                ("foo-3", 0, PLUS_1, "4"),
                ("foo-4", 0, PLUS_2, "2"),
            ],
            2,
            {"foo-2", "foo-4"},
            id="6",
        ),
    ],
)
def test_cleanup_deployment_order(
    old: list[tuple[str, int, str, str]], limit: int, want: set[str]
) -> None:
    dc, rec = _dc()
    rss = []
    for name, replicas, ts, rev in old:
        rs = _rs(name, replicas, ts)
        if rev:
            rs["metadata"]["annotations"] = {REVISION: rev}
        rs["status"] = {"replicas": replicas}
        rss.append(rs)
    sync.cleanup_deployment(dc, _deployment(1, selector={"foo": "bar"}, history=limit), rss)
    assert set(rec.deletes) == want

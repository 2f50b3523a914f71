"""Upstream ``pkg/controller/deployment/util/deployment_util_test.go`` (v1.37.2) against
``reference_impl/controllers/deployment/util.py`` and ``progress.py``: one case per row.

Deployments and ReplicaSets are wire-shape dicts built like upstream's
``generateDeployment`` / ``generateRS``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.clock import Instant, parse_rfc3339
from reference_impl.controllers.deployment.progress import (
    deployment_complete,
    deployment_progressing,
    deployment_timed_out,
)
from reference_impl.controllers.deployment.rolling import new_rs_new_replicas
from reference_impl.controllers.deployment.util import (
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    REVISION,
    REVISION_HISTORY,
    TEMPLATE_HASH_LABEL,
    annotation_int,
    condition_of,
    equal_ignore_hash,
    find_new_rs,
    find_old_rss,
    generate_replica_set_name,
    max_unavailable,
    min_available,
    remove_deployment_condition,
    replica_set_fraction,
    replicas_annotations_need_update,
    resolve_fenceposts_values,
    set_deployment_condition,
    set_new_rs_annotations,
    spec_replicas,
    status_sum,
    terminating_count,
)

Obj = dict[str, Any]
NOW = "2016-01-01T00:10:00Z"
LATER = "2016-01-01T00:11:00Z"
BEFORE = "2016-01-01T00:09:00Z"


def _deployment(image: str) -> Obj:
    labels = {"name": image}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": image, "uid": f"uid-{image}", "annotations": {}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {
                    "containers": [{"name": image, "image": image, "imagePullPolicy": "Always"}],
                    "restartPolicy": "Always",
                    "dnsPolicy": "ClusterFirst",
                },
            },
        },
    }


def _rs(d: Obj, name: str, created: str = NOW, replicas: int = 0) -> Obj:
    template = copy.deepcopy(d["spec"]["template"])
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "creationTimestamp": created,
            "labels": dict(template["metadata"]["labels"]),
        },
        "spec": {
            "replicas": replicas,
            "template": template,
            "selector": {"matchLabels": dict(template["metadata"]["labels"])},
        },
    }


def _old_deployment() -> Obj:
    d = _deployment("nginx")
    d["spec"]["template"]["spec"]["containers"][0]["name"] = "nginx-old-1"
    return d


def _rs_fixtures(new_replicas: int) -> dict[str, Obj]:
    d = _deployment("nginx")
    new = _rs(d, "newRS", LATER, new_replicas)
    new["spec"]["template"]["metadata"]["labels"][TEMPLATE_HASH_LABEL] = "hash"
    dup = _rs(d, "newRSDup", NOW)
    dup["spec"]["template"]["metadata"]["labels"][TEMPLATE_HASH_LABEL] = "different-hash"
    old = _rs(_old_deployment(), "oldRS", BEFORE)
    return {"newRS": new, "newRSDup": dup, "oldRS": old}


# -- TestFindNewReplicaSet / TestFindOldReplicaSets ------------------------------------------

FIND_NEW_ROWS = {
    "Get new ReplicaSet with the same template as Deployment spec but different "
    "pod-template-hash value": (["newRS", "oldRS"], "newRS"),
    "Get the oldest new ReplicaSet when there are more than one ReplicaSet with the same "
    "template": (["newRS", "oldRS", "newRSDup"], "newRSDup"),
    "Get nil new ReplicaSet": (["oldRS"], None),
}


@pytest.mark.parametrize(
    ("rss", "want"), [pytest.param(*r, id=n) for n, r in FIND_NEW_ROWS.items()]
)
def test_find_new_replica_set(rss: list[str], want: str | None) -> None:
    fx = _rs_fixtures(0)
    got = find_new_rs(_deployment("nginx"), [fx[n] for n in rss])
    assert (got["metadata"]["name"] if got else None) == want


FIND_OLD_ROWS = {
    "Get old ReplicaSets": (["newRS", "oldRS"], ["oldRS"], []),
    "Get old ReplicaSets with no new ReplicaSet": (["oldRS"], ["oldRS"], []),
    "Get old ReplicaSets with two new ReplicaSets, only the oldest new ReplicaSet is seen as "
    "new ReplicaSet": (["oldRS", "newRS", "newRSDup"], ["oldRS", "newRS"], ["newRS"]),
    "Get empty old ReplicaSets": (["newRS"], [], []),
}


@pytest.mark.parametrize(
    ("rss", "want_all", "want_required"), [pytest.param(*r, id=n) for n, r in FIND_OLD_ROWS.items()]
)
def test_find_old_replica_sets(
    rss: list[str], want_all: list[str], want_required: list[str]
) -> None:
    fx = _rs_fixtures(1)
    required, all_old = find_old_rss(_deployment("nginx"), [fx[n] for n in rss])
    assert [rs["metadata"]["name"] for rs in all_old] == want_all
    assert [rs["metadata"]["name"] for rs in required] == want_required


# -- TestGetReplicaCountForReplicaSets ---------------------------------------------------------


def _counted(name: str, spec: int, actual: int, terminating: int | None, gen: int) -> Obj:
    rs = _rs(_deployment(name), name, replicas=spec)
    rs["status"] = {"replicas": actual, "observedGeneration": gen}
    if terminating is not None:
        rs["status"]["terminatingReplicas"] = terminating
    return rs


COUNT_SETS = {
    "rs1": ("foo-rs", 1, 2, 3, 1),
    # upstream sets rs1's observedGeneration twice and never rs2's; rs2 reports its count
    "rs2": ("bar-rs", 2, 3, 1, 0),
    "rs3": ("unsynced-rs", 3, 0, None, 0),
    "rs4": ("dropped-rs", 1, 1, None, 1),
}
COUNT_ROWS = {
    "scaling down rs1": (["rs1"], 1, 2, 3),
    "scaling down rs1 and rs2": (["rs1", "rs2"], 3, 5, 4),
    "scaling up rs3": (["rs3"], 3, 0, 0),
    "scaling down rs1 and rs2 and scaling up rs3": (["rs1", "rs2", "rs3"], 6, 5, 4),
    "invalid/unknown terminating status for rs4": (["rs4"], 1, 1, None),
    "invalid/unknown terminating status for rs4 with rs1, rs2 and rs3": (
        ["rs1", "rs2", "rs3", "rs4"],
        7,
        6,
        None,
    ),
}


@pytest.mark.parametrize(
    ("sets", "count", "actual", "terminating"),
    [pytest.param(*r, id=n) for n, r in COUNT_ROWS.items()],
)
def test_get_replica_count_for_replica_sets(
    sets: list[str], count: int, actual: int, terminating: int | None
) -> None:
    rss = [_counted(*COUNT_SETS[s]) for s in sets]
    assert spec_replicas(rss) == count
    assert status_sum(rss, "replicas") == actual
    assert terminating_count(rss) == terminating


# -- TestResolveFenceposts ------------------------------------------------------------------

FENCEPOST_ROWS: list[tuple[str | None, str | None, int, int, int, bool]] = [
    ("0%", "0%", 0, 0, 1, False),
    ("39%", "39%", 10, 4, 3, False),
    ("oops", "39%", 10, 0, 0, True),
    ("55%", "urg", 10, 0, 0, True),
    (None, "39%", 10, 0, 3, False),
    ("39%", None, 10, 4, 0, False),
    (None, None, 10, 0, 1, False),
]


@pytest.mark.parametrize(
    ("surge", "unavailable", "desired", "want_surge", "want_unavailable", "error"),
    [pytest.param(*r, id=str(i)) for i, r in enumerate(FENCEPOST_ROWS)],
)
def test_resolve_fenceposts(
    surge: str | None,
    unavailable: str | None,
    desired: int,
    want_surge: int,
    want_unavailable: int,
    error: bool,
) -> None:
    if error:
        with pytest.raises(ValueError, match="string is not a percentage"):
            resolve_fenceposts_values(surge, unavailable, desired)
        return
    assert resolve_fenceposts_values(surge, unavailable, desired) == (
        want_surge,
        want_unavailable,
    )


# -- TestNewRSNewReplicas -------------------------------------------------------------------

NEW_RS_ROWS = {
    "can not scale up - to newRSReplicas": ("RollingUpdate", 1, 5, 1, 5),
    "scale up - to depReplicas": ("RollingUpdate", 6, 2, 10, 6),
    "recreate - to depReplicas": ("Recreate", 3, 1, 1, 3),
}


@pytest.mark.parametrize(
    ("strategy", "dep_replicas", "new_replicas", "surge", "want"),
    [pytest.param(*r, id=n) for n, r in NEW_RS_ROWS.items()],
)
def test_new_rs_new_replicas(
    strategy: str, dep_replicas: int, new_replicas: int, surge: int, want: int
) -> None:
    d = _deployment("nginx")
    d["spec"]["replicas"] = dep_replicas
    d["spec"]["strategy"] = {
        "type": strategy,
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": surge},
    }
    new = _rs(d, "new", replicas=new_replicas)
    rs5 = _rs(d, "rs5", replicas=5)
    assert new_rs_new_replicas(d, [rs5], new) == want


# -- TestGetCondition / TestSetCondition / TestRemoveCondition ------------------------------


def _cond(kind: str) -> Obj:
    return {
        "progressing": {"type": "Progressing", "status": "False", "reason": "ForSomeReason"},
        "progressing2": {"type": "Progressing", "status": "True", "reason": "BecauseItIs"},
        "available": {"type": "Available", "status": "True", "reason": "AwesomeController"},
    }[kind]


def _status(*kinds: str) -> Obj:
    return {"conditions": [_cond(k) for k in kinds]}


@pytest.mark.parametrize(
    ("ctype", "exists"),
    [
        pytest.param("Available", True, id="condition exists"),
        pytest.param("ReplicaFailure", False, id="condition does not exist"),
    ],
)
def test_get_condition(ctype: str, exists: bool) -> None:
    assert (condition_of(_status("progressing", "available"), ctype) is not None) is exists


@pytest.mark.parametrize(
    ("start", "cond", "want"),
    [
        pytest.param([], "available", ["available"], id="set for the first time"),
        pytest.param(["progressing"], "available", ["progressing", "available"], id="simple set"),
        pytest.param(["progressing"], "progressing2", ["progressing2"], id="overwrite"),
    ],
)
def test_set_condition(start: list[str], cond: str, want: list[str]) -> None:
    status = _status(*start)
    c = _cond(cond)
    set_deployment_condition(status, c["type"], c["status"], c["reason"], "", NOW)
    got = [(x["type"], x["status"], x["reason"]) for x in status["conditions"]]
    assert got == [(_cond(k)["type"], _cond(k)["status"], _cond(k)["reason"]) for k in want]


@pytest.mark.parametrize(
    ("start", "ctype", "want"),
    [
        pytest.param([], "Progressing", [], id="remove from empty status"),
        pytest.param(["progressing"], "Progressing", [], id="simple remove"),
        pytest.param(
            ["progressing", "available"],
            "ReplicaFailure",
            ["progressing", "available"],
            id="doesn't remove anything",
        ),
    ],
)
def test_remove_condition(start: list[str], ctype: str, want: list[str]) -> None:
    status = _status(*start)
    remove_deployment_condition(status, ctype)
    assert (status.get("conditions") or []) == [_cond(k) for k in want]


# -- TestDeploymentComplete -----------------------------------------------------------------


def _rolling(desired: int, surge: int | str, unavailable: int | str) -> Obj:
    return {
        "metadata": {"name": "d"},
        "spec": {
            "replicas": desired,
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
            },
        },
    }


COMPLETE_ROWS = {
    "not complete: min but not all pods become available": ((5, 5, 5, 4, 1, 0), False),
    "not complete: min availability is not honored": ((5, 5, 5, 3, 1, 0), False),
    "complete": ((5, 5, 5, 5, 0, 0), True),
    "not complete: all pods are available but not updated": ((5, 5, 4, 5, 0, 0), False),
    "not complete: still running old pods": ((1, 2, 1, 1, 0, 1), False),
    "not complete: one replica deployment never comes up": ((1, 1, 1, 0, 1, 1), False),
}


@pytest.mark.parametrize(
    ("args", "want"), [pytest.param(*r, id=n) for n, r in COMPLETE_ROWS.items()]
)
def test_deployment_complete(args: tuple[int, int, int, int, int, int], want: bool) -> None:
    desired, current, updated, available, unavailable, surge = args
    d = _rolling(desired, surge, unavailable)
    d["status"] = {
        "replicas": current,
        "updatedReplicas": updated,
        "availableReplicas": available,
    }
    assert deployment_complete(d, d["status"]) is want


# -- TestDeploymentProgressing --------------------------------------------------------------


def _counts(current: int, updated: int, ready: int, available: int) -> Obj:
    return {
        "replicas": current,
        "updatedReplicas": updated,
        "readyReplicas": ready,
        "availableReplicas": available,
    }


PROGRESSING_ROWS = {
    "progressing: updated pods": ((10, 4, 4, 4), (10, 6, 4, 4), True),
    "not progressing": ((10, 4, 4, 4), (10, 4, 4, 4), False),
    "progressing: old pods removed": ((10, 4, 6, 6), (8, 4, 6, 6), True),
    "not progressing: less new pods": ((10, 7, 3, 3), (10, 6, 3, 3), False),
    "progressing: less overall but more new pods": ((10, 4, 7, 7), (8, 8, 5, 5), True),
    "progressing: more ready pods": ((10, 10, 9, 8), (10, 10, 10, 8), True),
    "progressing: more available pods": ((10, 10, 10, 9), (10, 10, 10, 10), True),
}


@pytest.mark.parametrize(
    ("old", "new", "want"), [pytest.param(*r, id=n) for n, r in PROGRESSING_ROWS.items()]
)
def test_deployment_progressing(
    old: tuple[int, int, int, int], new: tuple[int, int, int, int], want: bool
) -> None:
    d = {"metadata": {"name": "d"}, "spec": {}, "status": _counts(*old)}
    assert deployment_progressing(d, _counts(*new)) is want


# -- TestDeploymentTimedOut -----------------------------------------------------------------


def _t(minute: int, sec: int) -> str:
    return f"2016-01-01T00:{minute:02d}:{sec:02d}Z"


TIMED_OUT_ROWS: dict[str, tuple[str, int | None, str, str, bool]] = {
    "nil progressDeadlineSeconds specified - no timeout": ("", None, _t(1, 9), _t(1, 20), False),
    "infinite progressDeadlineSeconds specified - no timeout": (
        "",
        2**31 - 1,
        _t(1, 9),
        _t(1, 20),
        False,
    ),
    "progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:09 => 11s": (
        "",
        10,
        _t(1, 9),
        _t(1, 20),
        True,
    ),
    "progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:11 => 9s": (
        "",
        10,
        _t(1, 11),
        _t(1, 20),
        False,
    ),
    "previous status was a complete deployment": (
        "NewReplicaSetAvailable",
        None,
        "0001-01-01T00:00:00Z",
        _t(1, 20),
        False,
    ),
}


@pytest.mark.parametrize(
    ("reason", "pds", "since", "now", "want"),
    [pytest.param(*r, id=n) for n, r in TIMED_OUT_ROWS.items()],
)
def test_deployment_timed_out(
    reason: str, pds: int | None, since: str, now: str, want: bool
) -> None:
    d: Obj = {"metadata": {"name": "d"}, "spec": {}}
    if pds is not None:
        d["spec"]["progressDeadlineSeconds"] = pds
    d["status"] = {
        "conditions": [
            {"type": "Progressing", "status": "True", "reason": reason, "lastUpdateTime": since}
        ]
    }
    assert deployment_timed_out(d, d["status"], parse_rfc3339(now)) is want


def test_deployment_timed_out_exactly_at_the_deadline_is_not_yet() -> None:
    # from.Add(delta).Before(now) is strict: 00:01:10 + 10s is not before 00:01:20.
    d: Obj = {"metadata": {"name": "d"}, "spec": {"progressDeadlineSeconds": 10}}
    d["status"] = {
        "conditions": [{"type": "Progressing", "status": "True", "lastUpdateTime": _t(1, 10)}]
    }
    assert not deployment_timed_out(d, d["status"], parse_rfc3339(_t(1, 20)))
    assert deployment_timed_out(d, d["status"], Instant(parse_rfc3339(_t(1, 20)) + 1))


# -- TestMaxUnavailable / TestMinAvailable --------------------------------------------------

MAX_UNAVAILABLE_ROWS: dict[str, tuple[int | None, int | str, int]] = {
    "maxUnavailable less than replicas": (10, 5, 5),
    "maxUnavailable equal replicas": (10, 10, 10),
    "maxUnavailable greater than replicas": (5, 10, 5),
    "maxUnavailable with replicas is 0": (0, 10, 0),
    "maxUnavailable with Recreate deployment strategy": (None, 0, 0),
    "maxUnavailable less than replicas with percents": (10, "50%", 5),
    "maxUnavailable equal replicas with percents": (10, "100%", 10),
    "maxUnavailable greater than replicas with percents": (5, "100%", 5),
}


@pytest.mark.parametrize(
    ("replicas", "unavailable", "want"),
    [pytest.param(*r, id=n) for n, r in MAX_UNAVAILABLE_ROWS.items()],
)
def test_max_unavailable(replicas: int | None, unavailable: int | str, want: int) -> None:
    if replicas is None:
        d: Obj = {"metadata": {}, "spec": {"strategy": {"type": "Recreate"}}}
    else:
        d = _rolling(replicas, 1, unavailable)
    assert max_unavailable(d) == want


MIN_AVAILABLE_ROWS: dict[str, tuple[int, int | str | None, int]] = {
    "replicas greater than maxUnavailable": (10, 5, 5),
    "replicas equal maxUnavailable": (10, 10, 0),
    "replicas less than maxUnavailable": (5, 10, 0),
    "replicas is 0": (0, 10, 0),
    "minAvailable with Recreate deployment strategy": (10, None, 0),
    "replicas greater than maxUnavailable with percents": (10, "60%", 4),
    "replicas equal maxUnavailable with percents": (10, "100%", 0),
    "replicas less than maxUnavailable with percents": (5, "100%", 0),
}


@pytest.mark.parametrize(
    ("replicas", "unavailable", "want"),
    [pytest.param(*r, id=n) for n, r in MIN_AVAILABLE_ROWS.items()],
)
def test_min_available(replicas: int, unavailable: int | str | None, want: int) -> None:
    if unavailable is None:
        d: Obj = {"metadata": {}, "spec": {"replicas": replicas, "strategy": {"type": "Recreate"}}}
    else:
        d = _rolling(replicas, 1, unavailable)
    assert min_available(d) == want


# -- TestGetNonNegativeInt32FromAnnotation / TestReplicasAnnotationsNeedUpdate ---------------

ANNOTATION_ROWS: dict[str, tuple[dict[str, str] | None, int | None]] = {
    "invalid empty": (None, None),
    "invalid": ({"test": "invalid", "foo": "2"}, None),
    "invalid negative ": ({"test": "-1", "foo": "2"}, None),
    "valid zero": ({"test": "0", "foo": "2"}, 0),
    "valid": ({"test": "13", "foo": "2"}, 13),
    "valid max": ({"test": str(2**31 - 1), "foo": "2"}, 2**31 - 1),
    "invalid max out of range": ({"test": str(2**31), "foo": "2"}, None),
    "invalid max out of range 2": ({"test": str(2**32), "foo": "2"}, None),
}


@pytest.mark.parametrize(
    ("annotations", "want"), [pytest.param(*r, id=n) for n, r in ANNOTATION_ROWS.items()]
)
def test_get_non_negative_int32_from_annotation(
    annotations: dict[str, str] | None, want: int | None
) -> None:
    rs = _rs(_deployment("nginx"), "rs")
    if annotations is not None:
        rs["metadata"]["annotations"] = annotations
    assert annotation_int(rs, "test") == want


NEED_UPDATE_ROWS: dict[str, tuple[dict[str, str] | None, bool]] = {
    "test Annotations nil": (None, True),
    "test desiredReplicas update": ({DESIRED_REPLICAS: "8", MAX_REPLICAS: "20"}, True),
    "test maxReplicas update": ({DESIRED_REPLICAS: "10", MAX_REPLICAS: "16"}, True),
    "test needn't update": ({DESIRED_REPLICAS: "10", MAX_REPLICAS: "20"}, False),
}


@pytest.mark.parametrize(
    ("annotations", "want"), [pytest.param(*r, id=n) for n, r in NEED_UPDATE_ROWS.items()]
)
def test_replicas_annotations_need_update(annotations: dict[str, str] | None, want: bool) -> None:
    rs: Obj = {"metadata": {"name": "hello", "namespace": "test"}, "spec": {}}
    if annotations is not None:
        rs["metadata"]["annotations"] = annotations
    assert replicas_annotations_need_update(rs, 10, 20) is want


# -- TestGetReplicaSetFraction --------------------------------------------------------------

FRACTION_ROWS: dict[str, tuple[int, int, int, int, dict[str, str] | None, int]] = {
    "empty deployment always scales to 0": (0, 0, 0, 10, None, -10),
    "unsynced deployment does not scale when max-replicas annotation is missing (removed by a "
    "3rd party)": (10, 0, 0, 5, None, 0),
    "unsynced deployment does not scale when max-replicas annotation is incorrectly set to 0 "
    "(by a 3rd party)": (10, 0, 0, 5, {MAX_REPLICAS: "0"}, 0),
    "scale up by 1/5 should increase RS replicas by 1/5 when max-replicas annotation is missing "
    "(removed by a 3rd party)": (120, 100, 0, 50, None, 10),
    "scale up by 1/5 should increase RS replicas by 1/5 when max-replicas annotation is "
    "incorrectly set to 0 (by a 3rd party)": (120, 100, 0, 50, {MAX_REPLICAS: "0"}, 10),
    "scale up by 1/5 should increase RS replicas by 1/5": (
        120,
        0,
        0,
        50,
        {MAX_REPLICAS: "100"},
        10,
    ),
    "scale up with maxSurge by 1/5 should increase RS replicas approximately by 1/5": (
        120,
        0,
        10,
        50,
        {MAX_REPLICAS: "110"},
        9,
    ),
    "scale down by 1/6 should decrease RS replicas by 1/6": (10, 0, 0, 6, {MAX_REPLICAS: "12"}, -1),
    "scale down with maxSurge by 1/6 should decrease RS replicas approximately by 1/6": (
        100,
        0,
        10,
        50,
        {MAX_REPLICAS: "130"},
        -8,
    ),
}


@pytest.mark.parametrize(
    ("replicas", "status_replicas", "surge", "rs_replicas", "annotations", "want"),
    [pytest.param(*r, id=n) for n, r in FRACTION_ROWS.items()],
)
def test_get_replica_set_fraction(
    replicas: int,
    status_replicas: int,
    surge: int,
    rs_replicas: int,
    annotations: dict[str, str] | None,
    want: int,
) -> None:
    d = _deployment("nginx")
    d["status"] = {"replicas": status_replicas}
    d["spec"]["replicas"] = replicas
    d["spec"]["strategy"] = {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": surge, "maxUnavailable": 1},
    }
    rs = _rs(d, "rs", replicas=rs_replicas)
    if annotations is not None:
        rs["metadata"]["annotations"] = annotations
    assert replica_set_fraction(rs, d) == want


# -- TestEqualIgnoreHash ---------------------------------------------------------------------

H = TEMPLATE_HASH_LABEL


def _template(name: str, node: str, annotations: dict[str, str], labels: dict[str, str]) -> Obj:
    """``generatePodTemplateSpec``."""
    return {
        "metadata": {"name": name, "annotations": dict(annotations), "labels": dict(labels)},
        "spec": {"nodeName": node},
    }


EQUAL_ROWS: dict[str, tuple[Obj, Obj, bool]] = {
    "Same spec, same labels": (
        _template("foo", "foo-node", {}, {H: "value-1", "something": "else"}),
        _template("foo", "foo-node", {}, {H: "value-1", "something": "else"}),
        True,
    ),
    "Same spec, only pod-template-hash label value is different": (
        _template("foo", "foo-node", {}, {H: "value-1", "something": "else"}),
        _template("foo", "foo-node", {}, {H: "value-2", "something": "else"}),
        True,
    ),
    "Same spec, the former doesn't have pod-template-hash label": (
        _template("foo", "foo-node", {}, {"something": "else"}),
        _template("foo", "foo-node", {}, {H: "value-2", "something": "else"}),
        True,
    ),
    "Same spec, the label is different, the former doesn't have pod-template-hash label, "
    "same number of labels": (
        _template("foo", "foo-node", {}, {"something": "else"}),
        _template("foo", "foo-node", {}, {H: "value-2"}),
        False,
    ),
    "Same spec, the label is different, the latter doesn't have pod-template-hash label, "
    "same number of labels": (
        _template("foo", "foo-node", {}, {H: "value-1"}),
        _template("foo", "foo-node", {}, {"something": "else"}),
        False,
    ),
    "Same spec, the label is different, and the pod-template-hash label value is the same": (
        _template("foo", "foo-node", {}, {H: "value-1"}),
        _template("foo", "foo-node", {}, {H: "value-1", "something": "else"}),
        False,
    ),
    "Different spec, same labels": (
        _template("foo", "foo-node", {"former": "value"}, {H: "value-1", "something": "else"}),
        _template("foo", "foo-node", {"latter": "value"}, {H: "value-1", "something": "else"}),
        False,
    ),
    "Different spec, different pod-template-hash label value": (
        _template("foo-1", "foo-node", {}, {H: "value-1", "something": "else"}),
        _template("foo-2", "foo-node", {}, {H: "value-2", "something": "else"}),
        False,
    ),
    "Different spec, the former doesn't have pod-template-hash label": (
        _template("foo-1", "foo-node-1", {}, {"something": "else"}),
        _template("foo-2", "foo-node-2", {}, {H: "value-2", "something": "else"}),
        False,
    ),
    "Different spec, different labels": (
        _template("foo", "foo-node-1", {}, {"something": "else"}),
        _template("foo", "foo-node-2", {}, {"nothing": "else"}),
        False,
    ),
}


@pytest.mark.parametrize(
    ("former", "latter", "want"), [pytest.param(*r, id=n) for n, r in EQUAL_ROWS.items()]
)
def test_equal_ignore_hash(former: Obj, latter: Obj, want: bool) -> None:
    before = copy.deepcopy((former, latter))
    assert equal_ignore_hash(former, latter) is want
    assert equal_ignore_hash(latter, former) is want  # reverse order
    assert (former, latter) == before  # the labels are not touched


# -- TestAnnotationUtils ---------------------------------------------------------------------


def test_annotation_utils() -> None:
    """SetNewReplicaSetAnnotations (revision and a 5-char revision history),
    SetReplicasAnnotations and IsSaturated."""
    d = _deployment("nginx")
    d["metadata"]["annotations"][REVISION] = "1"
    rs = _rs(d, "rs")
    for i in range(10, 20):
        nxt = str(i + 1)
        set_new_rs_annotations(d, rs, nxt, True, 5)
        if i >= 12:
            assert rs["metadata"]["annotations"][REVISION_HISTORY] == f"{i - 1},{i}"
        assert rs["metadata"]["annotations"][REVISION] == nxt
    # Not copied: the Deployment's own revision.
    assert rs["metadata"]["annotations"][REVISION] == "20"
    d["spec"]["replicas"] = 10
    d["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}
    assert set_new_rs_annotations(d, rs, "20", False)
    ann = rs["metadata"]["annotations"]
    assert (ann[DESIRED_REPLICAS], ann[MAX_REPLICAS]) == ("10", "11")


def test_set_new_rs_annotations_copies_deployment_annotations() -> None:
    """``copyDeploymentAnnotationsToReplicaSet``: all but the skipped keys."""
    d = _deployment("nginx")
    d["metadata"]["annotations"] = {
        "kubernetes.io/change-cause": "kubectl set image",
        REVISION: "7",
        DESIRED_REPLICAS: "9",
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
    }
    rs = _rs(d, "rs")
    assert set_new_rs_annotations(d, rs, "1", True)
    assert rs["metadata"]["annotations"] == {
        "kubernetes.io/change-cause": "kubectl set image",
        REVISION: "1",
    }
    assert not set_new_rs_annotations(d, rs, "1", True)


# -- TestGenerateReplicaSetName (sync_test.go) -----------------------------------------------


@pytest.mark.parametrize(
    ("name", "template_hash", "want"),
    [
        pytest.param("my-deployment", "abcde12345", "my-deployment-abcde12345", id="short name"),
        pytest.param(
            "a" * 242,
            "abcde12345",
            "a" * 242 + "-abcde12345",
            id="maximum length without truncating",
        ),
        pytest.param(
            "b" * 250,
            "abcde12345",
            "b" * 242 + "-abcde12345",
            id="very long deployment name is truncated",
        ),
        pytest.param(
            "d" * 252, "h" * 252, "d" * 252 + "-" + "h" * 252, id="very long hash is not truncated"
        ),
    ],
)
def test_generate_replica_set_name(name: str, template_hash: str, want: str) -> None:
    assert generate_replica_set_name(name, template_hash) == want

"""pkg/controller/controller_utils_test.go (v1.37.2), the rows that apply to
``reference_impl/controllers/controller_utils.py`` (and the ReplicaSet controller's
inline ports of its helpers): TestCountTerminatingPods, TestActivePodFiltering,
TestSortingActivePods, TestSortingActivePodsWithRanks, TestNextPodAvailabilityCheck,
TestFindMinNextPodAvailabilitySimpleCheck, TestClaimedPodFiltering,
TestCreatePodsWithGenerateName and TestComputeHash.

TestControllerExpectations and TestUIDExpectations are in
test_upstream_controller_expectations.py.

Not ported: TestPatchPodCallbacks and TestDeletePodsAllowsMissing (RealPodControl and
its OnWrite callback are not modelled: controllers call the apiserver directly),
TestFindMinNextPodAvailability (a status evaluation that lags the clock: the simulated
clock does not move within a sync), TestFilterPodsByOwner (the controller-UID pod
indexer), TestActiveReplicaSetsFiltering (a deployment helper kept inline), and
TestRemoveTaintOffNode/TestAddOrUpdateTaintOnNode (the node lifecycle controller's
private taint writes).
"""

from __future__ import annotations

import random
from typing import Any, Final

import pytest

from reference_impl.clock import Duration, Instant, rfc3339, seconds
from reference_impl.controllers.controller_utils import (
    claim_objects,
    deletion_rank,
    find_min_next_pod_availability_check,
    is_pod_active,
    is_pod_terminating,
    next_pod_availability_check,
    pod_from_template,
)
from reference_impl.controllers.deployment.util import compute_hash
from reference_impl.controllers.replicaset_ranking import _less

Obj = dict[str, Any]
NOW: Final = Instant(seconds(400 * 24 * 3600))
MONTH: Final = seconds(30 * 24 * 3600)
HOUR: Final = seconds(3600)


# -- TestCountTerminatingPods / TestActivePodFiltering -------------------------------


def _pod(name: str, phase: str = "Running", *, deleting: bool = False) -> Obj:
    meta: Obj = {"name": name, "namespace": "default", "labels": {"foo": "bar"}}
    if deleting:
        meta["deletionTimestamp"] = rfc3339(NOW)
    return {"metadata": meta, "spec": {}, "status": {"phase": phase}}


def test_count_terminating_pods() -> None:
    """``CountTerminatingPods``/``FilterTerminatingPods``: not terminal and being deleted."""
    pods = [_pod(f"pod{i}") for i in range(7)]
    pods[0]["status"]["phase"] = "Succeeded"
    pods[1]["status"]["phase"] = "Failed"
    pods[2] = _pod("pod2", "Pending", deleting=True)
    pods[3] = _pod("pod3", "Running", deleting=True)
    terminating = [p for p in pods if is_pod_terminating(p)]
    assert len(terminating) == 2


@pytest.mark.parametrize(
    ("pods", "want"),
    [
        pytest.param(
            [("pod-1", "Succeeded"), ("pod-2", "Failed"), ("pod-3", ""), ("pod-4", ""), ("pod-5", "")],
            ["pod-3", "pod-4", "pod-5"],
            id="Filters active pods",
        )
    ],
)
def test_active_pod_filtering(pods: list[tuple[str, str]], want: list[str]) -> None:
    got = sorted(p["metadata"]["name"] for p in (_pod(n, ph) for n, ph in pods) if is_pod_active(p))
    assert got == want


# -- TestSortingActivePods ------------------------------------------------------------


def _ready(since: Instant | None) -> list[Obj]:
    cond: Obj = {"type": "Ready", "status": "True"}
    if since is not None:
        cond["lastTransitionTime"] = rfc3339(since)
    return [cond]


def _active(
    name: str,
    node: str,
    phase: str,
    *,
    ready_since: Instant | None | bool = False,
    restarts: tuple[int, ...] = (),
    sidecar: int | None = None,
    created: Instant | None = None,
) -> Obj:
    """One of the ``Sorts by active pod`` pods; ``ready_since=None`` is a Ready condition
    with a zero lastTransitionTime, ``False`` none at all."""
    status: Obj = {"phase": phase}
    if ready_since is not False:
        assert ready_since is not True
        status["conditions"] = _ready(ready_since)
    if restarts:
        status["containerStatuses"] = [{"name": f"c{i}", "restartCount": n} for i, n in enumerate(restarts)]
    spec: Obj = {"nodeName": node}
    if sidecar is not None:
        spec["initContainers"] = [{"name": "sidecar", "restartPolicy": "Always"}]
        status["initContainerStatuses"] = [{"name": "sidecar", "restartCount": sidecar}]
    meta: Obj = {"name": name}
    if created is not None:
        meta["creationTimestamp"] = rfc3339(created)
    return {"metadata": meta, "spec": spec, "status": status}


THEN: Final = Instant(NOW - MONTH)


def _sorting_pods() -> list[Obj]:
    return [
        _active("unscheduled", "", "Pending"),
        _active("scheduledButPending", "bar", "Pending"),
        _active("unknownPhase", "foo", "Unknown"),
        _active("runningButNotReady", "foo", "Running"),
        _active("runningNoLastTransitionTime", "foo", "Running", ready_since=None, restarts=(3, 0)),
        _active("runningWithLastTransitionTime", "foo", "Running", ready_since=NOW, restarts=(3, 0)),
        _active("runningLongerTime", "foo", "Running", ready_since=THEN, restarts=(3, 0)),
        _active("lowerSidecarContainerRestartCount", "foo", "Running", ready_since=THEN,
                restarts=(2, 1), sidecar=2, created=NOW),
        _active("lowerContainerRestartCount", "foo", "Running", ready_since=THEN, restarts=(2, 1),
                created=NOW),
        _active("oldest", "foo", "Running", ready_since=THEN, restarts=(2, 1), created=THEN),
    ]  # fmt: skip


def test_sorting_active_pods() -> None:
    """Sorts by active pod: 20 shuffles all sort to upstream's order."""
    pods = _sorting_pods()
    want = [p["metadata"]["name"] for p in pods]
    rng = random.Random(7)
    for _ in range(20):
        shuffled = pods[:]
        rng.shuffle(shuffled)
        assert [p["metadata"]["name"] for p in sorted(shuffled, key=deletion_rank)] == want


# -- TestSortingActivePodsWithRanks ---------------------------------------------------

DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"


def _ranked(
    name: str,
    node: str,
    phase: str,
    ready: bool,
    restarts: int,
    side_restarts: int,
    ready_since: Instant | None,
    created: Instant | None,
    cost: str | None = None,
) -> Obj:
    """Upstream's local ``pod`` helper (a sidecar init container always declared)."""
    status: Obj = {"phase": phase}
    if ready:
        status["conditions"] = _ready(ready_since)
        status["containerStatuses"] = [{"name": "c", "restartCount": restarts}]
        status["initContainerStatuses"] = [{"name": "sidecar", "restartCount": side_restarts}]
    meta: Obj = {"name": name}  # no uid: equal log2 buckets tie on the empty UID
    if created is not None:
        meta["creationTimestamp"] = rfc3339(created)
    if cost is not None:
        meta["annotations"] = {DELETION_COST: cost}
    spec: Obj = {"nodeName": node, "initContainers": [{"name": "sidecar", "restartPolicy": "Always"}]}
    return {"metadata": meta, "spec": spec, "status": status}


_H2, _H5, _H8 = Instant(NOW - 2 * HOUR), Instant(NOW - 5 * HOUR), Instant(NOW - 8 * HOUR)
# fmt: off
P: Final[dict[str, Obj]] = {
    "unscheduled": _ranked("unscheduled", "", "Pending", False, 0, 0, None, None),
    "pending": _ranked("pending", "node", "Pending", False, 0, 0, None, None),
    "unknown": _ranked("unknown-phase", "node", "Unknown", False, 0, 0, None, None),
    "notReady": _ranked("not-ready", "node", "Running", False, 0, 0, None, None),
    "readyNoLTT": _ranked("ready-no-last-transition-time", "node", "Running", True, 0, 0, None, None),
    "readyNow": _ranked("ready-now", "node", "Running", True, 0, 0, NOW, NOW),
    "readyThen": _ranked("ready-then", "node", "Running", True, 0, 0, THEN, THEN),
    "highRestarts": _ranked("ready-high-restarts", "node", "Running", True, 9001, 0, NOW, NOW),
    "highSideRestarts": _ranked("ready-high-restarts", "node", "Running", True, 9001, 9001, NOW, NOW),
    "nowCreatedThen": _ranked("ready-now-created-then", "node", "Running", True, 0, 0, NOW, THEN),
    "lowCost": _ranked("low-deletion-cost", "node", "Running", True, 0, 0, NOW, THEN, "10"),
    "highCost": _ranked("high-deletion-cost", "node", "Running", True, 0, 0, NOW, THEN, "100"),
    "unscheduled5h": _ranked("unscheduled-5-hours", "", "Pending", False, 0, 0, _H5, _H5),
    "unscheduled8h": _ranked("unscheduled-10-hours", "", "Pending", False, 0, 0, _H8, _H8),
    "ready2h": _ranked("ready-2-hours", "", "Running", True, 0, 0, _H2, THEN),
    "ready5h": _ranked("ready-5-hours", "", "Running", True, 0, 0, _H5, THEN),
    "ready10h": _ranked("ready-10-hours", "", "Running", True, 0, 0, _H8, THEN),
}
EQUAL = [("unscheduled", None), ("pending", None), ("unknown", None), ("notReady", None),
         ("nowCreatedThen", None), ("readyNow", None), ("readyThen", None), ("highRestarts", None),
         ("nowCreatedThen", None), ("unscheduled5h", "unscheduled8h"), ("ready5h", "ready10h")]
INEQUAL = [(("unscheduled", 1), ("pending", 2)), (("unscheduled", 2), ("pending", 1)),
           (("pending", 1), ("unknown", 2)), (("unknown", 1), ("notReady", 2)),
           (("notReady", 1), ("readyNoLTT", 1)), (("readyNoLTT", 1), ("readyNow", 1)),
           (("readyNow", 2), ("readyNoLTT", 1)), (("readyNow", 1), ("readyThen", 1)),
           (("readyNow", 2), ("readyThen", 1)), (("highRestarts", 1), ("readyNow", 1)),
           (("highSideRestarts", 1), ("highRestarts", 1)), (("readyNow", 2), ("highRestarts", 1)),
           (("readyNow", 1), ("nowCreatedThen", 1)), (("nowCreatedThen", 2), ("readyNow", 1)),
           (("lowCost", 2), ("highCost", 1))]
# fmt: on


@pytest.mark.parametrize(
    ("p1", "p2"), [pytest.param(a, b, id=f"Equality tests {i}") for i, (a, b) in enumerate(EQUAL)]
)
def test_sorting_active_pods_with_ranks_equality(p1: str, p2: str | None) -> None:
    a, b = P[p1], P[p2 or p1]
    assert not _less(a, 1, b, 1, NOW) and not _less(b, 1, a, 1, NOW)


@pytest.mark.parametrize(
    ("lesser", "greater"),
    [
        *(pytest.param(lo, hi, id=f"Inequality tests {i}") for i, (lo, hi) in enumerate(INEQUAL)),
        pytest.param(
            ("highCost", 2), ("lowCost", 1), id="Inequality tests 15",
            marks=pytest.mark.skip(reason="PodDeletionCost off: the gate is not in the reference's table (on, its 1.37 default)"),
        ),
        pytest.param(("ready2h", 1), ("ready5h", 1), id="Inequality tests 16"),
    ],
)  # fmt: skip
def test_sorting_active_pods_with_ranks_inequality(lesser: tuple[str, int], greater: tuple[str, int]) -> None:
    a, b = P[lesser[0]], P[greater[0]]
    assert _less(a, lesser[1], b, greater[1], NOW)
    assert not _less(b, greater[1], a, lesser[1], NOW)


# -- TestNextPodAvailabilityCheck / TestFindMinNextPodAvailabilitySimpleCheck ---------


def _ready_pod(name: str, ready: bool, before_s: int, *, zero_time: bool = False) -> Obj:
    cond: Obj = {"type": "Ready", "status": "True" if ready else "False"}
    if not zero_time:
        cond["lastTransitionTime"] = rfc3339(Instant(NOW - seconds(before_s)))
    return {"metadata": {"name": name}, "spec": {"nodeName": "node0"}, "status": {"phase": "Running", "conditions": [cond]}}


@pytest.mark.parametrize(
    ("pod", "min_ready", "want_s"),
    [
        pytest.param(_ready_pod("p", False, 0), 0, None, id="not ready"),
        pytest.param(_ready_pod("p", True, 0), 0, None, id="no minReadySeconds defined"),
        pytest.param(_ready_pod("p", True, 0, zero_time=True), 1, None, id="lastTransitionTime is zero"),
        pytest.param(_ready_pod("p", True, 0), 1, 1, id="just became ready - available in 1s"),
        pytest.param(_ready_pod("p", True, 20), 30, 10, id="ready for 20s - available in 10s"),
        pytest.param(_ready_pod("p", True, 51), 50, None, id="available"),
    ],
)
def test_next_pod_availability_check(pod: Obj, min_ready: int, want_s: int | None) -> None:
    """``nextPodAvailabilityCheck``."""
    got = next_pod_availability_check(pod, min_ready, NOW)
    assert got == (None if want_s is None else Duration(seconds(want_s)))


@pytest.mark.parametrize(
    ("pods", "min_ready", "want_s"),
    [
        pytest.param([], 0, None, id="no pods"),
        pytest.param([_ready_pod("pod1", False, 0), _ready_pod("pod2", False, 0)], 0, None, id="unready pods"),
        pytest.param([_ready_pod("pod1", True, 0), _ready_pod("pod2", True, 0)], 0, None,
                     id="ready pods with no minReadySeconds"),
        pytest.param([_ready_pod("pod1", False, 0), _ready_pod("pod2", True, 2), _ready_pod("pod3", True, 0),
                      _ready_pod("pod4", True, 4), _ready_pod("pod5", False, 0)], 10, 6,
                     id="unready and ready pods should find min next availability check"),
        pytest.param([_ready_pod("pod1", False, 0), _ready_pod("pod2", True, 15), _ready_pod("pod3", True, 11),
                      _ready_pod("pod4", True, 10), _ready_pod("pod5", False, 0)], 10, None,
                     id="unready and available pods do not require min next availability check"),
    ],
)  # fmt: skip
def test_find_min_next_pod_availability_simple_check(pods: list[Obj], min_ready: int, want_s: int | None) -> None:
    """``findMinNextPodAvailabilitySimpleCheck``: the least per-pod wait (the reference's
    status is evaluated at the clock's now, so the simple check is the whole check)."""
    got = find_min_next_pod_availability_check(pods, min_ready, NOW)
    assert got == (None if want_s is None else Duration(seconds(want_s)))


# -- TestClaimedPodFiltering ----------------------------------------------------------

RS_UID: Final = "rs-uid"


def _owned(name: str, labels: dict[str, str] | None, *refs: tuple[str, bool | None]) -> Obj:
    owner_refs: list[Obj] = []
    for uid, controller in refs:
        ref: Obj = {"uid": uid}
        if controller is not None:
            ref["controller"] = controller
        owner_refs.append(ref)
    meta: Obj = {"name": name, "namespace": "default", "ownerReferences": owner_refs}
    if labels is not None:
        meta["labels"] = labels
    return {"metadata": meta, "status": {"phase": "Running"}}


def _claim_rows() -> list[Obj]:
    bar, baz, bee, beetle = {"foo": "bar"}, {"foo": "baz"}, {"foo": "bee"}, {"foo": "beetle"}
    return [
        _owned("claimed-1", bar, (RS_UID, True)),
        _owned("wrong-selector-1", baz, (RS_UID, True)),
        _owned("non-controller-1", bar, (RS_UID, None)),
        _owned("other-controller-1", bar, ("u1", True)),
        _owned("other-workload-1", bee, ("u2", True)),
        _owned("standalone-pod-1", beetle),
        _owned("claimed-2", bar, ("u3", False), (RS_UID, True)),
        _owned("wrong-selector-2", baz, ("u4", False), (RS_UID, True)),
        _owned("non-controller-2", bar, ("u5", False), (RS_UID, False)),
        _owned("other-controller-2", bar, ("u6", False), ("u7", True)),
        _owned("other-workload-1", bee, ("u8", False), ("u9", True)),
        _owned("standalone-pod-1", beetle, ("u10", False)),
        _owned("claimed-3", bar, ("u11", None), (RS_UID, True)),
        _owned("wrong-selector-3", None, ("u12", None), (RS_UID, True)),
        _owned("non-controller-3", bar, ("u13", None), (RS_UID, None)),
        _owned("other-controller-3", bar, ("u14", None), ("u15", True)),
        _owned("other-workload-1", bee, ("u16", None)),
        _owned("standalone-pod-1", beetle, ("u17", None)),
    ]


def test_claimed_pod_filtering() -> None:
    """``FilterClaimedPods``: controlled by the set and matching its selector. The
    reference's ``claim_objects`` without adoption is that filter (it adopts, releases
    nothing)."""
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "test-claim", "namespace": "default", "uid": RS_UID},
          "spec": {"selector": {"matchLabels": {"foo": "bar"}}}}  # fmt: skip

    def never(pod: Obj) -> Obj:
        raise AssertionError(f"{pod['metadata']['name']} adopted or released")

    got = claim_objects(rs, _claim_rows(), never, never, may_adopt=False)
    assert sorted({p["metadata"]["name"] for p in got}) == ["claimed-1", "claimed-2", "claimed-3"]


# -- TestCreatePodsWithGenerateName ---------------------------------------------------


def _rc() -> Obj:
    """``newReplicationController(1)``."""
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "foobar", "namespace": "default", "uid": "rc-uid", "resourceVersion": "18"},
        "spec": {
            "replicas": 1,
            "selector": {"foo": "bar"},
            "template": {
                "metadata": {"labels": {"name": "foo", "type": "production"}},
                "spec": {
                    "containers": [{"image": "foo/bar", "terminationMessagePath": "/dev/termination-log",
                                    "imagePullPolicy": "IfNotPresent"}],
                    "restartPolicy": "Always",
                    "dnsPolicy": "Default",
                    "nodeSelector": {"baz": "blah"},
                },
            },
        },
    }  # fmt: skip


@pytest.mark.parametrize(
    "generate_name",
    [pytest.param(None, id="Create pod"), pytest.param("hello-", id="Create pod with generate name")],
)
def test_create_pods_with_generate_name(generate_name: str | None) -> None:
    """``GetPodFromTemplate``: the template's labels and spec, the controller's
    ownerReference, ``<controller name>-`` unless a generateName is given."""
    rc = _rc()
    pod = pod_from_template(rc["spec"]["template"], rc, generate_name or "foobar-")
    assert pod["metadata"]["generateName"] == (generate_name or "foobar-")
    assert pod["metadata"]["labels"] == {"name": "foo", "type": "production"}
    assert pod["metadata"]["namespace"] == "default"
    assert pod["spec"] == rc["spec"]["template"]["spec"]
    assert pod["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "ReplicationController", "name": "foobar", "uid": "rc-uid",
         "controller": True, "blockOwnerDeletion": True}
    ]  # fmt: skip


# -- TestComputeHash ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "other"),
    [pytest.param(1, 2, id="simple"), pytest.param(None, 2**31 - 1, id="using math.MaxInt64")],
)
def test_compute_hash(count: int | None, other: int) -> None:
    """``ComputeHash`` (``deployment/util.py``): another collisionCount, another hash."""
    assert compute_hash({}, count) != compute_hash({}, other)

"""``stateful_set_control_test.go`` (v1.37.2), part 1: ``TestStatefulSetControl``'s
scenarios over every PVC retention policy in Monotonic (OrderedReady) and Burst
(Parallel) mode, ``TestStatefulSetControlWithStartOrdinal``,
``TestStatefulSetControlScaleDownDeleteError`` and ``TestStatefulSetControl_getSetRevisions``."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from statefulset_upstream_env import Env, new_stateful_set, setup_controller
from statefulset_upstream_loops import (
    Clock,
    InternalError,
    Invariants,
    assert_burst_invariants,
    assert_monotonic_invariants,
    empty_invariants,
    is_or_has_internal_error,
    replicas,
    scale_down,
    scale_up,
    status,
    stored,
)

from reference_impl.controllers.history import equal_revision
from reference_impl.controllers.statefulset.claims import has_owner_ref
from reference_impl.controllers.statefulset.identity import (
    POD_INDEX_LABEL,
    allows_burst,
    get_ordinal,
    get_persistent_volume_claims,
    is_created,
)
from reference_impl.controllers.statefulset.revisions import new_revision
from reference_impl.errors import ApiError

Obj = dict[str, Any]
Scenario = Callable[[Obj, Invariants], None]

# runTestOverPVCRetentionPolicies: (name, policy) with the explicit Retain first twice.
POLICIES: list[tuple[str, Obj | None]] = [
    ("", {"whenScaled": "Retain", "whenDeleted": "Retain"}),
    ("Retain", {"whenScaled": "Retain", "whenDeleted": "Retain"}),
    ("ScaleDownOnly", {"whenScaled": "Delete", "whenDeleted": "Retain"}),
    ("SetDeleteOnly", {"whenScaled": "Retain", "whenDeleted": "Delete"}),
    ("Delete", {"whenScaled": "Delete", "whenDeleted": "Delete"}),
    ("nullPolicy", None),
]


def _env_with(ss: Obj | None = None) -> Env:
    """``setupController(fake.NewSimpleClientset(set))``: the set is in the store."""
    env = setup_controller()
    if ss is not None:
        env.sets[f"{ss['metadata']['namespace']}/{ss['metadata']['name']}"] = copy.deepcopy(ss)
    return env


def _rng() -> random.Random:
    return random.Random(7)


def create_pods(ss: Obj, inv: Invariants) -> None:
    """CreatePods."""
    env = _env_with(ss)
    scale_up(env, ss, inv, _rng())
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (3, 3, 3)
    pods = env.om.list_pods(got)
    assert len(pods) == 3
    for pod in pods:
        assert pod["metadata"]["labels"][POD_INDEX_LABEL] == str(get_ordinal(pod))


def scales_up(ss: Obj, inv: Invariants) -> None:
    """ScalesUp."""
    env = _env_with(ss)
    scale_up(env, ss, inv, _rng())
    ss["spec"]["replicas"] = 4
    scale_up(env, ss, inv, _rng())
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (4, 4, 4)


def scales_down(ss: Obj, inv: Invariants) -> None:
    """ScalesDown."""
    env = _env_with(ss)
    scale_up(env, ss, inv, _rng())
    got = stored(env, ss)
    got["spec"]["replicas"] = 0
    scale_down(env, got, inv)
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (0, 0, 0)


def replaces_pods(ss: Obj, inv: Invariants) -> None:
    """ReplacesPods: no pod owns its claims; deleted pods 0, 2, 4 come back."""
    env, clock = _env_with(ss), Clock()
    scale_up(env, ss, inv, _rng())
    got = stored(env, ss)
    assert status(got, "replicas") == 5
    pods = sorted(env.om.list_pods(got), key=get_ordinal)
    for pod in pods:
        for claim in get_persistent_volume_claims(got, pod).values():
            stored_claim = env.om.claims.get(f"default/{claim['metadata']['name']}")
            assert stored_claim is None or not has_owner_ref(stored_claim, pod)
    for i in (0, 2, 4):
        del env.om.pods[f"default/{pods[i]['metadata']['name']}"]
    for i in (0, 2, 4):
        env.ssc.update_stateful_set(got, env.om.list_pods(got), clock.now())
        got = stored(env, ss)
        pods = env.om.set_phase(got, i, "Running")
        env.ssc.update_stateful_set(got, pods, clock.now())
        got = stored(env, ss)
        env.om.set_ready(got, i, True, clock.t)
    env.ssc.update_stateful_set(got, env.om.list_pods(got), clock.now())
    assert status(stored(env, ss), "replicas") == 5


def _recreates_pod(ss: Obj, inv: Invariants, phase: str, delete_failure: bool) -> None:
    """recreatesPod: a terminal pod is deleted (after a failed try), then recreated."""
    env, now = setup_controller(), Clock().now()
    om, deletes = env.om, 0
    env.ssc.update_stateful_set(ss, om.list_pods(ss), now)
    inv(ss, om)
    assert om.delete_tracker.requests == deletes
    terminal = -1
    for i, pod in enumerate(om.list_pods(ss)):
        pod.setdefault("status", {})["phase"] = phase if i == 0 else "Pending"
        if i == 0:
            terminal = get_ordinal(pod)
        om.pods[f"default/{pod['metadata']['name']}"] = pod
    pods = om.list_pods(ss)
    if delete_failure:
        om.delete_tracker.err, om.delete_tracker.after = InternalError(), 0
        deletes += 1
        with pytest.raises(ApiError) as exc:
            env.ssc.update_stateful_set(ss, pods, now)
        assert is_or_has_internal_error(exc.value)
        inv(ss, om)
        assert om.delete_tracker.requests == deletes
        pods = om.list_pods(ss)
    deletes += 1
    env.ssc.update_stateful_set(ss, pods, now)
    inv(ss, om)
    assert om.delete_tracker.requests == deletes
    pods = om.list_pods(ss)
    env.ssc.update_stateful_set(ss, pods, now)
    inv(ss, om)
    assert om.delete_tracker.requests == deletes
    recreated = next((p for p in om.list_pods(ss) if get_ordinal(p) == terminal), None)
    assert recreated is not None and not is_created(recreated)
    want_creates = 2 if not allows_burst(ss) else replicas(ss) + 1
    assert om.create_tracker.requests == want_creates


def recreates_failed_pod(ss: Obj, inv: Invariants) -> None:
    """RecreatesFailedPod."""
    _recreates_pod(ss, inv, "Failed", False)


def recreates_succeeded_pod(ss: Obj, inv: Invariants) -> None:
    """RecreatesSucceededPod."""
    _recreates_pod(ss, inv, "Succeeded", False)


def recreates_failed_pod_with_delete_failure(ss: Obj, inv: Invariants) -> None:
    """RecreatesFailedPodWithDeleteFailure."""
    _recreates_pod(ss, inv, "Failed", True)


def recreates_succeeded_pod_with_delete_failure(ss: Obj, inv: Invariants) -> None:
    """RecreatesSucceededPodWithDeleteFailure."""
    _recreates_pod(ss, inv, "Succeeded", True)


def create_pod_failure(ss: Obj, inv: Invariants) -> None:
    """CreatePodFailure: the second create fails; a second run completes."""
    env = _env_with(ss)
    env.om.create_tracker.err, env.om.create_tracker.after = InternalError(), 2
    with pytest.raises(ApiError) as exc:
        scale_up(env, ss, inv, _rng())
    assert is_or_has_internal_error(exc.value)
    got = stored(env, ss)
    scale_up(env, got, inv, _rng())
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (3, 3, 3)


def update_pod_failure(ss: Obj, inv: Invariants) -> None:
    """UpdatePodFailure: a pod whose identity broke is updated, and the update fails."""
    env = _env_with(ss)
    env.om.update_tracker.err, env.om.update_tracker.after = InternalError(), 0
    scale_up(env, ss, inv, _rng())
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (3, 3, 3)
    pods = sorted(env.om.list_pods(got), key=get_ordinal)
    assert len(pods) == 3
    pods[0]["metadata"]["name"] = "goo-0"
    env.om.pods["default/goo-0"] = copy.deepcopy(pods[0])
    with pytest.raises(ApiError) as exc:
        env.ssc.update_stateful_set(got, pods, Clock().now())
    assert is_or_has_internal_error(exc.value)


def update_set_status_failure(ss: Obj, inv: Invariants) -> None:
    """UpdateSetStatusFailure: the second status write fails; a second run completes."""
    env = _env_with(ss)
    env.ssu.tracker.err, env.ssu.tracker.after = InternalError(), 2
    with pytest.raises(ApiError) as exc:
        scale_up(env, ss, inv, _rng())
    assert is_or_has_internal_error(exc.value)
    got = stored(env, ss)
    scale_up(env, got, inv, _rng())
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (3, 3, 3)


def new_revision_delete_pod_failure(ss: Obj, inv: Invariants) -> None:
    """NewRevisionDeletePodFailure: a failed delete leaves currentReplicas; a working one
    lowers it."""
    env, now = _env_with(ss), Clock().now()
    scale_up(env, ss, inv, _rng())
    got = stored(env, ss)
    assert status(got, "replicas") == 3
    pods = env.om.list_pods(got)
    update = copy.deepcopy(got)
    update["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx-new"
    env.sets["default/foo"] = update
    got = update
    env.om.delete_tracker.err, env.om.delete_tracker.after = InternalError(), 0
    with pytest.raises(ApiError):
        env.ssc.update_stateful_set(got, pods, now)
    got = stored(env, ss)
    inv(got, env.om)
    assert status(got, "currentReplicas") == 3
    assert status(got, "currentRevision") != status(got, "updateRevision")
    env.om.delete_tracker.err = None
    result = env.ssc.update_stateful_set(got, pods, now)
    assert result["currentReplicas"] == 2
    inv(got, env.om)


def recreates_pvc_for_pending_pod(ss: Obj, inv: Invariants) -> None:
    """RecreatesPVCForPendingPod: a Pending pod's missing claims are created again."""
    env, now = setup_controller(), Clock().now()
    env.ssc.update_stateful_set(ss, env.om.list_pods(ss), now)
    inv(ss, env.om)
    pods = env.om.list_pods(ss)
    for claim in get_persistent_volume_claims(ss, pods[0]).values():
        env.om.claims.pop(f"default/{claim['metadata']['name']}", None)
    pods[0].setdefault("status", {})["phase"] = "Pending"
    env.om.pods[f"default/{pods[0]['metadata']['name']}"] = copy.deepcopy(pods[0])
    env.ssc.update_stateful_set(ss, pods, now)
    inv(ss, env.om)


SCENARIOS: list[tuple[str, Scenario, int]] = [
    ("CreatePods", create_pods, 3),
    ("ScalesUp", scales_up, 3),
    ("ScalesDown", scales_down, 3),
    ("ReplacesPods", replaces_pods, 5),
    ("RecreatesFailedPod", recreates_failed_pod, 3),
    ("RecreatesSucceededPod", recreates_succeeded_pod, 3),
    ("RecreatesFailedPodWithDeleteFailure", recreates_failed_pod_with_delete_failure, 3),
    ("RecreatesSucceededPodWithDeleteFailure", recreates_succeeded_pod_with_delete_failure, 3),
    ("CreatePodFailure", create_pod_failure, 3),
    ("UpdatePodFailure", update_pod_failure, 3),
    ("UpdateSetStatusFailure", update_set_status_failure, 3),
    ("NewRevisionDeletePodFailure", new_revision_delete_pod_failure, 3),
    ("RecreatesPVCForPendingPod", recreates_pvc_for_pending_pod, 3),
]


def _rows() -> list[Any]:
    rows = []
    for name, fn, size in SCENARIOS:
        for mode in ("Monotonic", "Burst"):
            for pname, policy in POLICIES:
                ident = f"{name}/{mode}" + (f"/{pname}" if pname else "")
                rows.append(pytest.param(fn, size, mode, policy, id=ident))
    return rows


@pytest.mark.parametrize(("scenario", "size", "mode", "policy"), _rows())
def test_stateful_set_control(scenario: Scenario, size: int, mode: str, policy: Obj | None) -> None:
    """TestStatefulSetControl."""
    ss = new_stateful_set(size)
    if policy is None:
        del ss["spec"]["persistentVolumeClaimRetentionPolicy"]
    else:
        ss["spec"]["persistentVolumeClaimRetentionPolicy"] = dict(policy)
    if mode == "Burst":
        ss["spec"]["podManagementPolicy"] = "Parallel"
        scenario(ss, assert_burst_invariants)
    else:
        scenario(ss, assert_monotonic_invariants)


def test_stateful_set_control_with_start_ordinal() -> None:
    """TestStatefulSetControlWithStartOrdinal / CreatesPodsWithStartOrdinal."""
    ss = new_stateful_set(3)
    ss["spec"]["ordinals"] = {"start": 2}
    env = _env_with(ss)
    scale_up(env, ss, empty_invariants, _rng())
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (3, 3, 3)
    pods = sorted(env.om.list_pods(got), key=get_ordinal)
    assert [get_ordinal(p) for p in pods] == [2, 3, 4]


@pytest.mark.parametrize("policy", [pytest.param(p, id=n or "default") for n, p in POLICIES])
def test_scale_down_delete_error(policy: Obj | None) -> None:
    """TestStatefulSetControlScaleDownDeleteError."""
    ss = new_stateful_set(3)
    if policy is None:
        del ss["spec"]["persistentVolumeClaimRetentionPolicy"]
    else:
        ss["spec"]["persistentVolumeClaimRetentionPolicy"] = dict(policy)
    env = _env_with(ss)
    scale_up(env, ss, assert_monotonic_invariants, _rng())
    got = stored(env, ss)
    got["spec"]["replicas"] = 0
    env.om.delete_tracker.err, env.om.delete_tracker.after = InternalError(), 2
    with pytest.raises(ApiError) as exc:
        scale_down(env, got, assert_monotonic_invariants)
    assert is_or_has_internal_error(exc.value)
    got = stored(env, ss)
    scale_down(env, got, assert_monotonic_invariants)
    got = stored(env, ss)
    assert (status(got, "replicas"), status(got, "readyReplicas"), status(got, "updatedReplicas")) == (0, 0, 0)


def _revision_rows() -> list[Any]:
    rows = []
    for pname, _ in POLICIES:
        for name in ("creates initial revision", "creates revision on update",
                     "must not recreate a new revision of same set", "must rollback to a previous revision"):  # fmt: skip
            rows.append(pytest.param(pname, name, id=f"{pname or 'default'}/{name}"))
    return rows


@pytest.mark.parametrize(("pname", "row"), _revision_rows())
def test_get_set_revisions(pname: str, row: str) -> None:
    """TestStatefulSetControl_getSetRevisions."""
    policy = dict(POLICIES)[pname]
    ss = new_stateful_set(3)
    if policy is None:
        del ss["spec"]["persistentVolumeClaimRetentionPolicy"]
    else:
        ss["spec"]["persistentVolumeClaimRetentionPolicy"] = dict(policy)
    ss["status"] = {"collisionCount": 0}
    rev0 = new_revision(ss, 1, 0)
    set1 = copy.deepcopy(ss)
    set1["spec"]["template"]["spec"]["containers"][0]["image"] = "foo"
    set1["status"] = {"currentRevision": rev0["metadata"]["name"], "collisionCount": 0}
    rev1 = new_revision(set1, 2, 0)
    set2 = copy.deepcopy(set1)
    set2["spec"]["template"]["metadata"]["labels"]["new"] = "label"
    rev2 = new_revision(set2, 3, 0)
    rolled = {**copy.deepcopy(rev1), "revision": 4}
    existing, target, count, want_current, want_update = {
        "creates initial revision": ([], ss, 1, rev0, rev0),
        "creates revision on update": ([rev0], set1, 2, rev0, rev1),
        "must not recreate a new revision of same set": ([rev0, rev1], set1, 2, rev0, rev1),
        "must rollback to a previous revision": ([rev0, rev1, rev2], set1, 3, rev0, rolled),
    }[row]
    env = setup_controller()
    target = copy.deepcopy(target)
    target["status"]["collisionCount"] = 0
    for rev in existing:
        env.history.create_controller_revision(target, rev, 0)
    revisions = env.ssc.list_revisions(target)
    current, update, _ = env.ssc.get_stateful_set_revisions(target, revisions)
    assert len(env.ssc.list_revisions(target)) == count
    assert equal_revision(current, want_current) and equal_revision(update, want_update)
    assert (current["revision"], update["revision"]) == (want_current["revision"], want_update["revision"])

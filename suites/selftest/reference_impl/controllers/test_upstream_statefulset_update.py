"""``stateful_set_control_test.go`` (v1.37.2), part 3: OnDelete, partitioned RollingUpdate,
the Recreate strategy (StatefulSetRecreateStrategy, alpha: the gate is passed on), and
the revision history limit."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from statefulset_upstream_env import Env, FakeObjectManager, new_stateful_set, setup_controller
from statefulset_upstream_loops import (
    Clock,
    InternalError,
    Invariants,
    assert_burst_invariants,
    assert_monotonic_invariants,
    assert_update_invariants,
    scale_down,
    scale_up,
    status,
    stored,
    update_control,
)
from test_upstream_statefulset_control import POLICIES

from reference_impl.controllers.statefulset.identity import (
    get_ordinal,
    get_persistent_volume_claims,
)
from reference_impl.errors import ApiError

Obj = dict[str, Any]
ORIGINAL = new_stateful_set(3)["spec"]["template"]["spec"]["containers"][0]["image"]


def _policy(ss: Obj, policy: Obj | None) -> Obj:
    if policy is None:
        ss["spec"].pop("persistentVolumeClaimRetentionPolicy", None)
    else:
        ss["spec"]["persistentVolumeClaimRetentionPolicy"] = dict(policy)
    return ss


def _images(env: Env, ss: Obj) -> list[str]:
    pods = sorted(env.om.list_pods(ss), key=get_ordinal)
    return [p["spec"]["containers"][0]["image"] for p in pods]


def _update(ss: Obj, n: int | None) -> Obj:
    if n is not None:
        ss["spec"]["replicas"] = n
    ss["spec"]["template"]["spec"]["containers"][0]["image"] = "foo"
    return ss


def _setup(ss: Obj, inv: Invariants, seed: int = 1, recreate: bool = False) -> tuple[Env, Obj]:
    env = setup_controller(recreate_gate=recreate)
    env.sets["default/foo"] = ss
    scale_up(env, ss, inv, random.Random(seed))
    return env, stored(env, ss)


# (name, invariants, initial replicas, burst, new replicas, images after the update)
_UPDATE_ROWS: list[tuple[str, Invariants, int, bool, int | None, Callable[[int], str]]] = [
    ("monotonic image update", assert_monotonic_invariants, 3, False, None, lambda i: ORIGINAL),
    ("monotonic image update and scale up", assert_monotonic_invariants, 3, False, 5,
     lambda i: ORIGINAL if i < 3 else "foo"),
    ("monotonic image update and scale down", assert_monotonic_invariants, 5, False, 3, lambda i: ORIGINAL),
    ("burst image update", assert_burst_invariants, 3, True, None, lambda i: ORIGINAL),
    ("burst image update and scale up", assert_burst_invariants, 3, True, 5, lambda i: ORIGINAL if i < 3 else "foo"),
    ("burst image update and scale down", assert_burst_invariants, 5, True, 3, lambda i: ORIGINAL),
]  # fmt: skip


def _rows(rows: list[Any]) -> list[Any]:
    return [pytest.param(policy, *row[1:], id=f"{pname or 'default'}/{row[0]}")
            for pname, policy in POLICIES for row in rows]  # fmt: skip


def _drop_pod_owned_claims(om: FakeObjectManager) -> None:
    for key, claim in list(om.claims.items()):
        if any(r.get("name", "").startswith("foo-") for r in claim["metadata"].get("ownerReferences") or []):
            del om.claims[key]


def _no_pod_refs(om: FakeObjectManager) -> None:
    for claim in om.claims.values():
        for ref in claim["metadata"].get("ownerReferences") or []:
            assert not ref.get("name", "").startswith("foo-"), claim["metadata"]["name"]


@pytest.mark.parametrize(("policy", "inv", "n", "burst", "scale", "image"), _rows(_UPDATE_ROWS))
def test_on_delete_update(policy: Obj | None, inv: Invariants, n: int, burst: bool, scale: int | None,
                          image: Callable[[int], str]) -> None:  # fmt: skip
    """TestStatefulSetControlOnDeleteUpdate: pods keep their image until deleted; after a
    scale to 0 and back, every pod runs the new one and the revision is complete."""
    ss = _policy(new_stateful_set(n), policy)
    if burst:
        ss["spec"]["podManagementPolicy"] = "Parallel"
    ss["spec"]["updateStrategy"] = {"type": "OnDelete"}
    env, ss = _setup(ss, inv)
    ss = _update(ss, scale)
    update_control(env, ss, assert_update_invariants, random.Random(2))
    _drop_pod_owned_claims(env.om)
    ss = stored(env, ss)
    assert _images(env, ss) == [image(i) for i in range(len(_images(env, ss)))]
    _no_pod_refs(env.om)
    replicas = ss["spec"]["replicas"]
    ss["spec"]["replicas"] = 0
    scale_down(env, ss, inv)
    ss = stored(env, ss)
    ss["spec"]["replicas"] = replicas
    _no_pod_refs(env.om)
    scale_up(env, ss, inv, random.Random(3))
    ss = stored(env, ss)
    assert set(_images(env, ss)) == {"foo"}
    assert status(ss, "currentRevision") == status(ss, "updateRevision")


_PARTITION_ROWS: list[tuple[str, Invariants, int, bool, int | None]] = [
    ("monotonic image update", assert_monotonic_invariants, 3, False, None),
    ("monotonic image update and scale up", assert_monotonic_invariants, 3, False, 5),
    ("burst image update", assert_burst_invariants, 3, True, None),
    ("burst image update and scale up", assert_burst_invariants, 3, True, 5),
]


@pytest.mark.parametrize(("policy", "inv", "n", "burst", "scale"), _rows(_PARTITION_ROWS))
def test_rolling_update_with_partition(policy: Obj | None, inv: Invariants, n: int, burst: bool,
                                       scale: int | None) -> None:  # fmt: skip
    """TestStatefulSetControlRollingUpdateWithPartition: partition 2 keeps pods 0 and 1."""
    ss = _policy(new_stateful_set(n), policy)
    if burst:
        ss["spec"]["podManagementPolicy"] = "Parallel"
    ss["spec"]["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}
    env, ss = _setup(ss, inv)
    ss = _update(ss, scale)
    update_control(env, ss, assert_update_invariants, random.Random(2))
    images = _images(env, stored(env, ss))
    assert images == [ORIGINAL if i < 2 else "foo" for i in range(len(images))]


@pytest.mark.parametrize("policy", [pytest.param(p, id=n or "default") for n, p in POLICIES])
def test_recreate_update_preserves_pvc(policy: Obj | None) -> None:
    """TestStatefulSetControlRecreateUpdatePreservesPVC: the claims outlive the pods."""
    ss = _policy(new_stateful_set(3), policy)
    ss["spec"]["updateStrategy"]["type"] = "Recreate"
    env, ss = _setup(ss, assert_monotonic_invariants, recreate=True)
    before = {}
    for pod in env.om.list_pods(ss):
        for claim in get_persistent_volume_claims(ss, pod).values():
            stored_claim = env.om.claims[f"default/{claim['metadata']['name']}"]
            before[claim["metadata"]["name"]] = stored_claim["metadata"].get("uid")
    _update(ss, None)
    update_control(env, ss, assert_update_invariants, random.Random(2))
    ss = stored(env, ss)
    for pod in env.om.list_pods(ss):
        for claim in get_persistent_volume_claims(ss, pod).values():
            name = claim["metadata"]["name"]
            assert name in before and env.om.claims[f"default/{name}"]["metadata"].get("uid") == before[name]


def _delete_1_2(om: FakeObjectManager, ss: Obj, failed: bool) -> None:
    """The "stuck" and "failed" rows: drop pods 1 and 2; pod 0 Pending or Failed."""
    for ordinal in (1, 2):
        om.pods.pop(f"default/foo-{ordinal}")
    om.set_phase(ss, 0, "Failed" if failed else "Pending")


_RECREATE_ROWS: list[tuple[str, Invariants, int, bool, int | None, bool, str | None]] = [
    ("monotonic image update", assert_monotonic_invariants, 3, False, None, True, None),
    ("noOp when revisions match", assert_monotonic_invariants, 3, False, None, False, None),
    ("monotonic image update and scale up", assert_monotonic_invariants, 3, False, 5, True, None),
    ("monotonic image update and scale down", assert_monotonic_invariants, 5, False, 3, True, None),
    ("burst image update", assert_burst_invariants, 3, True, None, True, None),
    ("burst image update and scale up", assert_burst_invariants, 3, True, 5, True, None),
    ("burst image update and scale down", assert_burst_invariants, 5, True, 3, True, None),
    ("monotonic stuck pod is deleted", assert_monotonic_invariants, 3, False, None, True, "stuck"),
    ("monotonic failed pod is deleted", assert_monotonic_invariants, 3, False, None, True, "failed"),
]


@pytest.mark.parametrize(("inv", "n", "burst", "scale", "change", "pre"),
                         [pytest.param(*row[1:], id=row[0]) for row in _RECREATE_ROWS])  # fmt: skip
def test_recreate_update(inv: Invariants, n: int, burst: bool, scale: int | None, change: bool,
                         pre: str | None) -> None:  # fmt: skip
    """TestStatefulSetControlRecreateUpdate: every old pod is deleted at once, then the new
    revision's pods come up."""
    ss = new_stateful_set(n)
    if burst:
        ss["spec"]["podManagementPolicy"] = "Parallel"
    ss["spec"]["updateStrategy"] = {"type": "Recreate"}
    env, ss = _setup(ss, inv, recreate=True)
    if pre is not None:
        _delete_1_2(env.om, ss, pre == "failed")
    if change:
        _update(ss, scale)
    update_control(env, ss, assert_update_invariants, random.Random(2))
    ss = stored(env, ss)
    pods = env.om.list_pods(ss)
    if change:
        assert set(_images(env, ss)) == {"foo"}
    else:
        assert len(pods) == 3 and status(ss, "currentRevision") == status(ss, "updateRevision")
        assert all(p["status"]["phase"] == "Running" for p in pods)


@pytest.mark.parametrize("policy", [pytest.param(p, id=n or "default") for n, p in POLICIES])
def test_honor_revision_history_limit(policy: Obj | None) -> None:
    """TestStatefulSetHonorRevisionHistoryLimit: failed status writes do not let the
    history grow past limit + the two live revisions."""
    ss = _policy(new_stateful_set(3), policy)
    env, ss = _setup(ss, assert_monotonic_invariants)
    for i in range(ss["spec"]["revisionHistoryLimit"] + 5):
        ss["spec"]["template"]["spec"]["containers"][0]["image"] = f"foo-{i}"
        env.ssu.tracker.err, env.ssu.tracker.after = InternalError(), 2
        try:
            update_control(env, ss, assert_update_invariants, random.Random(i))
        except ApiError:
            pass  # upstream ignores the error
        ss = stored(env, ss)
        assert len(env.ssc.list_revisions(ss)) <= ss["spec"]["revisionHistoryLimit"] + 2


@pytest.mark.parametrize(
    ("inv", "burst", "limit"),
    [
        pytest.param(assert_monotonic_invariants, False, 2, id="monotonic update"),
        pytest.param(assert_burst_invariants, True, 2, id="burst update"),
        pytest.param(assert_monotonic_invariants, False, 0, id="zero revisionHistoryLimit"),
        pytest.param(assert_monotonic_invariants, False, -2, id="negative revisionHistoryLimit"),
        pytest.param(assert_monotonic_invariants, False, 5, id="positive revisionHistoryLimit"),
    ],
)
def test_limits_history(inv: Invariants, burst: bool, limit: int) -> None:
    """TestStatefulSetControlLimitsHistory: at most limit + 2 revisions (none dropped
    under a negative limit)."""
    ss = new_stateful_set(3)
    ss["spec"]["revisionHistoryLimit"] = limit
    if burst:
        ss["spec"]["podManagementPolicy"] = "Parallel"
    env, ss = _setup(ss, inv)
    for i in range(10):
        ss["spec"]["template"]["spec"]["containers"][0]["image"] = f"foo-{i}"
        update_control(env, ss, assert_update_invariants, random.Random(i))
        pods = env.om.list_pods(ss)
        ss = stored(env, ss)
        env.ssc.update_stateful_set(ss, pods, Clock().now())
        revisions = env.ssc.list_revisions(ss)
        if limit < 0:
            assert len(revisions) == i + 2
            continue
        assert len(revisions) <= limit + 2

"""``stateful_set_control_test.go`` (v1.37.2), part 2: the RollingUpdate with
maxUnavailable (MaxUnavailableStatefulSet, on in 1.37) and ``TestStatefulSetControlRollingUpdate``."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import pytest
from statefulset_upstream_env import Env, FakeObjectManager, new_stateful_set, setup_controller
from statefulset_upstream_loops import (
    Clock,
    Invariants,
    assert_burst_invariants,
    assert_monotonic_invariants,
    assert_update_invariants,
    scale_up,
    stored,
    update_control,
)

from reference_impl.controllers.statefulset.identity import get_ordinal, replicas_of
from reference_impl.controllers.statefulset.replicas import rolling_update

Obj = dict[str, Any]


def _rolling_set(n: int, policy: str, partition: int, max_unavailable: int) -> Obj:
    ss = new_stateful_set(n)
    ss["spec"]["podManagementPolicy"] = policy
    ss["spec"]["updateStrategy"] = {"type": "RollingUpdate",
                                    "rollingUpdate": {"partition": partition, "maxUnavailable": max_unavailable}}  # fmt: skip
    return ss


def _sorted(pods: list[Obj]) -> list[Obj]:
    return sorted(pods, key=get_ordinal)


def _try(fn: Callable[[], object]) -> None:
    """Go's ignored ``spc.setPod...`` errors (a pod that does not exist yet)."""
    with contextlib.suppress(AssertionError):
        fn()


@pytest.mark.parametrize("policy", [pytest.param("OrderedReady", id="OrderedReady"),
                                    pytest.param("Parallel", id="Parallel")])  # fmt: skip
def test_rolling_update_with_max_unavailable(policy: str) -> None:
    """TestStatefulSetControlRollingUpdateWithMaxUnavailable: partition 3, maxUnavailable 2."""
    total = 6
    ss = _rolling_set(total, policy, 3, 2)
    env, clock = setup_controller(), Clock()
    om = env.om
    scale_up(env, ss, assert_burst_invariants, random.Random(3))
    ss = stored(env, ss)
    ss["spec"]["template"]["spec"]["containers"][0]["image"] = "foo"
    original = _sorted(om.list_pods(ss))
    env.ssc.update_stateful_set(ss, original, clock.now())
    pods = _sorted(om.list_pods(ss))
    assert pods == original[:4]  # 5 and 4 deleted
    env.ssc.update_stateful_set(ss, pods, clock.now())
    pods = om.list_pods(ss)
    if policy == "Parallel":
        assert len(pods) == total
        om.set_phase(ss, 4, "Running")
        original = _sorted(om.set_ready(ss, 4, True, clock.t))
        env.ssc.update_stateful_set(ss, original, clock.now())
        pods = _sorted(om.list_pods(ss))
        assert pods == original[:3] + original[4:]  # 3 deleted
        env.ssc.update_stateful_set(ss, pods, clock.now())
        assert len(om.list_pods(ss)) == total
    else:
        assert len(pods) == 5
        om.set_phase(ss, 4, "Running")
        om.set_ready(ss, 4, True, clock.t)
        env.ssc.update_stateful_set(ss, pods, clock.now())
        assert len(om.list_pods(ss)) == total - 1
    om.set_phase(ss, 3, "Running")
    _try(lambda: om.set_phase(ss, 5, "Running"))
    _try(lambda: om.set_ready(ss, 5, True, clock.t))
    original = _sorted(om.set_ready(ss, 3, True, clock.t))
    env.ssc.update_stateful_set(ss, original, clock.now())
    assert _sorted(om.list_pods(ss)) == original


def _setup_for_invariant() -> tuple[Obj, Env]:
    """``setupForInvariant``: 6 ready pods, partition 3, maxUnavailable 2."""
    ss = _rolling_set(6, "OrderedReady", 3, 2)
    env = setup_controller()
    scale_up(env, ss, assert_burst_invariants, random.Random(5))
    return stored(env, ss), env


@pytest.mark.parametrize(
    "terminating",
    [pytest.param(t, id=f"terminating pod at ordinal {list(t)}") for t in
     ((), (5,), (3,), (4,), (5, 4), (5, 3), (4, 3), (5, 4, 3), (2,), (1,))],  # fmt: skip
)
def test_max_unavailable_in_ordered_mode_verify_invariant(terminating: tuple[int, ...]) -> None:
    """TestStatefulSetControlRollingUpdateWithMaxUnavailableInOrderedModeVerifyInvariant:
    maxUnavailable less the terminating pods are deleted."""
    ss, env = _setup_for_invariant()
    for ordinal in terminating:
        env.om.add_terminating_pod(ss, ordinal)
    original = _sorted(env.om.list_pods(ss))
    ss["spec"]["template"]["spec"]["containers"][0]["image"] = "foo"
    assert rolling_update(env.spc, ss, original, "", {"replicas": 6}, Clock().now()) is None
    want = 6 - max(2 - len(terminating), 0)
    assert len(env.om.list_pods(ss)) == want


def _ready_false(om: FakeObjectManager, ss: Obj, ordinal: int, now: int) -> None:
    om.set_ready(ss, ordinal, False, now)


def _terminated(om: FakeObjectManager, ss: Obj, ordinal: int, now: int) -> None:
    om.set_terminated(ss, ordinal)


def _available(om: FakeObjectManager, ss: Obj, ordinal: int, now: int) -> None:
    om.set_available(ss, ordinal, now)


def _mixed(first: Callable[..., None], other: Callable[..., None]) -> Callable[..., None]:
    """Ordinal 3 one way, the others another."""

    def make(om: FakeObjectManager, ss: Obj, ordinal: int, now: int) -> None:
        (first if ordinal == 3 else other)(om, ss, ordinal, now)

    return make


_P, _O = "Parallel", "OrderedReady"
_STALE_ROWS: list[tuple[str, str, int, int, int, int, list[int], Callable[..., None], list[int]]] = [
    ("Parallel/single replica: unavailable pod on old revision must be updated",
     _P, 1, 0, 1, 0, [0], _ready_false, []),
    ("Parallel/3 replicas, highest-ordinal pod unavailable on old revision",
     _P, 3, 0, 1, 0, [2], _ready_false, [0, 1]),
    ("Parallel/5 replicas, 2 pods unavailable on old revision",
     _P, 5, 0, 2, 0, [3, 4], _ready_false, [0, 1, 2]),
    ("OrderedReady/single replica: unavailable pod on old revision blocks update",
     _O, 1, 0, 1, 0, [0], _ready_false, [0]),
    ("OrderedReady/3 replicas, highest-ordinal pod unavailable on old revision blocks update",
     _O, 3, 0, 1, 0, [2], _ready_false, [0, 1, 2]),
    ("OrderedReady/5 replicas, 2 pods unavailable on old revision blocks update",
     _O, 5, 0, 2, 0, [4], _ready_false, [0, 1, 2, 3]),
    ("Parallel/3 replicas, highest-ordinal pod terminating on old revision: budget consumed, "
     "next pod must NOT be deleted", _P, 3, 0, 1, 0, [2], _terminated, [0, 1, 2]),
    ("OrderedReady/3 replicas, highest-ordinal pod terminating on old revision blocks update",
     _O, 3, 0, 1, 0, [2], _terminated, [0, 1, 2]),
    ("Parallel/5 replicas maxUnavailable=3, pod-4 terminating + pod-3 crashlooping: only 1 more pods "
     "should be deleted", _P, 5, 0, 3, 0, [3, 4], _mixed(_ready_false, _terminated), [0, 1, 4]),
    ("Parallel/3 replicas, highest-ordinal pod ready but within minReadySeconds on old revision: pod "
     "gets deleted", _P, 3, 0, 1, 30, [2], _available, [0, 1]),
    ("OrderedReady/3 replicas, highest-ordinal pod ready but within minReadySeconds on old revision "
     "blocks update", _O, 3, 0, 1, 30, [2], _available, [0, 1, 2]),
    ("Parallel/5 replicas, pod-3 unavailable + pod-4 terminating on old revision, only 1 more pods "
     "should be deleted", _P, 5, 0, 3, 0, [3, 4], _mixed(_ready_false, _terminated), [0, 1, 4]),
    ("Parallel/5 replicas, pod-3 terminating + pod-4 unavailable on old revision, only 1 more pods "
     "should be deleted", _P, 5, 0, 3, 0, [3, 4], _mixed(_terminated, _ready_false), [0, 1, 3]),
    ("OrderedReady/5 replicas, 1 pod unavailable(#3) + 1 pod terminating(#4) on old revision",
     _O, 5, 0, 3, 0, [3, 4], _mixed(_ready_false, _terminated), [0, 1, 2, 4]),
    ("OrderedReady/5 replicas, 1 pod terminating(#3) + 1 pod unavailable(#4) on old revision",
     _O, 5, 0, 3, 0, [3, 4], _mixed(_terminated, _ready_false), [0, 1, 2, 3]),
    ("Parallel/5 replicas partition=2: unavailable pod in update range (#4) gets deleted",
     _P, 5, 2, 1, 0, [4], _ready_false, [0, 1, 2, 3]),
    ("Parallel/5 replicas partition=2: unavailable pod at partition boundary (#2) gets deleted, highest "
     "stale pod (#4) is unaffected", _P, 5, 2, 1, 0, [2], _ready_false, [0, 1, 3, 4]),
    ("Parallel/5 replicas partition=2: unavailable pod below partition (#1) consumes budget, no update",
     _P, 5, 2, 1, 0, [1], _ready_false, [0, 1, 2, 3, 4]),
    ("OrderedReady/5 replicas partition=2: unavailable pod in update range (#4) blocks update",
     _O, 5, 2, 1, 0, [4], _ready_false, [0, 1, 2, 3, 4]),
    ("Parallel/5 replicas partition=3 maxUnavailable=2: both update-range pods unavailable, both get "
     "deleted", _P, 5, 3, 2, 0, [3, 4], _ready_false, [0, 1, 2]),
    ("Parallel/5 replicas partition=3 maxUnavailable=2: pod below partition (#1) + pod in range (#4) "
     "unavailable, one pod deleted", _P, 5, 3, 2, 0, [1, 4], _ready_false, [0, 1, 2, 3]),
    ("Parallel/4 replicas maxUnavailable=2: lower-ordinal unavailable pods get deleted, higher-ordinal "
     "good pods must stay", _P, 4, 0, 2, 0, [0, 1], _ready_false, [2, 3]),
    ("Parallel/5 replicas maxUnavailable=3: 2 lower-ordinal unavailable pods deleted first, 1 good pod "
     "from the top", _P, 5, 0, 3, 0, [0, 1], _ready_false, [2, 3]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("policy", "n", "partition", "max_unavailable", "min_ready", "unavailable", "make", "remaining"),
    [pytest.param(*row[1:], id=row[0]) for row in _STALE_ROWS],
)
def test_max_unavailable_and_unavailable_stale_pod(policy: str, n: int, partition: int, max_unavailable: int,
                                                   min_ready: int, unavailable: list[int],
                                                   make: Callable[..., None], remaining: list[int]) -> None:  # fmt: skip
    """TestStatefulSetControlRollingUpdateWithMaxUnavailableAndUnavailableStalePod."""
    clock = Clock()
    ss = _rolling_set(n, policy, partition, max_unavailable)
    env = setup_controller()
    scale_up(env, ss, assert_burst_invariants, random.Random(11), clock, step=True)
    ss = stored(env, ss)
    if min_ready > 0:
        past = clock.t - int((min_ready + 60) * 1e9)
        for ordinal in range(n):
            env.om.set_available(ss, ordinal, past)
    for ordinal in unavailable:
        make(env.om, ss, ordinal, clock.t)
    pods = _sorted(env.om.list_pods(ss))
    ss["spec"]["minReadySeconds"] = min_ready
    assert rolling_update(env.spc, ss, pods, "", {"replicas": n}, clock.now()) is None
    after = env.om.list_pods(ss)
    for pod in after:
        assert not pod["metadata"].get("deletionTimestamp") or get_ordinal(pod) in unavailable
    assert sorted(get_ordinal(p) for p in after) == remaining


def _image(ss: Obj, n: int | None = None) -> Obj:
    if n is not None:
        ss["spec"]["replicas"] = n
    ss["spec"]["template"]["spec"]["containers"][0]["image"] = "foo"
    return ss


_ROLLING_ROWS: list[tuple[str, Invariants, int, bool, int | None]] = [
    ("monotonic image update", assert_monotonic_invariants, 3, False, None),
    ("monotonic image update and scale up", assert_monotonic_invariants, 3, False, 5),
    ("monotonic image update and scale down", assert_monotonic_invariants, 5, False, 3),
    ("burst image update", assert_burst_invariants, 3, True, None),
    ("burst image update and scale up", assert_burst_invariants, 3, True, 5),
    ("burst image update and scale down", assert_burst_invariants, 5, True, 3),
]


@pytest.mark.parametrize(("invariants", "n", "burst", "scale"),
                         [pytest.param(*row[1:], id=row[0]) for row in _ROLLING_ROWS])  # fmt: skip
def test_rolling_update(invariants: Invariants, n: int, burst: bool, scale: int | None) -> None:
    """TestStatefulSetControlRollingUpdate: every pod ends on the new image."""
    ss = new_stateful_set(n)
    if burst:
        ss["spec"]["podManagementPolicy"] = "Parallel"
    env = setup_controller()
    env.sets["default/foo"] = ss
    scale_up(env, ss, invariants, random.Random(13))
    ss = _image(stored(env, ss), scale)
    update_control(env, ss, assert_update_invariants, random.Random(17))
    ss = stored(env, ss)
    pods = env.om.list_pods(ss)
    assert len(pods) == replicas_of(ss)
    assert all(p["spec"]["containers"][0]["image"] == "foo" for p in pods)

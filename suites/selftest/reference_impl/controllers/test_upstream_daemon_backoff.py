"""The DaemonSet controller's failed-pods backoff (pkg/controller/daemon v1.37.2:
``failedPodsBackoff``, a ``flowcontrol.Backoff`` of 1 s to 15 min, garbage-collected by
``Run``'s ``wait.Until(dsc.failedPodsBackoff.GC, BackoffGCInterval)`` every minute), and
client-go v0.37.2 util/flowcontrol backoff_test.go rows that the reference's ``Backoff``
(no jitter, no ``Reset``, no ``HasExpiredFunc``) can take: TestSlowBackoff (its
``Reset`` tail left out), TestBackoffHighWaterMark, TestBackoffGC, TestAlternateBackoffGC
("default GC") and TestIsInBackOffSinceUpdate.
"""

from __future__ import annotations

from typing import Final

import pytest
from daemon_upstream_env import START, Env

from reference_impl.clock import Duration, Instant, seconds
from reference_impl.controllers.daemon.controller import BACKOFF_GC_INTERVAL, DaemonSetsController
from reference_impl.controllers.daemon.placement import Backoff

STEP: Final = seconds(1)
T0: Final = Instant(seconds(1_700_000_000))


def test_slow_backoff() -> None:
    """``TestSlowBackoff``: 0, 1, 2, 4, ... capped at 50 s."""
    b, now = Backoff(initial=STEP, maximum=Duration(50 * STEP)), T0
    for ix, c in enumerate([0, 1, 2, 4, 8, 16, 32, 50, 50, 50]):
        now = Instant(now + STEP)
        assert b.get("_idSlow") == c * STEP, ix
        b.next("_idSlow", now)


def _to_max(b: Backoff, key: str, now: Instant) -> Instant:
    for _ in range(int(b.maximum // STEP) + 1):
        now = Instant(now + STEP)
        b.next(key, now)
    return now


def test_backoff_high_water_mark() -> None:
    """``TestBackoffHighWaterMark``: not expired before 2 * max: stays at the maximum."""
    b = Backoff(initial=STEP, maximum=Duration(5 * STEP))
    now = _to_max(b, "_idHiWaterMark", T0)
    b.next("_idHiWaterMark", Instant(now + 5 * STEP + STEP))
    assert b.get("_idHiWaterMark") == 5 * STEP


def test_backoff_gc() -> None:
    """``TestBackoffGC``: kept at max + step after the last update, dropped at 2 * (max + step)."""
    b = Backoff(initial=STEP, maximum=Duration(5 * STEP))
    now = _to_max(b, "_idGC", T0)
    now = Instant(now + 5 * STEP + STEP)
    b.gc(now)
    assert "_idGC" in b._items, "expected GC to skip entry"
    now = Instant(now + 5 * STEP + STEP)
    b.gc(now)
    assert "_idGC" not in b._items, "expected GC of entry"


@pytest.mark.parametrize("max_duration,non_expired,expired", [
    pytest.param(seconds(50), seconds(5), seconds(101), id="default GC"),
])  # fmt: skip
def test_alternate_backoff_gc(max_duration: Duration, non_expired: Duration, expired: Duration) -> None:
    """``TestAlternateBackoffGC`` (the other rows set a ``HasExpiredFunc``: not modelled)."""
    b = Backoff(initial=STEP, maximum=max_duration)
    b.next("id", T0)
    b.gc(Instant(T0 + non_expired))
    assert "id" in b._items
    b.gc(Instant(T0 + expired))
    assert "id" not in b._items


IS_IN_BACKOFF: Final = [  # (tick, inBackOff, value)
    (0, False, 0), (1, False, 1), (2, True, 2), (3, False, 2), (4, True, 4), (5, True, 4), (6, True, 4),
    (7, False, 4), (8, True, 8), (9, True, 8), (10, True, 8), (11, True, 8), (12, True, 8), (13, True, 8),
    (14, True, 8), (15, False, 8), (16, True, 10), (17, True, 10), (18, True, 10), (19, True, 10),
    (20, True, 10), (21, True, 10), (22, True, 10), (23, True, 10), (24, True, 10), (25, False, 10),
    (26, True, 10), (27, True, 10), (28, True, 10), (29, True, 10), (30, True, 10), (31, True, 10),
    (32, True, 10), (33, True, 10), (34, True, 10), (35, False, 10), (56, False, 0), (57, False, 1),
]  # fmt: skip


def test_is_in_backoff_since_update() -> None:
    """``TestIsInBackOffSinceUpdate``: the rows share one backoff, in order."""
    b = Backoff(initial=STEP, maximum=Duration(10 * STEP))
    key = "_idIsInBackOffSinceUpdate"
    for tick, in_backoff, value in IS_IN_BACKOFF:
        now = Instant(T0 + tick * STEP)
        assert b.in_backoff_since_update(key, now) is in_backoff, f"tick {tick}"
        if in_backoff:
            assert b.get(key) == value * STEP, f"tick {tick}"
        else:
            b.next(key, now)


# -- the controller's GC loop ------------------------------------------------------------


def test_controller_gc_runs_every_backoff_gc_interval() -> None:
    """``Run``: GC at start, then every ``BackoffGCInterval`` (1 minute); an entry not
    updated for twice the maximum (here 2 * 500 ms) is dropped at the next run."""
    assert BACKOFF_GC_INTERVAL == seconds(60)
    env = Env()  # started at START: the first GC ran then
    backoff = env.ctrl.failed_pods_backoff
    backoff.next("default/foo/node-0", Instant(START + seconds(1)))
    backoff.next("default/foo/node-1", Instant(START + seconds(59) + seconds(0.5)))
    env.clock.run_until(Instant(START + seconds(60) - 1))
    assert sorted(backoff._items) == ["default/foo/node-0", "default/foo/node-1"]
    env.clock.run_until(Instant(START + seconds(60)))
    assert sorted(backoff._items) == ["default/foo/node-1"]  # 0.5 s old: kept
    env.clock.run_until(Instant(START + seconds(120)))
    assert backoff._items == {}


def test_controller_gc_default_backoff_keeps_entries_30_minutes() -> None:
    """kube-controller-manager's backoff (1 s to 15 min): an entry goes at the first GC
    more than 30 minutes after its last update."""
    env = Env()
    ctrl = DaemonSetsController(env.ctrl._ctx)
    ctrl.start()  # GC now (START), then every minute
    ctrl.failed_pods_backoff.next("k", START)
    env.clock.run_until(Instant(START + seconds(30 * 60)))
    assert "k" in ctrl.failed_pods_backoff._items  # exactly 2 * max: not expired
    env.clock.run_until(Instant(START + seconds(31 * 60)))
    assert "k" not in ctrl.failed_pods_backoff._items

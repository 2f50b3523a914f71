"""Unit tests of the simulated clock."""

from __future__ import annotations

from reference_impl.clock import Instant, Priority, SimClock, parse_rfc3339, rfc3339, seconds


def test_events_run_in_time_then_priority_then_insertion_order() -> None:
    clock = SimClock()
    order: list[str] = []
    clock.call_later(seconds(2), lambda: order.append("late"))
    clock.call_later(seconds(1), lambda: order.append("b"), priority=Priority.LATE)
    clock.call_later(seconds(1), lambda: order.append("a1"))
    clock.call_later(seconds(1), lambda: order.append("a2"))
    clock.call_later(seconds(1), lambda: order.append("urgent"), priority=Priority.URGENT)
    clock.run_until(Instant(seconds(10)))
    assert order == ["urgent", "a1", "a2", "b", "late"]
    assert clock.now() == seconds(10)


def test_cancelled_timers_do_not_fire() -> None:
    clock = SimClock()
    fired: list[int] = []
    t = clock.call_later(seconds(1), lambda: fired.append(1))
    t.cancel()
    clock.run_until(Instant(seconds(5)))
    assert fired == [] and clock.pending() == 0


def test_run_until_stops_at_the_first_instant_the_condition_holds() -> None:
    clock = SimClock()
    box = {"n": 0}
    for i in range(1, 6):
        clock.call_later(seconds(i), lambda: box.__setitem__("n", box["n"] + 1))
    assert clock.run_until(Instant(seconds(100)), stop=lambda: box["n"] >= 3)
    assert clock.now() == seconds(3)


def test_settle_runs_only_what_is_due_now() -> None:
    clock = SimClock()
    seen: list[str] = []
    clock.call_later(
        seconds(0), lambda: clock.call_later(seconds(0), lambda: seen.append("chained"))
    )
    clock.call_later(seconds(1), lambda: seen.append("later"))
    assert clock.settle() == 2
    assert seen == ["chained"] and clock.now() == 0


def test_timestamps_round_trip_through_rfc3339() -> None:
    assert rfc3339(Instant(0)) == "2026-09-01T00:00:00Z"
    for s in (0, 59, 3661, 86_400 * 366 + 7):
        assert parse_rfc3339(rfc3339(Instant(seconds(s)))) == seconds(s)

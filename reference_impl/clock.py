"""A simulated clock with an event heap, after SimPy and ``k8s.io/utils/clock/testing``.

Time is integer nanoseconds since the simulation started, so there is no float drift.
Events at the same instant run in ``(priority, seq)`` order, which makes every run with
the same inputs replay exactly. Nothing here reads the wall clock.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final, NewType

__all__ = [
    "EPOCH_UNIX_SECONDS",
    "Duration",
    "Instant",
    "Priority",
    "SimClock",
    "Timer",
    "millis",
    "parse_rfc3339",
    "rfc3339",
    "seconds",
]

Instant = NewType("Instant", int)
Duration = NewType("Duration", int)

# Simulated time zero, as a Unix time: 2026-09-01T00:00:00Z, near the 1.37 release.
EPOCH_UNIX_SECONDS: Final = 1_788_220_800
_NS: Final = 1_000_000_000


def seconds(value: float) -> Duration:
    """A duration of ``value`` seconds, rounded to the nanosecond."""
    return Duration(round(value * _NS))


def millis(value: float) -> Duration:
    """A duration of ``value`` milliseconds."""
    return Duration(round(value * 1_000_000))


def rfc3339(when: Instant) -> str:
    """Format an instant as the apiserver's RFC 3339 timestamp (second precision, UTC)."""
    total = EPOCH_UNIX_SECONDS + when // _NS
    days, rem = divmod(total, 86_400)
    hh, rem = divmod(rem, 3600)
    mm, ss = divmod(rem, 60)
    y, m, d = _civil_from_days(days)
    return f"{y:04d}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}Z"


def parse_rfc3339(text: str) -> Instant:
    """Parse an apiserver timestamp back into an instant (the inverse of ``rfc3339``)."""
    date, _, tod = text.rstrip("Z").partition("T")
    y, m, d = (int(p) for p in date.split("-"))
    hh, mm, ss = tod.split(":")
    total = _days_from_civil(y, m, d) * 86_400 + int(hh) * 3600 + int(mm) * 60
    return Instant((total + int(float(ss)) - EPOCH_UNIX_SECONDS) * _NS)


def _civil_from_days(z: int) -> tuple[int, int, int]:
    # Howard Hinnant's algorithm; avoids datetime so the module has no wall-clock surface.
    z += 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + (m <= 2), m, d)


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    mp = m - 3 if m > 2 else m + 9
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


class Priority(IntEnum):
    """Same-instant ordering: API writes settle before controllers, controllers before nodes."""

    URGENT = 0
    NORMAL = 1
    LATE = 2


@dataclass(slots=True)
class Timer:
    """A scheduled callback; ``cancel()`` makes the clock skip it."""

    when: Instant
    fn: Callable[[], None]
    cancelled: bool = field(default=False)

    def cancel(self) -> None:
        """Stop the callback from running; cancelling twice is harmless."""
        self.cancelled = True


class SimClock:
    """The simulated clock: ``now``, ``call_at``/``call_later``, ``step`` and ``run``."""

    def __init__(self, start: Instant = Instant(0)) -> None:
        self._now = start  # 0 is EPOCH_UNIX_SECONDS; a test may start at a chosen time
        self._seq = 0
        self._heap: list[tuple[int, int, int, Timer]] = []
        # True while an event runs: the control-plane components' work (their writes are
        # protobuf, not a client's JSON; ``decode``).
        self.in_event = False

    def now(self) -> Instant:
        """The current simulated instant."""
        return self._now

    def call_at(
        self, when: Instant, fn: Callable[[], None], *, priority: Priority = Priority.NORMAL
    ) -> Timer:
        """Run ``fn`` at ``when`` (or now, if ``when`` has passed)."""
        timer = Timer(Instant(max(when, self._now)), fn)
        self._seq += 1
        heapq.heappush(self._heap, (timer.when, int(priority), self._seq, timer))
        return timer

    def call_later(
        self, delay: Duration, fn: Callable[[], None], *, priority: Priority = Priority.NORMAL
    ) -> Timer:
        """Run ``fn`` after ``delay`` nanoseconds."""
        return self.call_at(Instant(self._now + max(0, delay)), fn, priority=priority)

    def peek(self) -> Instant | None:
        """When the next live event is due, or None when the heap is empty."""
        while self._heap and self._heap[0][3].cancelled:
            heapq.heappop(self._heap)
        return Instant(self._heap[0][0]) if self._heap else None

    def step(self) -> bool:
        """Run the next event, moving time forward to it. False when there is none."""
        if self.peek() is None:
            return False
        when, _, _, timer = heapq.heappop(self._heap)
        self._now = Instant(when)
        outer, self.in_event = self.in_event, True
        try:
            timer.fn()
        finally:
            self.in_event = outer
        return True

    def run_until(self, deadline: Instant, stop: Callable[[], bool] | None = None) -> bool:
        """Run events due up to ``deadline``, then set time to it.

        With ``stop``, return True as soon as it holds (checked before each event and at
        the end), leaving time at the instant where it first held.
        """
        while True:
            if stop is not None and stop():
                return True
            nxt = self.peek()
            if nxt is None or nxt > deadline:
                break
            self.step()
        self._now = Instant(max(self._now, deadline))
        return stop() if stop is not None else True

    def settle(self, max_events: int = 10_000_000) -> int:
        """Run every event due now, including ones they schedule for now; return the count."""
        count = 0
        while count < max_events:
            nxt = self.peek()
            if nxt is None or nxt > self._now:
                return count
            self.step()
            count += 1
        raise RuntimeError(f"settle() ran {max_events} events without quiescing: a livelock")

    def pending(self) -> int:
        """How many live events are queued."""
        return sum(1 for e in self._heap if not e[3].cancelled)

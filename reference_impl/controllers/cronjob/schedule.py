"""Cron schedules as ``github.com/robfig/cron/v3``'s ``ParseStandard`` reads them.

The standard 5-field syntax (minute, hour, day of month, month, day of week) with
``*``, ``?``, ranges, steps, lists and month/weekday names; the descriptors
``@yearly``/``@annually``/``@monthly``/``@weekly``/``@daily``/``@midnight``/``@hourly``
and ``@every <duration>``; an optional ``TZ=<zone>`` or ``CRON_TZ=<zone>`` prefix
(standard-library zoneinfo). ``Schedule.next`` follows ``SpecSchedule.Next``: the first
activation strictly after ``t``, searched field by field for at most five years (None
past that). Times are aware datetimes; results come back in ``t``'s zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Final, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from reference_impl.apiserver.strategies.batch_cron import schedule_error

__all__ = ["ConstantDelaySchedule", "Schedule", "SpecSchedule", "load_location", "parse_standard"]

_STAR: Final = 1 << 63
_MONTHS: Final = {m: i + 1 for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
)}
_DOWS: Final = {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
# (min, max, names) per field, robfig's bounds
_FIELDS: Final[list[tuple[int, int, dict[str, int]]]] = [
    (0, 59, {}),
    (0, 23, {}),
    (1, 31, {}),
    (1, 12, _MONTHS),
    (0, 6, _DOWS),
]
_DESCRIPTORS: Final = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_GO_DURATION: Final = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_S: Final = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


class Schedule(Protocol):
    """``cron.Schedule``."""

    def next(self, t: datetime) -> datetime | None:
        """The next activation strictly after ``t``; None when there is none."""
        ...


def load_location(name: str) -> timezone | ZoneInfo:
    """``time.LoadLocation``: "" and "UTC" are UTC; "Local" is UTC here (the reference
    has no host zone); else an IANA zone. ValueError when unknown."""
    if name in ("", "UTC", "Local"):
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ValueError(f"unknown time zone {name}") from e


def _go_duration(text: str) -> timedelta:
    """``time.ParseDuration`` for unsigned durations such as ``1h30m`` or ``90s``."""
    pos, total = 0, 0.0
    for m in _GO_DURATION.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT_S[m.group(2)]
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f'time: invalid duration "{text}"')
    return timedelta(seconds=total)


@dataclass(frozen=True)
class ConstantDelaySchedule:
    """``@every``: ``ConstantDelaySchedule``, whole seconds, at least one."""

    delay: timedelta

    def next(self, t: datetime) -> datetime | None:
        """t plus the delay, dropping t's sub-second part."""
        return t - timedelta(microseconds=t.microsecond) + self.delay


@dataclass(frozen=True)
class SpecSchedule:
    """A parsed 5-field spec: one bit set per allowed value, ``_STAR`` for ``*``/``?``."""

    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    location: timezone | ZoneInfo

    def _day_matches(self, t: datetime) -> bool:
        # robfig dayMatches: AND when either field is a star, else OR
        dom_ok = (1 << t.day) & self.dom > 0
        dow_ok = (1 << ((t.weekday() + 1) % 7)) & self.dow > 0
        if self.dom & _STAR or self.dow & _STAR:
            return dom_ok and dow_ok
        return dom_ok or dow_ok

    def next(self, t: datetime) -> datetime | None:
        """``SpecSchedule.Next``, on whole minutes (the seconds field is always 0)."""
        orig = t.tzinfo
        loc = self.location
        # start at the next whole second, then search in the schedule's zone
        cur = (t - timedelta(microseconds=t.microsecond) + timedelta(seconds=1)).astimezone(loc)
        added = False
        year_limit = cur.year + 5
        while True:
            if cur.year > year_limit:
                return None
            wrapped = False
            while not (1 << cur.month) & self.month:
                if not added:
                    added = True
                    cur = _wall(loc, cur.year, cur.month, 1)
                cur = _wall(loc, cur.year + cur.month // 12, cur.month % 12 + 1, 1)
                if cur.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not self._day_matches(cur):
                if not added:
                    added = True
                    cur = _wall(loc, cur.year, cur.month, cur.day)
                nxt = (cur.replace(tzinfo=None) + timedelta(days=1))
                cur = _wall(loc, nxt.year, nxt.month, nxt.day)
                if cur.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << cur.hour) & self.hour:
                if not added:
                    added = True
                    cur = cur.replace(minute=0, second=0, microsecond=0)
                cur = _add(cur, timedelta(hours=1), loc)
                if cur.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << cur.minute) & self.minute:
                if not added:
                    added = True
                    cur = cur.replace(second=0, microsecond=0)
                cur = _add(cur, timedelta(minutes=1), loc)
                if cur.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while cur.second != 0:
                if not added:
                    added = True
                    cur = cur.replace(microsecond=0)
                cur = _add(cur, timedelta(seconds=1), loc)
                if cur.second == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            return cur.astimezone(orig)


def _wall(loc: timezone | ZoneInfo, y: int, m: int, d: int) -> datetime:
    """Midnight of a calendar day in ``loc`` (``time.Date``)."""
    return datetime(y, m, d, tzinfo=loc)


def _add(t: datetime, d: timedelta, loc: timezone | ZoneInfo) -> datetime:
    """``time.Add``: absolute time, not wall time (matters across DST changes)."""
    return (t.astimezone(UTC) + d).astimezone(loc)


def _parse_int(text: str, names: dict[str, int]) -> int:
    low = text.lower()
    if low in names:
        return names[low]
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"failed to parse int from {text}") from None


def _parse_field(expr: str, lo: int, hi: int, names: dict[str, int]) -> int:
    """``getField``/``getRange``: comma-separated ranges into a bit set."""
    bits = 0
    for part in (p for p in expr.split(",") if p):
        range_and_step = part.split("/")
        low_high = range_and_step[0].split("-")
        single = len(low_high) == 1
        extra = 0
        if low_high[0] in ("*", "?"):
            start, end, extra = lo, hi, _STAR
        else:
            start = _parse_int(low_high[0], names)
            if len(low_high) == 1:
                end = start
            elif len(low_high) == 2:
                end = _parse_int(low_high[1], names)
            else:
                raise ValueError(f"too many hyphens: {part}")
        if len(range_and_step) == 1:
            step = 1
        elif len(range_and_step) == 2:
            step = _parse_int(range_and_step[1], {})
            if single:  # "N/step" means "N-max/step"
                end = hi
            if step > 1:
                extra = 0
        else:
            raise ValueError(f"too many slashes: {part}")
        if start < lo:
            raise ValueError(f"beginning of range ({start}) below minimum ({lo}): {part}")
        if end > hi:
            raise ValueError(f"end of range ({end}) above maximum ({hi}): {part}")
        if start > end:
            raise ValueError(f"beginning of range ({start}) beyond end of range ({end}): {part}")
        if step == 0:
            raise ValueError(f"step of range should be a positive number: {part}")
        for v in range(start, end + 1, step):
            bits |= 1 << v
        bits |= extra
    return bits


def parse_standard(spec: str) -> Schedule:
    """``cron.ParseStandard``; ValueError on a bad spec."""
    err = schedule_error(spec)  # the apiserver's acceptance rules, so both sides agree
    if err is not None:
        raise ValueError(err)
    loc: timezone | ZoneInfo = UTC
    if spec.startswith(("TZ=", "CRON_TZ=")):
        head, _, spec = spec.partition(" ")
        loc = load_location(head.split("=", 1)[1])
        spec = spec.strip()
    if spec.startswith("@"):
        if spec.startswith("@every "):
            delay = _go_duration(spec[len("@every "):].strip())
            if delay < timedelta(seconds=1):
                delay = timedelta(seconds=1)
            return ConstantDelaySchedule(delay - timedelta(microseconds=delay.microseconds))
        if spec not in _DESCRIPTORS:
            raise ValueError(f"unrecognized descriptor: {spec}")
        spec = _DESCRIPTORS[spec]
    fields = spec.split()
    if len(fields) != 5:
        raise ValueError(f"expected exactly 5 fields, found {len(fields)}: {fields}")
    bits = [_parse_field(f, lo, hi, names) for f, (lo, hi, names) in zip(fields, _FIELDS, strict=True)]
    return SpecSchedule(bits[0], bits[1], bits[2], bits[3], bits[4], loc)

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

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Protocol
from zoneinfo import ZoneInfo

from reference_impl.apiserver.strategies.batch_cron import (
    STAR_BIT,
    load_location_error,
    parse_schedule,
)

__all__ = ["ConstantDelaySchedule", "Schedule", "SpecSchedule", "load_location", "parse_standard"]


class Schedule(Protocol):
    """``cron.Schedule``."""

    def next(self, t: datetime) -> datetime | None:
        """The next activation strictly after ``t``; None when there is none."""
        ...


def load_location(name: str) -> timezone | ZoneInfo:
    """``time.LoadLocation``: "" and "UTC" are UTC; "Local" is UTC here (the reference
    has no host zone); else an IANA zone. ValueError with Go's error text otherwise."""
    if name in ("", "UTC", "Local"):
        return UTC
    err = load_location_error(name)
    if err is not None:
        raise ValueError(err)
    return ZoneInfo(name)


@dataclass(frozen=True)
class ConstantDelaySchedule:
    """``@every``: ``ConstantDelaySchedule``, whole seconds, at least one."""

    delay: timedelta

    def next(self, t: datetime) -> datetime | None:
        """t plus the delay, dropping t's sub-second part."""
        return t - timedelta(microseconds=t.microsecond) + self.delay


@dataclass(frozen=True)
class SpecSchedule:
    """A parsed 5-field spec: one bit set per allowed value, ``STAR_BIT`` for ``*``/``?``."""

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
        if self.dom & STAR_BIT or self.dow & STAR_BIT:
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


def parse_standard(spec: str) -> Schedule:
    """``cron.ParseStandard`` (the apiserver's parser, so both sides agree); ValueError
    on a bad spec. ``@every`` is ``cron.Every``: whole seconds, at least one."""
    got = parse_schedule(spec)
    if isinstance(got, str):
        raise ValueError(got)
    loc = load_location(got.zone)
    if got.every_ns is not None:
        delay = max(got.every_ns, 10**9)
        return ConstantDelaySchedule(timedelta(seconds=delay // 10**9))
    minute, hour, dom, month, dow = got.fields
    return SpecSchedule(minute, hour, dom, month, dow, loc)

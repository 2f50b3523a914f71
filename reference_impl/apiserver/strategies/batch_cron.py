"""CronJob schedules and time zones (1.37.2): ``cron.ParseStandard`` of robfig/cron v3.0.1
(five fields or an ``@`` descriptor, an optional ``TZ=``/``CRON_TZ=`` prefix; a prefix
without a following space panics, which ``ParseCronScheduleWithPanicRecovery`` turns into
an error), Go's ``time.ParseDuration`` for ``@every`` and ``time.LoadLocation`` (the
system tz database, read here through :mod:`zoneinfo`)."""

from __future__ import annotations

import re
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["load_location_error", "parse_duration_error", "schedule_error"]

_DESCRIPTORS: Final = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
_MONTHS: Final = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
_DOW: Final = {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())}
# (min, max, names) of minute, hour, day of month, month, day of week.
_BOUNDS: Final[tuple[tuple[int, int, dict[str, int] | None], ...]] = (
    (0, 59, None),
    (0, 23, None),
    (1, 31, None),
    (1, 12, _MONTHS),
    (0, 6, _DOW),
)
_ATOI: Final = re.compile(r"[+-]?[0-9]+")
_UNITS: Final = frozenset({"ns", "us", "µs", "μs", "ms", "s", "m", "h"})


def load_location_error(name: str) -> str | None:
    """``time.LoadLocation``: None when ``name`` loads, else Go's error text."""
    if name in ("", "UTC", "Local"):
        return None
    if ".." in name or name[0] in "/\\":
        return "time: invalid location name"
    try:
        ZoneInfo(name)
    except IsADirectoryError:
        return "is a directory"
    except ValueError:  # a file that is not TZif
        return "malformed time zone information"
    except (ZoneInfoNotFoundError, OSError):
        return f"unknown time zone {name}"
    return None


def parse_duration_error(text: str) -> str | None:
    """``time.ParseDuration``: None when ``text`` is a duration, else Go's error text."""
    quoted = f'time: invalid duration "{text}"'
    s = text[1:] if text[:1] in ("-", "+") else text
    if s == "0":
        return None
    if not s:
        return quoted
    while s:
        m = re.match(r"([0-9]*)(\.([0-9]*))?", s)
        assert m is not None
        whole, frac = m.group(1), m.group(3)
        if not whole and not frac:
            return quoted
        s = s[m.end() :]
        unit = re.match(r"[^0-9.]*", s)
        assert unit is not None
        u = unit.group(0)
        if not u:
            return f'time: missing unit in duration "{text}"'
        if u not in _UNITS:
            return f'time: unknown unit "{u}" in duration "{text}"'
        s = s[unit.end() :]
    return None


def _int(expr: str) -> int | str:
    """``mustParseInt``."""
    prefix = f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}"'
    if not _ATOI.fullmatch(expr):
        return f"{prefix}: invalid syntax"
    if not -(2**63) <= int(expr) < 2**63:
        return f"{prefix}: value out of range"
    n = int(expr)
    return n if n >= 0 else f"negative number ({n}) not allowed: {expr}"


def _int_or_name(expr: str, names: dict[str, int] | None) -> int | str:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _int(expr)


def _range_error(expr: str, lo: int, hi: int, names: dict[str, int] | None) -> str | None:
    """``getRange``: a ``start[-end][/step]`` or ``*``/``?`` element within bounds."""
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    if low_high[0] in ("*", "?"):
        start, end = lo, hi
    else:
        got = _int_or_name(low_high[0], names)
        if isinstance(got, str):
            return got
        start = end = got
        if len(low_high) == 2:
            got = _int_or_name(low_high[1], names)
            if isinstance(got, str):
                return got
            end = got
        elif len(low_high) > 2:
            return f"too many hyphens: {expr}"
    step = 1
    if len(range_and_step) == 2:
        got = _int(range_and_step[1])
        if isinstance(got, str):
            return got
        step = got
        if len(low_high) == 1:
            end = hi
    elif len(range_and_step) > 2:
        return f"too many slashes: {expr}"
    if start < lo:
        return f"beginning of range ({start}) below minimum ({lo}): {expr}"
    if end > hi:
        return f"end of range ({end}) above maximum ({hi}): {expr}"
    if start > end:
        return f"beginning of range ({start}) beyond end of range ({end}): {expr}"
    if step == 0:
        return f"step of range should be a positive number: {expr}"
    return None


def _spec_error(spec: str) -> str | None:
    """``Parser.Parse`` after the time-zone prefix."""
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return None
        if spec.startswith("@every "):
            err = parse_duration_error(spec[len("@every ") :])
            return None if err is None else f"failed to parse duration {spec}: {err}"
        return f"unrecognized descriptor: {spec}"
    fields = spec.split()
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    for field, (lo, hi, names) in zip(fields, _BOUNDS, strict=True):
        for expr in (e for e in field.split(",") if e):
            err = _range_error(expr, lo, hi, names)
            if err is not None:
                return err
    return None


def schedule_error(schedule: str) -> str | None:
    """``ParseCronScheduleWithPanicRecovery``: None for a valid schedule, else the error."""
    if not schedule:
        return "empty spec string"
    spec = schedule
    if spec.startswith(("TZ=", "CRON_TZ=")):
        i = spec.find(" ")
        if i < 0:  # spec[eq+1:-1] panics in Go
            return "invalid schedule format: runtime error: slice bounds out of range [:-1]"
        name = spec[spec.find("=") + 1 : i]
        err = load_location_error(name)
        if err is not None:
            return f"provided bad location {name}: {err}"
        spec = spec[i:].strip()
    return _spec_error(spec)

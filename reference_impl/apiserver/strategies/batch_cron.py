"""CronJob schedules and time zones (1.37.2): ``cron.ParseStandard`` of robfig/cron v3.0.1
(five fields or an ``@`` descriptor, an optional ``TZ=``/``CRON_TZ=`` prefix; a prefix
without a following space panics, which ``ParseCronScheduleWithPanicRecovery`` turns into
an error), Go's ``time.ParseDuration`` for ``@every`` and ``time.LoadLocation`` (the
system tz database, read here through :mod:`zoneinfo`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "STAR_BIT",
    "CronSpec",
    "load_location_error",
    "parse_duration",
    "parse_schedule",
    "schedule_error",
]

# robfig's starBit: the field was ``*`` or ``?`` (day matching then ANDs, not ORs).
STAR_BIT: Final = 1 << 63
# robfig's parseDescriptor, as the 5-field specs that give the same bit sets.
_DESCRIPTORS: Final = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
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
_DIGITS: Final = re.compile(r"[0-9]*")
_UNIT: Final = re.compile(r"[^0-9.]*")
_UNIT_NS: Final = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6,
                   "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}  # fmt: skip


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


def _quote(s: str) -> str:
    """Go's ``time.quote``: non-ASCII and control bytes as ``\\xNN``."""
    out: list[str] = []
    for c in s:
        if c >= "\x80" or c < " ":
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + c if c in '"\\' else c)
    return '"' + "".join(out) + '"'


def _leading_fraction(s: str) -> tuple[int, float, str]:
    """``leadingFraction``: digits past the point; ones that would overflow are dropped."""
    x, scale, i, overflow = 0, 1.0, 0, False
    while i < len(s) and "0" <= s[i] <= "9":
        if not overflow:
            y = x * 10 + int(s[i])
            if x > (2**63 - 1) // 10 or y > 2**63:
                overflow = True
            else:
                x, scale = y, scale * 10
        i += 1
    return x, scale, s[i:]


def parse_duration(text: str) -> int | str:
    """``time.ParseDuration``: nanoseconds, else Go's error text."""
    invalid = "time: invalid duration " + _quote(text)
    neg, s = text[:1] == "-", text[1:] if text[:1] in ("-", "+") else text
    if s == "0":
        return 0
    if not s:
        return invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            return invalid
        m = _DIGITS.match(s)
        assert m is not None
        v, pre, s = int(m.group(0) or 0), bool(m.group(0)), s[m.end() :]
        if v > 2**63:  # leadingInt's overflow
            return invalid
        f, scale, post = 0, 1.0, False
        if s[:1] == ".":
            before = len(s) - 1
            f, scale, s = _leading_fraction(s[1:])
            post = len(s) != before
        if not pre and not post:
            return invalid
        m = _UNIT.match(s)
        assert m is not None
        u, s = m.group(0), s[m.end() :]
        if not u:
            return "time: missing unit in duration " + _quote(text)
        unit = _UNIT_NS.get(u)
        if unit is None:
            return f"time: unknown unit {_quote(u)} in duration {_quote(text)}"
        if v > 2**63 // unit:
            return invalid
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))  # Go's float64 step, truncated
            if v > 2**63:
                return invalid
        total += v
        if total > 2**63:
            return invalid
    if neg:
        return -total
    return invalid if total > 2**63 - 1 else total


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


def _range_bits(expr: str, lo: int, hi: int, names: dict[str, int] | None) -> int | str:
    """``getRange``: the bits of a ``start[-end][/step]`` or ``*``/``?`` element (``*``
    and ``?`` with no step above 1 add STAR_BIT), else the error."""
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    extra = 0
    if low_high[0] in ("*", "?"):
        start, end, extra = lo, hi, STAR_BIT
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
        if len(low_high) == 1:  # "N/step" means "N-max/step"
            end = hi
        if step > 1:
            extra = 0
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
    return sum(1 << v for v in range(start, end + 1, step)) | extra


@dataclass(frozen=True, slots=True)
class CronSpec:
    """A parsed schedule: the ``TZ=`` zone ("" when none) and either ``every_ns``
    (``@every``, as parsed) or the bit sets of minute, hour, day of month, month and day
    of week."""

    zone: str
    every_ns: int | None
    fields: tuple[int, ...]


def _parse_spec(spec: str, zone: str) -> CronSpec | str:
    """``Parser.Parse`` after the time-zone prefix."""
    if spec.startswith("@"):
        if spec.startswith("@every "):
            got = parse_duration(spec[len("@every ") :])
            if isinstance(got, str):
                return f"failed to parse duration {spec}: {got}"
            return CronSpec(zone, got, ())
        if spec not in _DESCRIPTORS:
            return f"unrecognized descriptor: {spec}"
        spec = _DESCRIPTORS[spec]
    fields = spec.split()
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    bits = []
    for field, (lo, hi, names) in zip(fields, _BOUNDS, strict=True):
        acc = 0
        for expr in (e for e in field.split(",") if e):
            got = _range_bits(expr, lo, hi, names)
            if isinstance(got, str):
                return got
            acc |= got
        bits.append(acc)
    return CronSpec(zone, None, tuple(bits))


def parse_schedule(schedule: str) -> CronSpec | str:
    """``cron.ParseStandard`` as ``ParseCronScheduleWithPanicRecovery`` calls it: the
    parsed schedule, else the error text."""
    if not schedule:
        return "empty spec string"
    spec, zone = schedule, ""
    if spec.startswith(("TZ=", "CRON_TZ=")):
        i = spec.find(" ")
        if i < 0:  # spec[eq+1:-1] panics in Go
            return "invalid schedule format: runtime error: slice bounds out of range [:-1]"
        zone = spec[spec.find("=") + 1 : i]
        err = load_location_error(zone)
        if err is not None:
            return f"provided bad location {zone}: {err}"
        spec = spec[i:].strip()
    return _parse_spec(spec, zone)


def schedule_error(schedule: str) -> str | None:
    """``ParseCronScheduleWithPanicRecovery``: None for a valid schedule, else the error."""
    got = parse_schedule(schedule)
    return got if isinstance(got, str) else None

"""RFC 3339 stamps as Go's ``time.Parse`` reads them when a metav1.Time or MicroTime decodes:
a comma may stand for the point before the fraction, year 0000 is a year, and an offset may
go up to 24:60. Validators compare instants, never spellings (``time.Time.Before``, ``Equal``)."""

from __future__ import annotations

import re
from datetime import date
from typing import Final

__all__ = ["instant_ns"]

_STAMP: Final = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|([+-])(\d{2}):(\d{2}))$"
)
_CYCLE_DAYS: Final = 146_097  # days in 400 Gregorian years
_DAY_NS: Final = 86_400 * 1_000_000_000


def instant_ns(stamp: object) -> int | None:
    """Nanoseconds since 0001-01-01T00:00:00Z (the fraction cut at nine digits, as Go's
    parser does), or None for a value that is no stamp. Year 0 is read as year 400 less one
    400-year cycle (datetime lacks it; the calendar repeats every 400 years)."""
    m = _STAMP.match(stamp) if isinstance(stamp, str) else None
    if m is None:
        return None
    y, mo, d, hh, mi, ss = (int(g) for g in m.groups()[:6])
    try:
        days = date(y or 400, mo, d).toordinal() - (0 if y else _CYCLE_DAYS)
    except ValueError:
        return None
    off = 0 if m[8] == "Z" else (int(m[10]) * 3600 + int(m[11]) * 60) * (1 if m[9] == "+" else -1)
    frac = int((m[7] or "0").ljust(9, "0")[:9])
    return days * _DAY_NS + (hh * 3600 + mi * 60 + ss - off) * 1_000_000_000 + frac

"""The fixed times and constants of upstream's ``cronjob_controllerv2_test.go`` (v1.37.2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

from reference_impl.controllers.cronjob.utils import NEXT_SCHEDULE_DELTA

H: Final = timedelta(hours=1)
M: Final = timedelta(minutes=1)
S: Final = timedelta(seconds=1)
MS: Final = timedelta(milliseconds=1)
DELTA: Final = NEXT_SCHEDULE_DELTA

SHORT_DEAD: Final = 10
MEDIUM_DEAD: Final = 2 * 60 * 60
LONG_DEAD: Final = 1_000_000
NO_DEAD: Final = -12345
ERROR_SCHEDULE: Final = "obvious error schedule"
ON_THE_HOUR: Final = "0 * * * ?"  # hourly on the hour
EVERY_HOUR: Final = "@every 1h"
ERROR_TIME_ZONE: Final = "bad timezone"
NEW_YORK: Final = "America/New_York"


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def top_of_the_hour() -> datetime:
    return _t("2016-05-19T10:00:00")


def just_a_second_before_the_hour() -> datetime:
    return _t("2016-05-19T09:59:59")


def just_after_the_prior_hour() -> datetime:
    return _t("2016-05-19T09:01:00")


def just_before_the_prior_hour() -> datetime:
    return _t("2016-05-19T08:59:00")


def just_after_the_hour() -> datetime:
    return _t("2016-05-19T10:01:00")


def just_after_the_hour_in_zone(tz: str) -> datetime:
    """``time.ParseInLocation`` of a ``Z`` timestamp: the same UTC instant."""
    return just_after_the_hour()


def just_before_the_hour() -> datetime:
    return _t("2016-05-19T09:59:00")


def just_before_the_next_hour() -> datetime:
    return _t("2016-05-19T10:59:00")


def week_after_the_hour() -> datetime:
    return _t("2016-05-26T10:00:00")

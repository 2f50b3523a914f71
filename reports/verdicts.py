"""Per-feature verdicts from test outcomes, with the CNCF no-skip rule for certification.

A feature is *certified* on a target when it has at least one conformance test, every one
passed, and (in certification mode) none was skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

__all__ = ["Outcome", "TestResult", "Verdict", "feature_verdicts"]


class Outcome(Enum):
    """How one test ended."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class TestResult:
    """The facts a verdict needs about one test."""

    __test__ = False  # a data class, not a pytest test class

    nodeid: str
    feature: str | None
    outcome: Outcome
    conformance: bool
    skip_reason: str = ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A feature's verdict: certified or not, with the reasons when not."""

    feature: str
    certified: bool
    passed: int
    failed: int
    skipped: int
    reasons: tuple[str, ...]


def feature_verdicts(results: Iterable[TestResult], *, certify: bool) -> dict[str, Verdict]:
    """Group conformance results by feature and judge each one."""
    by_feature: dict[str, list[TestResult]] = {}
    for r in results:
        if r.conformance and r.feature:
            by_feature.setdefault(r.feature, []).append(r)
    out: dict[str, Verdict] = {}
    for feature, rs in sorted(by_feature.items()):
        passed = sum(r.outcome is Outcome.PASSED for r in rs)
        failed = sum(r.outcome in (Outcome.FAILED, Outcome.ERROR) for r in rs)
        skipped = sum(r.outcome is Outcome.SKIPPED for r in rs)
        reasons = [
            f"{r.nodeid} {r.outcome.value}"
            for r in rs
            if r.outcome in (Outcome.FAILED, Outcome.ERROR)
        ]
        if certify:
            reasons += [
                f"{r.nodeid} skipped ({r.skip_reason}); certification allows no skips"
                for r in rs
                if r.outcome is Outcome.SKIPPED
            ]
        certified = not reasons and passed > 0
        out[feature] = Verdict(feature, certified, passed, failed, skipped, tuple(reasons))
    return out

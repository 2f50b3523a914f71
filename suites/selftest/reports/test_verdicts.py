"""Unit tests of the per-feature verdicts."""

from __future__ import annotations

from reports import Outcome, TestResult, feature_verdicts


def _r(node: str, outcome: Outcome, feature: str = "GANG") -> TestResult:
    return TestResult(node, feature, outcome, conformance=True, skip_reason="no kubelet")


def test_all_passed_is_certified() -> None:
    v = feature_verdicts([_r("a", Outcome.PASSED), _r("b", Outcome.PASSED)], certify=True)["GANG"]
    assert v.certified and v.passed == 2


def test_a_failure_blocks_certification() -> None:
    v = feature_verdicts([_r("a", Outcome.PASSED), _r("b", Outcome.FAILED)], certify=False)["GANG"]
    assert not v.certified and v.reasons == ("b failed",)


def test_skips_count_against_only_in_certify_mode() -> None:
    results = [_r("a", Outcome.PASSED), _r("b", Outcome.SKIPPED)]
    assert feature_verdicts(results, certify=False)["GANG"].certified
    strict = feature_verdicts(results, certify=True)["GANG"]
    assert not strict.certified and "no skips" in strict.reasons[0]


def test_non_conformance_tests_do_not_count() -> None:
    r = TestResult("x", "GANG", Outcome.FAILED, conformance=False)
    assert feature_verdicts([r], certify=True) == {}

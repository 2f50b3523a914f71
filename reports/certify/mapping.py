"""Which AI-conformance v1.37 requirements garhwal's suites give evidence for, and how.

A requirement is covered by the passing tests of its features, or by a passing test that
declared it with ``record_property("ai_requirement", "<id>[,<id>]")``. Two are covered only by
declaration: ``secure_accelerator_access`` (where a suite checks isolation) and
``driver_runtime_management`` (where a DRA suite saw driver-version attributes). Everything
else is left for manual attestation.
"""

from __future__ import annotations

from typing import Final

from reports.model import Results, TestEntry

__all__ = ["REQUIREMENT_FEATURES", "covering_tests", "evidence_ref"]

REQUIREMENT_FEATURES: Final[dict[str, tuple[str, ...]]] = {
    "gang_scheduling": ("GANG", "GANG-TOPO", "GANG-COMPOSITE", "GANG-JOB"),
    "pod_autoscaling": ("HPA-ZERO",),
    "cluster_autoscaling": ("CA-ATTACH",),
    "secure_accelerator_access": (),
    "driver_runtime_management": (),
}
JUNIT_NAME: Final = "junit.xml"


def _declared(t: TestEntry) -> set[str]:
    raw = str(t.evidence.get("properties", {}).get("ai_requirement", ""))
    return {p.strip() for p in raw.split(",") if p.strip()}


def covering_tests(results: Results, requirement: str) -> list[TestEntry]:
    """The passed tests that are evidence for ``requirement`` (empty when none)."""
    features = REQUIREMENT_FEATURES.get(requirement)
    if features is None:
        return []
    return [
        t
        for t in results.tests
        if t.outcome == "passed" and (t.feature in features or requirement in _declared(t))
    ]


def evidence_ref(version: str, product_dir: str, test: TestEntry) -> str:
    """``file://vX.Y/<dir>/junit.xml#<testcase name>``, as the CNCF validator resolves it."""
    return f"file://{version}/{product_dir}/{JUNIT_NAME}#{test.name}"

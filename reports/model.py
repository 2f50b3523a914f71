"""The results model: one run's metadata and one entry per test, as stored in results.json.

Plain data, no pytest: the plugin (``fixtures.plugin.reporting``) fills it, the renderers and the
certify pipeline read it back with ``load_results``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from reports.verdicts import Outcome, TestResult

__all__ = [
    "REFERENCE_VERSION",
    "RESULTS_NAME",
    "SCHEMA_VERSION",
    "Results",
    "RunMeta",
    "TestEntry",
    "e2e_test_version",
    "load_results",
]

SCHEMA_VERSION: Final = 1
RESULTS_NAME: Final = "results.json"
# What the reference target reports as its version: honest that it is not a real apiserver.
REFERENCE_VERSION: Final = "v1.37.0-garhwal-reference"
_PATCH = re.compile(r"^v1\.37\.(\d+)")


def e2e_test_version(cluster_version: str) -> str:
    """The suite version for e2e.log: the cluster's v1.37 patch level, else ``v1.37.0``."""
    m = _PATCH.match(cluster_version)
    return f"v1.37.{m.group(1)}" if m else "v1.37.0"


@dataclass(slots=True)
class TestEntry:
    """One test's facts and how it ended."""

    __test__ = False  # a data class, not a pytest test class

    nodeid: str
    name: str
    classname: str
    outcome: str
    duration_s: float
    target: str
    feature: str = ""
    kep: str = ""
    maturity: str = ""
    seed: int | None = None
    sim_duration_s: float | None = None
    skip_reason: str | None = None
    conformance: bool = False
    # A test of garhwal's own models (marker ``model``): never conformance evidence.
    model: bool = False
    # The gate values this test ran with (reference) or required of the cluster (live).
    gates: dict[str, bool] = field(default_factory=dict)
    # Its --runtime-config entries ("group/version" -> "true"), applied or required, alike.
    runtime_config: dict[str, str] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)

    def verdict_input(self) -> TestResult:
        """The entry as ``reports.verdicts`` sees it."""
        return TestResult(
            self.nodeid,
            self.feature or None,
            Outcome(self.outcome),
            self.conformance,
            self.skip_reason or "",
        )


@dataclass(slots=True)
class RunMeta:
    """Facts about the whole run."""

    run_id: str
    target: str
    cluster_version: str
    gates: dict[str, bool]
    seed: int
    certify: bool
    started_at: str
    finished_at: str | None = None
    # The session's --runtime-config (reference: applied to every test; live: declared).
    runtime_config: dict[str, str] = field(default_factory=dict)
    complete: bool = False
    exit_status: int | None = None
    # How many tests were collected (None until collection ends), and whether the session
    # was interrupted (Ctrl-C, an internal error): such a run is never complete.
    collected: int | None = None
    interrupted: bool = False

    @property
    def e2e_test_version(self) -> str:
        """The ``e2e test version`` e2e.log states."""
        return e2e_test_version(self.cluster_version)


@dataclass(slots=True)
class Results:
    """A run: its metadata and its tests, in the order they finished."""

    run: RunMeta
    tests: list[TestEntry] = field(default_factory=list)
    # Load profiles run in this run (``fixtures.load.result.LoadResult.to_dict``), if any.
    load: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Tests per outcome, every outcome present."""
        out = {o.value: 0 for o in Outcome}
        for t in self.tests:
            out[t.outcome] += 1
        return out

    def not_run(self) -> int | None:
        """Collected tests that have no result (None when collection never finished)."""
        if self.run.collected is None:
            return None
        return max(self.run.collected - len(self.tests), 0)

    def to_dict(self) -> dict[str, Any]:
        """The results.json document (see reports/schema/results.schema.json)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "run": {
                **asdict(self.run),
                "e2e_test_version": self.run.e2e_test_version,
                "not_run": self.not_run(),
            },
            "summary": {**self.counts(), "total": len(self.tests)},
            "tests": [asdict(t) for t in self.tests],
            **({"load": list(self.load)} if self.load else {}),
        }

    def to_json(self) -> str:
        """results.json text, stable key order."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=False) + "\n"

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Results:
        """Rebuild from a (schema-valid) results.json document."""
        run = {k: v for k, v in doc["run"].items() if k not in ("e2e_test_version", "not_run")}
        tests = [TestEntry(**t) for t in doc["tests"]]
        return cls(RunMeta(**run), tests, [dict(x) for x in doc.get("load", [])])


def load_results(run_dir: Path) -> Results:
    """Read and schema-check ``run_dir/results.json``; ``ValueError`` saying what is wrong."""
    from reports.schema import validate_results

    path = run_dir / RESULTS_NAME
    if not path.is_file():
        raise ValueError(f"{path} does not exist; run the suites with --report-dir={run_dir}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    validate_results(doc, source=str(path))
    return Results.from_dict(doc)


def merge(results: Iterable[Results]) -> list[TestEntry]:
    """All tests of several runs (e.g. a reference run and a live run) in one list."""
    return [t for r in results for t in r.tests]

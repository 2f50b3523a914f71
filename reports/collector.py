"""The run-directory writer: after every test it rewrites results.json and e2e.log atomically,
so a crash keeps everything that ran; at the end it also renders report.html."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from reports.atomic import write_text_atomic
from reports.model import RESULTS_NAME, Results, RunMeta, TestEntry
from reports.render.e2e_log import render_e2e_log
from reports.render.json_report import render_results_json

__all__ = ["E2E_LOG_NAME", "REPORT_NAME", "RunWriter"]

E2E_LOG_NAME: Final = "e2e.log"
REPORT_NAME: Final = "report.html"


class RunWriter:
    """Owns one run directory's results.json, e2e.log and report.html."""

    def __init__(self, run_dir: Path, run: RunMeta) -> None:
        self.run_dir = run_dir
        self.results = Results(run)
        self.flush()

    def add(self, entry: TestEntry) -> None:
        """Record a finished test and rewrite the files."""
        self.results.tests.append(entry)
        self.flush()

    def collected(self, count: int) -> None:
        """Record how many tests the session collected."""
        self.results.run.collected = count
        self.flush()

    def add_load(self, entry: dict[str, Any]) -> None:
        """Record a finished load profile run (the results.json ``load`` shape)."""
        self.results.load.append(entry)
        self.flush()

    def finish(
        self,
        *,
        exit_status: int,
        finished_at: str,
        interrupted: bool = False,
        roots: Sequence[Path] = (),
    ) -> Path:
        """Close the run, write the files and the HTML report; return the report path.

        The run is complete only when it was not interrupted and every collected test has a
        result. ``roots`` are searched for ``benchmarks/**/results*.json`` to plot.
        """
        run = self.results.run
        run.interrupted = interrupted
        run.complete = not interrupted and self.results.not_run() in (0, None)
        run.exit_status = exit_status
        self.results.run.finished_at = finished_at
        self.flush()
        from reports.render.html import write_report

        return write_report(self.run_dir, roots=roots)

    def flush(self) -> None:
        """Write results.json (schema-checked) and e2e.log, each atomically."""
        write_text_atomic(self.run_dir / RESULTS_NAME, render_results_json(self.results))
        write_text_atomic(self.run_dir / E2E_LOG_NAME, render_e2e_log(self.results))

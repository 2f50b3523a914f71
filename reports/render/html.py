"""report.html: one self-contained page (inline CSS, JS and SVG; nothing fetched).

It shows the feature × target matrix with reasons, a drill-down per feature, latency and
throughput plots, chaos timelines and the reference-vs-live differential when those inputs
exist (see ``reports.render.extras``). Rendered with Jinja2, autoescaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import jinja2

from reports.atomic import write_text_atomic
from reports.certify.matrix import matrix_html, requirement_rows
from reports.model import Results, TestEntry, load_results
from reports.render import svg
from reports.render.chaos_svg import chaos_timeline
from reports.render.extras import Extras, load_extras

__all__ = ["Cell", "FeatureRow", "matrix", "render_html", "write_report"]

TEMPLATES: Final = Path(__file__).resolve().parent.parent / "templates"
NO_FEATURE: Final = "(no feature)"


@dataclass(slots=True)
class Cell:
    """One feature on one target: its tests and the overall status."""

    tests: list[TestEntry] = field(default_factory=list)

    @property
    def status(self) -> str:
        """fail if any failed, pass if all passed, skip if all skipped, else mixed."""
        outcomes = {t.outcome for t in self.tests}
        if outcomes & {"failed", "error"}:
            return "fail"
        if outcomes == {"passed"}:
            return "pass"
        return "skip" if outcomes == {"skipped"} else "mixed"

    def count(self, *outcomes: str) -> int:
        """How many tests ended in one of ``outcomes``."""
        return sum(t.outcome in outcomes for t in self.tests)

    @property
    def reasons(self) -> list[str]:
        """Why tests did not pass: skip reasons and the first line of each failure."""
        out: list[str] = []
        for t in self.tests:
            if t.outcome == "skipped":
                out.append(f"{t.name}: {t.skip_reason}")
            elif t.outcome in ("failed", "error"):
                msg = str(t.evidence.get("message", "")).strip().splitlines()
                out.append(f"{t.name}: {msg[-1] if msg else t.outcome}")
        return sorted(set(out))


@dataclass(slots=True)
class FeatureRow:
    """A matrix row: a feature, its KEP and maturity, and one cell per target."""

    feature: str
    kep: str
    maturity: str
    cells: dict[str, Cell]

    @property
    def anchor(self) -> str:
        """The drill-down element id."""
        return "feature-" + "".join(c if c.isalnum() else "-" for c in self.feature)


def matrix(tests: Iterable[TestEntry]) -> tuple[list[str], list[FeatureRow]]:
    """(targets, rows): features sorted, the tests without a feature last."""
    tests = list(tests)
    targets = sorted({t.target for t in tests}, key=lambda n: (n != "reference", n))
    rows: dict[str, FeatureRow] = {}
    for t in tests:
        key = t.feature or NO_FEATURE
        row = rows.setdefault(key, FeatureRow(key, t.kep, t.maturity, {n: Cell() for n in targets}))
        row.cells[t.target].tests.append(t)
    order = sorted(rows, key=lambda k: (k == NO_FEATURE, k))
    return targets, [rows[k] for k in order]


def _plots(extras: Extras) -> list[str]:
    out = [svg.percentile_bars(f"{name}: latency", series, "ms") for name, series in extras.latency]
    out += [
        svg.line_chart(f"{name}: throughput", series, "s", "ops/s")
        for name, series in extras.throughput
    ]
    return out


def _load(runs: Sequence[Results]) -> list[dict[str, object]]:
    """Each load entry with its requests/s-over-time chart (Locust's stats history)."""
    out: list[dict[str, object]] = []
    for run in runs:
        for entry in run.load:
            hist = entry.get("history") or []
            series = {
                "requests/s": [(float(h[0]), float(h[1])) for h in hist],
                "failures/s": [(float(h[0]), float(h[2])) for h in hist],
            }
            title = f"{entry['profile']} on {entry['target']}: requests/s over time"
            out.append({"entry": entry, "chart": svg.line_chart(title, series, "s", "req/s")})
    return out


def render_html(runs: Sequence[Results], extras: Extras) -> str:
    """The page for one or more runs (e.g. a reference and a live run of the same suites)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    targets, rows = matrix(t for r in runs for t in r.tests)
    return env.get_template("report.html.j2").render(
        runs=runs,
        targets=targets,
        rows=rows,
        plots=_plots(extras),
        timelines=[
            *(chaos_timeline(c) for r in runs for t in r.tests for c in t.evidence.get("chaos", [])),
            *(svg.timeline(f"chaos: {name}", ev) for name, ev in extras.chaos),
        ],
        differential=extras.differential,
        notes=extras.notes,
        load=_load(runs),
        requirements=_requirements(runs),
    )


def _requirements(runs: Sequence[Results]) -> list[tuple[str, str]]:
    """(run label, requirement × evidence table) for each run with any AI-conformance evidence."""
    out = []
    for r in runs:
        rows = requirement_rows(r)
        if any(row.tests for row in rows):
            out.append((f"{r.run.target} run {r.run.run_id}", matrix_html(rows)))
    return out


def write_report(run_dir: Path, *, others: Sequence[Path] = (), roots: Sequence[Path] = ()) -> Path:
    """Render ``run_dir/report.html`` from results.json (plus other runs' dirs); its path."""
    runs = [load_results(run_dir), *(load_results(d) for d in others)]
    path = run_dir / "report.html"
    write_text_atomic(path, render_html(runs, load_extras(run_dir, roots)))
    return path

"""The optional inputs of report.html: load/benchmark results, chaos timelines and the
reference-vs-live differential. Each is read tolerantly: a file in an unknown shape becomes
a note in the report, never a crash.

Shapes read (JSON):
- load/benchmark (``bench*.json``, ``load*.json`` in the run dir, ``benchmarks/**/results*.json``
  under a root): ``{"name": str, "latency_ms": {series: [samples]},
  "throughput": {series: [[t_s, ops_per_s], ...]}}``; either key may be absent.
- chaos (``chaos*.json``): ``{"experiment": str, "events": [{"t_s", "action", "detail"}]}``
  or ``{"experiments": [that, ...]}``.
- differential (``differential.json``): ``{"tests": [{"nodeid", "feature", "reference",
  "live", "verdict", "reason"}]}`` as ``reports.differential`` writes it (verdict optional).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Extras", "load_extras"]


@dataclass(slots=True)
class Extras:
    """What was found beside results.json, ready for the template."""

    latency: list[tuple[str, dict[str, list[float]]]] = field(default_factory=list)
    throughput: list[tuple[str, dict[str, list[tuple[float, float]]]]] = field(default_factory=list)
    chaos: list[tuple[str, list[tuple[float, str, str]]]] = field(default_factory=list)
    differential: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _read(path: Path, extras: Extras) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        extras.notes.append(f"{path.name}: not readable JSON ({exc})")
        return None


def _bench(path: Path, doc: Any, extras: Extras) -> None:
    if not isinstance(doc, dict) or not ({"latency_ms", "throughput"} & doc.keys()):
        extras.notes.append(f"{path.name}: no latency_ms or throughput; skipped")
        return
    name = str(doc.get("name") or path.stem)
    lat = doc.get("latency_ms") or {}
    if isinstance(lat, dict) and lat:
        extras.latency.append((name, {str(k): [float(x) for x in v] for k, v in lat.items()}))
    thr = doc.get("throughput") or {}
    if isinstance(thr, dict) and thr:
        series = {str(k): [(float(p[0]), float(p[1])) for p in v] for k, v in thr.items()}
        extras.throughput.append((name, series))


def _chaos(path: Path, doc: Any, extras: Extras) -> None:
    experiments = doc.get("experiments", [doc]) if isinstance(doc, dict) else []
    for exp in experiments:
        events = exp.get("events") if isinstance(exp, dict) else None
        if not isinstance(events, list):
            extras.notes.append(f"{path.name}: an experiment without an events list; skipped")
            continue
        rows = [
            (float(e.get("t_s", 0)), str(e.get("action", "")), str(e.get("detail", "")))
            for e in events
            if isinstance(e, dict)
        ]
        extras.chaos.append((str(exp.get("experiment") or path.stem), sorted(rows)))


def _differential(path: Path, doc: Any, extras: Extras) -> None:
    tests = doc.get("tests") if isinstance(doc, dict) else None
    if not isinstance(tests, list):
        extras.notes.append(f"{path.name}: no tests list; skipped")
        return
    keys = ("nodeid", "feature", "reference", "live", "verdict", "reason")
    extras.differential = [
        {k: str(t.get(k, "")) for k in keys} for t in tests if isinstance(t, dict)
    ]


def load_extras(run_dir: Path, roots: Iterable[Path] = ()) -> Extras:
    """Everything optional found in ``run_dir`` and under each root's ``benchmarks/``."""
    extras = Extras()
    bench = sorted([*run_dir.glob("bench*.json"), *run_dir.glob("load*.json")])
    for root in roots:
        bench += sorted((root / "benchmarks").glob("**/results*.json"))
    for path in bench:
        try:
            _bench(path, _read(path, extras), extras)
        except (TypeError, ValueError, IndexError) as exc:
            extras.notes.append(f"{path.name}: unexpected shape ({exc}); skipped")
    for path in sorted(run_dir.glob("chaos*.json")):
        try:
            _chaos(path, _read(path, extras), extras)
        except (TypeError, ValueError, AttributeError) as exc:
            extras.notes.append(f"{path.name}: unexpected shape ({exc}); skipped")
    diff = run_dir / "differential.json"
    if diff.is_file():
        _differential(diff, _read(diff, extras), extras)
    return extras

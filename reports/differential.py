"""The reference-vs-live differential: one suite, two targets, every disagreement explained.

Reads the ``junit_01.xml`` of a reference run and of a live run, pairs tests by node id,
and classifies each pair. A disagreement is *explained* when the live side skipped with a
recorded reason (a capability the target lacks, such as no kubelet under KWOK, or a gate
that is off); anything else is *unexplained* and fails the comparison.

A live run's failed tests may be run once more (``garhwal run --rerun-failed``): the
rerun's outcomes replace the first ones, and each such pair keeps its first outcome in
``first_live``, so a test that passed only on its second try stays visible.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

__all__ = ["Pair", "TestOutcome", "compare", "read_junit", "render_markdown", "write_differential"]


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One test's outcome in one run."""

    __test__ = False

    nodeid: str
    outcome: str  # passed | failed | error | skipped | absent
    message: str
    feature: str


@dataclass(frozen=True, slots=True)
class Pair:
    """One test on both targets, and whether they agree."""

    nodeid: str
    feature: str
    reference: str
    live: str
    verdict: str  # agree | explained | unexplained
    reason: str
    first_live: str = ""  # the first live outcome when a rerun replaced it


def _nodeid(case: ElementTree.Element) -> str:
    classname = case.attrib.get("classname", "")
    parts = classname.split(".")
    # pytest writes "suites.conformance.dra.test_x" (+ ".Class"); rebuild "path.py::name".
    mod = [p for p in parts if not p[:1].isupper()]
    cls = [p for p in parts if p[:1].isupper()]
    path = "/".join(mod) + ".py"
    return "::".join([path, *cls, case.attrib.get("name", "")])


def read_junit(path: Path) -> dict[str, TestOutcome]:
    """Outcomes by node id from a pytest JUnit file."""
    root = ElementTree.parse(path).getroot()
    out: dict[str, TestOutcome] = {}
    for case in root.iter("testcase"):
        props = {p.attrib.get("name"): p.attrib.get("value", "") for p in case.iter("property")}
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = "failed" if tag == "failure" else tag
                message = el.attrib.get("message", "") or (el.text or "")
                break
        nodeid = _nodeid(case)
        # A test whose setup and call both report lands twice; a failure wins.
        if nodeid in out and out[nodeid].outcome in ("failed", "error"):
            continue
        out[nodeid] = TestOutcome(
            nodeid, outcome, message.strip()[:500], props.get("garhwal.feature", "")
        )
    return out


def _pair(nodeid: str, ref: TestOutcome | None, live: TestOutcome | None) -> Pair:
    r = ref.outcome if ref else "absent"
    lv = live.outcome if live else "absent"
    feature = (ref or live).feature if (ref or live) else ""  # type: ignore[union-attr]
    if r == lv:
        return Pair(nodeid, feature, r, lv, "agree", "")
    for side, o in (("live", live), ("reference", ref)):
        if o is not None and o.outcome == "skipped" and o.message:
            return Pair(nodeid, feature, r, lv, "explained", f"{side} skipped: {o.message}")
    why = (live.message if live and lv in ("failed", "error") else "") or (
        ref.message if ref else ""
    )
    return Pair(nodeid, feature, r, lv, "unexplained", why or f"reference {r}, live {lv}")


def compare(
    reference: Mapping[str, TestOutcome],
    live: Mapping[str, TestOutcome],
    rerun: Mapping[str, TestOutcome] | None = None,
) -> list[Pair]:
    """Pair every test seen in either run, in node-id order; a rerun's outcomes win."""
    rerun = rerun or {}
    pairs = []
    for n in sorted(set(reference) | set(live)):
        again = rerun.get(n)
        pair = _pair(n, reference.get(n), again or live.get(n))
        if again is not None and n in live:
            first = live[n]
            note = f"rerun; first try {first.outcome}: {first.message}".strip()
            reason = f"{pair.reason}; {note}" if pair.reason else note
            pair = replace(pair, first_live=first.outcome, reason=reason)
        pairs.append(pair)
    return pairs


def render_markdown(pairs: list[Pair]) -> str:
    """A table per test with both outcomes and the reason for any disagreement."""
    counts = {v: sum(p.verdict == v for p in pairs) for v in ("agree", "explained", "unexplained")}
    lines = [
        "# Reference vs live differential",
        "",
        f"{len(pairs)} tests: {counts['agree']} agree, {counts['explained']} explained, "
        f"{counts['unexplained']} unexplained.",
        *(
            [f"{reruns} failed on the live run's first try and were rerun once (reason says so)."]
            if (reruns := sum(bool(p.first_live) for p in pairs))
            else []
        ),
        "",
        "| test | feature | reference | live | verdict | reason |",
        "|---|---|---|---|---|---|",
    ]
    for p in pairs:
        reason = p.reason.replace("|", "\\|").replace("\n", " ")[:200]
        lines.append(
            f"| `{p.nodeid}` | {p.feature} | {p.reference} | {p.live} | {p.verdict} | {reason} |"
        )
    return "\n".join(lines) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_differential(
    reference_dir: Path, live_dir: Path, out_dir: Path, rerun_dir: Path | None = None
) -> list[Pair]:
    """Write ``differential.json`` and ``differential.md`` into ``out_dir``; return the pairs."""
    rerun = read_junit(rerun_dir / "junit_01.xml") if rerun_dir else None
    pairs = compare(
        read_junit(reference_dir / "junit_01.xml"), read_junit(live_dir / "junit_01.xml"), rerun
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = {v: sum(p.verdict == v for p in pairs) for v in ("agree", "explained", "unexplained")}
    doc: dict[str, Any] = {
        "reference": str(reference_dir),
        "live": str(live_dir),
        **({"rerun": str(rerun_dir)} if rerun_dir else {}),
        "summary": {**summary, "rerun": sum(bool(p.first_live) for p in pairs)},
        "tests": [asdict(p) for p in pairs],
    }
    _atomic_write(out_dir / "differential.json", json.dumps(doc, indent=2) + "\n")
    _atomic_write(out_dir / "differential.md", render_markdown(pairs))
    return pairs

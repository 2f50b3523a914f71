"""The chaos timeline of one experiment as inline SVG: one lane per kind of event.

Faults, measured latencies (a GPU fault to its device taint, to the eviction), reverts, actions, probes, deviations and stops sit on their own lanes along the
experiment's time axis (the target's time: SimClock seconds on the reference); a mark's
colour says its outcome, and its ``<title>`` carries the detail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, Final

__all__ = ["chaos_timeline"]

W: Final = 720
LEFT: Final = 110
RIGHT: Final = 24
LANE_H: Final = 26
LANES: Final = ("fault", "latency", "revert", "action", "probe", "deviation", "stop", "refusal")
OUTCOME_COLOURS: Final = {
    "ok": "#16a34a", "planned": "#2563eb", "failed": "#dc2626", "deviated": "#ea580c",
    "aborted": "#9333ea", "refused": "#6b7280",
}
VERDICT_COLOURS: Final = {"passed": "#16a34a", "dry-run": "#2563eb"}


def chaos_timeline(record: Mapping[str, Any]) -> str:
    """One ``<svg>`` for a results.json chaos entry (see the chaos_experiment schema)."""
    events: Sequence[Mapping[str, Any]] = [
        e for e in record.get("events") or [] if e.get("kind") in LANES
    ]
    span = max([float(e.get("t_s", 0)) for e in events] + [float(record.get("duration_s") or 0), 1e-9])
    top = 44
    h = top + LANE_H * len(LANES) + 34
    verdict = str(record.get("verdict", ""))
    colour = VERDICT_COLOURS.get(verdict, "#dc2626")
    title = f"chaos: {record.get('experiment', '')} on {record.get('target', '')}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chaos" viewBox="0 0 {W} {h}" '
        f'width="{W}" height="{h}" role="img" aria-label="{escape(title)}">',
        f'<text x="4" y="16" class="ttl">{escape(title)}</text>',
        f'<text x="4" y="32" class="tick" fill="{colour}">verdict: {escape(verdict)}'
        f'{escape(": " + str(record["reason"])) if record.get("reason") else ""}</text>',
    ]
    for i, lane in enumerate(LANES):
        y = top + LANE_H * i + LANE_H // 2
        out.append(f'<text x="4" y="{y + 4}" class="tick">{lane}</text>')
        out.append(f'<line x1="{LEFT}" y1="{y}" x2="{W - RIGHT}" y2="{y}" class="axis" stroke="#e5e7eb"/>')
    for e in events:
        t = float(e.get("t_s", 0))
        x = LEFT + t / span * (W - LEFT - RIGHT)
        y = top + LANE_H * LANES.index(str(e["kind"])) + LANE_H // 2
        fill = OUTCOME_COLOURS.get(str(e.get("outcome")), "#111827")
        label = escape(f"t={t:g}s {e.get('kind')} {e.get('name')} [{e.get('outcome')}]: {e.get('detail', '')}")
        out.append(f'<circle cx="{x:.1f}" cy="{y}" r="6" fill="{fill}"><title>{label}</title></circle>')
    axis_y = top + LANE_H * len(LANES) + 8
    out.append(f'<line x1="{LEFT}" y1="{axis_y}" x2="{W - RIGHT}" y2="{axis_y}" class="axis" stroke="#111827"/>')
    out.append(f'<text x="{LEFT}" y="{axis_y + 16}" class="tick">0 s</text>')
    out.append(f'<text x="{W - RIGHT - 60}" y="{axis_y + 16}" class="tick">{span:g} s</text>')
    return "".join(out) + "</svg>"

"""Inline SVG charts for report.html: percentile bars, line charts and event timelines.

No plotting library and no network: each function returns one ``<svg>`` element as text,
with every label escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

__all__ = ["line_chart", "percentile", "percentile_bars", "timeline"]

W: Final = 640
PAD: Final = 48
COLOURS: Final = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2")


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; 0.0 for no samples."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return float(ordered[rank - 1])


def _scale(v: float, lo: float, hi: float, a: float, b: float) -> float:
    return a if hi <= lo else a + (v - lo) / (hi - lo) * (b - a)


def percentile_bars(title: str, series: Mapping[str, Sequence[float]], unit: str) -> str:
    """Horizontal p50/p90/p99 bars, one group per series."""
    qs = (50, 90, 99)
    rows = [(name, [percentile(s, q) for q in qs], len(s)) for name, s in series.items()]
    top = max((v for _, vs, _ in rows for v in vs), default=0.0) or 1.0
    h = PAD + len(rows) * 3 * 14 + len(rows) * 10 + 10
    out = [_open(h, title)]
    y = PAD
    for name, values, n in rows:
        out.append(f'<text x="4" y="{y - 4}" class="lbl">{escape(name)} (n={n})</text>')
        for i, (q, v) in enumerate(zip(qs, values, strict=True)):
            width = _scale(v, 0, top, 0, W - 2 * PAD - 80)
            yy = y + i * 14
            out.append(
                f'<rect x="{PAD + 30}" y="{yy}" width="{width:.1f}" height="11" '
                f'fill="{COLOURS[i]}"><title>p{q} {v:.3f} {escape(unit)}</title></rect>'
                f'<text x="{PAD}" y="{yy + 9}" class="tick">p{q}</text>'
                f'<text x="{PAD + 34 + width:.1f}" y="{yy + 9}" class="tick">{v:.2f} {escape(unit)}</text>'
            )
        y += 3 * 14 + 10 + 12
    return "".join(out) + "</svg>"


def line_chart(
    title: str, series: Mapping[str, Sequence[tuple[float, float]]], x_unit: str, y_unit: str
) -> str:
    """One polyline per series over a shared x axis, with a legend."""
    points = [p for s in series.values() for p in s]
    h = 240
    xs, ys = [p[0] for p in points] or [0.0], [p[1] for p in points] or [0.0]
    x0, x1, y1 = min(xs), max(xs), max(ys) or 1.0
    out = [_open(h, title), _axes(h, f"{x0:g}–{x1:g} {x_unit}", f"max {y1:g} {y_unit}")]
    for i, (name, pts) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        coords = " ".join(
            f"{_scale(x, x0, x1, PAD, W - PAD):.1f},{_scale(y, 0, y1, h - PAD, PAD):.1f}"
            for x, y in pts
        )
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}"/>')
        out.append(
            f'<text x="{W - PAD - 140}" y="{PAD + 14 * i}" class="tick" fill="{colour}">'
            f"{escape(name)}</text>"
        )
    return "".join(out) + "</svg>"


def timeline(title: str, events: Sequence[tuple[float, str, str]]) -> str:
    """Events (t seconds, action, detail) as marks along one time axis."""
    h = 120 + 16 * len(events)
    ts = [e[0] for e in events] or [0.0]
    t0, t1 = min(ts), max(ts)
    out = [_open(h, title)]
    axis_y = 70
    out.append(f'<line x1="{PAD}" y1="{axis_y}" x2="{W - PAD}" y2="{axis_y}" class="axis"/>')
    out.append(f'<text x="{PAD}" y="{axis_y + 16}" class="tick">{t0:g} s</text>')
    out.append(f'<text x="{W - PAD - 30}" y="{axis_y + 16}" class="tick">{t1:g} s</text>')
    for i, (t, action, detail) in enumerate(events):
        x = _scale(t, t0, t1, PAD, W - PAD)
        colour = COLOURS[i % len(COLOURS)]
        label = escape(f"t={t:g}s {action}" + (f": {detail}" if detail else ""))
        out.append(
            f'<circle cx="{x:.1f}" cy="{axis_y}" r="5" fill="{colour}"><title>{label}</title></circle>'
            f'<text x="{PAD}" y="{axis_y + 36 + 16 * i}" class="tick" fill="{colour}">{label}</text>'
        )
    return "".join(out) + "</svg>"


def _open(h: int, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {W} {h}" '
        f'width="{W}" height="{h}" role="img" aria-label="{escape(title)}">'
        f'<text x="4" y="16" class="ttl">{escape(title)}</text>'
    )


def _axes(h: int, x_label: str, y_label: str) -> str:
    return (
        f'<line x1="{PAD}" y1="{h - PAD}" x2="{W - PAD}" y2="{h - PAD}" class="axis"/>'
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{h - PAD}" class="axis"/>'
        f'<text x="{PAD}" y="{h - PAD + 16}" class="tick">{escape(x_label)}</text>'
        f'<text x="{PAD + 4}" y="{PAD - 6}" class="tick">{escape(y_label)}</text>'
    )

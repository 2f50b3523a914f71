"""The requirement × evidence matrix: each AI-conformance v1.37 requirement, the tests of
a run behind it, their outcomes and the verdict ``garhwal certify`` would give.

The same rows feed report.html (any run) and the certification output's report.html,
so what a reader sees is what PRODUCT.yaml says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, Final

from reports.certify.inputs import CATEGORIES
from reports.certify.mapping import REQUIREMENT_TESTS, declared_requirements, evidence_for
from reports.model import Results

__all__ = ["V137_REQUIREMENTS", "RequirementRow", "matrix_html", "requirement_rows"]

# id -> (category, level), as docs/AIConformance-1.37.yaml lists them (8 MUST, 7 SHOULD).
V137_REQUIREMENTS: Final[dict[str, tuple[str, str]]] = {
    "driver_runtime_management": ("accelerators", "SHOULD"),
    "gpu_sharing": ("accelerators", "SHOULD"),
    "virtualized_accelerator": ("accelerators", "SHOULD"),
    "ai_inference": ("networking", "MUST"),
    "advanced_inference_ingress": ("networking", "SHOULD"),
    "high_performance_networking": ("networking", "SHOULD"),
    "disaggregated_inference": ("networking", "SHOULD"),
    "gang_scheduling": ("schedulingOrchestration", "MUST"),
    "cluster_autoscaling": ("schedulingOrchestration", "MUST"),
    "pod_autoscaling": ("schedulingOrchestration", "MUST"),
    "accelerator_metrics": ("observability", "MUST"),
    "ai_service_metrics": ("observability", "MUST"),
    "secure_accelerator_access": ("security", "MUST"),
    "workload_sandboxing": ("security", "SHOULD"),
    "robust_controller": ("operator", "MUST"),
}
IMPLEMENTED: Final = "Implemented"
_COLOURS: Final = {IMPLEMENTED: "#16a34a", "not proven": "#dc2626", "no evidence in this run": "#ea580c",
                   "manual attestation": "#6b7280", "attested": "#2563eb"}


@dataclass(frozen=True, slots=True)
class RequirementRow:
    """One requirement of the matrix."""

    id: str
    category: str
    level: str
    tests: tuple[tuple[str, str], ...]  # (nodeid, outcome)
    verdict: str  # Implemented, not proven, no evidence in this run, attested, manual attestation
    why: str


def _items(checklist: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
    if checklist is None:
        return [(rid, cat, lvl) for rid, (cat, lvl) in V137_REQUIREMENTS.items()]
    return [(str(i["id"]), cat, str(i["level"])) for cat in CATEGORIES for i in checklist["spec"][cat]]


def requirement_rows(
    results: Results,
    checklist: Mapping[str, Any] | None = None,
    attested: Mapping[str, Any] | None = None,
) -> list[RequirementRow]:
    """A row per requirement of ``checklist`` (else the built-in v1.37 list)."""
    declared = declared_requirements(results)
    rows = []
    for rid, cat, level in _items(checklist):
        ev = evidence_for(results, rid)
        tests = tuple((t.nodeid, t.outcome) for t in ev.tests)
        automated = bool(REQUIREMENT_TESTS.get(rid)) or rid in declared
        if ev.proven:
            verdict, why = IMPLEMENTED, f"all {len(tests)} test(s) passed"
        elif attested and rid in attested:
            verdict, why = "attested", f"product.yaml attests {attested[rid].get('status', '')!r}"
        elif tests:
            verdict, why = "not proven", "; ".join(ev.unproven[:5])
        elif automated or rid in REQUIREMENT_TESTS:
            verdict, why = "no evidence in this run", "its garhwal tests did not run, or none declares it"
        else:
            verdict, why = "manual attestation", "no garhwal test covers it"
        rows.append(RequirementRow(rid, cat, level, tests, verdict, why))
    return rows


def matrix_html(rows: Sequence[RequirementRow]) -> str:
    """The matrix as an HTML table (escaped; for report.html and the certify output)."""
    out = ['<table id="requirements-table"><tr><th>requirement</th><th>level</th><th>tests</th>'
           "<th>verdict</th></tr>"]
    for r in rows:
        tests = "<br>".join(f"{escape(n)} <b>{escape(o)}</b>" for n, o in r.tests) or "—"
        colour = _COLOURS.get(r.verdict, "#111827")
        out.append(
            f'<tr id="req-{escape(r.id)}"><td>{escape(r.id)}<br><small>{escape(r.category)}</small></td>'
            f"<td>{escape(r.level)}</td><td>{tests}</td>"
            f'<td style="color:{colour}"><b>{escape(r.verdict)}</b><br><small>{escape(r.why)}</small></td></tr>'
        )
    out.append("</table>")
    return "\n".join(out)

"""``<out>/report.html`` of ``garhwal certify``: the requirement × evidence matrix of the
run behind the bundles and the pre-validation findings. It sits beside the two bundle
directories, never inside them (the k8s-conformance bot allows only its four files)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from reports.certify.matrix import RequirementRow, matrix_html
from reports.certify.validator import Finding
from reports.model import Results

__all__ = ["certification_page"]


def certification_page(results: Results, rows: Sequence[RequirementRow], findings: Sequence[Finding]) -> str:
    """The whole page."""
    run = results.run
    must = [r for r in rows if r.level == "MUST"]
    done = sum(r.verdict == "Implemented" for r in must)
    items = "".join(f"<li>{escape(str(f))}</li>" for f in findings) or "<li>none</li>"
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>garhwal certify</title>"
        "<style>body{font-family:sans-serif;margin:2em}td,th{border:1px solid #ddd;padding:4px 8px;"
        "vertical-align:top}table{border-collapse:collapse}</style></head><body>\n"
        f"<h1>garhwal certify: {escape(run.target)} run {escape(run.run_id)}</h1>\n"
        f"<p>cluster {escape(str(run.cluster_version))}; MUST requirements Implemented: "
        f"{done} of {len(must)}</p>\n"
        "<h2>AI-conformance requirements × evidence</h2>\n"
        f"{matrix_html(rows)}\n<h2>Pre-validation findings</h2>\n<ul>{items}</ul>\n</body></html>\n"
    )

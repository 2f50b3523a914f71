"""The AI-conformance v1.37 PRODUCT.yaml: the user's checklist with status, evidence and
notes filled in. ``id``, ``description`` and ``level`` are copied untouched."""

from __future__ import annotations

import copy
from typing import Any

from reports.certify.inputs import CATEGORIES, Product
from reports.certify.mapping import REQUIREMENT_TESTS, evidence_for, evidence_ref
from reports.model import Results
from reports.render.product import ai_metadata

__all__ = ["MANUAL_NOTE", "fill_checklist"]

MANUAL_NOTE = "MANUAL ATTESTATION NEEDED: garhwal's suites do not cover this requirement"


def _automated(item: dict[str, Any], results: Results, product: Product, version: str) -> bool:
    evidence = evidence_for(results, item["id"])
    if not evidence.proven:
        return False
    tests = evidence.tests
    run = results.run
    item["status"] = "Implemented"
    item["evidence"] = [evidence_ref(version, product.dir, t) for t in tests]
    features = sorted({t.feature for t in tests if t.feature})
    item["notes"] = (
        f"Verified by {len(tests)} passing garhwal conformance test(s)"
        + (f" of {', '.join(features)}" if features else "")
        + f" on target {run.target} (cluster {run.cluster_version}, seed {run.seed}, "
        f"run {run.run_id}); see README.md to reproduce."
    )
    return True


def fill_checklist(
    checklist: dict[str, Any], results: Results, product: Product, version: str
) -> tuple[dict[str, Any], list[str]]:
    """(the filled PRODUCT.yaml document, ids left for manual attestation)."""
    doc = copy.deepcopy(checklist)
    assert product.k8s_conformance_url is not None  # load_product(need_ai=True) checked it
    doc["metadata"] = ai_metadata(doc["metadata"], product.fields, product.k8s_conformance_url)
    manual: list[str] = []
    for cat in CATEGORIES:
        for item in doc["spec"][cat]:
            attested = product.attestations.get(item["id"])
            if _automated(item, results, product, version):
                continue
            if attested is not None:
                item["status"] = str(attested.get("status", ""))
                item["evidence"] = [str(e) for e in attested.get("evidence") or []]
                item["notes"] = str(attested.get("notes", ""))
                continue
            manual.append(item["id"])
            unproven = evidence_for(results, item["id"]).unproven
            if unproven:
                item["notes"] = "NOT PROVEN in this run: " + "; ".join(unproven[:10])
            elif REQUIREMENT_TESTS.get(item["id"]):
                item["notes"] = "MANUAL ATTESTATION NEEDED: its garhwal tests did not run"
            elif item["id"] in REQUIREMENT_TESTS:
                item["notes"] = "MANUAL ATTESTATION NEEDED: no test of this run declared it"
            else:
                item["notes"] = MANUAL_NOTE
    return doc, manual

"""``garhwal certify``: build both bundles in a temporary directory, pre-validate them, and
move them into place only when every input was valid (never a partial bundle).

Layout under ``--out`` (plus ``report.html``, the requirement × evidence matrix, beside them):
  k8s-conformance/v1.37/<dir>/{PRODUCT.yaml, README.md, e2e.log, junit_01.xml}
  ai-conformance/v1.37/<dir>/{PRODUCT.yaml, junit.xml, e2e-results.log, README.md}
The AI bundle's log is ``e2e-results.log``: the CNCF validator parses a file named exactly
``e2e.log`` as ``go test -v`` output, which garhwal's Ginkgo-style log is not.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from reports.certify.ai_product import fill_checklist
from reports.certify.inputs import (
    CATEGORIES,
    K8S_FIELDS,
    KUBERNETES_VERSION,
    CertifyError,
    Product,
    load_checklist,
    load_product,
    load_run,
)
from reports.certify.mapping import declared_requirements
from reports.certify.matrix import RequirementRow, requirement_rows
from reports.certify.page import certification_page
from reports.certify.readme import ai_readme, k8s_readme
from reports.certify.validator import Finding, check_ai_bundle, check_k8s_bundle
from reports.model import Results
from reports.render.product import dump_yaml, render_k8s_product

__all__ = ["Certification", "certify"]

AI_HEADER: Final = "# Kubernetes AI Conformance {v}, filled by garhwal certify from {src}\n"


@dataclass(slots=True)
class Certification:
    """What certify wrote, what it found, and what is left for manual attestation."""

    k8s_dir: Path
    ai_dir: Path | None
    findings: list[Finding] = field(default_factory=list)
    manual: list[str] = field(default_factory=list)
    rows: list[RequirementRow] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No error-level finding."""
        return not any(f.severity == "error" for f in self.findings)


def _k8s_bundle(root: Path, run_dir: Path, product: Product, results: Results) -> Path:
    d = root / "k8s-conformance" / KUBERNETES_VERSION / product.dir
    d.mkdir(parents=True)
    (d / "PRODUCT.yaml").write_text(render_k8s_product(product.fields, tuple(K8S_FIELDS)))
    (d / "README.md").write_text(k8s_readme(product, results))
    shutil.copyfile(run_dir / "e2e.log", d / "e2e.log")
    shutil.copyfile(run_dir / "junit_01.xml", d / "junit_01.xml")
    return d


def _ai_bundle(
    root: Path, run_dir: Path, product: Product, results: Results, checklist: Path
) -> tuple[Path, list[str]]:
    doc, manual = fill_checklist(load_checklist(checklist), results, product, KUBERNETES_VERSION)
    d = root / "ai-conformance" / KUBERNETES_VERSION / product.dir
    d.mkdir(parents=True)
    header = AI_HEADER.format(v=KUBERNETES_VERSION, src=checklist.name)
    (d / "PRODUCT.yaml").write_text(header + dump_yaml(doc))
    (d / "README.md").write_text(ai_readme(product, results, manual))
    shutil.copyfile(run_dir / "junit_01.xml", d / "junit.xml")
    shutil.copyfile(run_dir / "e2e.log", d / "e2e-results.log")
    return d, manual


def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CertifyError(f"--out {out} exists and is not empty; fix: remove it or pick another")


def _check_declared(results: Results, checklist: dict[str, Any], path: Path) -> None:
    ids = {item["id"] for cat in CATEGORIES for item in checklist["spec"][cat]}
    unknown = {r: t for r, t in declared_requirements(results).items() if r not in ids}
    if unknown:
        rid, tests = sorted(unknown.items())[0]
        raise CertifyError(
            f"{tests[0]} declares ai_requirement {rid!r}, which the checklist {path} lacks; "
            "fix: use a requirement id of the v1.37 checklist"
        )


def certify(
    run_dir: Path,
    product_file: Path,
    checklist: Path | None,
    out: Path,
    *,
    allow_reference: bool = False,
) -> Certification:
    """Check the inputs, build and pre-validate the bundles, then move them to ``out``.

    A run on the reference simulator certifies no product: it is refused unless
    ``allow_reference`` (to try the pipeline), and then the findings say so.
    """
    product = load_product(product_file, need_ai=checklist is not None)
    raw_checklist = load_checklist(checklist) if checklist is not None else None
    results = load_run(run_dir)
    if results.run.target == "reference" and not allow_reference:
        raise CertifyError(
            f"{run_dir} is a --target reference run: the simulator certifies no product; "
            "fix: rerun with --target live against the product's cluster (or pass "
            "--allow-reference to try the pipeline)"
        )
    if raw_checklist is not None and checklist is not None:
        _check_declared(results, raw_checklist, checklist)
    _check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        k8s = _k8s_bundle(tmp, run_dir, product, results)
        findings = check_k8s_bundle(k8s)
        ai: Path | None = None
        manual: list[str] = []
        if checklist is not None:
            ai, manual = _ai_bundle(tmp, run_dir, product, results, checklist)
            raw = load_checklist(checklist)
            findings += check_ai_bundle(ai, raw, KUBERNETES_VERSION, product.dir)
        if results.run.target == "reference":
            findings.append(
                Finding(
                    "both",
                    "warning",
                    "the results come from the reference simulator",
                    "certify a product from a --target live run against it",
                )  # fmt: skip
            )
        rows = requirement_rows(results, raw_checklist, product.attestations)
        (tmp / "report.html").write_text(certification_page(results, rows, findings))
        _check_out(out)
        if out.exists():
            out.rmdir()
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    ai_out = out / ai.relative_to(tmp) if ai else None
    return Certification(out / k8s.relative_to(tmp), ai_out, findings, manual, rows)

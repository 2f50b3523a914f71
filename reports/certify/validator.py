"""Pre-validation of both bundles against the published rules (reference/ai-conformance.md):
cncf/k8s-conformance's verify-conformance bot and cncf/k8s-ai-conformance's validate.go.

Each problem is a ``Finding`` with a fix. ``error`` findings would fail the CNCF check;
``warning`` findings are things a reviewer will ask about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from xml.etree import ElementTree

import yaml

from reports.certify.inputs import CATEGORIES, K8S_FIELDS, PLACEHOLDER, STATUSES

__all__ = ["Finding", "K8S_FILES", "check_ai_bundle", "check_k8s_bundle", "junit_cases"]

K8S_FILES: Final = frozenset({"PRODUCT.yaml", "README.md", "e2e.log", "junit_01.xml"})
_VERSION_LINE: Final = re.compile(r"e2e test version: v1\.\d+(\.\d+)?")
_SUCCESS: Final = re.compile(r"^SUCCESS! -- \d+ Passed \| 0 Failed \| 0 Pending \| \d+ Skipped$")
AI_METADATA: Final = (
    "kubernetesVersion", "platformName", "platformVersion", "vendorName", "websiteUrl",
    "documentationUrl", "productLogoUrl", "description", "contactEmailAddress", "k8sConformanceUrl",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in a bundle, and how to fix it."""

    bundle: str
    severity: str  # "error" or "warning"
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"[{self.bundle}] {self.severity}: {self.problem}\n    fix: {self.fix}"


class _Findings(list[Finding]):
    """Findings of one bundle."""

    def __init__(self, bundle: str) -> None:
        super().__init__()
        self.bundle = bundle

    def add(self, problem: str, fix: str, severity: str = "error") -> None:
        self.append(Finding(self.bundle, severity, problem, fix))


def junit_cases(path: Path) -> dict[str, list[str]]:
    """testcase name -> outcomes ("passed", "failed", "skipped") of every case with that name."""
    out: dict[str, list[str]] = {}
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        outcome = (
            "failed"
            if tags & {"failure", "error"}
            else "skipped"
            if "skipped" in tags
            else "passed"
        )
        out.setdefault(case.attrib.get("name", ""), []).append(outcome)
    return out


def _placeholders(doc: Any, where: str) -> list[str]:
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _placeholders(v, f"{where}.{k}")]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in _placeholders(v, f"{where}[{i}]")]
    return [where] if isinstance(doc, str) and PLACEHOLDER.search(doc) else []


def check_k8s_bundle(bundle: Path) -> list[Finding]:
    """The verify-conformance rules that can be checked offline."""
    f = _Findings("k8s-conformance")
    add = f.add
    names = {p.name for p in bundle.iterdir()}
    for missing in sorted(K8S_FILES - names):
        add(f"{missing} is missing", "regenerate the bundle with garhwal certify")
    for extra in sorted(names - K8S_FILES):
        add(f"extra file {extra}", "a submission holds only the four required files")
    for name in sorted(K8S_FILES & names):
        if (bundle / name).stat().st_size == 0:
            add(f"{name} is empty", "regenerate it from a complete run")
    if "PRODUCT.yaml" in names:
        product = yaml.safe_load((bundle / "PRODUCT.yaml").read_text()) or {}
        for key in (k for k, req in K8S_FIELDS.items() if req and not product.get(k)):
            add(f"PRODUCT.yaml lacks {key}", f"set {key} in product.yaml")
        for where in _placeholders(product, "PRODUCT"):
            add(f"{where} is a placeholder", "replace the [bracketed] value")
    if "e2e.log" in names:
        lines = (bundle / "e2e.log").read_text().rstrip("\n").splitlines()
        if not any(_VERSION_LINE.search(line) for line in lines):
            add("e2e.log has no 'e2e test version: v1.NN' line", "regenerate e2e.log")
        if not lines or not _SUCCESS.match(lines[-1]):
            add(
                f"e2e.log's last line is not a SUCCESS summary with 0 Failed and 0 Pending: "
                f"{lines[-1] if lines else ''!r}",
                "fix the failing tests and rerun",
            )
    if "junit_01.xml" in names:
        cases = junit_cases(bundle / "junit_01.xml")
        bad = sorted(n for n, outcomes in cases.items() if "failed" in outcomes)
        if bad:
            add(f"junit_01.xml has failed tests: {', '.join(bad)}", "fix them and rerun")
        if not any("[Conformance]" in n for n in cases):
            add(
                "junit_01.xml has no upstream [Conformance] tests, which the bot requires",
                "submit the upstream Sonobuoy/Hydrophone run; garhwal's tests complement it",
                "warning",
            )
    return list(f)


def _evidence_problems(bundle: Path, prefix: str, ref: str) -> list[tuple[str, str]]:
    if not ref.startswith("file://"):
        return []  # a URL: the CNCF validator checks that it resolves
    path, _, test = ref.removeprefix("file://").partition("#")
    path = path.removeprefix(prefix)
    if ".." in Path(path).parts or path.startswith("/"):
        return [(f"evidence {ref} escapes the product directory", "use a path inside it")]
    target = bundle / path
    if not target.is_file():
        return [(f"evidence file {path} does not exist", "add the file or fix the link")]
    if target.name != "junit.xml":
        return []
    cases = junit_cases(target)
    if any("failed" in o for o in cases.values()):
        return [(f"{path} contains failing tests", "fix them and rerun")]
    if test and test not in cases:
        return [(f"{ref}: no test {test!r} in {path}", "link a test the file holds")]
    if test and "passed" not in cases[test]:
        return [(f"{ref}: {test} did not pass (skipped)", "a skipped test is no evidence")]
    return []


def check_ai_bundle(
    bundle: Path, checklist: dict[str, Any], version: str, product_dir: str
) -> list[Finding]:
    """The validate.go rules (schema, metadata, placeholders, MUSTs, evidence artifacts)."""
    f = _Findings("ai-conformance")
    add = f.add
    doc = yaml.safe_load((bundle / "PRODUCT.yaml").read_text()) or {}
    meta = doc.get("metadata") or {}
    for key in (k for k in AI_METADATA if not str(meta.get(k) or "").strip()):
        add(f"metadata.{key} is missing or empty", f"set it (product.yaml feeds {key})")
    for where in _placeholders(doc, "PRODUCT"):
        add(f"{where} is a placeholder", "replace the [bracketed] value")
    prefix = f"{version}/{product_dir}/"
    for cat in CATEGORIES:
        template = {i["id"]: i for i in checklist["spec"].get(cat) or []}
        got = {i.get("id"): i for i in (doc.get("spec") or {}).get(cat) or []}
        for rid, tmpl in template.items():
            item = got.get(rid)
            if item is None:
                add(f"spec.{cat}: requirement {rid} is missing", "keep every checklist item")
                continue
            for key in ("description", "level"):
                if item.get(key) != tmpl[key]:
                    add(
                        f"{rid}.{key} differs from the checklist",
                        "keep id, description, level as-is",
                    )
            status, evidence = item.get("status") or "", item.get("evidence") or []
            if tmpl["level"] == "SHOULD" and not status and not evidence:
                add(
                    f"{rid} (SHOULD) is not attested",
                    "attest it in product.yaml ai_attestations, or leave it",
                    "warning",
                )
                continue
            if status not in STATUSES:
                add(f"{rid}: status {status!r} is not one of {', '.join(STATUSES)}",
                    f"attest {rid} in product.yaml ai_attestations (manual evidence)")  # fmt: skip
            if tmpl["level"] == "MUST" and status and status != "Implemented":
                add(f"{rid} is a MUST but {status!r}; the validator requires Implemented",
                    "implement it, or expect the CNCF check to fail (the FAQ's N/A is rejected)")  # fmt: skip
            if status == "N/A" and not item.get("notes"):
                add(f"{rid} is N/A without notes", "justify N/A in notes")
            if tmpl["level"] == "MUST" and not evidence:
                add(f"{rid} (MUST) has no evidence", f"give evidence for {rid} in ai_attestations")
            for ref in evidence:
                for problem, fix in _evidence_problems(bundle, prefix, str(ref)):
                    add(f"{rid}: {problem}", fix)
    return list(f)

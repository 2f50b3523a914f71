"""What ``garhwal certify`` writes, judged by the rules of the CNCF programs
(shared/reference/ai-conformance.md §2.1-2.3 and §3.1-3.3), checked here independently of
garhwal's own pre-validator; and the requirement × evidence matrix beside the bundles and
in report.html."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from reports.certify import certify
from reports.certify.matrix import V137_REQUIREMENTS, requirement_rows
from reports.model import load_results
from reports.render.html import write_report

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).resolve().parent / "golden"
CHECKLIST = GOLDEN / "AIConformance-1.37.yaml"
SUITE = '''
import pytest
pytestmark = pytest.mark.conformance

def test_gang_all_or_nothing(record_property):
    """Gang. A gang MUST start whole or not at all."""
    record_property("ai_requirement", "gang_scheduling")

def test_hpa_to_zero(record_property):
    """HPA. An HPA MUST scale to zero."""
    record_property("ai_requirement", "pod_autoscaling")

def test_cluster_grows(record_property):
    """CA. An accelerator node group MUST grow for a pending GPU pod."""
    record_property("ai_requirement", "cluster_autoscaling")
'''
CATEGORIES = ("accelerators", "networking", "schedulingOrchestration", "observability", "security", "operator")
STATUSES = ("Implemented", "Not Implemented", "Partially Implemented", "N/A")
AI_META = ("vendorName", "kubernetesVersion", "platformName", "platformVersion", "websiteUrl",
           "documentationUrl", "productLogoUrl", "description", "contactEmailAddress", "k8sConformanceUrl")
K8S_REQUIRED = ("vendor", "name", "version", "website_url", "documentation_url", "type", "description",
                "contact_email_address")
K8S_URL = re.compile(r"^https://github\.com/cncf/k8s-conformance/tree/(master|main)/v\d+\.\d+/[^/]+/?$")


@pytest.fixture
def run_dir(pytester: pytest.Pytester, tmp_path: Path) -> Path:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    pytester.makepyfile(test_cert=SUITE)
    out = tmp_path / "run"
    pytester.runpytest(f"--report-dir={out}", "--certify", "--seed=5").assert_outcomes(passed=3)
    return out


def _product(tmp_path: Path, attest: tuple[str, ...]) -> Path:
    doc = yaml.safe_load((GOLDEN / "product.yaml").read_text())
    for rid in attest:
        doc["ai_attestations"][rid] = {"status": "Implemented", "notes": f"{rid} attested by hand.",
                                       "evidence": [f"https://garhwal.example.org/docs/{rid}"]}
    path = tmp_path / "product.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _junit(path: Path) -> dict[str, str]:
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        kids = {c.tag for c in case}
        out[str(case.get("name"))] = "failed" if kids & {"failure", "error"} else (
            "skipped" if "skipped" in kids else "passed")
    return out


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return [node] if isinstance(node, str) else []


def _ai_rule_problems(product_dir: Path, checklist: dict[str, Any]) -> list[str]:
    """validate.go's rules (§2.3) and the 1.37 evidence linking (§2.1)."""
    doc = yaml.safe_load((product_dir / "PRODUCT.yaml").read_text())
    version, name = product_dir.parent.name, product_dir.name
    problems = [f"metadata.{k}" for k in AI_META if not str(doc["metadata"].get(k) or "").strip()]
    problems += [f"placeholder {v}" for v in _strings(doc) if re.fullmatch(r"\[.*\]", v)]
    if not str(doc["metadata"]["productLogoUrl"]).endswith((".svg", ".eps", ".ai")):
        problems.append("logo extension")
    if not K8S_URL.match(str(doc["metadata"]["k8sConformanceUrl"])):
        problems.append("k8sConformanceUrl pattern")
    if sorted(doc["spec"]) != sorted(CATEGORIES):
        problems.append(f"categories {sorted(doc['spec'])}")
    for cat in CATEGORIES:
        for want, got in zip(checklist["spec"][cat], doc["spec"][cat], strict=True):
            rid = want["id"]
            if any(got[k] != want[k] for k in ("id", "description", "level")):
                problems.append(f"{rid}: id/description/level changed")
            if want["level"] == "SHOULD" and not got["status"] and not got["evidence"]:
                continue  # the validator skips an unattested SHOULD
            if got["status"] not in STATUSES:
                problems.append(f"{rid}: status {got['status']!r}")
            if want["level"] == "MUST" and (got["status"] != "Implemented" or not got["evidence"] or not got["notes"]):
                problems.append(f"{rid}: a MUST must be Implemented with evidence and notes")
            if got["status"] == "N/A" and not got["notes"]:
                problems.append(f"{rid}: N/A without notes")
            for ref in got["evidence"]:
                if ref.startswith("file://"):
                    path, _, test = ref.removeprefix("file://").partition("#")
                    path = path.removeprefix(f"{version}/{name}/")
                    if ".." in Path(path).parts or not (product_dir / path).is_file():
                        problems.append(f"{rid}: {ref} does not resolve")
                        continue
                    if Path(path).name == "junit.xml":
                        cases = _junit(product_dir / path)
                        if "failed" in cases.values():
                            problems.append(f"{rid}: {path} has failing tests")
                        if test and cases.get(test) != "passed":
                            problems.append(f"{rid}: {test} is not a passed case of {path}")
                elif not ref.startswith("https://"):
                    problems.append(f"{rid}: evidence {ref!r} is neither file:// nor a URL")
    # Files named exactly e2e.log are parsed as `go test -v` output: garhwal's log is not one.
    if (product_dir / "e2e.log").exists():
        problems.append("an e2e.log the validator would parse as go test output")
    return problems


def _k8s_rule_problems(product_dir: Path) -> list[str]:
    """verify-conformance's offline checks (§3.1-3.3)."""
    problems = []
    if sorted(p.name for p in product_dir.iterdir()) != ["PRODUCT.yaml", "README.md", "e2e.log", "junit_01.xml"]:
        problems.append(f"files {sorted(p.name for p in product_dir.iterdir())}")
    if not re.fullmatch(r"v1\.\d+", product_dir.parent.name):
        problems.append("not under v1.NN/<product>/")
    product = yaml.safe_load((product_dir / "PRODUCT.yaml").read_text())
    problems += [f"PRODUCT.yaml lacks {k}" for k in K8S_REQUIRED if not product.get(k)]
    if product.get("type") not in ("distribution", "hosted platform", "installer"):
        problems.append("type")
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", str(product.get("contact_email_address"))):
        problems.append("contact_email_address")
    lines = (product_dir / "e2e.log").read_text().rstrip("\n").splitlines()
    if not any(re.search(r"e2e test version: v1\.\d+", x) for x in lines):
        problems.append("no e2e test version line")
    if not re.fullmatch(r"SUCCESS! -- \d+ Passed \| 0 Failed \| 0 Pending \| \d+ Skipped", lines[-1]):
        problems.append(f"last e2e.log line {lines[-1]!r}")
    if "failed" in _junit(product_dir / "junit_01.xml").values():
        problems.append("junit_01.xml has failures")
    return problems


MISSING_MUSTS = ("ai_service_metrics", "accelerator_metrics", "secure_accelerator_access", "robust_controller")


def test_the_bundles_pass_the_cncf_rules_when_every_must_is_backed(run_dir: Path, tmp_path: Path) -> None:
    done = certify(run_dir, _product(tmp_path, MISSING_MUSTS), CHECKLIST, tmp_path / "b", allow_reference=True)
    checklist = yaml.safe_load(CHECKLIST.read_text())
    assert done.ai_dir is not None
    assert _k8s_rule_problems(done.k8s_dir) == []
    assert _ai_rule_problems(done.ai_dir, checklist) == []
    # garhwal's pre-validator agrees: only the reference warning, and the upstream-tests one.
    assert [f.problem for f in done.findings if f.severity == "error"] == []


def test_a_must_left_unbacked_breaks_the_rules_and_the_prevalidator_says_so(run_dir: Path, tmp_path: Path) -> None:
    done = certify(run_dir, _product(tmp_path, MISSING_MUSTS[1:]), CHECKLIST, tmp_path / "b", allow_reference=True)
    assert done.ai_dir is not None
    rules = _ai_rule_problems(done.ai_dir, yaml.safe_load(CHECKLIST.read_text()))
    assert rules == ["ai_service_metrics: status ''",
                     "ai_service_metrics: a MUST must be Implemented with evidence and notes"]
    assert "ai_service_metrics (MUST) has no evidence" in {f.problem for f in done.findings if f.severity == "error"}


def test_the_matrix_sits_beside_the_bundles_and_matches_product_yaml(run_dir: Path, tmp_path: Path) -> None:
    done = certify(run_dir, _product(tmp_path, ()), CHECKLIST, tmp_path / "b", allow_reference=True)
    page = (tmp_path / "b" / "report.html").read_text()
    assert done.ai_dir is not None
    doc = yaml.safe_load((done.ai_dir / "PRODUCT.yaml").read_text())
    status = {i["id"]: i["status"] for cat in doc["spec"].values() for i in cat}
    rows = {r.id: r for r in done.rows}
    assert list(rows) == list(V137_REQUIREMENTS)
    for rid, row in rows.items():
        assert (row.verdict == "Implemented") == (status[rid] == "Implemented" and rid != "ai_inference"), rid
        assert f'id="req-{rid}"' in page
    assert rows["gang_scheduling"].tests == (("test_cert.py::test_gang_all_or_nothing", "passed"),)
    assert rows["ai_inference"].verdict == "attested"
    assert rows["accelerator_metrics"].verdict == "no evidence in this run"
    assert rows["robust_controller"].verdict == "no evidence in this run"  # mapped, not run
    assert rows["gpu_sharing"].verdict == "manual attestation"
    assert "MUST requirements Implemented: 3 of 8" in page


def test_report_html_shows_the_matrix_with_outcomes(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    pytester.makepyfile(test_cert=SUITE.replace('"cluster_autoscaling")', '"cluster_autoscaling")\n    assert False'))
    out = tmp_path / "run"
    pytester.runpytest(f"--report-dir={out}").assert_outcomes(passed=2, failed=1)
    rows = {r.id: r for r in requirement_rows(load_results(out))}
    assert rows["cluster_autoscaling"].verdict == "not proven"
    assert rows["pod_autoscaling"].verdict == "Implemented"
    html = write_report(out).read_text()
    assert 'id="requirements-table"' in html
    assert "test_cert.py::test_cluster_grows <b>failed</b>" in html


def test_the_builtin_requirement_list_is_the_checklists() -> None:
    checklist = yaml.safe_load(CHECKLIST.read_text())
    items = {i["id"]: (cat, i["level"]) for cat in CATEGORIES for i in checklist["spec"][cat]}
    assert items == V137_REQUIREMENTS
    assert sum(lvl == "MUST" for _, lvl in items.values()) == 8 and len(items) == 15

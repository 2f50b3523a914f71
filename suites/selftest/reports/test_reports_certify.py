"""``garhwal certify``: both bundles against golden files, the pre-validation findings, and
bad input that leaves nothing behind."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from fixtures.cli import main
from reports.certify import CertifyError, certify
from reports.certify.validator import check_ai_bundle
from reports.model import load_results

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).resolve().parent / "golden"
CHECKLIST = GOLDEN / "AIConformance-1.37.yaml"
PRODUCT = GOLDEN / "product.yaml"

SUITE = '''
import pytest

pytestmark = pytest.mark.conformance

@pytest.mark.feature("GANG")
def test_gang_all_or_nothing(record_property):
    """Gang. A gang MUST start whole or not at all."""
    record_property("ai_requirement", "gang_scheduling")

@pytest.mark.feature("HPA-ZERO")
def test_hpa_scales_to_zero(record_property):
    """HPA. An HPA MUST scale to zero."""
    record_property("ai_requirement", "pod_autoscaling")

def test_isolated_device(record_property):
    """DRA. Only the claiming container MUST see the device."""
    record_property("ai_requirement", "secure_accelerator_access")
'''


@pytest.fixture
def run_dir(pytester: pytest.Pytester, tmp_path: Path) -> Path:
    """A finished --certify run of three passing conformance tests."""
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    pytester.makepyfile(test_cert=SUITE)
    out = tmp_path / "run"
    pytester.runpytest(f"--report-dir={out}", "--certify", "--seed=3").assert_outcomes(passed=3)
    return out


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("GARHWAL_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs; GARHWAL_UPDATE_GOLDEN=1 rewrites it"


def test_both_bundles_match_the_golden_files(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    done = certify(run_dir, PRODUCT, CHECKLIST, out, allow_reference=True)
    k8s = out / "k8s-conformance" / "v1.37" / "garhwal-ref"
    ai = out / "ai-conformance" / "v1.37" / "garhwal-ref"
    assert done.k8s_dir == k8s and done.ai_dir == ai
    assert sorted(p.name for p in k8s.iterdir()) == [
        "PRODUCT.yaml", "README.md", "e2e.log", "junit_01.xml"
    ]  # fmt: skip
    assert sorted(p.name for p in ai.iterdir()) == [
        "PRODUCT.yaml", "README.md", "e2e-results.log", "junit.xml"
    ]  # fmt: skip
    _golden("k8s-PRODUCT.yaml", (k8s / "PRODUCT.yaml").read_text())
    _golden("ai-PRODUCT.yaml", (ai / "PRODUCT.yaml").read_text())
    assert (k8s / "e2e.log").read_bytes() == (run_dir / "e2e.log").read_bytes()
    assert "garhwal run --certify --target reference --seed 3" in (k8s / "README.md").read_text()


def test_ai_items_keep_id_description_level_and_get_evidence(run_dir: Path, tmp_path: Path) -> None:
    done = certify(run_dir, PRODUCT, CHECKLIST, tmp_path / "b", allow_reference=True)
    assert done.ai_dir is not None
    got = yaml.safe_load((done.ai_dir / "PRODUCT.yaml").read_text())
    want = yaml.safe_load(CHECKLIST.read_text())
    for cat, items in want["spec"].items():
        for mine, theirs in zip(got["spec"][cat], items, strict=True):
            assert {k: mine[k] for k in ("id", "description", "level")} == {
                k: theirs[k] for k in ("id", "description", "level")
            }
    items = {i["id"]: i for cat in got["spec"].values() for i in cat}
    assert items["gang_scheduling"]["status"] == "Implemented"
    assert items["gang_scheduling"]["evidence"] == [
        "file://v1.37/garhwal-ref/junit.xml#test_gang_all_or_nothing"
    ]
    assert items["secure_accelerator_access"]["evidence"] == [
        "file://v1.37/garhwal-ref/junit.xml#test_isolated_device"
    ]
    assert items["ai_inference"]["evidence"] == ["https://garhwal.example.org/docs/gateway"]
    assert items["cluster_autoscaling"]["status"] == ""
    assert "MANUAL ATTESTATION NEEDED" in items["cluster_autoscaling"]["notes"]
    assert got["metadata"]["vendorName"] == "Garhwal Test Vendor"


def test_prevalidation_names_each_unattested_must_with_a_fix(run_dir: Path, tmp_path: Path) -> None:
    done = certify(run_dir, PRODUCT, CHECKLIST, tmp_path / "b", allow_reference=True)
    assert not done.ok
    errors = {f.problem for f in done.findings if f.severity == "error"}
    for rid in (
        "cluster_autoscaling",
        "accelerator_metrics",
        "ai_service_metrics",
        "robust_controller",
    ):
        assert f"{rid} (MUST) has no evidence" in errors
    assert not any("gang_scheduling" in p or "pod_autoscaling" in p for p in errors)
    assert all(f.fix for f in done.findings)
    assert done.manual == [
        "driver_runtime_management", "gpu_sharing", "virtualized_accelerator",
        "advanced_inference_ingress", "high_performance_networking", "disaggregated_inference",
        "cluster_autoscaling", "accelerator_metrics", "ai_service_metrics",
        "workload_sandboxing", "robust_controller",
    ]  # fmt: skip


def test_validator_rejects_missing_or_skipped_evidence(run_dir: Path, tmp_path: Path) -> None:
    done = certify(
        run_dir, PRODUCT, None if False else CHECKLIST, tmp_path / "b", allow_reference=True
    )
    assert done.ai_dir is not None
    doc = yaml.safe_load((done.ai_dir / "PRODUCT.yaml").read_text())
    gang = doc["spec"]["schedulingOrchestration"][0]
    gang["evidence"] = ["file://v1.37/garhwal-ref/junit.xml#test_nope", "file://nothere.log"]
    (done.ai_dir / "PRODUCT.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    problems = {f.problem for f in check_ai_bundle(
        done.ai_dir, yaml.safe_load(CHECKLIST.read_text()), "v1.37", "garhwal-ref")}  # fmt: skip
    assert any("no test 'test_nope'" in p for p in problems)
    assert "gang_scheduling: evidence file nothere.log does not exist" in problems


def _bad_product(tmp_path: Path, **changes: object) -> Path:
    doc = yaml.safe_load(PRODUCT.read_text())
    doc.update(changes)
    path = tmp_path / "product.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in doc.items() if v is not None}))
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"vendor": "[Vendor Name]"}, "vendor is a placeholder"),
        ({"type": "cloud"}, "type 'cloud' is not one of"),
        ({"website_url": None}, "website_url is missing"),
        ({"vendr": "x"}, "did you mean 'vendor'?"),
        ({"k8s_conformance_url": "https://example.org"}, "k8s_conformance_url"),
    ],
)
def test_invalid_product_is_refused_and_nothing_written(
    run_dir: Path, tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    out = tmp_path / "bundle"
    with pytest.raises(CertifyError, match=message):
        certify(run_dir, _bad_product(tmp_path, **changes), CHECKLIST, out, allow_reference=True)
    assert not out.exists() and not list(tmp_path.glob(".bundle.tmp-*"))


def test_missing_product_and_wrong_checklist_version(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    with pytest.raises(CertifyError, match="does not exist"):
        certify(run_dir, tmp_path / "nope.yaml", CHECKLIST, out, allow_reference=True)
    old = tmp_path / "AIConformance-1.36.yaml"
    old.write_text(
        CHECKLIST.read_text().replace("kubernetesVersion: v1.37", "kubernetesVersion: v1.36")
    )
    with pytest.raises(CertifyError, match="'v1.36', not v1.37"):
        certify(run_dir, PRODUCT, old, out, allow_reference=True)
    assert not out.exists()


def test_failures_and_skips_are_refused(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    pytester.makepyfile(
        test_bad='''
import pytest
pytestmark = pytest.mark.conformance
def test_ok():
    """Area. Fine MUST hold."""
def test_broken():
    """Area. Broken MUST hold."""
    assert False
def test_not_run():
    """Area. Skipped MUST hold."""
    pytest.skip("lacks capability KUBELET")
'''
    )
    run = tmp_path / "run"
    pytester.runpytest(f"--report-dir={run}", "--certify")
    out = tmp_path / "bundle"
    with pytest.raises(CertifyError) as info:
        certify(run, PRODUCT, CHECKLIST, out, allow_reference=True)
    assert "test_broken failed" in str(info.value)
    assert "test_not_run was skipped (lacks capability KUBELET)" in str(info.value)
    assert not out.exists()


def test_a_run_without_certify_mode_is_refused(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makepyfile("def test_ok(): pass\n")
    run = tmp_path / "run"
    pytester.runpytest(f"--report-dir={run}", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    with pytest.raises(CertifyError, match="rerun with --certify"):
        certify(run, PRODUCT, None, tmp_path / "bundle", allow_reference=True)


def test_an_interrupted_run_is_refused(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    pytester.makepyfile(
        "import pytest\npytestmark = pytest.mark.conformance\n"
        'def test_ok():\n    """Area. Fine MUST hold."""\n'
        'def test_stop():\n    """Area. Stop MUST hold."""\n    raise KeyboardInterrupt\n'
        'def test_never():\n    """Area. Never MUST hold."""\n'
    )
    run = tmp_path / "run"
    pytester.runpytest_subprocess(f"--report-dir={run}", "--certify")
    with pytest.raises(CertifyError, match="was interrupted: 2 of 3 collected tests did not run"):
        certify(run, PRODUCT, CHECKLIST, tmp_path / "bundle", allow_reference=True)
    assert not (tmp_path / "bundle").exists()


def test_a_reference_run_is_refused_for_certification(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(CertifyError, match="is a --target reference run: the simulator certifies"):
        certify(run_dir, PRODUCT, CHECKLIST, tmp_path / "b")
    assert not (tmp_path / "b").exists()


def _run_of(pytester: pytest.Pytester, tmp_path: Path, suite: str) -> Path:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    pytester.makepyfile(test_ai=suite)
    run = tmp_path / "run"
    pytester.runpytest(f"--report-dir={run}", "--certify")
    return run


def test_a_requirement_the_checklist_lacks_is_refused(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    run = _run_of(pytester, tmp_path, (
        "import pytest\npytestmark = pytest.mark.conformance\n"
        "def test_x(record_property):\n    \"\"\"Area. X MUST hold.\"\"\"\n"
        "    record_property('ai_requirement', 'quantum_scheduling')\n"
    ))  # fmt: skip
    with pytest.raises(CertifyError, match="declares ai_requirement 'quantum_scheduling'"):
        certify(run, PRODUCT, CHECKLIST, tmp_path / "b", allow_reference=True)
    assert not (tmp_path / "b").exists()


def test_a_requirement_is_implemented_only_when_every_test_behind_it_passed(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    run = _run_of(pytester, tmp_path, (
        "import pytest\npytestmark = pytest.mark.conformance\n"
        "def test_a(record_property):\n    \"\"\"Gang. A MUST hold.\"\"\"\n"
        "    record_property('ai_requirement', 'gang_scheduling')\n"
        "def test_b(record_property):\n    \"\"\"Gang. B MUST hold.\"\"\"\n"
        "    record_property('ai_requirement', 'gang_scheduling')\n    assert False\n"
    ))  # fmt: skip
    results = load_results(run)
    from reports.certify.mapping import evidence_for

    evidence = evidence_for(results, "gang_scheduling")
    assert len(evidence.tests) == 2 and not evidence.proven
    assert evidence.unproven == ["test_ai.py::test_b (failed)"]


def test_cli_exit_codes(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["certify", "--results", str(run_dir), "--product", str(PRODUCT), "--allow-reference"]
    assert main([*argv, "--out", str(tmp_path / "k8s-only")]) == 0  # k8s bundle alone: clean
    assert main([*argv, "--ai-checklist", str(CHECKLIST), "--out", str(tmp_path / "b")]) == 1
    text = capsys.readouterr().out
    assert "robust_controller (MUST) has no evidence" in text and "fix:" in text
    assert main([*argv, "--out", str(tmp_path / "b")]) == 2  # exists, not empty
    shutil.rmtree(tmp_path / "b")
    assert main(["certify", "--results", str(tmp_path), "--product", str(PRODUCT),
                 "--out", str(tmp_path / "b")]) == 2  # fmt: skip
    assert not (tmp_path / "b").exists()

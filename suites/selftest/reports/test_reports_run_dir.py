"""pytester runs that write a run dir: results.json (schema-valid, incremental), e2e.log,
junit_01.xml and report.html, and ``garhwal report`` re-rendering it."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from fixtures.cli import main
from reports.model import REFERENCE_VERSION
from reports.schema import validate_results

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[3]

MIXED = '''
import json, os
import pytest

@pytest.mark.conformance
@pytest.mark.feature("GANG")
def test_gang_first(record_property):
    """Gang. All-or-nothing MUST hold."""
    record_property("ai_requirement", "gang_scheduling")

@pytest.mark.conformance
@pytest.mark.feature("HPA-ZERO")
@pytest.mark.feature_gates(HPAScaleToZero=False)
def test_hpa_reads_results_so_far():
    """HPA. The run dir MUST already hold the first test."""
    doc = json.loads(open(os.environ["RUN_DIR"] + "/results.json").read())
    assert doc["run"]["complete"] is False
    assert [t["name"] for t in doc["tests"]] == ["test_gang_first"]
    log = open(os.environ["RUN_DIR"] + "/e2e.log").read().splitlines()
    assert log[-1].startswith("IN PROGRESS -- 1 Passed | 0 Failed")

def test_fails():
    assert 1 == 2, "one is not two"

@pytest.mark.conformance
def test_skips():
    """Area. Skipped MUST be recorded."""
    pytest.skip("no kubelet here")
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester dir that loads garhwal like this repository does."""
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")
    return pytester


def _run(project: pytest.Pytester, run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project.makepyfile(test_mixed=MIXED)
    monkeypatch.setenv("RUN_DIR", str(run_dir))
    result = project.runpytest(f"--report-dir={run_dir}", "--seed=7")
    result.assert_outcomes(passed=2, failed=1, skipped=1)


def test_results_json_has_one_schema_valid_entry_per_test(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run-1"
    _run(project, run_dir, monkeypatch)
    doc = json.loads((run_dir / "results.json").read_text())
    validate_results(doc)
    run = doc["run"]
    assert run["run_id"] == "run-1" and run["target"] == "reference" and run["seed"] == 7
    assert run["cluster_version"] == REFERENCE_VERSION and run["e2e_test_version"] == "v1.37.0"
    assert run["complete"] is True and run["exit_status"] == 1 and run["finished_at"]
    assert run["gates"]["DynamicResourceAllocation"] is True
    assert run["runtime_config"] == {}
    assert doc["summary"] == {"passed": 2, "failed": 1, "skipped": 1, "error": 0, "total": 4}
    by_name = {t["name"]: t for t in doc["tests"]}
    gang = by_name["test_gang_first"]
    assert (gang["feature"], gang["kep"], gang["maturity"]) == ("GANG", "KEP-4671", "beta")
    assert gang["outcome"] == "passed" and gang["conformance"] is True
    assert gang["sim_duration_s"] == 0.0 and isinstance(gang["seed"], int)
    assert gang["evidence"]["statement"] == "Gang. All-or-nothing MUST hold."
    assert gang["evidence"]["properties"] == {"ai_requirement": "gang_scheduling"}
    assert gang["gates"] == {"GenericWorkload": True}
    assert by_name["test_hpa_reads_results_so_far"]["gates"] == {"HPAScaleToZero": False}
    assert by_name["test_fails"]["gates"] == {}
    assert by_name["test_fails"]["outcome"] == "failed"
    assert "one is not two" in by_name["test_fails"]["evidence"]["message"]
    skip = by_name["test_skips"]
    assert skip["outcome"] == "skipped" and skip["skip_reason"] == "no kubelet here"


def test_e2e_log_and_junit_agree(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    _run(project, run_dir, monkeypatch)
    lines = (run_dir / "e2e.log").read_text().splitlines()
    assert "e2e test version: v1.37.0" in lines
    assert f"kube-apiserver version: {REFERENCE_VERSION}" in lines
    assert lines[-1] == "FAIL! -- 2 Passed | 1 Failed | 0 Pending | 1 Skipped"
    specs = [ln for ln in lines if ln.startswith("• [")]
    cases = list(ElementTree.parse(run_dir / "junit_01.xml").getroot().iter("testcase"))
    assert len(specs) == len(cases) == 4
    assert any("[SKIPPED]" in s and "test_skips" in s for s in specs)


def test_a_clean_run_ends_with_success(project: pytest.Pytester, tmp_path: Path) -> None:
    project.makepyfile("def test_a(): pass\ndef test_b(): pass\n")
    project.runpytest(f"--report-dir={tmp_path}").assert_outcomes(passed=2)
    last = (tmp_path / "e2e.log").read_text().splitlines()[-1]
    assert last == "SUCCESS! -- 2 Passed | 0 Failed | 0 Pending | 0 Skipped"


def test_no_temporary_files_are_left(project: pytest.Pytester, tmp_path: Path) -> None:
    project.makepyfile("def test_a(): pass\n")
    project.runpytest(f"--report-dir={tmp_path}").assert_outcomes(passed=1)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["e2e.log", "junit_01.xml", "report.html", "results.json"]


def test_report_rerenders_from_results_json(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    _run(project, run_dir, monkeypatch)
    (run_dir / "report.html").unlink()
    (run_dir / "differential.json").write_text(
        json.dumps(
            {
                "tests": [
                    {
                        "nodeid": "x::y",
                        "feature": "GANG",
                        "reference": "passed",
                        "live": "skipped",
                        "reason": "KWOK has no kubelet",
                    }
                ]
            }
        )  # fmt: skip
    )
    (run_dir / "load-api.json").write_text(
        json.dumps(
            {
                "name": "api",
                "latency_ms": {"create": [1, 2, 3, 40]},
                "throughput": {"create": [[0, 10], [1, 12]]},
            }
        )  # fmt: skip
    )
    (run_dir / "chaos-etcd.json").write_text(
        json.dumps(
            {
                "experiment": "etcd-restart",
                "events": [
                    {"t_s": 0, "action": "kill"},
                    {"t_s": 4.5, "action": "recovered", "detail": "leader elected"},
                ],
            }
        )  # fmt: skip
    )
    assert main(["report", str(run_dir)]) == 0
    html = (run_dir / "report.html").read_text()
    assert 'id="matrix"' in html and "feature-GANG" in html and "feature-HPA-ZERO" in html
    assert "no kubelet here" in html and "KWOK has no kubelet" in html
    assert "create" in html and "etcd-restart" in html and "leader elected" in html
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html


def test_report_without_results_json_is_a_clear_error(tmp_path: Path) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert not (tmp_path / "report.html").exists()


PAIR = '''
import pytest

@pytest.mark.conformance
@pytest.mark.feature("GANG")
def test_one():
    """Gang. One MUST pass."""

@pytest.mark.conformance
@pytest.mark.feature("GANG")
def test_two():
    """Gang. Two MUST pass."""
'''


def test_xdist_workers_report_statements_and_gates(
    project: pytest.Pytester, tmp_path: Path
) -> None:
    project.makepyfile(test_pair=PAIR)
    project.runpytest_subprocess("-n", "2", f"--report-dir={tmp_path}").assert_outcomes(passed=2)
    doc = json.loads((tmp_path / "results.json").read_text())
    validate_results(doc)
    got = {t["name"]: (t["evidence"].get("statement"), t["gates"]) for t in doc["tests"]}
    assert got == {
        "test_one": ("Gang. One MUST pass.", {"GenericWorkload": True}),
        "test_two": ("Gang. Two MUST pass.", {"GenericWorkload": True}),
    }
    run = doc["run"]
    assert (run["collected"], run["not_run"], run["complete"]) == (2, 0, True)


def test_the_run_records_its_runtime_config(project: pytest.Pytester, tmp_path: Path) -> None:
    project.makepyfile("def test_a(): pass\n")
    flag = "--runtime-config=resource.k8s.io/v1beta1=true"
    project.runpytest(f"--report-dir={tmp_path}", flag).assert_outcomes(passed=1)
    doc = json.loads((tmp_path / "results.json").read_text())
    validate_results(doc)
    assert doc["run"]["runtime_config"] == {"resource.k8s.io/v1beta1": "true"}


INTERRUPTED = '''
def test_one():
    pass

def test_two():
    raise KeyboardInterrupt

def test_three():
    pass
'''


def test_an_interrupted_run_is_marked_incomplete(project: pytest.Pytester, tmp_path: Path) -> None:
    project.makepyfile(test_stop=INTERRUPTED)
    project.runpytest_subprocess(f"--report-dir={tmp_path}")  # Ctrl-C must not reach this session
    doc = json.loads((tmp_path / "results.json").read_text())
    validate_results(doc)
    run = doc["run"]
    assert run["complete"] is False and run["interrupted"] is True and run["exit_status"] == 2
    assert run["collected"] == 3 and run["not_run"] == 2  # test_two has no result either
    lines = (tmp_path / "e2e.log").read_text().splitlines()
    assert lines[-1] == "FAIL! - Interrupted by User -- 1 Passed | 0 Failed | 0 Pending | 0 Skipped"
    assert "Ran 1 of 3 Specs" in lines[-3]
    assert lines[-2] == "2 of 3 collected specs did not run (interrupted)"


def test_a_run_stopped_by_maxfail_is_not_complete(project: pytest.Pytester, tmp_path: Path) -> None:
    project.makepyfile("def test_a(): assert 0\ndef test_b(): pass\n")
    project.runpytest(f"--report-dir={tmp_path}", "-x").assert_outcomes(failed=1)
    run = json.loads((tmp_path / "results.json").read_text())["run"]
    assert run["complete"] is False and run["interrupted"] is False and run["not_run"] == 1
    assert (tmp_path / "e2e.log").read_text().splitlines()[-1].startswith("FAIL! -- 0 Passed")

"""``garhwal chaos``: a bad experiment file is one line with its field path, exit 2, and
nothing is injected; a good one runs on the reference and reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fixtures.chaos.journal import state_journal_path
from fixtures.cli import main
from reports.schema import validate_results

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "suites" / "chaos" / "experiments" / "cordon-and-kill.yaml"


def _doc() -> dict:
    return yaml.safe_load(EXAMPLE.read_text())


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code = main(["chaos", "run", str(path), "--allow-chaos", f"--report-dir={tmp_path / 'r'}"])
    out = capsys.readouterr().out.strip()
    assert code == 2
    assert len(out.splitlines()) == 1, out
    assert out.startswith(f"{path}: ")
    assert not state_journal_path().exists()  # nothing was injected
    assert not (tmp_path / "r").exists()
    return out


def _mutated(edit) -> str:  # type: ignore[no-untyped-def]
    doc = _doc()
    edit(doc)
    return yaml.safe_dump(doc)


@pytest.mark.parametrize(
    ("edit", "expect"),
    [
        (lambda d: d.pop("title"), ": title: required"),
        (lambda d: d.pop("method"), ": method: required, a list of activities"),
        (lambda d: d["method"][1]["provider"]["arguments"].update(nodez="x"),
         ": method[1].provider.arguments.nodez: unexpected argument; taint_node takes node,"),
        (lambda d: d["method"][2]["provider"]["arguments"].update(count="two"),
         ": method[2].provider.arguments.count: 'two' is not of type int"),
        (lambda d: d["method"][0]["provider"].update(func="uncordon"),
         ": method[0].provider.func: 'uncordon' is not a garhwal provider"),
        (lambda d: d["method"][0]["provider"].update(func="inject", arguments={"fault": "meteor"}),
         ": method[0].provider.arguments.fault: unknown fault 'meteor'; known: "),
        (lambda d: d["steady-state-hypothesis"]["probes"][0].pop("tolerance"),
         ": steady-state-hypothesis.probes[0].tolerance: required"),
        (lambda d: d["extensions"][0].update(max_duration=-1),
         ": extensions[0].max_duration: -1 is not a number of seconds"),
        (lambda d: d["extensions"][0]["setup"][1].pop("kind"), ": extensions[0].setup[1].kind: required"),
        (lambda d: d["method"][0].update(type="poke"), ": method[0]: "),
        (lambda d: d["extensions"][0].update(runtime_config=["scheduling.k8s.io/v9=true"]),
         ": extensions[0].runtime_config[0]: "),
        (lambda d: d["extensions"][0].update(runtime_config="scheduling.k8s.io/v1beta1=true"),
         ": extensions[0].runtime_config: must be a list of group/version=true entries"),
        (lambda d: d["extensions"][0].update(feature_gates={"GangSchedulingX": True}),
         ": extensions[0].feature_gates.GangSchedulingX: not a feature gate"),
        (lambda d: d["extensions"][0].update(feature_gates={"GenericWorkload": "yes"}),
         ": extensions[0].feature_gates.GenericWorkload: 'yes' is not true or false"),
    ],
)
def test_a_bad_file_is_one_line_with_its_field_path(tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, expect: str) -> None:  # type: ignore[no-untyped-def]
    assert expect in _bad(tmp_path, capsys, _mutated(edit))


def test_not_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ": line 2: not YAML or JSON" in _bad(tmp_path, capsys, "title: x\n  - : [\n")


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["chaos", "run", str(tmp_path / "nope.yaml"), "--allow-chaos"])
    assert code == 2 and "cannot read" in capsys.readouterr().out


def test_run_on_the_reference_writes_a_schema_valid_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["chaos", "run", str(EXAMPLE), "--allow-chaos", f"--report-dir={tmp_path}"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "chaos summary" in out and "passed" in out
    doc = json.loads((tmp_path / "results.json").read_text())
    validate_results(doc)
    (chaos,) = doc["tests"][0]["evidence"]["chaos"]
    assert chaos["verdict"] == "passed" and chaos["target"] == "reference"
    kinds = [e["kind"] for e in chaos["events"]]
    assert kinds.count("fault") == 4 and kinds.count("revert") == 4  # setup + 3 faults
    assert [e["t_s"] for e in chaos["events"]] == sorted(e["t_s"] for e in chaos["events"])
    html = (tmp_path / "report.html").read_text()
    assert 'class="chart chaos"' in html and "verdict: passed" in html
    lines = [json.loads(x) for x in (tmp_path / "chaos-journal.jsonl").read_text().splitlines()]
    assert sum(x["op"] == "inject" for x in lines) == sum(x["op"] == "reverted" for x in lines) == 4


@pytest.mark.parametrize("path", sorted((ROOT / "suites" / "chaos" / "experiments").glob("*.yaml")),
                         ids=lambda p: p.name)
def test_every_shipped_experiment_passes_on_the_reference(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The reference is made with each file's own runtime_config and feature_gates.
    code = main(["chaos", "run", str(path), "--allow-chaos", f"--report-dir={tmp_path}"])
    out = capsys.readouterr().out
    assert code == 0, out
    (test,) = json.loads((tmp_path / "results.json").read_text())["tests"]
    assert test["outcome"] == "passed"


def test_an_experiment_needing_an_api_the_target_does_not_serve_is_refused() -> None:
    from fixtures.chaos.envelope import ChaosRefused
    from fixtures.chaos.experiment import load_experiment
    from fixtures.chaos.runner import check_served
    from fixtures.targets.reference import ReferenceTarget

    exp = load_experiment(ROOT / "suites" / "chaos" / "experiments" / "spot-reclaim.yaml")
    with pytest.raises(ChaosRefused, match="feature_gates.GenericWorkload: off on target"):
        check_served(exp, ReferenceTarget())
    with pytest.raises(ChaosRefused, match="scheduling.k8s.io/v1beta1 is not served"):
        check_served(exp, ReferenceTarget(feature_gates={"GenericWorkload": True}))
    check_served(exp, ReferenceTarget(feature_gates={"GenericWorkload": True},
                                      runtime_config={"scheduling.k8s.io/v1beta1": "true"}))


def test_list_names_the_faults_and_providers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chaos", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("node-taint", "node-cordon", "node-delete", "pod-kill", "kill_pods", "cordon-and-kill.yaml"):
        assert name in out


def test_revert_of_a_missing_journal_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chaos", "revert", f"--journal={tmp_path / 'none.jsonl'}"]) == 2
    assert "no journal at" in capsys.readouterr().out

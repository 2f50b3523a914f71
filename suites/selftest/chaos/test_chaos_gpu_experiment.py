"""gpu-xid-gang.yaml on the reference: the GPU node and its agent come with the
experiment, the latencies are timeline events, a method probe is held to its tolerance,
and bad ``gpu_nodes`` entries are one line with the field path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from fixtures.chaos.gpu_nodes import running_node_dir
from fixtures.cli import main

ROOT = Path(__file__).resolve().parents[3]
GANG = ROOT / "suites" / "chaos" / "experiments" / "gpu-xid-gang.yaml"


def _run(tmp_path: Path, doc: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    code = main(["chaos", "run", str(path), "--allow-chaos", f"--report-dir={tmp_path / 'r'}"])
    return code, capsys.readouterr().out, tmp_path / "r"


def test_the_latencies_are_on_the_timeline_and_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, report = _run(tmp_path, yaml.safe_load(GANG.read_text()), capsys)
    assert code == 0, out
    (test,) = json.loads((report / "results.json").read_text())["tests"]
    events = test["evidence"]["chaos"][0]["events"]
    lat = [e for e in events if e["kind"] == "latency"]
    assert [e["name"] for e in lat] == ["detection-to-taint", "fault-to-eviction"]
    assert all(e["outcome"] == "ok" for e in lat)
    assert "gpu.garhwal.dev/xid=79:NoExecute" in lat[0]["detail"]
    fault = next(e for e in events if e["kind"] == "fault" and e["name"] == "gpu-fault")
    assert fault["t_s"] <= lat[0]["t_s"] <= lat[1]["t_s"]
    assert "evicted, released after" in lat[1]["detail"] and "no pod seen" not in lat[1]["detail"]
    html = (report / "report.html").read_text()
    assert ">latency<" in html and "detection-to-taint" in html
    assert running_node_dir("garhwal-chaos-gpu-a") is None  # the agent went with the run


def test_a_method_probe_out_of_its_tolerance_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = yaml.safe_load(GANG.read_text())
    kept = next(a for a in doc["method"] if a["name"] == "the-other-three-trainers-kept-running")
    kept["tolerance"] = 4  # upstream keeps 3: the gang is not evicted whole by a device taint
    code, out, report = _run(tmp_path, doc, capsys)
    assert code == 1, out
    (test,) = json.loads((report / "results.json").read_text())["tests"]
    chaos = test["evidence"]["chaos"][0]
    assert chaos["verdict"] == "failed"
    assert "'the-other-three-trainers-kept-running': value 3 out of tolerance 4" in chaos["reason"]
    assert any(e["kind"] == "deviation" for e in chaos["events"])


@pytest.mark.parametrize(
    ("entry", "expect"),
    [
        ({"node": "elsewhere"}, "gpu_nodes[0].node: 'elsewhere' is not a Node of the experiment's setup"),
        ({"node": "garhwal-chaos-gpu-a", "gpus": 0}, "gpu_nodes[0].gpus: 0 is not an integer from 1 to 64"),
        ({"node": "garhwal-chaos-gpu-a", "publish": "dcgm"}, "gpu_nodes[0].publish: 'dcgm' is not slice or rule"),
        ({"node": "garhwal-chaos-gpu-a", "count": 2}, "gpu_nodes[0].count: unknown key"),
    ],
)
def test_bad_gpu_nodes_are_one_line(entry: dict[str, Any], expect: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    doc = yaml.safe_load(GANG.read_text())
    doc["extensions"][0]["gpu_nodes"] = [entry]
    code, out, report = _run(tmp_path, doc, capsys)
    assert code == 2
    assert out.strip().splitlines() == [out.strip()] and f"extensions[0].{expect}" in out
    assert not report.exists()

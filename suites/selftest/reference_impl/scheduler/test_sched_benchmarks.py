"""The scheduling benchmarks run end to end at a tiny size and write their result files."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.scheduling import basic, gangs


def test_basic_benchmark_binds_every_pod_and_writes_its_result(tmp_path: Path) -> None:
    """20 nodes x 40 pods: every pod binds and results-scheduling-basic.json is complete."""
    record = basic.run(20, 40, tmp_path)
    on_disk = json.loads((tmp_path / "results-scheduling-basic.json").read_text())
    assert on_disk == record
    assert {"name", "unit", "value", "threshold", "peak_rss_mb"} <= set(record)
    assert record["unit"] == "pods/s" and record["value"] > 0 and record["pods"] == 40


def test_gang_benchmark_binds_every_gang_and_writes_its_result(tmp_path: Path) -> None:
    """10 nodes x 5 gangs of 4: one attempt per gang, every pod bound."""
    record = gangs.run(10, 5, 4, tmp_path)
    assert (tmp_path / "results-scheduling-gangs.json").exists()
    assert record["unit"] == "ms/attempt" and record["attempts"] == 5
    assert record["gangs_per_s"] > 0 and record["peak_rss_mb"] > 0

"""The scheduling benchmarks run end to end at a tiny size and write their result files."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.scheduling import basic, gangs
from benchmarks.scheduling.common import bench_cluster
from reference_impl.api import make_pod, make_pod_group


def test_basic_benchmark_runs_garhwal_bench_on_upstreams_schedulingbasic(tmp_path: Path) -> None:
    """20 nodes x 40 pods through garhwal bench: every pod binds, placement checked."""
    assert (
        basic.main(["--nodes", "20", "--init-pods", "0", "--pods", "40", "--out", str(tmp_path)])
        == 0
    )
    (result,) = json.loads((tmp_path / "results-bench.json").read_text())["results"]
    assert result["test_case"] == "SchedulingBasic" and result["measured_pods"] == 40
    assert result["placement_ok"] and result["pods_per_s"] > 0


def test_gang_benchmark_binds_every_gang_and_writes_its_result(tmp_path: Path) -> None:
    """10 nodes x 5 gangs of 4: one attempt per gang, every pod bound."""
    record = gangs.run(10, 5, 4, tmp_path)
    assert (tmp_path / "results-scheduling-gangs.json").exists()
    assert record["unit"] == "ms/attempt" and record["attempts"] == 5
    assert record["gangs_per_s"] > 0 and record["peak_rss_mb"] > 0


def test_gang_benchmark_uses_one_gpu_claim_per_pod_and_reports_its_costs(tmp_path: Path) -> None:
    """With GPUs every pod gets its own allocated claim; the record splits the costs."""
    record = gangs.run(6, 3, 4, tmp_path, gpus=2)
    assert record["pods_bound"] == 12 and record["gpus_per_node"] == 2
    assert 0 < record["filter_score_ms_per_attempt"] <= record["cycle_ms_per_attempt"]
    # The attempt as upstream times it leaves the binding cycles (claim writes) out.
    assert 0 < record["value"] < record["cycle_ms_per_attempt"] <= record["window_ms_per_attempt"]
    assert record["cpu_ms_per_attempt"] > 0 and "load average" in record["load_note"]
    cpu_only = gangs.run(6, 3, 4, tmp_path, gpus=0)
    assert cpu_only["name"] == "scheduling-gangs-cpu" and cpu_only["pods_bound"] == 12
    assert (tmp_path / "results-scheduling-gangs-cpu.json").exists()


def test_gang_benchmark_check_catches_partial_gangs_and_shared_devices() -> None:
    """check_placement flags a gang bound in part and a device allocated to two claims."""
    cluster = bench_cluster(gangs.GATES)
    gangs.build(cluster, 4, 2, 2, 2)
    cluster.settle()
    assert gangs.check_placement(cluster, 2, 2) == []
    # A pod placed by hand in a third gang: that gang is bound in part only.
    cluster.api.create(make_pod_group("gang-9999", "default", min_count=2))
    stray = make_pod("gang-9999-0", "default").req(cpu="1").pod_group("gang-9999")
    cluster.api.create(stray.node("node-00000").build())
    cluster.settle()
    assert any("partly bound" in p for p in gangs.check_placement(cluster, 2, 2))
    # Copy one claim's allocation into another: the device is now allocated twice.
    a, b = cluster.api.list("resource.k8s.io/v1", "ResourceClaim", "default")[:2]
    # (An allocation cannot be modified once set: deallocate b first, as upstream.)
    b = cluster.api.update_status({**b, "status": {}})
    b["status"] = {"allocation": a["status"]["allocation"]}
    cluster.api.update_status(b)
    problems = gangs.check_placement(cluster, 2, 2)
    assert any("allocated more than once" in p for p in problems), problems

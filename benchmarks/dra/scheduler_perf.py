"""scheduler_perf-style DRA throughput: N nodes x M GPUs, P pods with one GPU claim each.

Like upstream's ``SchedulingWithResourceClaimTemplate`` workload: every pod references a
ResourceClaimTemplate asking for one GPU, so the resource claim controller generates one
claim per pod and the scheduler allocates it (DynamicResources PreFilter/Filter/Reserve/
PreBind). Pods are created up front; the measured phase is the simulated control plane
running until every pod is bound (claim generation, scheduling, allocation and binding),
timed on the wall clock. Upstream's DRA thresholds at 500 nodes are 40-70 pods/s.

    .venv/bin/python -m benchmarks.dra.scheduler_perf [--nodes 500 --gpus 8 --pods 4000]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any, Final

from benchmarks.dra._common import (
    add_gpu_node,
    bench_cluster,
    install_class,
    peak_rss_mb,
    write_result,
)
from reference_impl.api import make_claim_template, make_pod

__all__ = ["NAME", "THRESHOLD", "main", "run"]

Obj = dict[str, Any]
NAME: Final = "scheduler_perf"
THRESHOLD: Final = 300.0  # pods/s
NS: Final = "default"


def run(nodes: int, gpus: int, pods: int) -> Obj:
    """Set up the cluster, create the pods, and time scheduling them all."""
    cluster = bench_cluster()
    install_class(cluster, "bench-gpu")
    for i in range(nodes):
        add_gpu_node(cluster, f"bench-node-{i:04d}", gpus)
    cluster.api.create(make_claim_template("one-gpu", NS).request("gpu", "bench-gpu").build())
    cluster.settle()
    for i in range(pods):
        cluster.api.create(
            make_pod(f"bench-pod-{i:05d}", NS).claim("gpu", template="one-gpu").build()
        )
    sched = cluster.scheduler
    start, cpu_start = time.perf_counter(), time.process_time()
    cluster.run_until(lambda: sched.bound >= pods, timeout=3600)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    bound = sched.bound
    rate = round(bound / elapsed, 1) if elapsed > 0 else 0.0
    return {
        "name": NAME,
        "unit": "pods/s",
        "value": rate,
        "threshold": THRESHOLD,
        "passed": bound == pods and rate >= THRESHOLD,
        "peak_rss_mb": peak_rss_mb(),
        "nodes": nodes,
        "gpus_per_node": gpus,
        "pods": pods,
        "pods_bound": bound,
        "scheduling_attempts": sched.attempts,
        "seconds": round(elapsed, 3),
        # Process CPU time is steadier than the wall clock on a shared machine.
        "cpu_pods_per_s": round(bound / cpu, 1) if cpu > 0 else 0.0,
        "cpu_seconds": round(cpu, 3),
        "load_note": f"load average {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs",
    }


def main(argv: list[str] | None = None, out_dir: Path | None = None) -> Obj:
    """Parse arguments, run, and write ``results-scheduler_perf.json``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--pods", type=int, default=4000)
    args = ap.parse_args(argv)
    result = run(args.nodes, args.gpus, args.pods)
    write_result(NAME, result, out_dir)
    return result


if __name__ == "__main__":
    main()

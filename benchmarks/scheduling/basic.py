"""SchedulingBasic (scheduler_perf's 5000Nodes_10000Pods): plain pods onto plain nodes.

Nodes and pods are written to the apiserver without settling, then the clock is settled:
the measured time is the scheduler's (queueing, Filter/Score over the nodes, Reserve and
the binding write), not object creation. No kubelet runs.

    .venv/bin/python -m benchmarks.scheduling.basic [--nodes 5000] [--pods 10000] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any, Final

from benchmarks.scheduling.common import bench_cluster, write_result
from reference_impl.api import make_node, make_pod

THRESHOLD_PODS_PER_S: Final = 1000.0


def run(nodes: int, pods: int, out: Path) -> dict[str, Any]:
    """Schedule ``pods`` onto ``nodes``; writes results-scheduling-basic.json."""
    cluster = bench_cluster()
    for i in range(nodes):
        cluster.api.create(
            make_node(f"node-{i:05d}").capacity(cpu="4", memory="32Gi", pods="110").build()
        )
    cluster.settle()
    for i in range(pods):
        cluster.api.create(
            make_pod(f"pod-{i:05d}", "default").req(cpu="100m", memory="500Mi").build()
        )
    load_before = os.getloadavg()
    start, cpu_start = time.perf_counter(), time.process_time()
    cluster.settle()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    bound = cluster.scheduler.bound
    if bound != pods:
        raise SystemExit(f"only {bound} of {pods} pods were bound")
    return write_result(
        out,
        "scheduling-basic",
        "pods/s",
        pods / elapsed,
        THRESHOLD_PODS_PER_S,
        nodes=nodes,
        pods=pods,
        seconds=round(elapsed, 3),
        # Process CPU time is steadier than the wall clock on a shared machine.
        cpu_pods_per_s=round(pods / cpu, 2) if cpu > 0 else 0.0,
        load_note=(
            f"load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after, "
            f"on {os.cpu_count()} CPUs"
        ),
    )


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/scheduling"))
    args = ap.parse_args()
    run(args.nodes, args.pods, args.out)


if __name__ == "__main__":
    main()

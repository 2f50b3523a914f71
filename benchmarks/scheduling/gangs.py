"""Gang scheduling throughput: 500 PodGroups (gang minCount 8) of 8 pods onto 1,000 nodes.

PodGroups and pods are written without settling, then the clock is settled; reports
gangs/s and the mean wall time per pod-group placement attempt (the scheduler's
``group_attempts``). No kubelet runs. Not modelled: the DRA GPU claims of upstream's
variant (the pods request cpu only).

    .venv/bin/python -m benchmarks.scheduling.gangs [--nodes 1000] [--gangs 500] [--size 8]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Final

from benchmarks.scheduling.common import bench_cluster, write_result
from reference_impl.api import make_node, make_pod, make_pod_group

THRESHOLD_MS_PER_ATTEMPT: Final = 6.0  # upstream reports ~4-6 ms per gang attempt
GATES: Final = {"GenericWorkload": True}


def run(nodes: int, gangs: int, size: int, out: Path) -> dict[str, Any]:
    """Schedule the gangs; writes results-scheduling-gangs.json (value: ms per attempt)."""
    cluster = bench_cluster(GATES)
    for i in range(nodes):
        node = make_node(f"node-{i:05d}").capacity(cpu="8", memory="64Gi", pods="110")
        cluster.api.create(node.build())
    cluster.settle()
    for g in range(gangs):
        cluster.api.create(make_pod_group(f"gang-{g:04d}", "default", min_count=size))
        for j in range(size):
            pod = make_pod(f"gang-{g:04d}-{j}", "default").req(cpu="1", memory="1Gi")
            cluster.api.create(pod.pod_group(f"gang-{g:04d}").build())
    start = time.perf_counter()
    cluster.settle()
    elapsed = time.perf_counter() - start
    bound, want = cluster.scheduler.bound, gangs * size
    if bound != want:
        raise SystemExit(f"only {bound} of {want} gang pods were bound")
    attempts = max(cluster.scheduler.workload.group_attempts, 1)
    return write_result(
        out,
        "scheduling-gangs",
        "ms/attempt",
        elapsed * 1000 / attempts,
        THRESHOLD_MS_PER_ATTEMPT,
        gangs_per_s=round(gangs / elapsed, 2),
        attempts=attempts,
        nodes=nodes,
        gangs=gangs,
        size=size,
        seconds=round(elapsed, 3),
    )


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gangs", type=int, default=500)
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/scheduling"))
    args = ap.parse_args()
    run(args.nodes, args.gangs, args.size, args.out)


if __name__ == "__main__":
    main()

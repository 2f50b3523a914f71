"""Requeue cost per node-add event at 1k vs 10k pending DRA pods (DRA-REQUEUE).

N pods wait in the unschedulable pool for class ``bench-a`` (driver A, which publishes
nothing). Then E "node comes online" events are timed: each creates a Node and its
ResourceSlice of driver B (8 GPUs). The apiserver runs the scheduler's handlers inside
the writes, so the time of the two writes includes the requeue work (the setup's objects
are frozen out of the cyclic GC first, so heap size alone does not skew the timing). With the queue's
DeviceClass index the A pods are never examined, so the median cost per event must not
grow with N: the ratio between the largest and the smallest N must be <= 1.5.

    .venv/bin/python -m benchmarks.dra.requeue_cost [--sizes 1000,10000 --events 40]
"""

from __future__ import annotations

import argparse
import gc
import statistics
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
from reference_impl.api import make_node, make_pod, make_resource_claim

__all__ = ["NAME", "THRESHOLD", "main", "measure", "run"]

Obj = dict[str, Any]
NAME: Final = "requeue_cost"
THRESHOLD: Final = 1.5  # max ratio of per-event cost, largest N over smallest N
NS: Final = "default"
DRIVER_A: Final = "gpua.bench.garhwal.dev"
DRIVER_B: Final = "gpub.bench.garhwal.dev"


def measure(pending: int, events: int) -> Obj:
    """Park ``pending`` pods in the pool, then time ``events`` node-add events."""
    cluster = bench_cluster()
    cluster.api.create(
        make_node("bench-cpu").capacity(cpu="1000", memory="4Ti", pods="20000").build()
    )
    install_class(cluster, "bench-a", DRIVER_A)
    install_class(cluster, "bench-b", DRIVER_B)
    cluster.api.create(make_resource_claim("wants-a", NS).request("gpu", "bench-a").build())
    for i in range(pending):
        cluster.api.create(make_pod(f"wait-{i:05d}", NS).claim("gpu", claim="wants-a").build())
    queue = cluster.scheduler.queue
    cluster.run_until(lambda: queue.counts()["unschedulable"] >= pending, timeout=3600)
    parked = queue.counts()["unschedulable"]
    # Full collections walk the whole heap, which is bigger with more pods whatever the
    # queue does: move the setup's objects out of the collector's view before timing.
    gc.collect()
    gc.freeze()
    times: list[float] = []
    examined: list[int] = []
    for e in range(events):
        before = queue.examined_total
        start = time.perf_counter()
        add_gpu_node(cluster, f"bench-new-{e:04d}", 8, DRIVER_B)
        times.append(time.perf_counter() - start)
        examined.append(queue.examined_total - before)
    gc.unfreeze()
    return {
        "pending": parked,
        "median_event_ms": round(statistics.median(times) * 1000, 4),
        "mean_event_ms": round(statistics.fmean(times) * 1000, 4),
        "max_examined_per_event": max(examined),
    }


def run(sizes: list[int], events: int) -> Obj:
    """Measure every size; the value is the median-cost ratio, largest over smallest."""
    per_size = {str(n): measure(n, events) for n in sizes}
    lo, hi = per_size[str(min(sizes))], per_size[str(max(sizes))]
    ratio = round(hi["median_event_ms"] / lo["median_event_ms"], 3)
    return {
        "name": NAME,
        "unit": "ratio",
        "value": ratio,
        "threshold": THRESHOLD,
        "passed": ratio <= THRESHOLD and all(s["pending"] == int(n) for n, s in per_size.items()),
        "peak_rss_mb": peak_rss_mb(),
        "events": events,
        "sizes": per_size,
    }


def main(argv: list[str] | None = None, out_dir: Path | None = None) -> Obj:
    """Parse arguments, run, and write ``results-requeue_cost.json``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--events", type=int, default=40)
    args = ap.parse_args(argv)
    result = run([int(s) for s in args.sizes.split(",")], args.events)
    write_result(NAME, result, out_dir)
    return result


if __name__ == "__main__":
    main()

"""Gang scheduling throughput: 500 PodGroups (gang minCount 8) of 8 GPU pods onto 1,000 nodes.

Every node has 8 GPUs published in a ResourceSlice; every pod asks for one GPU through a
ResourceClaimTemplate (so the resource claim controller generates one claim per pod, as in
upstream's DRA scheduler_perf workloads) plus 1 CPU. PodGroups and pods are written without
settling; the timed phase is the simulated control plane running until it is quiet (claim
generation, the pod-group cycles, allocation, binding and the claim status writes).

Reported (per pod-group attempt, the scheduler's ``group_attempts``):
- ``value``: the attempt as upstream's ``podgroup_scheduling_attempt_duration_seconds``
  times it (``scheduleOnePodGroup``: the placement of every member, Reserve, Permit and
  the PodGroup condition write, but not the members' binding cycles, which upstream runs
  in goroutines); the goal is ``GOAL_MS_PER_ATTEMPT``;
- ``window_ms_per_attempt``: the whole timed phase's wall time, every controller and write
  included, and ``cpu_ms_per_attempt``, the same in process CPU time;
- ``cycle_ms_per_attempt``: the pod-group cycle with the binding cycles (PreBind's claim
  status writes, the bind) run inline, as the simulation runs them;
- Filter/Score, the collector's time, gangs/s, peak RSS and the load average. As in ``benchmarks.dra.requeue_cost``, the setup's objects
(nodes, slices, pods) are frozen out of the cyclic GC before the timed phase: a full
collection walks the whole heap, so at this size each one costs ~0.4 s that says nothing
about scheduling (``--gc-setup`` keeps them in view; ``gc_ms_per_attempt`` reports the
collector's time either way). ``--no-dra`` (cpu-only pods, as upstream's workload) writes
results-scheduling-gangs-cpu.json instead. The run fails unless every gang is bound whole,
no gang is partly bound, every bound pod's claim is allocated for it, no device is
allocated twice or off its pod's node, and no node's CPU is over-committed.

    .venv/bin/python -m benchmarks.scheduling.gangs [--nodes 1000] [--gangs 500] [--size 8]
        [--gpus 8] [--no-dra] [--gc-setup] [--profile FILE] [--out DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

from benchmarks.dra._common import DRIVER, add_gpu_node, install_class
from benchmarks.scheduling.common import bench_cluster, write_result
from fixtures.bench.attempts import GroupAttemptMeter
from fixtures.bench.gc_meter import GcMeter
from reference_impl.api import make_claim_template, make_node, make_pod, make_pod_group
from reference_impl.cluster import Cluster
from reference_impl.scheduler.framework.pod_resources import to_int

__all__ = ["GATES", "GOAL_MS_PER_ATTEMPT", "build", "check_placement", "main", "run"]

Obj = dict[str, Any]
GOAL_MS_PER_ATTEMPT: Final = 2.0  # the goal for a gang attempt of 8 GPU pods
GATES: Final = {"GenericWorkload": True}
NS: Final = "default"
CLASS: Final = "bench-gpu"
TEMPLATE: Final = "one-gpu"
GPUS_PER_NODE: Final = 8


def build(cluster: Cluster, nodes: int, gangs: int, size: int, gpus: int) -> None:
    """Nodes (with GPU slices when ``gpus``), then the PodGroups and pods, unsettled."""
    if gpus:
        install_class(cluster, CLASS)
        cluster.api.create(make_claim_template(TEMPLATE, NS).request("gpu", CLASS).build())
    for i in range(nodes):
        if gpus:
            add_gpu_node(cluster, f"node-{i:05d}", gpus)
        else:
            node = make_node(f"node-{i:05d}").capacity(cpu="8", memory="64Gi", pods="110")
            cluster.api.create(node.build())
    cluster.settle()
    for g in range(gangs):
        cluster.api.create(make_pod_group(f"gang-{g:04d}", NS, min_count=size))
        for j in range(size):
            pod = make_pod(f"gang-{g:04d}-{j}", NS).req(cpu="1", memory="1Gi")
            if gpus:
                pod = pod.claim("gpu", template=TEMPLATE)
            cluster.api.create(pod.pod_group(f"gang-{g:04d}").build())


def check_placement(cluster: Cluster, gangs: int, size: int) -> list[str]:
    """Problems with the final state; empty when every invariant holds."""
    pods = cluster.api.list("v1", "Pod", NS)
    problems: list[str] = []
    by_gang: Counter[str] = Counter()
    cpu: Counter[str] = Counter()
    node_of: dict[str, str] = {}
    with_claims: set[str] = set()
    for p in pods:
        node = p["spec"].get("nodeName")
        if node:
            if p["spec"].get("resourceClaims"):
                with_claims.add(p["metadata"]["uid"])
            by_gang[p["spec"]["schedulingGroup"]["podGroupName"]] += 1
            cpu[node] += sum(
                to_int("cpu", c["resources"]["requests"]["cpu"]) for c in p["spec"]["containers"]
            )
            node_of[p["metadata"]["uid"]] = node
    partial = sorted(g for g, n in by_gang.items() if 0 < n < size)
    if partial:
        problems.append(f"{len(partial)} gangs partly bound, e.g. {partial[0]}")
    whole = sum(1 for n in by_gang.values() if n == size)
    if whole != gangs:
        problems.append(f"{whole} of {gangs} gangs bound whole")
    for n in cluster.api.list("v1", "Node"):
        alloc = to_int("cpu", n["status"]["allocatable"]["cpu"])
        if cpu[n["metadata"]["name"]] > alloc:
            problems.append(f"node {n['metadata']['name']} CPU over-committed")
    taken: Counter[tuple[str, str, str]] = Counter()
    served: set[str] = set()  # pods with an allocated claim reserved for them
    for c in cluster.api.list("resource.k8s.io/v1", "ResourceClaim", NS):
        st = c.get("status") or {}
        results = ((st.get("allocation") or {}).get("devices") or {}).get("results") or []
        users = [node_of.get(r["uid"]) for r in st.get("reservedFor") or ()]
        if results:
            served |= {r["uid"] for r in st.get("reservedFor") or ()}
        for r in results:
            taken[(r["driver"], r["pool"], r["device"])] += 1
            # A bench pool is named after its node: the device must be on the pod's node.
            if r["driver"] != DRIVER or any(u != r["pool"] for u in users):
                problems.append(f"claim {c['metadata']['name']} has a device off its pod's node")
    if with_claims - served:
        problems.append(f"{len(with_claims - served)} bound pods without an allocated claim")
    twice = [d for d, k in taken.items() if k > 1]
    if twice:
        problems.append(f"{len(twice)} devices allocated more than once, e.g. {twice[0]}")
    return problems


def _timed(obj: object, method: str, acc: dict[str, float]) -> None:
    """Wrap ``obj.method`` (on the instance) to add up the wall time spent inside it."""
    fn = getattr(obj, method)

    def wrapper(*args: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            acc[method] = acc.get(method, 0.0) + time.perf_counter() - t

    setattr(obj, method, wrapper)


def run(
    nodes: int,
    gangs: int,
    size: int,
    out: Path,
    *,
    gpus: int = GPUS_PER_NODE,
    profile: Path | None = None,
    freeze_setup: bool = True,
) -> dict[str, Any]:
    """Schedule the gangs; writes results-scheduling-gangs.json (value: ms per attempt),
    or results-scheduling-gangs-cpu.json for cpu-only pods (``gpus=0``)."""
    cluster = bench_cluster(GATES)
    build(cluster, nodes, gangs, size, gpus)
    workload = cluster.scheduler.workload
    inside: dict[str, float] = {}
    _timed(cluster.scheduler.algorithm, "schedule_pod", inside)  # Filter/Score per member
    load_before = os.getloadavg()
    meter = GroupAttemptMeter(cluster.scheduler)
    with GcMeter(freeze=freeze_setup) as gc_time, meter:
        start, cpu_start = time.perf_counter(), time.process_time()
        if profile is None:
            cluster.settle()
        else:  # cProfile inflates the times: the record then only locates the costs
            prof = cProfile.Profile()
            prof.runcall(cluster.settle)
            prof.dump_stats(profile)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    load_after = os.getloadavg()
    problems = check_placement(cluster, gangs, size)
    if gpus and len(cluster.api.list("resource.k8s.io/v1", "ResourceClaim", NS)) != gangs * size:
        problems.append("not one generated claim per pod")
    if problems:
        raise SystemExit("gang benchmark failed: " + "; ".join(problems))
    attempts = max(workload.group_attempts, 1)
    per_attempt = sum(meter.durations) * 1000 / attempts
    return write_result(
        out,
        "scheduling-gangs" if gpus else "scheduling-gangs-cpu",
        "ms/attempt",
        per_attempt,
        GOAL_MS_PER_ATTEMPT,
        passed=per_attempt <= GOAL_MS_PER_ATTEMPT and profile is None,
        profiled=profile is not None,
        gangs_per_s=round(gangs / elapsed, 2),
        window_ms_per_attempt=round(elapsed * 1000 / attempts, 2),
        cpu_ms_per_attempt=round(cpu * 1000 / attempts, 2),
        cycle_ms_per_attempt=round(sum(meter.inline) * 1000 / attempts, 2),
        filter_score_ms_per_attempt=round(inside.get("schedule_pod", 0.0) * 1000 / attempts, 2),
        gc_ms_per_attempt=round(gc_time.seconds * 1000 / attempts, 2),
        setup_heap_frozen=freeze_setup,
        attempts=attempts,
        pods_bound=cluster.scheduler.bound,
        nodes=nodes,
        gpus_per_node=gpus,
        gangs=gangs,
        size=size,
        seconds=round(elapsed, 3),
        load_note=(
            f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, "
            f"on {os.cpu_count()} CPUs"
        ),
    )


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gangs", type=int, default=500)
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--gpus", type=int, default=GPUS_PER_NODE, help="GPUs per node (one per pod)")
    ap.add_argument("--no-dra", action="store_true", help="cpu-only pods, no GPUs")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/scheduling"))
    ap.add_argument("--profile", type=Path, help="cProfile the timed phase into this file")
    ap.add_argument(
        "--gc-setup", action="store_true", help="keep the setup's objects in the cyclic GC's view"
    )
    args = ap.parse_args()
    gpus = 0 if args.no_dra else args.gpus
    run(
        args.nodes,
        args.gangs,
        args.size,
        args.out,
        gpus=gpus,
        profile=args.profile,
        freeze_setup=not args.gc_setup,
    )


if __name__ == "__main__":
    main()

"""GPU health agents on a live (local) cluster: detection-to-taint latency and agent CPU.

Starts one agent process per node (``--nodes`` x ``--gpus``, garhwal's NVML library via
LD_LIBRARY_PATH, 1 Hz polling, slice publishing), then:

- CPU: each agent's utime+stime from /proc over ``--idle`` seconds of steady state, as a
  share of one core (the 1 Hz poll of every GPU plus the event wait);
- latency: ``--rounds`` times per node, an Xid 79 on a random GPU; the time from the
  injector's write to (a) the agent's publish (its log) and (b) the taint being visible
  through the API (polled every 10 ms); then the GPU is recovered and the taint must go.

    .venv/bin/python -m benchmarks.gpu.agent_fleet --kubeconfig K [--nodes 8] [--gpus 8]
        [--rounds 3] [--idle 20] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from fixtures.gpu.faults import Xid
from fixtures.plugin.gpu_fleet import GpuFleet
from fixtures.targets.live_connect import connect

TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--kubeconfig", required=True)
    p.add_argument("--nodes", type=int, default=8)
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--idle", type=float, default=20.0)
    p.add_argument("--out", default=str(Path(__file__).parent))
    a = p.parse_args()
    target = connect(a.kubeconfig, None, None)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        fleet = GpuFleet(target, Path(tmp), "gpu-bench", os.path.abspath(a.kubeconfig))
        try:
            t0 = time.time()
            names = [f"bench-gpu-{i}" for i in range(a.nodes)]
            for n in names:
                fleet.add_node(n, gpus=a.gpus, wait=False)
            fleet.wait_published(names, timeout=600)
            started = time.time() - t0
            pids = [fleet.nodes[n].proc.pid for n in names]  # type: ignore[union-attr]
            time.sleep(3)  # past start-up imports
            before = [_cpu_s(pid) for pid in pids]
            w0 = time.time()
            time.sleep(a.idle)
            wall = time.time() - w0
            cpu = [(_cpu_s(pid) - b) / wall * 100 for pid, b in zip(pids, before, strict=True)]
            api_lat, agent_lat = [], []
            for _ in range(a.rounds):
                for n in names:
                    idx = rng.randrange(a.gpus)
                    log = fleet.nodes[n].log
                    assert log is not None
                    seen = len(log.read_text().splitlines())
                    rb = fleet.inject(n, idx, Xid(79))
                    start = time.time()
                    while not any(t["key"] == "gpu.garhwal.dev/xid" for t in fleet.slice_taints(n, f"gpu-{idx}")):
                        if time.time() - start > 30:
                            raise SystemExit(f"no taint on {n}/gpu-{idx} after 30 s")
                        time.sleep(0.01)
                    api_lat.append(time.time() - start)
                    lines = log.read_text().splitlines()[seen:]
                    pub = [json.loads(x)["published"] for x in lines if x.startswith("{")]
                    if pub:
                        agent_lat.append(pub[0] - start)
                    fleet.recover(n, rb)
                    while fleet.slice_taints(n, f"gpu-{idx}"):
                        if time.time() - start > 60:
                            raise SystemExit(f"taint on {n}/gpu-{idx} not removed")
                        time.sleep(0.01)
            fleet.rollbacks.clear()
        finally:
            fleet.close()
    result = {
        "nodes": a.nodes, "gpus_per_node": a.gpus, "poll_hz": 1, "startup_s": round(started, 1),
        "idle_window_s": round(wall, 1),
        "agent_cpu_pct_of_core": {"mean": round(statistics.mean(cpu), 3), "max": round(max(cpu), 3)},
        "detect_to_publish_s": {"p50": round(_pct(agent_lat, 0.5), 4), "p99": round(_pct(agent_lat, 0.99), 4),
                                "n": len(agent_lat)},
        "detect_to_api_visible_s": {"p50": round(_pct(api_lat, 0.5), 4), "p99": round(_pct(api_lat, 0.99), 4),
                                    "max": round(max(api_lat), 4), "n": len(api_lat)},
        "load_avg": os.getloadavg(),
    }
    out = Path(a.out) / f"results-agent_fleet-{a.nodes}x{a.gpus}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

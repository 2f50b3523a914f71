"""Load capacity: pod create+get through the Locust User, against a plain loop and a live cluster.

The reference's capacity is the requests/s the ``pod-create-get`` profile sustains through
Locust (one User: the reference is in-process and CPU-bound, so more Users on one core only
take turns). The plain loop makes the same calls on the same kind of fresh reference
cluster without Locust; the User's overhead is 1 - locust/plain. Segments alternate
(plain, Locust, plain, Locust, ...) and the medians are compared, so machine load drifting
during the run hits both alike. The same profile then runs against a live cluster
(``--kubeconfig``) with ``--live-users`` Users, and the two are reported as a ratio.
The load average is recorded: the numbers mean little without it on a shared machine.

    .venv/bin/python -m benchmarks.load.capacity [--kubeconfig K] [--seconds 6] [--rounds 3]
"""

from gevent import monkey

monkey.patch_all()  # before anything opens sockets: Locust's live Users need it

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Final  # noqa: E402

from fixtures.load.runner import RunSpec, reference_target, run_local  # noqa: E402
from fixtures.load.workloads import pod_create_get  # noqa: E402
from fixtures.targets.observer import ObservedTarget  # noqa: E402

RESULTS: Final = Path(__file__).resolve().parent / "results-capacity.json"
GOAL_RPS: Final = 2000.0
GOAL_OVERHEAD: Final = 0.20


def _plain(seconds: float) -> float:
    """req/s of the same calls in a bare loop (a no-op observer keeps the same wrapper)."""
    from fixtures.load.session import LoadSession
    from fixtures.load.setup import warm_up

    spec = RunSpec.of("pod-create-get", "reference", 1, 1, seconds)

    class _Quiet:
        class events:  # noqa: N801  # the shape LoadSession.fire reaches for
            class request:  # noqa: N801
                @staticmethod
                def fire(**_: Any) -> None:
                    return None

    session = LoadSession.over(_Quiet(), reference_target(spec), "plain")
    assert isinstance(session.target, ObservedTarget)
    session.target = session.target.inner  # plain: no observer, no events at all
    warm_up(session)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        pod_create_get(session)
        n += 2
    return n / (time.perf_counter() - start)


def _locust(seconds: float, target: str = "reference", users: int = 1, kubeconfig: str | None = None) -> dict[str, Any]:
    spec = RunSpec.of("pod-create-get", target, users, users, seconds)
    if target == "reference":
        made: Any = reference_target(spec)
    else:
        from fixtures.targets.live_connect import connect

        made = connect(kubeconfig, None)
    result = run_local(spec, made)
    total = result.stats.total
    return {"rps": total.total_rps,  # Locust's: requests over first-to-last request time "requests": total.num_requests,
            "failures": total.num_failures, "elapsed_s": round(result.elapsed_s, 2),
            "p50_ms": total.get_response_time_percentile(0.5),
            "p99_ms": total.get_response_time_percentile(0.99),
            "history": result.history()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kubeconfig", help="a live cluster (e.g. .cache/localcluster/NAME/kubeconfig)")
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--live-users", type=int, default=8)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ns = ap.parse_args()
    load_before = os.getloadavg()
    plain, locust, runs = [], [], []
    for _ in range(ns.rounds):
        plain.append(_plain(ns.seconds))
        run = _locust(ns.seconds)
        locust.append(run["rps"])
        runs.append(run)
    ref_rps, plain_rps = statistics.median(locust), statistics.median(plain)
    overhead = 1 - ref_rps / plain_rps
    doc: dict[str, Any] = {
        "name": "load capacity: pod create+get",
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
                    "note": "shared 2-core machine; other sessions were running"},
        "reference": {"locust_rps": round(ref_rps, 1), "plain_rps": round(plain_rps, 1),
                      "user_overhead": round(overhead, 4), "rounds_locust_rps": [round(x, 1) for x in locust],
                      "rounds_plain_rps": [round(x, 1) for x in plain],
                      "p50_ms": runs[-1]["p50_ms"], "p99_ms": runs[-1]["p99_ms"]},
        "goals": {"reference_rps": GOAL_RPS, "user_overhead": GOAL_OVERHEAD,
                  "reference_rps_met": ref_rps >= GOAL_RPS, "user_overhead_met": overhead <= GOAL_OVERHEAD},
        "throughput": {"reference (Locust)": [[h[0], h[1]] for h in runs[-1]["history"]]},
    }
    if ns.kubeconfig:
        live = _locust(ns.seconds * 2, "live", ns.live_users, ns.kubeconfig)
        doc["live"] = {k: v for k, v in live.items() if k != "history"} | {"users": ns.live_users}
        doc["reference_over_live"] = round(ref_rps / live["rps"], 2) if live["rps"] else None
        doc["throughput"]["live (Locust)"] = [[h[0], h[1]] for h in live["history"]]
    ns.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps({k: v for k, v in doc.items() if k != "throughput"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

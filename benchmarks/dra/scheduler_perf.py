"""DRA throughput: a thin caller of ``garhwal bench`` on upstream's own workload file.

Runs scheduler_perf's ``SchedulingWithResourceClaimTemplate/5000pods_500nodes``
(benchmarks/scheduler_perf/dra, upstream v1.37.2: nodes with one ResourceSlice of 10
devices, init claims allocated without pods, then pods with one claim template each) with
``--nodes``/``--pods``/``--init-claims`` as its nodesWithDRA/measurePods/initClaims, on the
reference, or side by side with upstream's scheduler_perf with ``--against upstream``.

    .venv/bin/python -m benchmarks.dra.scheduler_perf [--nodes 500 --pods 2500 --init-claims 2500]
        [--against upstream [--repeat 2]] [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from fixtures.cli import main as garhwal

FILE: Final = Path(__file__).resolve().parents[1] / "scheduler_perf/dra/performance-config.yaml"


def args_for(ns: argparse.Namespace) -> list[str]:
    """The ``garhwal bench`` command line for these options."""
    argv = ["bench", str(FILE), "--case", "SchedulingWithResourceClaimTemplate",
            "--workload", "5000pods_500nodes", "--param", f"nodesWithDRA={ns.nodes}",
            "--param", f"measurePods={ns.pods}", "--param", f"initClaims={ns.init_claims}"]  # fmt: skip
    if ns.against:
        argv += ["--against", ns.against, "--repeat", str(ns.repeat)]
    return argv + (["--out", str(ns.out)] if ns.out else [])


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; garhwal bench's exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=2500)
    ap.add_argument("--init-claims", type=int, default=2500)
    ap.add_argument("--against", choices=["upstream"])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", type=Path)
    return garhwal(args_for(ap.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())

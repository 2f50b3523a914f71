"""SchedulingBasic: a thin caller of ``garhwal bench`` on upstream's own workload file.

Runs scheduler_perf's ``SchedulingBasic/5000Nodes_10000Pods`` (benchmarks/scheduler_perf/
misc, upstream v1.37.2) with ``--nodes``/``--init-pods``/``--pods`` as its initNodes/initPods/measurePods, on the
reference, or side by side with upstream's scheduler_perf with ``--against upstream``.
The result is garhwal bench's (results-bench.json, or results-bench-upstream.json).

    .venv/bin/python -m benchmarks.scheduling.basic [--nodes 5000] [--init-pods 1000] [--pods 10000]
        [--against upstream [--repeat 2]] [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from fixtures.cli import main as garhwal

FILE: Final = Path(__file__).resolve().parents[1] / "scheduler_perf/misc/performance-config.yaml"


def args_for(ns: argparse.Namespace) -> list[str]:
    """The ``garhwal bench`` command line for these options."""
    argv = ["bench", str(FILE), "--case", "SchedulingBasic", "--workload", "5000Nodes_10000Pods",
            "--param", f"initNodes={ns.nodes}", "--param", f"initPods={ns.init_pods}",
            "--param", f"measurePods={ns.pods}"]  # fmt: skip
    if ns.against:
        argv += ["--against", ns.against, "--repeat", str(ns.repeat)]
    return argv + (["--out", str(ns.out)] if ns.out else [])


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; garhwal bench's exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--init-pods", type=int, default=1000)
    ap.add_argument("--against", choices=["upstream"])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", type=Path)
    return garhwal(args_for(ap.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())

"""SchedulingBasic: a thin caller of ``garhwal bench`` on upstream's own workload file.

Runs scheduler_perf's ``SchedulingBasic/5000Nodes_10000Pods`` (benchmarks/scheduler_perf/
misc, upstream v1.37.2) with ``--nodes``/``--init-pods``/``--pods`` as its initNodes/initPods/measurePods, on the
reference, or side by side with upstream's scheduler_perf with ``--against upstream``.
The result is garhwal bench's (results-bench.json, or results-bench-upstream.json).

    .venv/bin/python -m benchmarks.scheduling.basic [--nodes 5000] [--init-pods 1000] [--pods 10000]
        [--against upstream [--repeat 2]] [--out DIR]
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from benchmarks.scheduling import thin_caller

FILE: Final = Path(__file__).resolve().parents[1] / "scheduler_perf/misc/performance-config.yaml"
PARAMS: Final[tuple[thin_caller.Param, ...]] = (
    ("--nodes", "initNodes", 5000), ("--init-pods", "initPods", 1000), ("--pods", "measurePods", 10000)
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; garhwal bench's exit status."""
    return thin_caller.main(argv, __doc__ or "", FILE, "SchedulingBasic", "5000Nodes_10000Pods", PARAMS)


if __name__ == "__main__":
    raise SystemExit(main())

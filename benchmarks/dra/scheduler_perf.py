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

from pathlib import Path
from typing import Final

from benchmarks.scheduling import thin_caller

FILE: Final = Path(__file__).resolve().parents[1] / "scheduler_perf/dra/performance-config.yaml"
PARAMS: Final[tuple[thin_caller.Param, ...]] = (
    ("--nodes", "nodesWithDRA", 500), ("--pods", "measurePods", 2500), ("--init-claims", "initClaims", 2500)
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; garhwal bench's exit status."""
    return thin_caller.main(argv, __doc__ or "", FILE, "SchedulingWithResourceClaimTemplate", "5000pods_500nodes", PARAMS)


if __name__ == "__main__":
    raise SystemExit(main())

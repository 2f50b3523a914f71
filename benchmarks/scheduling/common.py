"""Shared pieces of the scheduling benchmarks: scheduler_perf's cluster, result files."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path
from typing import Any

from fixtures.bench.cluster import bench_cluster

__all__ = ["bench_cluster", "peak_rss_mb", "write_result"]


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB (ru_maxrss is KiB on Linux)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024, 1)


def write_result(
    out_dir: Path, name: str, unit: str, value: float, threshold: float, **extra: Any
) -> dict[str, Any]:
    """Write ``results-<name>.json`` and print it; returns the record."""
    record: dict[str, Any] = {
        "name": name,
        "unit": unit,
        "value": round(value, 2),
        "threshold": threshold,
        "peak_rss_mb": peak_rss_mb(),
        **extra,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"results-{name}.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record))
    return record

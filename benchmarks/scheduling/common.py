"""Shared pieces of the scheduling benchmarks: a cluster without a kubelet, result files."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path
from typing import Any

from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.kubelet import KubeletConfig

__all__ = ["bench_cluster", "peak_rss_mb", "write_result"]


def bench_cluster(gates: dict[str, bool] | None = None) -> Cluster:
    """A cluster with no pre-made nodes whose fake kubelet runs no node (scheduling only)."""
    kubelet = KubeletConfig(node_label_selector="garhwal.dev/bench-kubelet=on", node_lease=False)
    # The beta/alpha scheduling APIs the gang benchmarks write, as the local cluster serves.
    runtime = {"scheduling.k8s.io/v1beta1": "true", "scheduling.k8s.io/v1alpha3": "true"}
    return Cluster(gates, config=ClusterConfig(kubelet=kubelet, nodes=0, runtime_config=runtime))


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

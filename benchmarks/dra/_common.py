"""Shared helpers of the DRA benchmarks: result files, peak RSS, the bench cluster."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path
from typing import Any, Final

from reference_impl.api import make_device, make_device_class, make_node, make_resource_slice
from reference_impl.cluster import Cluster, ClusterConfig

__all__ = [
    "DRIVER",
    "add_gpu_node",
    "bench_cluster",
    "install_class",
    "peak_rss_mb",
    "write_result",
]

Obj = dict[str, Any]
DRIVER: Final = "gpu.bench.garhwal.dev"
RESULTS_DIR: Final = Path(__file__).resolve().parent


def peak_rss_mb() -> float:
    """The process's peak resident set size so far, in MiB (ru_maxrss is KiB on Linux)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024, 1)


def write_result(name: str, result: Obj, out_dir: Path | None = None) -> Path:
    """Write ``results-<name>.json`` and print a one-line summary."""
    path = (out_dir or RESULTS_DIR) / f"results-{name}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    verdict = "PASS" if result.get("passed") else "FAIL"
    print(
        f"{name}: {result['value']} {result['unit']} (threshold {result['threshold']}, "
        f"peak RSS {result['peak_rss_mb']} MiB) {verdict} -> {path}"
    )
    return path


def bench_cluster() -> Cluster:
    """A cluster with no pre-registered nodes (the benchmark adds its own)."""
    return Cluster(config=ClusterConfig(nodes=0))


def install_class(cluster: Cluster, name: str, driver: str = DRIVER) -> None:
    """A DeviceClass selecting every device of ``driver``."""
    cluster.api.create(make_device_class(name).selector(f'device.driver == "{driver}"').build())


def add_gpu_node(cluster: Cluster, node: str, gpus: int, driver: str = DRIVER) -> None:
    """A Node plus its ResourceSlice (one pool named after the node) with ``gpus`` devices."""
    cluster.api.create(make_node(node).capacity(cpu="128", memory="1Ti", pods="110").build())
    b = make_resource_slice(f"{driver.split('.')[0]}-{node}", driver, node, node)
    for i in range(gpus):
        b.device(make_device(f"gpu-{i}", attributes={"index": i}))
    cluster.api.create(b.build())

"""The storage layer's Prometheus metrics, named and labelled as upstream's
``k8s.io/apiserver/pkg/storage/etcd3/metrics`` and ``storage/cacher/metrics``.

Only the series the watch-cache warm-up writes are modelled:

* ``etcd_requests_total{operation,group,resource}``: operation ``listStream`` for a
  RangeStream, ``list`` for each page of a Range;
* ``apiserver_watch_cache_initializations_total{group,resource}``,
  ``apiserver_watch_cache_initialization_errors_total{group,resource}`` and the
  histogram ``apiserver_watch_cache_initialization_duration_seconds{group,resource}``.

The warm-up is the cacher's watch-list (``etcd3/watcher.go`` ``sync``), not ``GetList``,
so it writes no ``apiserver_storage_list_duration_seconds``, as on a live 1.37 apiserver.

Durations are simulated time, which a warm-up does not advance, so every observation is
0 s; counts are what suites read. ``expose`` renders the text format of ``GET /metrics``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = [
    "CACHE_INIT_ERRORS",
    "CACHE_INITS",
    "CACHE_INIT_DURATION",
    "REQUESTS_TOTAL",
    "StorageMetrics",
]

REQUESTS_TOTAL: Final = "etcd_requests_total"
CACHE_INIT_DURATION: Final = "apiserver_watch_cache_initialization_duration_seconds"
CACHE_INITS: Final = "apiserver_watch_cache_initializations_total"
CACHE_INIT_ERRORS: Final = "apiserver_watch_cache_initialization_errors_total"
_INIT_BUCKETS: Final = "0.05 0.1 0.25 0.5 1 2.5 5 10 30 60 180 600"
# family -> (type, help, histogram buckets)
_FAMILIES: Final[dict[str, tuple[str, str, tuple[float, ...]]]] = {
    REQUESTS_TOTAL: ("counter", "Etcd request counts for each operation and object type.", ()),
    CACHE_INIT_DURATION: (
        "histogram",
        "Histogram of watch cache initialization duration in seconds, broken by resource type.",
        tuple(float(b) for b in _INIT_BUCKETS.split()),
    ),
    CACHE_INITS: (
        "counter",
        "Counter of watch cache initializations broken by resource type.",
        (),
    ),
    CACHE_INIT_ERRORS: (
        "counter",
        "Counter of watch cache initialization errors broken by resource type.",
        (),
    ),
}
Labels = tuple[tuple[str, str], ...]


def _labels(labels: Mapping[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


def _fmt(labels: Labels) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}" if labels else ""


class StorageMetrics:
    """Counters and histograms of the known families, keyed by (name, sorted labels)."""

    def __init__(self) -> None:
        self._counters: dict[tuple[str, Labels], float] = {}
        self._hist: dict[tuple[str, Labels], list[float]] = {}

    def inc(self, name: str, labels: Mapping[str, str], by: float = 1.0) -> None:
        """Add ``by`` to a counter series."""
        assert _FAMILIES[name][0] == "counter", name
        key = (name, _labels(labels))
        self._counters[key] = self._counters.get(key, 0.0) + by

    def observe(self, name: str, labels: Mapping[str, str], value: float) -> None:
        """Record one observation of a histogram series."""
        assert _FAMILIES[name][0] == "histogram", name
        self._hist.setdefault((name, _labels(labels)), []).append(value)

    def _family(self, family: str) -> list[tuple[str, Labels, float]]:
        rows = [(n, lb, v) for (n, lb), v in self._counters.items() if n == family]
        buckets = _FAMILIES[family][2]
        for (name, labels), values in self._hist.items():
            if name != family:
                continue
            rows.append((f"{name}_count", labels, float(len(values))))
            rows.append((f"{name}_sum", labels, float(sum(values))))
            for le in (*buckets, float("inf")):
                bound = "+Inf" if le == float("inf") else f"{le:g}"
                rows.append(
                    (
                        f"{name}_bucket",
                        (*labels, ("le", bound)),
                        float(sum(v <= le for v in values)),
                    )
                )
        return sorted(rows)

    def expose(self) -> str:
        """The Prometheus text exposition of every series, in a stable order."""
        lines: list[str] = []
        for family in sorted(_FAMILIES):
            rows = self._family(family)
            if rows:
                kind, text, _ = _FAMILIES[family]
                lines += [f"# HELP {family} [ALPHA] {text}", f"# TYPE {family} {kind}"]
                lines += [f"{n}{_fmt(lb)} {v:g}" for n, lb, v in rows]
        return "\n".join(lines) + "\n"

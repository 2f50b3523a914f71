"""Unit tests of the RangeStream model, the watch-cache warm-up and the benchmark."""

from __future__ import annotations

import pytest

from benchmarks.rangestream.warmup import measure
from reference_impl.apiserver.cacher import WatchCache
from reference_impl.errors import Gone, ServiceUnavailable, Unimplemented
from reference_impl.features import FeatureGates
from reference_impl.storage.mvcc import MVCCStore
from reference_impl.storage.range_stream import EtcdServer, range_stream


def _store(n: int, size: int = 100) -> MVCCStore:
    s = MVCCStore()
    for i in range(n):
        s.put(f"/registry/cm/k{i:04d}", b"v" * size)
    return s


def test_chunks_double_while_small_and_halve_when_cut() -> None:
    # Each KV is 117 bytes: 10 keys (1170 B) are under half of 4000, so the next doubles.
    chunks = list(range_stream(_store(200, 100), "/registry/cm/", max_chunk_bytes=4000))
    sizes = [len(c.kvs) for c in chunks]
    assert sizes[:3] == [10, 20, 20]
    assert all(c.nbytes <= 4000 for c in chunks)
    # With 1000 B, 10 keys are cut to 8 and the next asks for half (5).
    small = [
        len(c.kvs) for c in range_stream(_store(30, 100), "/registry/cm/", max_chunk_bytes=1000)
    ]
    assert small[:3] == [8, 5, 5] and sum(small) == 30
    assert sum(sizes) == 200 and chunks[-1].last and chunks[-1].count == 200


def test_stream_reads_one_revision_even_when_writes_happen_meanwhile() -> None:
    s = _store(50)
    it = range_stream(s, "/registry/cm/", max_chunk_bytes=2000)
    first = next(it)
    s.put("/registry/cm/k9999", b"late")
    rest = list(it)
    keys = [kv.key for c in [first, *rest] for kv in c.kvs]
    assert "/registry/cm/k9999" not in keys and len(keys) == 50


def test_old_etcd_answers_unimplemented_and_restart_breaks_streams() -> None:
    s = _store(30)
    with pytest.raises(Unimplemented):
        EtcdServer(s, "3.6.6").range_stream("/registry/cm/")
    etcd = EtcdServer(s)
    it = etcd.range_stream("/registry/cm/", max_chunk_bytes=500)
    next(it)
    etcd.restart()
    with pytest.raises(ServiceUnavailable):
        next(it)


def test_warm_up_resumes_after_a_restart_and_restarts_if_compacted() -> None:
    s = _store(100)
    etcd = EtcdServer(s)
    etcd.restart_after_chunks(3)
    cache = WatchCache(etcd, "/registry/cm/", FeatureGates(), max_chunk_bytes=1500, keep=lambda kv: kv.key)
    stats = cache.initialize()
    assert stats.retries == 1 and stats.objects == 100 and len(cache.items) == 100
    s.put("/registry/cm/k0000", b"new")
    s.compact(s.revision)
    with pytest.raises(Gone):
        s.range("/registry/cm/", revision=1)


def test_benchmark_stream_peak_stays_within_twice_the_chunk_limit() -> None:
    row = measure(10_000, 256 * 1024, 500)
    assert row["stream_within_2x_limit"] is True
    unary = row["UnaryRange"]
    assert isinstance(unary, dict) and unary["peak_buffered_bytes"] > 100 * 1024 * 1024 * 0.9

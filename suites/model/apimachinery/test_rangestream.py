"""etcd RangeStream for the watch-cache warm-up (KEP-5966), with the Range fallback.

A model test (marker ``model``, not conformance evidence): each test warms a watch cache
by hand through garhwal's own etcd RangeStream client and reads its buffers and chunks,
which exist only in the reference's etcd model; no live cluster exposes them.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures import Capability, Target
from fixtures.helpers.etcd import model_etcd
from reference_impl.api import make_configmap
from reference_impl.errors import Timeout

pytestmark = [
    pytest.mark.model,
    pytest.mark.feature("RANGESTREAM"),
    pytest.mark.requires(Capability.ETCD_CONTROL),
]

CM = ("v1", "ConfigMap")
_ids = itertools.count()


def _fill(target: Target, namespace: str, n: int, size: int = 2048, start: int = 0) -> None:
    for i in range(start, start + n):
        target.apply(make_configmap(f"cm-{i:05d}", namespace, blob="x" * size).build())


def test_rangestream_warm_up_equals_a_unary_range(target: Target, namespace: str) -> None:
    """RangeStream equals Range.

    A watch cache warmed through RangeStream with a 16 KiB chunk limit MUST list exactly
    the keys and objects of one unary Range, in more than one chunk.
    """
    _fill(target, namespace, 60)
    etcd = model_etcd(target)
    stats = etcd.warm_watch_cache(*CM, max_chunk_bytes=16 * 1024)
    assert stats["mode"] == "RangeStream"
    assert stats["keys"] == etcd.unary_range(*CM)
    assert stats["chunks"] > 1
    for key, obj in stats["objects_by_key"].items():
        if f"/{namespace}/cm-" in key:  # not the namespace's kube-root-ca.crt
            assert obj["data"]["blob"] == "x" * 2048


def test_rangestream_peak_buffer_is_bounded_by_the_chunk_size_as_the_collection_grows(
    target: Target, namespace: str
) -> None:
    """RangeStream peak memory.

    When the collection grows 10x (30 to 300 objects of 2 KiB), the RangeStream warm-up's
    peak buffered bytes MUST stay within the 32 KiB chunk limit, while a unary Range's
    peak MUST grow with the collection.
    """
    etcd = model_etcd(target)
    limit = 32 * 1024
    _fill(target, namespace, 30)
    small = etcd.warm_watch_cache(*CM, max_chunk_bytes=limit)
    _fill(target, namespace, 270, start=30)
    big = etcd.warm_watch_cache(*CM, max_chunk_bytes=limit)
    etcd_off = etcd.warm_watch_cache  # the same cache, read with one unary Range
    etcd.set_version("3.6.6")
    unary = etcd_off(*CM, page_size=0)
    print(
        f"RangeStream peak {small['peak_buffered_bytes']} B at 30 objects, "
        f"{big['peak_buffered_bytes']} B at 300 objects (limit {limit} B); "
        f"unary Range peak {unary['peak_buffered_bytes']} B"
    )
    assert small["peak_buffered_bytes"] <= limit
    assert big["peak_buffered_bytes"] <= limit
    assert unary["peak_buffered_bytes"] >= 300 * 2048
    assert big["objects"] == unary["objects"]


def test_an_etcd_without_rangestream_falls_back_to_paginated_range(
    target: Target, namespace: str
) -> None:
    """RangeStream fallback.

    Against an etcd older than 3.7 (RangeStream Unimplemented) the warm-up MUST fall back
    to a paginated Range and list the same keys as a unary Range.
    """
    _fill(target, namespace, 25)
    etcd = model_etcd(target)
    etcd.set_version("3.6.6")
    stats = etcd.warm_watch_cache(*CM, page_size=10)
    assert stats["fell_back"] is True
    assert stats["mode"] == "PaginatedRange"
    assert stats["keys"] == etcd.unary_range(*CM)
    assert stats["chunks"] >= 3


@pytest.mark.feature_gates(EtcdRangeStream=False)
@pytest.mark.requires(Capability.MUTABLE_GATES)
def test_with_the_gate_off_the_warm_up_uses_range(target: Target, namespace: str) -> None:
    """RangeStream gate.

    With EtcdRangeStream off, the warm-up MUST use Range even though etcd supports
    RangeStream, and MUST NOT count as a fallback.
    """
    _fill(target, namespace, 5)
    stats = model_etcd(target).warm_watch_cache(*CM)
    assert stats["mode"] == "PaginatedRange"
    assert stats["fell_back"] is False


def test_an_etcd_restart_in_the_middle_of_a_stream_is_retried(
    target: Target, namespace: str
) -> None:
    """RangeStream restart.

    When etcd restarts after the second chunk, the warm-up MUST retry from the last key
    at the same revision and still list exactly the keys of a unary Range.
    """
    _fill(target, namespace, 80)
    etcd = model_etcd(target)
    stats = etcd.warm_watch_cache(*CM, max_chunk_bytes=8 * 1024, restart_after_chunks=2)
    assert stats["retries"] == 1
    assert stats["keys"] == etcd.unary_range(*CM)
    assert len(stats["keys"]) == len(set(stats["keys"]))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    sizes=st.lists(st.integers(0, 6000), min_size=0, max_size=40),
    limit=st.integers(64, 40_000),
    changes=st.lists(st.tuples(st.integers(0, 39), st.booleans()), max_size=15),
)
def test_rangestream_equals_range_for_any_collection_and_chunk_limit(
    target: Target,
    namespace: str,
    sizes: list[int],
    limit: int,
    changes: list[tuple[int, bool]],
) -> None:
    """RangeStream equals Range (property).

    For any collection of object sizes, later rewritten or deleted in any order, and any
    chunk limit, RangeStream MUST return the keys and values of a unary Range in order
    (deleted keys absent, rewritten keys at their last value), and no chunk of more than
    one object MUST exceed the limit.
    """
    run = next(_ids)
    names = [f"p{run}-{i:03d}" for i in range(len(sizes))]
    for name, size in zip(names, sizes, strict=True):
        target.apply(make_configmap(name, namespace, blob="y" * size).build())
    gone: set[str] = set()
    for i, delete in changes:
        if i >= len(names) or names[i] in gone:
            continue
        if delete:
            target.delete(*CM, names[i], namespace)
            gone.add(names[i])
        else:
            target.apply(make_configmap(names[i], namespace, blob="w" * (i * 97)).build())
    etcd = model_etcd(target)
    stats = etcd.warm_watch_cache(*CM, max_chunk_bytes=limit)
    assert stats["keys"] == etcd.unary_range(*CM)
    assert stats["objects"] == len(stats["keys"])
    for key, obj in stats["objects_by_key"].items():
        if f"/{namespace}/p{run}-" in key:
            name = obj["metadata"]["name"]
            assert name not in gone
            assert obj["data"] == target.get(*CM, name, namespace)["data"]
    # A single object larger than the limit is sent alone; anything else fits.
    for nbytes, objects in zip(stats["chunk_bytes"], stats["chunk_objects"], strict=True):
        assert nbytes <= limit or objects == 1


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 9)), min_size=1, max_size=25))
def test_no_acknowledged_write_is_lost_across_an_etcd_restart(
    target: Target, namespace: str, ops: list[tuple[bool, int]]
) -> None:
    """No acknowledged write lost (property).

    For any sequence of writes with etcd stopped and restarted in between, every write the
    apiserver acknowledged MUST be readable after the restart with its value, and every
    write refused while etcd was down MUST have changed nothing.
    """
    run = next(_ids)
    etcd = model_etcd(target)
    acked: dict[str, str] = {}
    for n, (down, key) in enumerate(ops):
        name = f"w{run}-{key}"
        if down:
            etcd.stop()
        try:
            target.apply(make_configmap(name, namespace, v=str(n)).build())
            acked[name] = str(n)
        except Timeout:  # upstream's answer while etcd is down
            assert down
        finally:
            if down:
                etcd.start()
    etcd.restart()
    for name, value in acked.items():
        assert target.get(*CM, name, namespace)["data"]["v"] == value

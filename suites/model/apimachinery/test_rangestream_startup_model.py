"""garhwal's etcd and watch-cache model under RangeStream (KEP-5966): model tests.

Marker ``model``, not conformance evidence. Each test drives the reference's etcd model
past what a cluster exposes: it warms a watch cache by hand through garhwal's RangeStream
client, breaks a stream after its n-th chunk, swaps the member's version (3.6 answers
RangeStream Unimplemented) and reads the apiserver's watch-cache contents and warm-up
log. Upstream's behaviour seen through the API (metrics, an etcd restart) is checked in
``suites/conformance/apimachinery/test_rangestream_startup.py``.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures import Capability, Target
from fixtures.helpers.apiserver_metrics import apiserver_metrics
from fixtures.helpers.etcd import ReferenceEtcd, model_etcd
from reference_impl.api import make_configmap
from reference_impl.errors import NotFound, Timeout

pytestmark = [pytest.mark.model, pytest.mark.feature("RANGESTREAM")]

CM = ("v1", "ConfigMap")
REQUESTS = "etcd_requests_total"
_ids = itertools.count()


def _streams(target: Target) -> float:
    return apiserver_metrics(target).value(
        REQUESTS, operation="listStream", group="", resource="configmaps"
    )


def _pages(target: Target) -> float:
    return apiserver_metrics(target).value(
        REQUESTS, operation="list", group="", resource="configmaps"
    )


def _fill(target: Target, namespace: str, n: int, prefix: str = "cm") -> None:
    for i in range(n):
        target.apply(make_configmap(f"{prefix}-{i:04d}", namespace, blob="z" * 1024).build())


def _wait(target: Target, seconds: float) -> None:
    with pytest.raises(Timeout):
        target.wait_until(lambda: False, timeout=seconds, what=f"{seconds:g}s to pass")


def _expire_and_restart(target: Target, etcd: ReferenceEtcd, namespace: str) -> None:
    """Restart etcd after its history was compacted past the configmaps watch (two writes
    to another resource, as the conformance suite's ``_compact_past_the_configmaps_watch``:
    the watch resumes at its last revision + 1, which one write would leave served)."""
    for _ in range(2):
        meta = {"name": f"bump-{next(_ids)}", "namespace": namespace}
        target.apply(
            {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "data": {"k": "dg=="}}
        )
    etcd.compact()
    etcd.restart()


@pytest.mark.requires(Capability.ETCD_CONTROL, Capability.VIRTUAL_TIME)
def test_an_etcd_without_rangestream_is_not_asked_again_for_ten_minutes(
    target: Target, namespace: str
) -> None:
    """RangeStream unsupported recheck.

    When the configmaps watch must list again after a restart and etcd answers
    RangeStream with Unimplemented, the list MUST fall back to a paginated Range; after an upgrade to 3.7 within 10 minutes the next warm-up
    MUST still use Range without trying RangeStream, and once 10 minutes have passed
    since the Unimplemented answer it MUST use RangeStream again.
    """
    _fill(target, namespace, 15)
    etcd = model_etcd(target)
    etcd.set_version("3.6.6")
    streams, pages = _streams(target), _pages(target)
    _expire_and_restart(target, etcd, namespace)
    old = etcd.apiserver_warmups(*CM)[-1]
    assert (old["mode"], old["fell_back"]) == ("PaginatedRange", True)
    assert _pages(target) > pages and _streams(target) == streams
    assert etcd.apiserver_cache_keys(*CM) == etcd.unary_range(*CM)
    etcd.set_version("3.7.3")
    _wait(target, 300)
    _expire_and_restart(target, etcd, namespace)
    soon = etcd.apiserver_warmups(*CM)[-1]
    assert (soon["mode"], soon["fell_back"]) == ("PaginatedRange", False)
    _wait(target, 301)
    _expire_and_restart(target, etcd, namespace)
    assert etcd.apiserver_warmups(*CM)[-1]["mode"] == "RangeStream"
    assert _streams(target) == streams + 1


@pytest.mark.requires(Capability.ETCD_CONTROL)
def test_a_stream_broken_by_a_restart_resumes_at_its_revision(
    target: Target, namespace: str
) -> None:
    """RangeStream resume at the same revision.

    When etcd restarts after the second chunk and new configmaps are written before the
    warm-up retries, the warm-up MUST resume after its last key at its original revision:
    it MUST list exactly the keys that existed before the restart, none twice, and none
    of the new ones.
    """
    _fill(target, namespace, 60)
    etcd = model_etcd(target)
    before = etcd.unary_range(*CM)

    def race() -> None:
        _fill(target, namespace, 5, prefix="late")

    stats = etcd.warm_watch_cache(
        *CM, max_chunk_bytes=8 * 1024, restart_after_chunks=2, after_restart=race
    )
    assert stats["retries"] == 1 and stats["relists"] == 0
    assert stats["keys"] == before
    assert stats["objects"] == len(before)
    assert len(etcd.unary_range(*CM)) == len(before) + 5


@pytest.mark.requires(Capability.ETCD_CONTROL)
def test_a_resume_below_the_compacted_revision_lists_again_from_the_newest(
    target: Target, namespace: str
) -> None:
    """RangeStream resume after compaction.

    When etcd restarts mid-stream and its history is compacted past the stream's revision
    before the retry, the resume gets Gone; the warm-up MUST then list again from the
    start at the newest revision and hold exactly the keys of a unary Range now.
    """
    _fill(target, namespace, 60)
    etcd = model_etcd(target)

    def race() -> None:
        _fill(target, namespace, 5, prefix="late")
        etcd.compact()

    stats = etcd.warm_watch_cache(
        *CM, max_chunk_bytes=8 * 1024, restart_after_chunks=2, after_restart=race
    )
    assert stats["retries"] == 1 and stats["relists"] == 1
    assert stats["keys"] == etcd.unary_range(*CM)
    assert sum(f"/{namespace}/late-" in k for k in stats["keys"]) == 5


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, 7)),
        st.tuples(st.just("delete"), st.integers(0, 7)),
        st.tuples(st.just("put-while-down"), st.integers(0, 7)),
        st.tuples(st.just("restart"), st.just(0)),
        st.tuples(st.just("compact"), st.just(0)),
    ),
    min_size=1,
    max_size=30,
)


@pytest.mark.requires(Capability.ETCD_CONTROL)
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=_OPS)
def test_the_watch_cache_never_loses_an_acknowledged_write_across_restarts(
    target: Target, namespace: str, ops: list[tuple[str, int]]
) -> None:
    """No acknowledged write lost, in the store or the watch cache (property).

    For any sequence of writes, deletes, compactions, etcd restarts and writes attempted
    while etcd is down, every acknowledged write MUST be readable with its value, every refused one
    MUST have changed nothing, and after every step the apiserver's watch cache MUST hold
    exactly the keys of a unary Range, with the acknowledged values.
    """
    run = next(_ids)
    etcd = model_etcd(target)
    want: dict[str, str | None] = {}
    for n, (op, k) in enumerate(ops):
        name = f"h{run}-{k}"
        if op == "restart":
            etcd.restart()
        elif op == "compact":
            etcd.compact()
        elif op == "delete":
            try:
                target.delete(*CM, name, namespace)
                want[name] = None
            except NotFound:
                assert want.get(name) is None
        else:
            down = op == "put-while-down"
            if down:
                etcd.stop()
            try:
                target.apply(make_configmap(name, namespace, v=str(n)).build())
                want[name] = str(n)
            except Timeout:  # upstream's answer while etcd is down
                assert down
            finally:
                if down:
                    etcd.start()
        cached = etcd.apiserver_cache_objects(*CM)
        assert sorted(cached) == etcd.unary_range(*CM)
        for key, obj in cached.items():
            if f"/{namespace}/h{run}-" in key:
                assert obj["data"]["v"] == want[obj["metadata"]["name"]]
    for name, value in want.items():
        if value is None:
            with pytest.raises(NotFound):
                target.get(*CM, name, namespace)
        else:
            assert target.get(*CM, name, namespace)["data"]["v"] == value

"""The apiserver's own watch-cache warm-up through etcd RangeStream (KEP-5966).

Every cacher lists its resource when the apiserver starts and again after etcd restarts.
With EtcdRangeStream on and etcd >= 3.7 that list is a RangeStream, which the apiserver
counts as ``etcd_requests_total{operation="listStream"}`` next to
``apiserver_watch_cache_initializations_total``: the first test reads those on both
targets. The others restart or downgrade the etcd member, so they need
ETCD_CONTROL (the reference; the local live cluster's etcd is not ours to kill per test).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures import Capability, Target
from fixtures.helpers.apiserver_metrics import apiserver_metrics
from fixtures.helpers.etcd import EtcdControl, ReferenceEtcd, etcd_control, model_etcd
from reference_impl.api import make_configmap
from reference_impl.errors import NotFound, Timeout

pytestmark = [pytest.mark.conformance, pytest.mark.feature("RANGESTREAM")]

CM = ("v1", "ConfigMap")
REQUESTS = "etcd_requests_total"
INITS = "apiserver_watch_cache_initializations_total"
_ids = itertools.count()


def _streams(target: Target) -> float:
    return apiserver_metrics(target).value(
        REQUESTS, operation="listStream", group="", resource="configmaps"
    )


def _inits(target: Target) -> float:
    return apiserver_metrics(target).value(INITS, group="", resource="configmaps")


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


@pytest.mark.feature_gates(EtcdRangeStream=True)
def test_the_apiserver_lists_configmaps_from_etcd_through_rangestream(target: Target) -> None:
    """RangeStream at apiserver start.

    With EtcdRangeStream on and etcd >= 3.7, the apiserver's watch-cache warm-up MUST have
    initialized the configmaps watch cache by reading configmaps through RangeStream:
    ``apiserver_watch_cache_initializations_total{resource="configmaps"}`` and
    ``etcd_requests_total{operation="listStream", resource="configmaps"}`` MUST each be
    at least 1.
    """
    metrics = apiserver_metrics(target)
    inits = metrics.value(INITS, group="", resource="configmaps")
    streams = metrics.value(REQUESTS, operation="listStream", group="", resource="configmaps")
    print(f"configmaps: {inits:g} watch-cache initializations, {streams:g} listStream requests")
    assert inits >= 1
    assert streams >= 1


@pytest.mark.feature_gates(EtcdRangeStream=False)
@pytest.mark.requires(Capability.MUTABLE_GATES)
def test_with_the_gate_off_the_apiserver_lists_configmaps_by_paginated_range(
    target: Target,
) -> None:
    """RangeStream gate at apiserver start.

    With EtcdRangeStream off, the apiserver MUST still initialize the configmaps watch
    cache, through a Range (``etcd_requests_total{operation="list"}`` at least 1), and
    MUST NOT send RangeStream (``operation="listStream"`` 0).
    """
    metrics = apiserver_metrics(target)
    assert metrics.value(INITS, group="", resource="configmaps") >= 1
    assert _pages(target) >= 1
    assert _streams(target) == 0


def _compact_past_the_configmaps_watch(target: Target, etcd: EtcdControl, namespace: str) -> None:
    """Two writes to another resource move the revision on, then etcd compacts at it.

    The configmaps watch resumes from its last revision + 1; etcd refuses a watch that
    starts below the compacted revision. One write would compact exactly at that resume
    revision (which etcd still serves) whenever nothing else wrote in between.
    """
    for _ in range(2):
        meta = {"name": f"bump-{next(_ids)}", "namespace": namespace}
        target.apply({"apiVersion": "v1", "kind": "Secret", "metadata": meta, "data": {"k": "dg=="}})
    etcd.compact()


def _expire_and_restart(target: Target, etcd: ReferenceEtcd, namespace: str) -> None:
    """Restart etcd after its history was compacted past the configmaps watch."""
    _compact_past_the_configmaps_watch(target, etcd, namespace)
    etcd.restart()


def _restart(target: Target, etcd: EtcdControl, namespace: str) -> None:
    """kill -9 etcd, start it again, and wait until the apiserver writes through it."""
    etcd.kill()
    etcd.start()

    def writable() -> bool:
        try:
            target.apply(make_configmap("after-restart", namespace, v=str(next(_ids))).build())
            return True
        except Exception:  # the apiserver has not reconnected yet
            return False

    target.wait_until(writable, timeout=90, what="the apiserver writing through etcd again")


@pytest.mark.requires(Capability.ETCD_CONTROL)
def test_a_restart_relists_through_rangestream_only_a_watch_that_cannot_resume(
    target: Target, namespace: str
) -> None:
    """RangeStream after an etcd restart.

    After a plain etcd restart the apiserver's configmaps watch MUST resume without a new
    list (no initialization, no RangeStream). When etcd's history was compacted past that
    watch's revision before the restart, the watch cannot resume and the apiserver MUST
    list configmaps again through one RangeStream (not a Range), after which its watch
    cache MUST hold exactly the keys and objects of a unary Range (checked where the
    target shows its cache: the reference's model).
    """
    _fill(target, namespace, 40)
    etcd = etcd_control(target)
    inits, streams, pages = _inits(target), _streams(target), _pages(target)
    model = etcd if isinstance(etcd, ReferenceEtcd) else None
    warmups = len(model.apiserver_warmups(*CM)) if model else 0
    _restart(target, etcd, namespace)
    assert (_inits(target), _streams(target)) == (inits, streams)
    if model:
        assert len(model.apiserver_warmups(*CM)) == warmups
    _compact_past_the_configmaps_watch(target, etcd, namespace)
    _restart(target, etcd, namespace)
    target.wait_until(lambda: _inits(target) >= inits + 1, timeout=90, what="the re-list")
    assert _inits(target) == inits + 1
    assert _streams(target) == streams + 1
    assert _pages(target) == pages
    if model is None:
        return
    last = model.apiserver_warmups(*CM)[-1]
    assert (last["reason"], last["mode"], last["fell_back"]) == (
        "etcd-restart",
        "RangeStream",
        False,
    )
    assert model.apiserver_cache_keys(*CM) == model.unary_range(*CM)
    cached = model.apiserver_cache_objects(*CM)
    for cm_name in ("cm-0000", "cm-0039"):
        obj = target.get(*CM, cm_name, namespace)
        key = next(k for k in cached if k.endswith(f"/{namespace}/{cm_name}"))
        assert cached[key]["metadata"]["uid"] == obj["metadata"]["uid"]
        assert cached[key]["data"] == obj["data"]


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

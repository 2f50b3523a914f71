"""client-go@v0.37.2 ``util/workqueue`` tests on the reference's rate limiters
(``reference_impl/apiserver/workqueue_rate.py``) and ``WorkQueue`` (``informers.py``).

Ports default_rate_limiters_test.go (all five tests), delaying_queue_test.go (all four),
rate_limiting_queue_test.go (TestRateLimitingQueue) and queue_test.go's single-consumer
semantics, one row per upstream test function. The simulated clock replaces upstream's
fake clock. The reference queue has no ``Get``/``Done``: it drains itself as a clock
event at the instant a key is added, calling ``sync`` once per key, so "the item ``Get``
returns" is the order of ``sync`` calls, and "re-added while processing" is an ``add``
from inside ``sync`` (the key is processed again once this sync returns).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reference_impl.apiserver.informers import WorkQueue
from reference_impl.apiserver.workqueue_rate import (
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
)
from reference_impl.clock import Duration, Instant, SimClock, millis, seconds

MINUTE = seconds(60)
HOUR = seconds(3600)


class _Recorder:
    """A queue on a fresh clock whose ``sync`` records ``(ms since start, key)``."""

    def __init__(self, rate_limiter: RateLimiter | None = None) -> None:
        self.clock = SimClock()
        self.synced: list[tuple[float, str]] = []
        self.on_sync: Callable[[str], None] = lambda key: None
        self.q = WorkQueue(self.clock, self._sync, name="test", rate_limiter=rate_limiter)

    def _sync(self, key: str) -> None:
        self.synced.append((self.clock.now() / millis(1), key))
        self.on_sync(key)

    def step(self, d: Duration) -> None:
        """``fakeClock.Step``: run everything due up to ``d`` from now."""
        self.clock.run_until(Instant(self.clock.now() + d))

    def keys(self) -> list[str]:
        return [k for _, k in self.synced]


# -- default_rate_limiters_test.go ---------------------------------------------------------


def _item_exponential_failure_rate_limiter() -> None:
    limiter = ItemExponentialFailureRateLimiter(millis(1), seconds(1))
    assert [limiter.when("one") for _ in range(5)] == [millis(n) for n in (1, 2, 4, 8, 16)]
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [millis(1), millis(2)]
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == millis(1)


def _item_exponential_failure_rate_limiter_overflow() -> None:
    limiter = ItemExponentialFailureRateLimiter(millis(1), seconds(1000))
    for _ in range(5):
        limiter.when("one")
    assert limiter.when("one") == millis(32)
    for _ in range(1000):
        limiter.when("overflow1")
    assert limiter.when("overflow1") == seconds(1000)

    limiter = ItemExponentialFailureRateLimiter(Duration(MINUTE), Duration(1000 * HOUR))
    for _ in range(2):
        limiter.when("two")
    assert limiter.when("two") == 4 * MINUTE
    for _ in range(1000):
        limiter.when("overflow2")
    assert limiter.when("overflow2") == 1000 * HOUR


def _item_fast_slow_rate_limiter() -> None:
    limiter = ItemFastSlowRateLimiter(millis(5), seconds(10), 3)
    assert [limiter.when("one") for _ in range(5)] == [millis(5)] * 3 + [seconds(10)] * 2
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [millis(5)] * 2
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == millis(5)


def _max_of_rate_limiter() -> None:
    limiter = MaxOfRateLimiter(
        ItemFastSlowRateLimiter(millis(5), seconds(3), 3),
        ItemExponentialFailureRateLimiter(millis(1), seconds(1)),
    )
    assert [limiter.when("one") for _ in range(5)] == [millis(5)] * 3 + [seconds(3)] * 2
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [millis(5)] * 2
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == millis(5)


class _StepRateLimiter:
    """The test's ``StepRateLimiter``: ``base`` for the first ``threshold`` calls (any
    item), then ``maximum``."""

    def __init__(self, base: Duration, maximum: Duration, threshold: int) -> None:
        self.base, self.maximum, self.threshold, self.count = base, maximum, threshold, 0

    def when(self, item: str) -> Duration:
        self.count += 1
        return self.base if self.count <= self.threshold else self.maximum

    def num_requeues(self, item: str) -> int:
        return 0

    def forget(self, item: str) -> None:
        return None


def _with_max_wait_rate_limiter() -> None:
    limiter = WithMaxWaitRateLimiter(_StepRateLimiter(millis(5), seconds(1000), 100), seconds(500))
    assert [limiter.when(str(i)) for i in range(100)] == [millis(5)] * 100
    assert [limiter.when(str(i)) for i in range(100, 200)] == [seconds(500)] * 100


# -- delaying_queue_test.go ----------------------------------------------------------------


def _simple_queue() -> None:
    r = _Recorder()
    r.q.add_after("foo", millis(50))
    assert len(r.q) == 0 and r.synced == []
    r.step(millis(60))
    assert r.synced == [(50, "foo")]
    r.step(seconds(10))  # past the next heartbeat: nothing is added again
    assert r.synced == [(50, "foo")] and len(r.q) == 0


def _deduping() -> None:
    r = _Recorder()
    r.q.add_after("foo", millis(50))
    r.q.add_after("foo", millis(70))
    assert r.synced == []
    r.step(millis(60))  # past the first: the later AddAfter was dropped
    assert r.synced == [(50, "foo")]
    r.step(millis(20))
    assert r.synced == [(50, "foo")]

    # again, but this time the earlier should override
    r.q.add_after("foo", millis(50))
    r.q.add_after("foo", millis(30))
    assert r.q.ready_at("foo") == Instant(millis(110))
    r.step(millis(40))
    assert r.synced == [(50, "foo"), (110, "foo")]
    r.step(millis(20))
    assert r.synced == [(50, "foo"), (110, "foo")] and len(r.q) == 0


def _add_two_fire_early() -> None:
    r = _Recorder()
    r.q.add_after("foo", seconds(1))
    r.q.add_after("bar", millis(50))
    assert r.synced == []
    r.step(millis(60))
    assert r.keys() == ["bar"]
    r.q.add_after("baz", seconds(2))
    r.step(seconds(1))
    assert r.keys() == ["bar", "foo"]
    r.step(seconds(2))
    assert r.keys() == ["bar", "foo", "baz"]


def _copy_shifting() -> None:
    r = _Recorder()
    r.q.add_after("foo", seconds(1))
    r.q.add_after("bar", millis(500))
    r.q.add_after("baz", millis(250))
    assert r.synced == []
    r.step(seconds(2))
    assert r.keys() == ["baz", "bar", "foo"]


# -- rate_limiting_queue_test.go -----------------------------------------------------------


def _rate_limiting_queue() -> None:
    """Upstream reads each ``AddRateLimited``'s wait entry off the delaying queue's
    channel, before de-duplication; here the waiting entry is read after it, so a second
    ``AddRateLimited`` of a waiting key (2 ms) leaves its earlier ready time (1 ms)."""
    r = _Recorder(ItemExponentialFailureRateLimiter(millis(1), seconds(1)))
    r.q.add_rate_limited("one")
    assert r.q.ready_at("one") == Instant(millis(1))
    r.q.add_rate_limited("one")
    assert r.q.ready_at("one") == Instant(millis(1))
    assert r.q.num_requeues("one") == 2
    r.q.add_rate_limited("two")
    r.q.add_rate_limited("two")
    assert r.q.ready_at("two") == Instant(millis(1)) and r.q.num_requeues("two") == 2

    r.q.forget("one")
    assert r.q.num_requeues("one") == 0
    r.step(millis(1))  # both fire once; a successful sync Forgets them
    assert r.synced == [(1, "one"), (1, "two")]
    r.q.add_rate_limited("one")
    assert r.q.ready_at("one") == Instant(millis(2))  # 1 ms again after Forget


# -- queue_test.go (one consumer) ----------------------------------------------------------


def _add_while_processing() -> None:
    """Every item is re-added once while processing (the dirty-while-processing case):
    each is processed exactly twice and the queue ends empty."""
    r = _Recorder()
    counters: dict[str, int] = {}

    def readd(key: str) -> None:
        counters[key] = counters.get(key, 0) + 1
        if counters[key] < 2:
            r.q.add(key)

    r.on_sync = readd
    for i in range(50):
        r.q.add(str(i))
    r.clock.settle()
    assert counters == {str(i): 2 for i in range(50)} and len(r.q) == 0


def _len() -> None:
    r = _Recorder()
    r.q.add("foo")
    assert len(r.q) == 1
    r.q.add("bar")
    assert len(r.q) == 2
    r.q.add("foo")  # should not increase the queue length
    assert len(r.q) == 2


def _reinsert() -> None:
    r = _Recorder()
    r.on_sync = lambda key: r.q.add(key) if len(r.synced) == 1 else None
    r.q.add("foo")
    r.clock.settle()
    assert r.keys() == ["foo", "foo"] and len(r.q) == 0


def _collapse() -> None:
    r = _Recorder()
    r.q.add("bar")
    r.q.add("bar")
    r.clock.settle()
    assert r.keys() == ["bar"] and len(r.q) == 0


def _collapse_while_processing() -> None:
    r = _Recorder()

    def add_twice(key: str) -> None:
        if len(r.synced) == 1:
            r.q.add(key)
            r.q.add(key)

    r.on_sync = add_twice
    r.q.add("foo")
    r.clock.settle()
    assert r.keys() == ["foo", "foo"] and len(r.q) == 0


_NO_SHUTDOWN = (
    "the reference WorkQueue has no ShutDown/ShutDownWithDrain: it lives as long as the simulation"
)

CASES = [
    pytest.param(
        _item_exponential_failure_rate_limiter, id="TestItemExponentialFailureRateLimiter"
    ),
    pytest.param(
        _item_exponential_failure_rate_limiter_overflow,
        id="TestItemExponentialFailureRateLimiterOverFlow",
    ),
    pytest.param(_item_fast_slow_rate_limiter, id="TestItemFastSlowRateLimiter"),
    pytest.param(_max_of_rate_limiter, id="TestMaxOfRateLimiter"),
    pytest.param(_with_max_wait_rate_limiter, id="TestWithMaxWaitRateLimiter"),
    pytest.param(_simple_queue, id="TestSimpleQueue"),
    pytest.param(_deduping, id="TestDeduping"),
    pytest.param(_add_two_fire_early, id="TestAddTwoFireEarly"),
    pytest.param(_copy_shifting, id="TestCopyShifting"),
    pytest.param(_rate_limiting_queue, id="TestRateLimitingQueue"),
    pytest.param(
        None,
        id="TestBasic",
        marks=pytest.mark.skip(
            reason="concurrent producers and consumers: the reference queue drains on one simulated thread"
        ),
    ),
    pytest.param(_add_while_processing, id="TestAddWhileProcessing"),
    pytest.param(_len, id="TestLen"),
    pytest.param(_reinsert, id="TestReinsert"),
    pytest.param(_collapse, id="TestCollapse"),
    pytest.param(_collapse_while_processing, id="TestCollapseWhileProcessing"),
    pytest.param(
        None,
        id="TestQueueDrainageUsingShutDownWithDrain",
        marks=pytest.mark.skip(reason=_NO_SHUTDOWN),
    ),
    pytest.param(
        None, id="TestNoQueueDrainageUsingShutDown", marks=pytest.mark.skip(reason=_NO_SHUTDOWN)
    ),
    pytest.param(
        None, id="TestForceQueueShutdownUsingShutDown", marks=pytest.mark.skip(reason=_NO_SHUTDOWN)
    ),
    pytest.param(
        None,
        id="TestQueueDrainageUsingShutDownWithDrainWithDirtyItem",
        marks=pytest.mark.skip(reason=_NO_SHUTDOWN),
    ),
    pytest.param(
        None,
        id="TestGarbageCollection",
        marks=pytest.mark.skip(reason="Go finalizers and runtime.GC: nothing to model"),
    ),
    pytest.param(
        None,
        id="TestMetricShutdown",
        marks=pytest.mark.skip(reason="the reference queue has no MetricsProvider"),
    ),
    pytest.param(
        None,
        id="TestMetrics",
        marks=pytest.mark.skip(reason="the reference queue has no MetricsProvider"),
    ),
]


@pytest.mark.parametrize("case", CASES)
def test_upstream_workqueue(case: Callable[[], None]) -> None:
    case()

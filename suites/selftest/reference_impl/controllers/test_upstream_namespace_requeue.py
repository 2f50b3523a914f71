"""The namespace controller's worker requeues (pkg/controller/namespace/namespace_controller.go
v1.37.2, ``worker`` and ``nsControllerRateLimiter``). Upstream has no test file for them;
the rows follow the source: success ``Forget``s the namespace; a ``ResourcesRemainingError``
waits ``estimate/2 + 1`` seconds (``AddAfter``, failures kept); any other error is
``AddRateLimited`` through a limiter of 5 ms doubling to 60 s per namespace, max'ed with a
10 qps, burst 100 bucket.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import pytest

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Duration, Instant, SimClock, millis, seconds
from reference_impl.controllers.namespace import (
    DeleteResult,
    NamespaceController,
    ns_controller_rate_limiter,
)
from reference_impl.errors import ServiceUnavailable
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

NS: Final = "doomed"
FAIL: Final = DeleteResult("fake error")
OK: Final = DeleteResult()


def _controller(results: list[DeleteResult | Exception]) -> tuple[NamespaceController, list[Duration]]:
    """A controller whose ``Delete`` answers ``results`` in turn; its requeue delays."""
    clock, rng, gates = SimClock(Instant(seconds(1000))), Rng(1), FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    ctl = NamespaceController(ComponentContext(server, InformerFactory(server), clock, rng, gates, Trace(clock)))
    answers: Iterator[DeleteResult | Exception] = iter(results)

    def delete(name: str) -> DeleteResult:
        got = next(answers)
        if isinstance(got, Exception):
            raise got
        return got

    delays: list[Duration] = []
    ctl.delete = delete  # type: ignore[method-assign]
    ctl._queue.add_after = lambda key, delay: delays.append(delay)  # type: ignore[method-assign]
    for _ in results:
        ctl._sync(NS)
    return ctl, delays


def test_ns_controller_rate_limiter() -> None:
    """Per item 5 ms doubling, capped at 60 s; the bucket allows a burst of 100."""
    clock = SimClock()
    limiter = ns_controller_rate_limiter(clock.now)
    got = [limiter.when(NS) for _ in range(16)]
    assert got == [min(millis(5) * 2**i, seconds(60)) for i in range(16)]
    assert limiter.num_requeues(NS) == 16
    limiter.forget(NS)
    assert limiter.when(NS) == millis(5)


def test_ns_controller_rate_limiter_bucket() -> None:
    """Past the burst of 100 the 10 qps bucket makes others wait too."""
    clock = SimClock()
    limiter = ns_controller_rate_limiter(clock.now)
    for i in range(100):
        assert limiter.when(f"ns-{i}") == millis(5)
    assert limiter.when("ns-100") == millis(100)


@pytest.mark.parametrize(
    ("results", "want"),
    [
        pytest.param([FAIL, FAIL, FAIL], [millis(5), millis(10), millis(20)], id="errors back off"),
        pytest.param([FAIL, FAIL, OK, FAIL], [millis(5), millis(10), millis(5)], id="success forgets"),
        pytest.param(
            [FAIL, DeleteResult("some content remains", 30), FAIL],
            [millis(5), seconds(16), millis(10)],
            id="content remaining waits estimate/2+1 and keeps the failures",
        ),
        pytest.param(
            [ServiceUnavailable("fake error"), FAIL], [millis(5), millis(10)],
            id="an API error from Delete is rate limited too",
        ),
    ],
)
def test_worker_requeues(results: list[DeleteResult | Exception], want: list[Duration]) -> None:
    _, delays = _controller(results)
    assert delays == want

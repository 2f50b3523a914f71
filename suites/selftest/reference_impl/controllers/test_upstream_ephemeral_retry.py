"""The ephemeral volume controller's retries (pkg/controller/volume/ephemeral/controller.go
v1.37.2 ``processNextWorkItem``: ``Forget`` on success, else ``AddRateLimited`` without a
retry limit) over client-go v0.37.2 ``DefaultTypedControllerRateLimiter`` (per item
5 ms doubling to 1000 s, max'ed with a 10 qps / burst 100 bucket), on the simulated
clock. Also client-go default_rate_limiters_test.go TestItemExponentialFailureRateLimiter
and TestItemExponentialFailureRateLimiterOverFlow, and the bucket's
``rate.Limiter.Reserve`` arithmetic.

Other reference queues on the same rate limiter: ReplicaSet, DaemonSet, StatefulSet,
Deployment (which drops a key after ``maxRetries`` = 15 requeues), CronJob, disruption,
garbage collector, resource quota, resource claim, TTL-after-finished, PV/PVC/PodGroup
protection, root CA publisher, service accounts, ClusterRole aggregation and device taint
eviction; the Job queues are on the Job API backoff (1 s to 1 min).
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from job_sync_harness import build_sync_harness
from protection_upstream_env import Env, build_env, store

from reference_impl.apiserver.informers import WorkQueue
from reference_impl.apiserver.workqueue_rate import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    default_controller_rate_limiter,
)
from reference_impl.clock import Duration, Instant, SimClock, millis, seconds
from reference_impl.controllers.deployment.controller import MAX_RETRIES
from reference_impl.controllers.ephemeral_volume import EphemeralVolumeController
from reference_impl.errors import ServiceUnavailable

Obj = dict[str, Any]
NS: Final = "my-namespace"
POD: Final = "test-pod"
VOLUME: Final = "ephemeral-volume"
CLAIM: Final = f"{POD}-{VOLUME}"
SPEC: Final[Obj] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
MS: Final = millis(1)


# -- client-go's rate limiter tables -----------------------------------------------------


def test_item_exponential_failure_rate_limiter() -> None:
    """``TestItemExponentialFailureRateLimiter``."""
    limiter = ItemExponentialFailureRateLimiter(millis(1), seconds(1))
    assert [limiter.when("one") for _ in range(5)] == [1 * MS, 2 * MS, 4 * MS, 8 * MS, 16 * MS]
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == [1 * MS, 2 * MS]
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 1 * MS


def test_item_exponential_failure_rate_limiter_overflow() -> None:
    """``TestItemExponentialFailureRateLimiterOverFlow``."""
    limiter = ItemExponentialFailureRateLimiter(millis(1), seconds(1000))
    for _ in range(5):
        limiter.when("one")
    assert limiter.when("one") == 32 * MS
    for _ in range(1000):
        limiter.when("overflow1")
    assert limiter.when("overflow1") == seconds(1000)
    limiter = ItemExponentialFailureRateLimiter(seconds(60), seconds(1000 * 3600))
    for _ in range(2):
        limiter.when("two")
    assert limiter.when("two") == seconds(4 * 60)
    for _ in range(1000):
        limiter.when("overflow2")
    assert limiter.when("overflow2") == seconds(1000 * 3600)


def test_bucket_rate_limiter_reserve() -> None:
    """``rate.NewLimiter(10, 100)``: starts full; each reservation takes a token; an
    empty bucket makes the reservation wait for its token at 10 a second."""
    clock = SimClock(Instant(seconds(5)))
    bucket = BucketRateLimiter(clock.now, 10.0, 100)
    assert {bucket.when(f"k{i}") for i in range(100)} == {0}
    assert [bucket.when("a"), bucket.when("b"), bucket.when("a")] == [millis(100), millis(200), millis(300)]
    clock._now = Instant(clock.now() + seconds(1))  # 10 tokens back: debt of 3 paid, 7 left
    assert {bucket.when("x") for _ in range(7)} == {0}
    assert bucket.when("x") == millis(100)
    clock._now = Instant(clock.now() + seconds(3600))
    assert {bucket.when("y") for _ in range(100)} == {0}, "refills up to the burst only"
    assert bucket.when("y") == millis(100)
    assert bucket.num_requeues("y") == 0


def test_default_controller_rate_limiter() -> None:
    """``DefaultTypedControllerRateLimiter``: the per-item backoff, until the bucket is
    empty; then the bucket's wait when longer."""
    clock = SimClock()
    limiter = default_controller_rate_limiter(clock.now)
    assert isinstance(limiter, MaxOfRateLimiter)
    assert [limiter.when("a") for _ in range(4)] == [5 * MS, 10 * MS, 20 * MS, 40 * MS]
    assert limiter.num_requeues("a") == 4
    for i in range(96):
        limiter.when(f"other{i}")
    assert limiter.when("new") == 100 * MS  # bucket: 1 token short at 10 qps
    assert limiter.when("a") == 200 * MS  # 5 ms * 2**4 = 80 ms < the bucket's 200 ms
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0


# -- the controller ----------------------------------------------------------------------


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Env:
    return build_env(monkeypatch, namespaces=(NS,))


def _pod() -> Obj:
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD, "namespace": NS},
        "spec": {"containers": [{"name": "c", "image": "busybox"}],
                 "volumes": [{"name": VOLUME, "ephemeral": {"volumeClaimTemplate": {"spec": dict(SPEC)}}}]},
    }  # fmt: skip


def _expected_tries(start: Instant, until: Instant) -> list[Instant]:
    """The first sync at ``start``, then one after each backoff: 5 ms * 2**n, at most
    1000 s (the bucket never runs dry for one key)."""
    out, t, n = [], start, 0
    while t <= until:
        out.append(t)
        t = Instant(t + min(5 * MS * 2**n, seconds(1000)))
        n += 1
    return out


def _failures(env: Env) -> list[Instant]:
    return [r.instant for r in env.ctx.trace.records if r.event == "FailedBinding"]


def test_failing_sync_is_retried_forever_with_backoff(env: Env) -> None:
    """A claim of the volume's name the pod does not own fails every sync: upstream keeps
    requeueing (no "give up after N"), each retry a ``FailedBinding`` warning."""
    store(env, {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": CLAIM, "namespace": NS}, "spec": dict(SPEC)})  # fmt: skip
    store(env, _pod())
    ctrl = EphemeralVolumeController(env.ctx)
    start = env.clock.now()
    ctrl.start()
    until = Instant(start + seconds(6 * 3600))
    env.clock.run_until(until)
    want = _expected_tries(start, until)
    assert len(want) > 30  # 11 tries would be the old cap
    assert _failures(env) == want
    assert want[-1] - want[-2] == seconds(1000)


def test_success_forgets_the_backoff(env: Env) -> None:
    """Once the conflicting claim is gone the next retry creates the claim and the key
    is forgotten: a later failure starts again from 5 ms."""
    store(env, {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": CLAIM, "namespace": NS}, "spec": dict(SPEC)})  # fmt: skip
    store(env, _pod())
    ctrl = EphemeralVolumeController(env.ctx)
    start = env.clock.now()
    ctrl.start()
    env.clock.run_until(Instant(start + seconds(100)))
    tries = _expected_tries(start, Instant(start + seconds(100)))
    assert _failures(env) == tries
    limiter = ctrl.queue.rate_limiter
    assert limiter is not None and limiter.num_requeues(f"{NS}/{POD}") == len(tries)
    env.ctx.server.delete("v1", "PersistentVolumeClaim", CLAIM, NS)  # onPVCDelete queues the pod
    env.clock.settle()
    assert env.ctx.server.get("v1", "PersistentVolumeClaim", CLAIM, NS)["metadata"]["ownerReferences"][0]["name"] == POD
    assert limiter.num_requeues(f"{NS}/{POD}") == 0


def test_queue_max_retries_drops_after_requeues() -> None:
    """A queue with ``maxRetries`` (the Deployment controller's 15) requeues while
    ``NumRequeues`` is below it, then drops the key and forgets it."""
    clock = SimClock()
    calls: list[Instant] = []

    def sync(key: str) -> None:
        calls.append(clock.now())
        raise ServiceUnavailable("down")

    q = WorkQueue(clock, sync, name="t", rate_limiter=default_controller_rate_limiter(clock.now),
                  max_retries=MAX_RETRIES)  # fmt: skip
    q.add("k")
    clock.run_until(Instant(seconds(3600)))
    assert len(calls) == 1 + MAX_RETRIES
    assert [b - a for a, b in zip(calls, calls[1:], strict=False)] == [Duration(5 * MS * 2**n) for n in range(15)]
    assert q.rate_limiter is not None and q.rate_limiter.num_requeues("k") == 0


def test_job_queues_use_the_job_api_backoff() -> None:
    """job_controller.go ``NewController``: both Job queues on
    ``NewTypedItemExponentialFailureRateLimiter(DefaultJobApiBackOff, MaxJobApiBackOff)``
    (1 s doubling to 1 min, no bucket), retried without limit."""
    h = build_sync_harness()
    for q in (h.ctrl._queue, h.ctrl._orphans):
        limiter = q.rate_limiter
        assert isinstance(limiter, ItemExponentialFailureRateLimiter) and q.max_retries is None
        assert [limiter.when("k") for _ in range(8)] == [seconds(s) for s in (1, 2, 4, 8, 16, 32, 60, 60)]

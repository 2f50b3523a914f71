"""The PV controller's work queues (pkg/controller/volume/persistentvolume/pv_controller_base.go
v1.37.2): ``claimQueue`` and ``volumeQueue``, each a rate-limiting queue with its own
``DefaultTypedControllerRateLimiter``; a failed ``syncClaimByKey``/``syncVolumeByKey`` is
``AddRateLimited``, a successful one ``Forget``s the key. Upstream has no test rows for
the queues; these follow the source. The reference keeps both kinds of key in one queue
(claims prefixed ``c:``, volumes ``v:``), each kind with its own limiter.
"""

from __future__ import annotations

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, millis, seconds
from reference_impl.controllers.pv_binder import PVBinderController
from reference_impl.controllers.pv_status import ClaimAndVolumeQueuesLimiter, PVSyncError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore


def test_claims_and_volumes_have_separate_limiters() -> None:
    clock = SimClock()
    limiter = ClaimAndVolumeQueuesLimiter(clock.now)
    assert [limiter.when("c:ns/a") for _ in range(3)] == [millis(5), millis(10), millis(20)]
    assert limiter.when("v:a") == millis(5), "a volume's failures are its own"
    for i in range(97):  # the claim queue's bucket: 100 tokens in all
        limiter.when(f"c:ns/b{i}")
    assert limiter.when("c:ns/c") == millis(100), "the claim bucket is empty"
    assert limiter.when("v:b") == millis(5), "the volume bucket is not"
    assert limiter.num_requeues("c:ns/a") == 3
    limiter.forget("c:ns/a")
    assert limiter.num_requeues("c:ns/a") == 0 and limiter.num_requeues("v:a") == 1


def test_failed_sync_is_add_rate_limited_and_success_forgets() -> None:
    clock, rng, fg = SimClock(Instant(seconds(1000))), Rng(1), FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    ctrl = PVBinderController(ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock)))
    runs: list[Instant] = []

    def sync(key: str) -> None:
        runs.append(clock.now())
        if len(runs) <= 3:
            raise PVSyncError("fake error")

    ctrl._queue._sync = sync
    t0 = clock.now()
    ctrl._queue.add("c:default/claim")
    clock.run_until(Instant(t0 + seconds(1)))
    assert runs == [t0, t0 + millis(5), t0 + millis(15), t0 + millis(35)]
    assert ctrl._queue.num_requeues("c:default/claim") == 0, "forgotten after the success"

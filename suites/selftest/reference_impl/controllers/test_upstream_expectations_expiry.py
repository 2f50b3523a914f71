"""Expectations expire (pkg/controller/controller_utils.go v1.37.2): ``SetExpectations``
stamps the controllee's expectations with the clock, and ``SatisfiedExpectations``
answers true ("Controller expectations expired") once ``isExpired``: more than
``ExpectationsTimeout`` (5 minutes) since the stamp. The ReplicaSet, Job and DaemonSet
controllers read their simulated clock for it, so a sync whose pod events never came
acts again after 5 minutes. (TestControllerExpectations' ttl row is ported in
test_upstream_controller_utils.py, with an explicit ``now``.)
"""

from __future__ import annotations

from typing import Any, Final

from daemon_upstream_env import NS, Env, new_daemon_set
from job_sync_harness import PodControlSpy, build_sync_harness, new_job, store_job

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.controllers.controller_utils import ControllerExpectations
from reference_impl.controllers.replicaset import ReplicaSetController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
TIMEOUT: Final = seconds(5 * 60)  # ExpectationsTimeout
KEY: Final = "default/foobar"


def _move(clock: SimClock, to: Instant) -> None:
    """The test's fake clock ``Step``: time moves, nothing runs."""
    clock._now = to


def test_set_expectations_stamps_and_expires_after_timeout() -> None:
    """``isExpired`` is strictly more than 5 minutes after the last ``SetExpectations``;
    observations do not restamp, a new ``SetExpectations`` does."""
    clock = SimClock(Instant(seconds(1000)))
    t0 = clock.now()
    e = ControllerExpectations(clock=clock.now)
    e.expect(KEY, adds=2)
    e.creation_observed(KEY)
    assert not e.satisfied(KEY)
    _move(clock, Instant(t0 + seconds(240)))
    e.creation_observed(KEY)  # fulfilled: satisfied whatever the age
    assert e.satisfied(KEY)
    e.expect(KEY, adds=1)  # a new stamp at t0+240s
    _move(clock, Instant(t0 + seconds(240) + TIMEOUT))
    assert not e.satisfied(KEY), "exactly ExpectationsTimeout is not expired"
    _move(clock, Instant(t0 + seconds(240) + TIMEOUT + 1))
    assert e.satisfied(KEY), "Controller expectations expired"
    assert e.get(KEY) == (1, 0)  # expiry does not clear the counts


def test_unset_expectations_are_satisfied() -> None:
    e = ControllerExpectations(clock=SimClock().now)
    assert e.satisfied(KEY) and e.get(KEY) is None


# -- ReplicaSet ------------------------------------------------------------------------


def _rs_harness() -> tuple[SimClock, APIServer, ReplicaSetController, PodControlSpy]:
    clock = SimClock(Instant(seconds(1_000_000)))
    rng, fg = Rng(1), FeatureGates({})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    ctrl = ReplicaSetController(ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock)))
    ctrl.start()
    spy = PodControlSpy(server)  # records pod creates without applying: no events come
    ctrl._server = spy  # type: ignore[assignment]
    return clock, server, ctrl, spy


def test_replicaset_acts_again_once_expectations_expire() -> None:
    clock, server, ctrl, spy = _rs_harness()
    labels = {"foo": "bar"}
    server.create({
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "foobar", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}},
    })  # fmt: skip
    t0 = clock.now()
    ctrl._sync(KEY)
    assert len(spy.templates) == 2
    _move(clock, Instant(t0 + TIMEOUT))
    ctrl._sync(KEY)
    assert len(spy.templates) == 2, "expectations pending: no new pods"
    _move(clock, Instant(t0 + TIMEOUT + 1))
    ctrl._sync(KEY)
    assert len(spy.templates) == 4, "expired: manageReplicas creates the missing pods again"
    ctrl._sync(KEY)
    assert len(spy.templates) == 4, "restamped by the new ExpectCreations"


# -- Job ---------------------------------------------------------------------------------


def test_job_acts_again_once_expectations_expire() -> None:
    h = build_sync_harness()
    store_job(h, new_job(2, 5, 6))
    t0 = h.clock.now()
    assert h.sync() is None
    assert len(h.spy.templates) == 2
    _move(h.clock, Instant(t0 + TIMEOUT))
    assert h.sync() is None
    assert len(h.spy.templates) == 2
    _move(h.clock, Instant(t0 + TIMEOUT + 1))
    assert h.sync() is None
    assert len(h.spy.templates) == 4


# -- DaemonSet ---------------------------------------------------------------------------


def test_daemonset_acts_again_once_expectations_expire() -> None:
    env = Env()
    env.add_nodes(0, 1)
    env.add_ds(new_daemon_set("foo"))
    t0 = env.clock.now()
    env.ctrl.expectations.expect(f"{NS}/foo", adds=1)  # a create whose event never came
    env.advance(TIMEOUT)
    env.expect_sync(0, 0, 0)
    env.advance(1)
    assert env.clock.now() == t0 + TIMEOUT + 1
    env.expect_sync(1, 0, 0)

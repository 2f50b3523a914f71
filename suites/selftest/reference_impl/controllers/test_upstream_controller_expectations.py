"""pkg/controller/controller_utils_test.go (v1.37.2): TestControllerExpectations and
TestUIDExpectations, against ``reference_impl/controllers/expectations.py``.

Beside them, the expectation semantics of controller_utils.go that those tests leave
implicit (``SetExpectations`` "Forgets existing expectations", so ``ExpectCreations`` and
``ExpectDeletions`` replace both counts; ``RaiseExpectations``/``LowerExpectations`` only
touch expectations that exist; ``UIDTrackingControllerExpectations`` clobbers the expected
keys and counts each once), and the callers that rely on them: the ReplicaSet and Job
controllers restart their counts at each ``ExpectCreations`` and leave a create refused by
a terminating namespace expected (replica_set.go ``manageReplicas``, job_controller.go
``manageJob``), and the DaemonSet controller lowers the adds it skipped after a failed
slow-start batch (daemon_controller.go ``syncNodes``).

Upstream's TestControllerExpectations uses a TTL store with a 30 second TTL and a fake
clock; here the 30 seconds are the expectations' ``ttl`` and the clock is a SimClock.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from daemon_upstream_env import NS, Env, new_daemon_set
from job_sync_harness import PodControlSpy, build_sync_harness, new_job, store_job

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.controllers.controller_utils import (
    ControllerExpectations,
    UIDTrackingControllerExpectations,
)
from reference_impl.controllers.replicaset import ReplicaSetController
from reference_impl.errors import ApiError, Forbidden, ServiceUnavailable
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
RC_KEY: Final = "default/foobar"
TTL: Final = seconds(30)
TIMEOUT: Final = seconds(5 * 60)  # ExpectationsTimeout
TERMINATING: Final = Forbidden(
    "pods is forbidden: unable to create new content in namespace default because it is being terminated"
)


def _step(clock: SimClock, by: int) -> None:
    """The fake clock's ``Step``: time moves, nothing runs."""
    clock._now = Instant(clock.now() + by)


# -- TestControllerExpectations -------------------------------------------------------


def _surpassed() -> tuple[ControllerExpectations, SimClock]:
    """10 adds and 30 dels expected, 11 and 31 observed (a failed create counts too)."""
    clock = SimClock(Instant(seconds(1000)))
    e = ControllerExpectations(ttl=TTL, clock=clock.now)
    e.expect(RC_KEY, 10, 30)
    for _ in range(11):
        e.creation_observed(RC_KEY)
    assert not e.satisfied(RC_KEY), "Rc will sync before expectations are met"
    for _ in range(31):
        e.deletion_observed(RC_KEY)
    return e, clock


@pytest.mark.parametrize(
    ("to_set", "expire", "want", "want_satisfied"),
    [
        pytest.param(None, False, (-1, -1), True, id="Expectations have been surpassed"),
        pytest.param((1, 2), True, (1, 2), False, id="Old expectations are cleared because of ttl"),
    ],
)
def test_controller_expectations(
    to_set: tuple[int, int] | None, expire: bool, want: tuple[int, int], want_satisfied: bool
) -> None:
    e, clock = _surpassed()
    if to_set is not None:
        e.expect(RC_KEY, *to_set)
    assert e.get(RC_KEY) == want
    assert e.satisfied(RC_KEY) is want_satisfied, "Expectations are met but the rc will not sync"
    if expire:
        _step(clock, TTL + 1)
        assert e.satisfied(RC_KEY), "Expectations should have expired but didn't"


# -- TestUIDExpectations --------------------------------------------------------------


@pytest.mark.parametrize(
    "replicas",
    [
        pytest.param(2, id="Replication controller with 2 replicas"),
        pytest.param(1, id="Replication controller with 1 replica"),
        pytest.param(0, id="Replication controller with no replicas"),
        pytest.param(5, id="Replication controller with 5 replicas"),
    ],
)
def test_uid_expectations(replicas: int) -> None:
    uid_exp = UIDTrackingControllerExpectations(ControllerExpectations())
    name = f"rc-{replicas}"
    key = f"default/{name}"
    pod_keys = [f"default/pod{i}-{name}" for i in range(5)]  # newPodList(nil, 5, ...)
    uid_exp.expect_deletions(key, pod_keys)
    assert not uid_exp.satisfied(key), f"Controller {key} satisfied expectations before deletion"
    for p in pod_keys:
        uid_exp.deletion_observed(key, p)
    assert uid_exp.satisfied(key), f"Controller {key} didn't satisfy expectations after deletion"
    uid_exp.forget(key)
    assert uid_exp.get_uids(key) is None, f"Failed to delete uid expectations for {key}"


def test_uid_expectations_forgotten_with_the_replicaset() -> None:
    """``deleteRS`` calls ``DeleteExpectations``: the counts and the keys both go."""
    clock, rng, gates = SimClock(), Rng(1), FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    ctrl = ReplicaSetController(ComponentContext(server, InformerFactory(server), clock, rng, gates, Trace(clock)))
    ctrl._expectations.expect_deletions(RC_KEY, ["default/pod0"])
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "foobar", "namespace": "default"}}
    ctrl._on_rs(ObjectEvent("DELETED", server.resource("apps/v1", "ReplicaSet"), rs, None))
    assert ctrl._expectations.get_uids(RC_KEY) is None
    assert ctrl._expectations.get(RC_KEY) is None


# -- controller_utils.go semantics ----------------------------------------------------


def test_set_expectations_forgets_existing_ones() -> None:
    """``SetExpectations``: pending counts are replaced, not added to."""
    e = ControllerExpectations()
    e.expect(RC_KEY, 3, 2)
    e.creation_observed(RC_KEY)
    e.expect(RC_KEY, 1, 1)
    assert e.get(RC_KEY) == (1, 1)


@pytest.mark.parametrize(
    ("method", "want"),
    [
        pytest.param("expect_creations", (4, 0), id="ExpectCreations sets dels to 0"),
        pytest.param("expect_deletions", (0, 4), id="ExpectDeletions sets adds to 0"),
    ],
)
def test_expect_creations_and_deletions_replace_both_counts(method: str, want: tuple[int, int]) -> None:
    e = ControllerExpectations()
    e.expect(RC_KEY, 2, 3)
    getattr(e, method)(RC_KEY, 4)
    assert e.get(RC_KEY) == want


def test_set_expectations_restamps() -> None:
    """Every ``SetExpectations`` takes a new timestamp; ``Raise``/``Lower`` keep it."""
    clock = SimClock(Instant(seconds(1000)))
    e = ControllerExpectations(clock=clock.now)
    e.expect_creations(RC_KEY, 1)
    _step(clock, TIMEOUT)
    e.raise_expectations(RC_KEY, 1, 0)
    assert not e.satisfied(RC_KEY)
    _step(clock, 1)
    assert e.satisfied(RC_KEY), "raising does not restamp: expired"
    e.expect_creations(RC_KEY, 1)
    assert not e.satisfied(RC_KEY), "a new SetExpectations restamps"


def test_raise_and_lower_expectations() -> None:
    e = ControllerExpectations()
    e.raise_expectations(RC_KEY, 1, 1)
    e.lower_expectations(RC_KEY, 1, 1)
    assert e.get(RC_KEY) is None, "neither creates expectations that were never set"
    e.expect(RC_KEY, 1, 0)
    e.raise_expectations(RC_KEY, 2, 1)
    assert e.get(RC_KEY) == (3, 1)
    e.lower_expectations(RC_KEY, 3, 0)
    assert e.get(RC_KEY) == (0, 1) and not e.satisfied(RC_KEY)
    e.lower_expectations(RC_KEY, 1, 2)
    assert e.get(RC_KEY) == (-1, -1) and e.satisfied(RC_KEY)


def test_uid_expectations_clobber_and_count_once() -> None:
    """``ExpectDeletions`` replaces the expected keys and the counts (adds too); a key is
    counted once, and a key that was not expected is not counted."""
    u = UIDTrackingControllerExpectations(ControllerExpectations())
    u.expect_creations(RC_KEY, 2)
    u.expect_deletions(RC_KEY, ["default/a", "default/b", "default/a"])
    assert u.get(RC_KEY) == (0, 2)
    u.expect_deletions(RC_KEY, ["default/c"])
    assert u.get_uids(RC_KEY) == {"default/c"} and u.get(RC_KEY) == (0, 1)
    u.deletion_observed(RC_KEY, "default/a")
    assert u.get(RC_KEY) == (0, 1)
    u.deletion_observed(RC_KEY, "default/c")
    u.deletion_observed(RC_KEY, "default/c")
    assert u.get(RC_KEY) == (0, 0) and u.get_uids(RC_KEY) == set()


# -- callers ----------------------------------------------------------------------------


def _rs_with_spy(replicas: int) -> tuple[SimClock, ReplicaSetController, PodControlSpy]:
    """A ReplicaSet controller whose pod creates are recorded, not applied: no events."""
    clock = SimClock(Instant(seconds(1_000_000)))
    rng, fg = Rng(1), FeatureGates({})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    ctrl = ReplicaSetController(ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock)))
    ctrl.start()
    spy = PodControlSpy(server)
    ctrl._server = spy  # type: ignore[assignment]
    labels = {"foo": "bar"}
    server.create({
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "foobar", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}},
    })  # fmt: skip
    return clock, ctrl, spy


def test_replicaset_expect_creations_replaces_expired_counts() -> None:
    """Two creates expected, one observed, the rest never: once expired, the next
    ``manageReplicas`` expects exactly the pods it creates."""
    clock, ctrl, spy = _rs_with_spy(2)
    ctrl._sync(RC_KEY)
    ctrl._expectations.creation_observed(RC_KEY)
    assert ctrl._expectations.get(RC_KEY) == (1, 0)
    _step(clock, TIMEOUT + 1)
    ctrl._sync(RC_KEY)
    assert len(spy.templates) == 4
    assert ctrl._expectations.get(RC_KEY) == (2, 0)


def test_replicaset_create_in_terminating_namespace_stays_expected() -> None:
    """A create refused because the namespace is terminating is not an error, and no
    event will come: upstream does not lower the expectations for it."""
    _, ctrl, spy = _rs_with_spy(2)
    spy.err = TERMINATING
    ctrl._sync(RC_KEY)
    assert len(spy.templates) == 2
    assert ctrl._expectations.get(RC_KEY) == (2, 0)


def test_replicaset_failed_create_is_lowered() -> None:
    """A failed create ends slow start: it and the pods never tried are lowered."""
    _, ctrl, spy = _rs_with_spy(3)
    spy.err = ServiceUnavailable("fake error")
    with pytest.raises(ServiceUnavailable):
        ctrl._sync(RC_KEY)
    assert len(spy.templates) == 1
    assert ctrl._expectations.get(RC_KEY) == (0, 0)


@pytest.mark.parametrize(
    ("err", "want_err", "want"),
    [
        pytest.param(TERMINATING, False, (2, 0), id="terminating namespace: still expected"),
        pytest.param(ServiceUnavailable("fake error"), True, (0, 0), id="failed create: lowered"),
    ],
)
def test_job_create_errors_and_expectations(err: ApiError, want_err: bool, want: tuple[int, int]) -> None:
    h = build_sync_harness()
    store_job(h, new_job(2, 5, 6))
    h.spy.err = err
    got = h.sync()
    assert (got is not None) is want_err
    assert h.ctrl._expectations.get(h.key()) == want


def test_job_expect_creations_replaces_expired_counts() -> None:
    h = build_sync_harness()
    store_job(h, new_job(2, 5, 6))
    assert h.sync() is None
    h.ctrl._expectations.creation_observed(h.key())
    _step(h.clock, TIMEOUT + 1)
    assert h.sync() is None
    assert len(h.spy.templates) == 4
    assert h.ctrl._expectations.get(h.key()) == (2, 0)


def test_daemonset_set_expectations_replace_pending_counts() -> None:
    """``syncNodes`` sets (creates, deletes) whatever was pending, once it expired."""
    env = Env()
    env.add_nodes(0, 2)
    env.add_ds(new_daemon_set("foo"))
    key = f"{NS}/foo"
    env.ctrl.expectations.expect(key, adds=5, dels=3)  # events that never came
    env.advance(TIMEOUT + 1)
    env.expect_sync(2, 0, 0)
    assert env.ctrl.expectations.get(key) == (0, 0)

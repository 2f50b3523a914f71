"""The control plane's own writes are protobuf bodies: no strict JSON walk.

kube-scheduler, kube-controller-manager and the kubelet default ``--kube-api-content-type``
to protobuf, whose decoder has no unknown fields, no JSON type errors and no quantity
text to canonicalise. The reference's components run inside clock events, so a write made
there skips the walk; a client's write (outside any event) is walked as before. In-repo
test runs turn on ``verify_protobuf_bodies``, which walks those bodies anyway and fails
loudly where a Go client could not have sent them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reference_impl.api import make_namespace, make_pod
from reference_impl.apiserver.decode import verify_protobuf_bodies
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import BadRequest
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


@pytest.fixture
def server() -> APIServer:
    clock = SimClock()
    srv = APIServer(MVCCStore(), clock, Rng(1), FeatureGates())
    srv.create(make_namespace("ns").build())
    return srv


@pytest.fixture
def verify_off() -> Iterator[None]:
    verify_protobuf_bodies(False)
    yield
    verify_protobuf_bodies(True)


def _in_event(server: APIServer, write: Callable[[], Obj]) -> Obj:
    out: list[Obj] = []
    server.clock.call_later(0, lambda: out.append(write()))
    server.clock.settle()
    return out[0]


def _pod(**spec: Any) -> Obj:
    pod = make_pod("p", "ns").req(cpu="1000m").build()
    pod["spec"].update(spec)
    return pod


def test_the_clock_marks_its_events_and_restores_the_mark_after_a_failure() -> None:
    clock = SimClock()
    seen: list[bool] = []

    def boom() -> None:
        seen.append(clock.in_event)
        raise RuntimeError("boom")

    clock.call_later(0, boom)
    with pytest.raises(RuntimeError):
        clock.settle()
    assert seen == [True] and clock.in_event is False


def test_a_client_body_is_walked_and_a_component_body_is_not(
    server: APIServer, verify_off: None
) -> None:
    with pytest.raises(BadRequest, match='strict decoding error: unknown field "spec.bogus"'):
        server.create(_pod(bogus=1))
    stored = _in_event(server, lambda: server.create(_pod()))
    # Not walked: the quantity a Go client would have sent canonical is kept as written.
    assert stored["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1000m"


def test_a_client_body_gets_its_quantities_canonicalised(server: APIServer) -> None:
    stored = server.create(_pod())
    assert stored["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1"


def test_verification_fails_a_component_body_no_go_client_could_send(server: APIServer) -> None:
    with pytest.raises(AssertionError, match='could not send: .*unknown field "spec.bogus"'):
        _in_event(server, lambda: server.create(_pod(bogus=1)))
    with pytest.raises(AssertionError, match="Pod with a quantity not in canonical form"):
        _in_event(server, lambda: server.create(_pod()))
    canonical = make_pod("q", "ns").req(cpu="1").build()
    assert _in_event(server, lambda: server.create(canonical))["metadata"]["name"] == "q"


def test_verification_covers_updates_and_status_writes(server: APIServer) -> None:
    pod = server.create(make_pod("p", "ns").build())
    bad_status = {**pod, "status": {"phase": "Pending", "bogus": True}}
    with pytest.raises(AssertionError, match='unknown field "status.bogus"'):
        _in_event(server, lambda: server.update_status(bad_status))
    bad_update = {**pod, "metadata": {**pod["metadata"], "labels": {"a": 1}}}
    with pytest.raises(AssertionError, match="metadata.labels"):
        _in_event(server, lambda: server.update(bad_update))

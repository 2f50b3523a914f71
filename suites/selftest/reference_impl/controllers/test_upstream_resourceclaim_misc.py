"""Upstream ``TestCreateClaimDoesNotMutateTemplate``, ``TestClaimExists`` and
``TestWorkqueue`` (``pkg/controller/resourceclaim/controller_test.go``, v1.37.2) on the
reference resource claim controller, plus its pure helpers (``generate_name``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rc_upstream_env import API, GROUP, NS, POD, REF, TEMPLATE, Env

from reference_impl.api.dra_builders import make_claim_template
from reference_impl.clock import Instant, millis
from reference_impl.controllers.resourceclaim_create import ClaimMaker
from reference_impl.controllers.resourceclaim_names import NonRetryable, SyncError, generate_name
from reference_impl.errors import ApiError

Obj = dict[str, Any]
ANNOTATION = "resource.kubernetes.io/pod-claim-name"


@pytest.mark.parametrize(("kind", "combo"), [("pod", (False, False)), ("podGroup", (True, True))],
                         ids=["pod", "podGroup"])
def test_create_claim_does_not_mutate_template(kind: str, combo: tuple[bool, bool]) -> None:
    e = Env(*combo)
    m = make_claim_template(TEMPLATE, NS).build()
    m["spec"]["metadata"] = {"annotations": {"example.com/color": "blue"}}
    e.server.create(m)
    if kind == "pod":
        e.pod()
        key = f"pod:{NS}/{POD}"
    else:
        e.group()
        key = f"podgroup:{NS}/{GROUP}"
    cached = e.ctrl._templates.get(f"{NS}/{TEMPLATE}")
    assert cached is not None
    before = repr(cached)
    assert e.sync(key) is None
    assert repr(cached) == before, "the cached ResourceClaimTemplate must not change"
    assert ANNOTATION not in cached["spec"]["metadata"]["annotations"]
    claims = e.server.list(API, "ResourceClaim", NS)
    assert len(claims) == 1, "exactly one claim should be created"
    ann = claims[0]["metadata"]["annotations"]
    assert ann["example.com/color"] == "blue"
    assert ann[ANNOTATION] == REF


def _exists_env(where: str) -> tuple[Env, ClaimMaker, str]:
    e = Env(False, False)
    name = f"{POD}-{REF}--1"
    if where in ("informer", "apiserver"):
        pod = e.pod()
        e.claim(name, pod, pod_claim=REF, generate=f"{POD}-{REF}-")
    if where == "apiserver":  # the informer has not seen it yet
        inf = e.ctrl._claims
        real = inf.get
        inf.get = lambda key: None if key == f"{NS}/{name}" else real(key)  # type: ignore[method-assign]
    return e, e.ctrl._maker, name


def _always(_: Obj) -> bool:
    return True


def _never(_: Obj) -> bool:
    return False


@pytest.mark.parametrize(("where", "owned", "want"), [
    pytest.param("cache", _always, True, id="found in mutation cache", marks=pytest.mark.skip(
        reason="the controller's mutation cache (claimCache.Mutation) is not modeled")),
    pytest.param("informer", _always, True, id="found in underlay store"),
    pytest.param("apiserver", _always, True, id="found in apiserver fallback"),
    pytest.param("nowhere", _always, False, id="not found anywhere"),
    pytest.param("informer", _never, False, id="owner check fails"),
])
def test_claim_exists(where: str, owned: Callable[[Obj], bool], want: bool) -> None:
    _, maker, name = _exists_env(where)
    assert maker.claim_exists(NS, name, owned) is want


def test_claim_exists_apiserver_error() -> None:
    """``apiserver returns error``: not in the informer, the GET fails: an error."""
    e, maker, name = _exists_env("nowhere")

    def fail(*_: Any, **__: Any) -> Obj:
        raise ApiError("apiserver is down")

    e.server.get = fail  # type: ignore[method-assign]
    with pytest.raises(ApiError):
        maker.claim_exists(NS, name, _always)


@pytest.mark.parametrize(("err", "requeue"), [
    pytest.param(None, False, id="no-error"),
    pytest.param(SyncError("will retry"), True, id="retryable-error"),
    pytest.param(NonRetryable("will not retry"), False, id="nonretryable-error"),
    pytest.param(NonRetryable("pod ns/name: will not retry"), False, id="wrapped-nonretryable-error"),
    pytest.param(None, False, id="shutdown", marks=pytest.mark.skip(
        reason="the simulated work queue has no shutdown")),
])
def test_workqueue(err: Exception | None, requeue: bool) -> None:
    e = Env(False, False)
    calls: list[str] = []

    def handler(key: str) -> None:
        calls.append(key)
        if err is not None:
            raise err

    e.ctrl.sync_handler = handler  # type: ignore[method-assign]
    e.ctrl.queue.add("")
    e.clock.settle()
    assert calls == [""], "sync handler should have run"
    # Upstream's test limiter requeues after 1 s; the controller's DefaultTypedControllerRateLimiter
    # after 5 ms (then 10 ms, ...).
    e.clock.run_until(Instant(e.clock.now() + millis(5)))
    e.clock.settle()
    assert len(calls) == (2 if requeue else 1), "key should have been queued again" if requeue else "no requeue"


@pytest.mark.parametrize(("owner", "claim", "want"), [
    ("test-pod", "acme-resource", "test-pod-acme-resource-"),
    ("p" * 40, "c" * 30, "p" * (40 * 57 // 72) + "-" + "c" * (30 * 57 // 72)),
])
def test_generate_name(owner: str, claim: str, want: str) -> None:
    """``handleClaim``'s generateName: both parts cut in proportion beyond 57 characters."""
    assert generate_name(owner, claim) == want

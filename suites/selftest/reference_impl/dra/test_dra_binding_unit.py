"""Selftests of device binding conditions: readiness rules, polling and the timeout."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import (
    DRA_API,
    make_device_class,
    make_pod,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.clock import parse_rfc3339, seconds
from reference_impl.cluster import Cluster
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.plugins.dynamic_resources_binding import (
    BindingFailed,
    binding_status,
    ready_for_binding,
    timed_out,
)

Obj = dict[str, Any]
DRIVER = "bind.selftest"
T0 = "2026-09-01T00:00:00Z"


def _claim(conditions: list[Obj] | None, *, failure: bool = True) -> Obj:
    r: Obj = {"request": "r", "driver": DRIVER, "pool": "p", "device": "d0",
              "bindingConditions": ["Attached", "Ready"]}
    if failure:
        r["bindingFailureConditions"] = ["AttachFailed"]
    st: Obj = {"allocation": {"allocationTimestamp": T0, "devices": {"results": [r]}}}
    if conditions is not None:
        st["devices"] = [{"driver": DRIVER, "pool": "p", "device": "d0", "conditions": conditions}]
    return {"metadata": {"name": "c"}, "status": st}


def _c(kind: str, status: str = "True") -> Obj:
    return {"type": kind, "status": status, "reason": "R", "message": "m"}


def test_every_binding_condition_must_be_true() -> None:
    assert not ready_for_binding(_claim(None))  # no device status yet
    assert not ready_for_binding(_claim([_c("Attached")]))
    assert not ready_for_binding(_claim([_c("Attached"), _c("Ready", "False")]))
    assert ready_for_binding(_claim([_c("Attached"), _c("Ready")]))


def test_a_true_failure_condition_fails_even_when_ready() -> None:
    with pytest.raises(BindingFailed, match='claim=c, reason=R, message="m"'):
        ready_for_binding(_claim([_c("Attached"), _c("Ready"), _c("AttachFailed")]))
    assert ready_for_binding(_claim([_c("Attached"), _c("Ready"), _c("AttachFailed", "False")]))


def test_timeout_counts_from_the_allocation_timestamp() -> None:
    t0 = parse_rfc3339(T0)
    claim = _claim([_c("Attached")])
    assert not timed_out(claim, t0 + seconds(600))
    assert timed_out(claim, t0 + seconds(601))
    assert binding_status([claim], t0 + seconds(10)) is None
    st = binding_status([claim], t0 + seconds(601))
    assert st is not None and "device binding timeout: claim=c" in st.message()


def _setup(c: Cluster) -> None:
    c.apply(make_device_class("bind").selector(f'device.driver == "{DRIVER}"').build())
    dev = {"name": "d0", "bindingConditions": ["Attached"], "bindingFailureConditions": ["AttachFailed"]}
    c.apply(make_resource_slice("s", DRIVER, "p", "kwok-node-0").device(dev).build())
    c.apply(make_resource_claim("c", "default").request("r", "bind").build())
    c.apply(make_pod("p", "default").claim("r", claim="c").build())


def _bound(c: Cluster) -> bool:
    return bool(c.get("v1", "Pod", "p", "default")["spec"].get("nodeName"))


def _claim_status(c: Cluster) -> Obj:
    return c.get(DRA_API, "ResourceClaim", "c", "default").get("status") or {}


def test_conditions_are_polled_every_five_seconds() -> None:
    c = Cluster()
    _setup(c)
    c.advance(1)
    claim = c.get(DRA_API, "ResourceClaim", "c", "default")
    started = parse_rfc3339(claim["status"]["allocation"]["allocationTimestamp"])
    dev = {"driver": DRIVER, "pool": "p", "device": "d0", "conditions": [
        {**_c("Attached"), "lastTransitionTime": T0}]}
    c.patch_status({**claim, "status": {**claim["status"], "devices": [dev]}})
    assert not _bound(c)
    assert c.run_until(lambda: _bound(c), 10)
    # Bound at the first 5 s poll after the condition, not at once.
    assert (c.now - started) % seconds(5) == 0


def test_without_conditions_the_binding_times_out_and_the_claim_is_reallocated() -> None:
    c = Cluster()
    _setup(c)
    c.advance(1)
    first = _claim_status(c)["allocation"]["allocationTimestamp"]
    c.advance(599)
    assert not _bound(c) and _claim_status(c)["allocation"]["allocationTimestamp"] == first
    # After 600 s PreBind gives up, PostFilter deallocates, and a new attempt allocates.
    assert c.run_until(lambda: _claim_status(c).get("allocation", {}).get(
        "allocationTimestamp", first) != first, 120)
    assert not _bound(c)


class _PreBind:
    """A PreBind plugin that records calls and may wait."""

    def __init__(self, name: str, log: list[str], wait: bool = False) -> None:
        self._name, self._log, self._wait = name, log, wait
        self.resume: Any = None

    def name(self) -> str:
        return self._name

    def pre_bind(self, state: Any, pod: Obj, node_name: str) -> Status:
        self._log.append(self._name)
        return Status(Code.WAIT) if self._wait else OK

    def wait_pre_bind(self, state: Any, pod: Obj, node_name: str, resume: Any) -> None:
        self.resume = resume


def _framework(*plugins: _PreBind) -> Framework:
    fw = Framework.__new__(Framework)  # only the PreBind list matters here
    fw.pre_bind = list(plugins)  # type: ignore[arg-type]
    return fw


def test_a_waiting_pre_bind_plugin_resumes_the_rest_in_order() -> None:
    log: list[str] = []
    a, b, c = _PreBind("a", log), _PreBind("b", log, wait=True), _PreBind("c", log)
    done: list[Status] = []
    st = _framework(a, b, c).run_pre_bind_plugins(None, {}, "n", done=done.append)  # type: ignore[arg-type]
    assert st.is_wait() and log == ["a", "b"] and not done
    b.resume(OK)
    assert log == ["a", "b", "c"] and [s.is_success() for s in done] == [True]


def test_a_failed_wait_stops_binding_with_the_plugin_named() -> None:
    log: list[str] = []
    b, c = _PreBind("b", log, wait=True), _PreBind("c", log)
    done: list[Status] = []
    _framework(b, c).run_pre_bind_plugins(None, {}, "n", done=done.append)  # type: ignore[arg-type]
    b.resume(Status(Code.ERROR, ("device binding failed: x",)))
    assert log == ["b"]
    assert done[0].message() == 'running PreBind plugin "b": device binding failed: x'
    # Without a continuation WAIT is an error, as before the feature.
    st = _framework(_PreBind("b", [], wait=True)).run_pre_bind_plugins(None, {}, "n")  # type: ignore[arg-type]
    assert st.code is Code.ERROR

"""Rows of pkg/registry/core/pod/strategy_test.go (v1.37.2) TestDropNonEphemeralContainerUpdates
and TestEphemeralContainersPrepareForUpdate, through ``APIServer.update_ephemeralcontainers``
(``pod_ephemeral_update``): the helper ``dropNonEphemeralContainerUpdates`` is private
here, so each row writes its new pod over the stored old one and reads what was stored.

Upstream compares whole pods; here the rows compare what the subresource may change and
what it must take back (containers, ephemeral containers, annotations, finalizers,
status, resourceVersion conflict), as the stored pod also has server-set fields.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Conflict
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "test-ns"
# What decoding defaults on an ephemeral container; the body carries it as a client's would.
_EPHEMERAL_DEFAULTS = {
    "imagePullPolicy": "IfNotPresent",
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace(NS).build())
    return s


def _create(s: APIServer, name: str, annotations: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": NS}
    if annotations:
        meta["annotations"] = annotations
    spec = {"containers": [{"name": "container", "image": "image"}]}
    return s.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def _ephemeral(*names: str) -> list[Obj]:
    return [{"name": n, "image": "image", **_EPHEMERAL_DEFAULTS} for n in names]


def test_drop_non_ephemeral_updates_simple_append() -> None:
    """"simple ephemeral container append". Upstream's row reuses the name "container",
    which validation (not run by the helper upstream) refuses as a duplicate; it is
    "debugger" here."""
    s = _server()
    old = _create(s, "test-pod")
    body = {**old, "spec": {**old["spec"], "ephemeralContainers": _ephemeral("debugger")}}
    got = s.update_ephemeralcontainers(body)
    assert got["spec"] == {**old["spec"], "ephemeralContainers": _ephemeral("debugger")}


def test_drop_non_ephemeral_updates_drops_other_changes() -> None:
    """"drop non-ephemeral container changes": the container image, the added annotation
    and finalizer and the status message are taken back; the ephemeral containers stay."""
    s = _server()
    old = _create(s, "test-pod", {"foo": "bar"})
    meta = {**old["metadata"], "annotations": {"foo": "bar", "whiz": "pop"}, "finalizers": ["milo"]}
    containers = [{**old["spec"]["containers"][0], "image": "newimage"}]
    spec = {**old["spec"], "containers": containers}
    spec["ephemeralContainers"] = _ephemeral("container1", "container2")
    body = {**old, "metadata": meta, "spec": spec, "status": {**old["status"], "message": "hi."}}
    got = s.update_ephemeralcontainers(body)
    assert got["metadata"]["annotations"] == {"foo": "bar"}
    assert "finalizers" not in got["metadata"]
    assert got["spec"]["containers"] == old["spec"]["containers"]
    assert got["spec"]["ephemeralContainers"] == _ephemeral("container1", "container2")
    assert got["status"] == old["status"]


def test_drop_non_ephemeral_updates_resource_conflict() -> None:
    """"resource conflict during update": the body's (stale) resourceVersion is the one
    the write is judged by, so the update conflicts rather than taking the stored one."""
    s = _server()
    stale = _create(s, "test-pod")
    s.update({**stale, "metadata": {**stale["metadata"], "labels": {"a": "b"}}})
    body = {**stale, "spec": {**stale["spec"], "ephemeralContainers": _ephemeral("debug")}}
    with pytest.raises(Conflict):
        s.update_ephemeralcontainers(body)


@pytest.mark.skip(
    reason="the reference's subresource write has no request URL: the pod it replaces is "
    "the body's name/namespace, so a body naming another pod cannot be posed"
)
def test_drop_non_ephemeral_updates_whoops_wrong_pod() -> None:
    """"whoops wrong pod": upstream keeps the new pod's name, namespace and UID."""


# TestEphemeralContainersPrepareForUpdate: (ephemeral containers added, expected generation).
@pytest.mark.parametrize(
    ("added", "want_generation"),
    [
        pytest.param(False, 1, id="pod not updated"),
        pytest.param(True, 2, id="ephemeral containers updated"),
    ],
)
def test_ephemeral_containers_prepare_for_update(added: bool, want_generation: int) -> None:
    s = _server()
    old = _create(s, "pod")
    assert old["metadata"]["generation"] == 1
    spec = dict(old["spec"])
    if added:
        spec["ephemeralContainers"] = _ephemeral("ephemeral-container")
    got = s.update_ephemeralcontainers({**old, "spec": spec})
    assert got["metadata"]["generation"] == want_generation

"""Upstream ``replica_set_test.go`` (v1.37.2) event-handler rows: ``TestPodControllerLookup``,
``TestUpdatePods`` and ``TestDeletionTimestamp`` (deletion expectations tracked per pod
key, ``UIDTrackingControllerExpectations``).

ReplicaSets are stored in a real APIServer (the controller resolves owners through its
informer); pod events are handed to the handler directly, as upstream calls
``addPod``/``updatePod``/``deletePod``. The clock is never run: the queue only collects.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.api.resources import lookup
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.controllers.replicaset import ReplicaSetController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
POD_INFO = lookup("v1", "Pod")
assert POD_INFO is not None


def _ctrl(*namespaces: str) -> tuple[APIServer, ReplicaSetController]:
    clock = SimClock()
    rng = Rng(1)
    fg = FeatureGates({})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    for ns in namespaces or ("default",):
        server.create(make_namespace(ns).build())
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock))
    ctrl = ReplicaSetController(ctx)
    ctrl.start()
    return server, ctrl


def _store_rs(server: APIServer, name: str, selector: dict[str, str], ns: str = "default") -> Obj:
    return server.create(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": ns},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": dict(selector)},
                "template": {
                    "metadata": {"labels": dict(selector)},
                    "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
                },
            },
        }
    )


def _queued(ctrl: ReplicaSetController) -> list[str]:
    keys = list(ctrl._queue._queue)
    ctrl._queue._queue.clear()
    ctrl._queue._dirty.clear()
    return keys


def _ref(rs: Obj) -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": rs["metadata"]["name"],
        "uid": rs["metadata"]["uid"],
        "controller": True,
    }


def _pod(name: str, labels: dict[str, str], owner: Obj | None, ns: str = "default") -> Obj:
    meta: Obj = {"name": name, "namespace": ns, "labels": dict(labels)}
    if owner is not None:
        meta["ownerReferences"] = [_ref(owner)]
    status = {"phase": "Running"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {}, "status": status}


def _event(kind: str, obj: Obj, old: Obj | None = None) -> ObjectEvent:
    assert POD_INFO is not None
    return ObjectEvent(kind, POD_INFO, obj, old)  # type: ignore[arg-type]


# -- TestPodControllerLookup -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rs_ns", "selector", "pod_ns", "pod_labels", "want"),
    [
        pytest.param(
            "default",
            {"foo": "bar"},
            "default",
            {},
            [],
            id="pods without labels don't match any ReplicaSets",
        ),
        pytest.param(
            "default", {"foo": "bar"}, "ns", {"foo": "bar"}, [], id="Matching labels, not namespace"
        ),
        pytest.param(
            "ns",
            {"foo": "bar"},
            "ns",
            {"foo": "bar"},
            ["ns/bar"],
            id="Matching ns and labels returns the key to the ReplicaSet, not the ReplicaSet name",
        ),
    ],
)
def test_pod_controller_lookup(
    rs_ns: str, selector: dict[str, str], pod_ns: str, pod_labels: dict[str, str], want: list[str]
) -> None:
    server, ctrl = _ctrl("default", "ns")
    _store_rs(server, "bar", selector, rs_ns)
    found = ctrl._matching(_pod("foo", pod_labels, None, pod_ns))
    got = [f"{rs['metadata']['namespace']}/{rs['metadata']['name']}" for rs in found]
    assert got == want


# -- TestUpdatePods ---------------------------------------------------------------------------


def test_update_pods() -> None:
    server, ctrl = _ctrl()
    labels1, labels2 = {"foo": "bar"}, {"bar": "foo"}
    rs1 = _store_rs(server, "foobar", labels1)
    rs2 = _store_rs(server, "barfoo", labels2)
    _queued(ctrl)

    # Labels changed, same controller: only that controller is woken.
    pod1 = _pod("pod0", labels1, rs1)
    pod2 = copy.deepcopy(pod1)
    pod2["metadata"]["labels"] = labels2
    ctrl._on_pod(_event("MODIFIED", pod2, pod1))
    assert _queued(ctrl) == ["default/foobar"]

    # ControllerRef removed; the labels match rs2 (its old controller): rs2 is woken.
    pod1 = _pod("pod0", labels2, rs2)
    pod2 = copy.deepcopy(pod1)
    del pod2["metadata"]["ownerReferences"]
    ctrl._on_pod(_event("MODIFIED", pod2, pod1))
    assert sorted(set(_queued(ctrl))) == ["default/barfoo"]

    # ControllerRef (rs1) removed and the labels match rs2: both are woken.
    pod1 = _pod("pod0", labels2, rs1)
    pod2 = copy.deepcopy(pod1)
    del pod2["metadata"]["ownerReferences"]
    ctrl._on_pod(_event("MODIFIED", pod2, pod1))
    assert sorted(_queued(ctrl)) == ["default/barfoo", "default/foobar"]

    # Labels changed under controller rs2: only rs2.
    pod1 = _pod("pod0", labels1, rs2)
    pod2 = copy.deepcopy(pod1)
    pod2["metadata"]["labels"] = labels2
    ctrl._on_pod(_event("MODIFIED", pod2, pod1))
    assert _queued(ctrl) == ["default/barfoo"]


# -- TestDeletionTimestamp --------------------------------------------------------------------


def test_deletion_timestamp() -> None:
    server, ctrl = _ctrl()
    rs = _store_rs(server, "foobar", {"foo": "bar"})
    key = "default/foobar"
    _queued(ctrl)
    pod = _pod("pod0", {"foo": "bar"}, rs)
    pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    ctrl._expectations.expect_deletions(key, ["default/pod0"])

    # A pod added with a deletion timestamp decrements deletions, not creations.
    ctrl._on_pod(_event("ADDED", pod))
    assert _queued(ctrl) == [key]
    assert ctrl._expectations.satisfied(key)

    # An update from no deletion timestamp to one is a deletion.
    old = _pod("pod0", {"foo": "bar"}, rs)
    ctrl._expectations.expect_deletions(key, ["default/pod0"])
    ctrl._on_pod(_event("MODIFIED", pod, old))
    assert _queued(ctrl) == [key]
    assert ctrl._expectations.satisfied(key)

    # A further update of the same pod is not a second delete.
    second = _pod("secondPod", {"foo": "bar"}, rs)
    ctrl._expectations.expect_deletions(key, ["default/secondPod"])
    old["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    ctrl._on_pod(_event("MODIFIED", pod, old))
    assert not ctrl._expectations.satisfied(key)

    # Nor is its final delete.
    ctrl._on_pod(_event("DELETED", pod))
    assert not ctrl._expectations.satisfied(key)

    # Deleting the second pod clears the expectations.
    _queued(ctrl)
    ctrl._on_pod(_event("DELETED", second))
    assert _queued(ctrl) == [key]
    assert ctrl._expectations.satisfied(key)


def test_overlapping_rss() -> None:
    """Nine sets select the same pods; a pod owned by rs4 wakes rs4 only."""
    server, ctrl = _ctrl()
    sets = [_store_rs(server, f"rs{j}", {"foo": "bar"}) for j in (5, 2, 9, 1, 7, 4, 3, 8, 6)]
    owner = next(rs for rs in sets if rs["metadata"]["name"] == "rs4")
    _queued(ctrl)
    ctrl._on_pod(_event("ADDED", _pod("pod0", {"foo": "bar"}, owner)))
    assert _queued(ctrl) == ["default/rs4"]

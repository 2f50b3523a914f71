"""Rows of pkg/controller/garbagecollector/garbagecollector_test.go (v1.37.2) on the reference.

The collector is built but not started: a row stores objects on a real apiserver, feeds
the collector's graph the commit events it names (``processEvent``) in the row's order,
and runs the queued work (``processAttemptToDelete``) by settling the simulated clock.
Upstream's client actions are the collector's apiserver calls, recorded in upstream's
two formats. The reference's graph has no virtual nodes as work items (owners that are
only referenced are bare uids), so rows' steps that process a virtual node are checked
by their end state only. Upstream's mixed-case pod names are lower-cased, as the
apiserver's name validation requires.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_node, make_pod
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.controllers.garbagecollector import GarbageCollector
from reference_impl.errors import Conflict, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
Action = tuple[str, ResourceInfo, str | None, str]


class Env:
    """An apiserver, a collector that is not started, and its recorded calls."""

    def __init__(self) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        for ns in ("ns1", "ns2"):
            self.server.create(make_namespace(ns).build())
        ctx = ComponentContext(
            self.server, InformerFactory(self.server), self.clock, rng, gates, Trace(self.clock)
        )
        self.gc = GarbageCollector(ctx)
        self.actions: list[Action] = []
        self.fail_delete: set[str] = set()
        self.fail_update: set[str] = set()
        get, delete, update = self.server.get, self.server.delete, self.server.update

        def rec_get(api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
            info = self.server.resource(api_version, kind)
            self.actions.append(("get", info, namespace if info.namespaced else None, name))
            return get(api_version, kind, name, namespace)

        def rec_delete(api_version: str, kind: str, name: str, *a: Any, **k: Any) -> Obj | None:
            info = self.server.resource(api_version, kind)
            ns = (a[0] if a else k.get("namespace")) if info.namespaced else None
            self.actions.append(("delete", info, ns, name))
            if name in self.fail_delete:
                raise NotFound(f'{info.group_resource} "{name}" not found')
            return delete(api_version, kind, name, *a, **k)

        def rec_update(manifest: Obj) -> Obj:
            meta = manifest["metadata"]
            if meta["name"] in self.fail_update:
                raise Conflict("the server reported a conflict")
            return update(manifest)

        self.server.get = rec_get  # type: ignore[method-assign]
        self.server.delete = rec_delete  # type: ignore[method-assign]
        self.server.update = rec_update  # type: ignore[method-assign]

    def store(self, obj: Obj) -> Obj:
        """createObjectInClient."""
        out = self.server.create(obj)
        self.actions.clear()
        return out

    def event(self, kind: str, obj: Obj, type_: str = "ADDED") -> None:
        """processEvent: hand the graph a commit event."""
        info = self.server.resource(obj["apiVersion"], kind)
        self.gc._on_event(ObjectEvent(type_, info, obj, None))  # type: ignore[arg-type]

    def run(self) -> None:
        """processAttemptToDelete: drain the collector's queue."""
        self.clock.settle()

    def conflicting_data_actions(self) -> list[str]:
        """The actions as TestConflictingData writes them."""
        out = []
        for verb, info, ns, name in self.actions:
            where = f" ns={ns}" if ns else ""
            out.append(f"{verb} {info.group}/{info.version}, Resource={info.plural}{where} name={name}")
        return out

    def url_actions(self) -> set[str]:
        """The actions as fakeActionHandler writes them (METHOD=path)."""
        out = set()
        for verb, info, ns, name in self.actions:
            root = f"/apis/{info.group}" if info.group else "/api"
            where = f"/namespaces/{ns}" if ns else ""
            out.add(f"{verb.upper()}={root}/{info.version}{where}/{info.plural}/{name}")
        return out

    def graph(self) -> dict[str, set[str]]:
        """Observed graph nodes by name, with their owners' uids."""
        return {n.name: set(n.owners) for n in self.gc._nodes.values()}


def _ref(owner: Obj, *, api_version: str | None = None, block: bool | None = None) -> Obj:
    ref = {
        "apiVersion": api_version or owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    if block is not None:
        ref["blockOwnerDeletion"] = block
    return ref


def _pod(name: str, ns: str, *refs: Obj) -> Obj:
    pod = make_pod(name, ns).build()
    if refs:
        pod["metadata"]["ownerReferences"] = list(refs)
    return pod


def _fake_ref(kind: str, name: str, uid: str, api_version: str = "v1", **extra: Any) -> Obj:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, **extra}


def _event_text(involved: str, msg: str) -> str:
    kind = involved.split("/", 1)[0]
    return f"Warning OwnerRefInvalidNamespace {msg} involvedObject{{kind={kind},apiVersion=v1}}"


# -- TestAttemptToDeleteItem* -----------------------------------------------------------


def test_attempt_to_delete_item() -> None:
    env = Env()
    pod = env.store(_pod("tobedeletedpod", "ns1", _fake_ref("ReplicationController", "owner1", "123")))
    env.event("Pod", pod)
    env.gc.attempt_to_delete_item(pod["metadata"]["uid"])
    assert env.url_actions() == {
        "GET=/api/v1/namespaces/ns1/replicationcontrollers/owner1",
        "DELETE=/api/v1/namespaces/ns1/pods/tobedeletedpod",
        "GET=/api/v1/namespaces/ns1/pods/tobedeletedpod",
    }


def test_attempt_to_delete_item_delete_object_not_found() -> None:
    """The DELETE answers 404: a virtual delete event drops the item from the graph."""
    env = Env()
    pod = env.store(
        _pod("externallydeletedpod", "ns1", _fake_ref("ReplicationController", "owner1", "123"))
    )
    env.event("Pod", pod)
    env.fail_delete.add("externallydeletedpod")
    env.gc.attempt_to_delete_item(pod["metadata"]["uid"])
    assert pod["metadata"]["uid"] not in env.gc._nodes


def test_attempt_to_delete_item_delete_object_not_found_waiting_for_dependents() -> None:
    env = Env()
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "owner1", "namespace": "ns1"},
        "spec": {
            "selector": {"app": "x"},
            "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
        },
    }
    rc = env.store(rc)
    pod = env.store(_pod("externallydeletedpodfg", "ns1", _ref(rc, block=True)))
    env.server.delete("v1", "ReplicationController", "owner1", "ns1", propagation_policy="Foreground")
    env.event("Pod", pod)
    env.fail_delete.add("externallydeletedpodfg")
    env.actions.clear()
    env.gc.attempt_to_delete_item(pod["metadata"]["uid"])
    assert ("delete", env.server.resource("v1", "Pod"), "ns1", "externallydeletedpodfg") in env.actions
    assert pod["metadata"]["uid"] not in env.gc._nodes


# -- TestProcessEvent (verifyGraphInvariants after every event) -------------------------


def _bare_pod(uid: str, owners: list[str]) -> Obj:
    meta: Obj = {"name": uid, "namespace": "ns1", "uid": uid}
    if owners:
        meta["ownerReferences"] = [{"uid": o} for o in owners]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta}


def _verify_graph_invariants(gc: GarbageCollector) -> None:
    nodes = gc._nodes
    for uid, n in nodes.items():
        for d in n.dependents:
            assert d in nodes and uid in nodes[d].owners, (uid, d)
        for o in n.owners:
            if o in nodes:
                assert uid in nodes[o].dependents, (uid, o)
    for owner_uid, deps in gc._virtual.items():
        assert owner_uid not in nodes
        for d in deps:
            assert d in nodes and owner_uid in nodes[d].owners


_A, _U, _D = "ADDED", "MODIFIED", "DELETED"


@pytest.mark.parametrize(
    "events",
    [
        pytest.param([(_A, "1", []), (_A, "2", ["1"]), (_A, "3", ["1", "2"])], id="test1"),
        pytest.param(
            [
                (_A, "1", []),
                (_A, "2", ["1"]),
                (_A, "3", ["1", "2"]),
                (_A, "4", ["2"]),
                (_D, "2", ["doesn't matter"]),
            ],
            id="test2",
        ),
        pytest.param(
            [
                (_A, "1", []),
                (_A, "2", ["1"]),
                (_A, "3", ["1", "2"]),
                (_A, "4", ["3"]),
                (_U, "2", ["4"]),
            ],
            id="test3",
        ),
        pytest.param(
            [
                (_A, "4", ["2"]),
                (_A, "3", ["1", "2"]),
                (_A, "2", ["1"]),
                (_A, "1", []),
                (_D, "2", ["doesn't matter"]),
            ],
            id="reverse test2",
        ),
    ],
)
def test_process_event(events: list[tuple[str, str, list[str]]]) -> None:
    env = Env()
    for type_, uid, owners in events:
        env.event("Pod", _bare_pod(uid, owners), type_)
        _verify_graph_invariants(env.gc)


# -- TestAbsentOwnerCache, TestOrphanDependentsFailure ----------------------------------


def test_absent_owner_cache() -> None:
    env = Env()
    rc = "ReplicationController"
    pods = {
        "rc1pod1": _fake_ref(rc, "rc1", "1", controller=True),
        "rc1pod2": _fake_ref(rc, "rc1", "1", controller=False),
        "rc2pod1": _fake_ref(rc, "rc2", "2"),
        "rc3pod1": _fake_ref(rc, "rc3", "3"),
    }
    uids = {}
    for name, ref in pods.items():
        pod = env.store(_pod(name, "ns1", ref))
        env.event("Pod", pod)
        uids[name] = pod["metadata"]["uid"]
    env.gc.absent_owner_cache_size = 2
    env.actions.clear()
    for name in ("rc1pod1", "rc2pod1", "rc1pod2", "rc3pod1"):
        env.gc.attempt_to_delete_item(uids[name])
    cached = {coords[2] for coords, _ in env.gc._absent}
    assert cached == {"rc1", "rc3"}
    assert env.conflicting_data_actions().count(
        "get /v1, Resource=replicationcontrollers ns=ns1 name=rc1"
    ) == 1


def test_orphan_dependents_failure() -> None:
    env = Env()
    owner = env.store(_pod("owner", "ns1"))
    pod = env.store(_pod("pod", "ns1", _ref(owner)))
    env.event("Pod", owner)
    env.event("Pod", pod)
    env.server.delete("v1", "Pod", "owner", "ns1", propagation_policy="Orphan")
    env.event("Pod", env.server.get("v1", "Pod", "owner", "ns1"), _U)
    env.fail_update.add("pod")
    with pytest.raises(Conflict) as exc:
        env.gc._sync(owner["metadata"]["uid"])
    assert "the server reported a conflict" in str(exc.value)
    assert "orphan" in env.server.get("v1", "Pod", "owner", "ns1")["metadata"]["finalizers"]


# -- TestConflictingData ----------------------------------------------------------------


def test_conflicting_data_good_child_in_ns1_to_cluster_scoped_owner() -> None:
    """Row "good child in ns1 -> cluster-scoped owner" (end state)."""
    env = Env()
    node = env.store(make_node("nodename").build())
    pod = env.store(_pod("podname1", "ns1", _ref(node)))
    env.event("Pod", pod)
    env.run()
    env.event("Node", node)
    env.run()
    assert env.graph() == {"podname1": {node["metadata"]["uid"]}, "nodename": set()}
    assert not any(verb == "delete" for verb, *_ in env.actions)
    assert env.gc.events == []


def _bad_namespace_row(env: Env, owner_first: bool) -> None:
    pod2 = env.store(_pod("podname2", "ns2"))
    pod1 = env.store(_pod("podname1", "ns1", _ref(pod2)))
    order = [pod2, pod1] if owner_first else [pod1, pod2]
    for obj in order:
        env.event("Pod", obj)
    msg = (
        f"ownerRef [v1/Pod, namespace: ns1, name: podname2, uid: {pod2['metadata']['uid']}] "
        'does not exist in namespace "ns1"'
    )
    assert [_event_text(e[0], e[3]) for e in env.gc.events] == [_event_text("Pod/ns1/podname1", msg)]
    assert env.gc.events[0][:3] == ("Pod/ns1/podname1", "Warning", "OwnerRefInvalidNamespace")
    env.run()
    assert env.conflicting_data_actions() == [
        "get /v1, Resource=pods ns=ns1 name=podname1",
        "get /v1, Resource=pods ns=ns1 name=podname2",
        "delete /v1, Resource=pods ns=ns1 name=podname1",
    ]
    assert {(c[2], ns) for c, ns in env.gc._absent} == {("podname2", "ns1")}
    env.event("Pod", pod1, _D)
    assert env.graph() == {"podname2": set()}


@pytest.mark.parametrize(
    "owner_first",
    [
        pytest.param(False, id="bad child in ns1 -> owner in ns2 (child first)"),
        pytest.param(True, id="bad child in ns1 -> owner in ns2 (owner first)"),
    ],
)
def test_conflicting_data_bad_child_in_other_namespace(owner_first: bool) -> None:
    _bad_namespace_row(Env(), owner_first)


@pytest.mark.parametrize(
    "owner_first",
    [
        pytest.param(False, id="bad cluster-scoped child -> owner in ns1 (child first)"),
        pytest.param(True, id="bad cluster-scoped child -> owner in ns1 (owner first)"),
    ],
)
def test_conflicting_data_bad_cluster_scoped_child(owner_first: bool) -> None:
    env = Env()
    pod1 = env.store(_pod("podname1", "ns1"))
    node = make_node("nodename").build()
    node["metadata"]["ownerReferences"] = [_ref(pod1)]
    node = env.store(node)
    order = [("Pod", pod1), ("Node", node)] if owner_first else [("Node", node), ("Pod", pod1)]
    for kind, obj in order:
        env.event(kind, obj)
    msg = (
        f"ownerRef [v1/Pod, namespace: , name: podname1, uid: {pod1['metadata']['uid']}] "
        'does not exist in namespace ""'
    )
    assert [e[0] for e in env.gc.events] == ["Node/nodename"]
    assert _event_text("Node", env.gc.events[0][3]) == (
        f"Warning OwnerRefInvalidNamespace {msg} involvedObject{{kind=Node,apiVersion=v1}}"
    )
    env.run()
    assert env.conflicting_data_actions() == ["get /v1, Resource=nodes name=nodename"]
    assert env.graph() == {"nodename": {pod1["metadata"]["uid"]}, "podname1": set()}


_SKIPPED_CONFLICTING = [
    "good child -> existing owner with non-preferred accessible API version",
    "child -> existing owner with inaccessible API version (child first)",
    "child -> existing owner with inaccessible API version (owner first)",
    "child -> non-existent owner with inaccessible API version (inaccessible parent apiVersion first)",
    "child -> non-existent owner with inaccessible API version (accessible parent apiVersion first)",
    "bad child -> existing owner with incorrect API version (bad child, good child, bad parent delete, good parent)",
    "bad child -> existing owner with incorrect API version (bad child, good child, good parent, bad parent delete)",
    "bad child -> existing owner with incorrect API version (good child, bad child, good parent)",
    "cluster-scoped bad child, namespaced good child, missing parent",
    "cluster-scoped bad child, namespaced good child, late observed parent",
    "namespaced good child, cluster-scoped bad child, missing parent",
    "resourceVersion conflict between Get/Delete while processing object deletion",
]


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(
            r,
            id=r,
            marks=pytest.mark.skip(
                reason="virtual-node identities/requeues and per-version discovery are not modelled"
            ),
        )
        for r in _SKIPPED_CONFLICTING
    ],
)
def test_conflicting_data_not_modelled(row: str) -> None:
    raise AssertionError(row)


# -- TestDeleteOwnerRefPatch, TestUnblockOwnerReference (the writes they patch) ---------


def _refs_of(env: Env, name: str) -> list[Obj]:
    refs: list[Obj] = env.server.get("v1", "Pod", name, "ns1")["metadata"]["ownerReferences"]
    return refs


def test_delete_owner_ref_patch() -> None:
    env = Env()
    refs = [_fake_ref("ReplicationController", f"rc{u}", u) for u in ("1", "2", "3")]
    pod = env.store(_pod("pod", "ns1", *refs))
    env.event("Pod", pod)
    env.gc._remove_owner_refs(env.gc._nodes[pod["metadata"]["uid"]], {"2", "3"})
    assert [r["uid"] for r in _refs_of(env, "pod")] == ["1"]


def test_unblock_owner_reference() -> None:
    env = Env()
    rc = "ReplicationController"
    refs = [
        _fake_ref(rc, "rc1", "1", blockOwnerDeletion=True),
        _fake_ref(rc, "rc2", "2", blockOwnerDeletion=False),
        _fake_ref(rc, "rc3", "3"),
    ]
    pod = env.store(_pod("pod", "ns1", *refs))
    env.event("Pod", pod)
    env.gc._unblock_owner_refs(env.gc._nodes[pod["metadata"]["uid"]])
    got = [(r["uid"], r.get("blockOwnerDeletion")) for r in _refs_of(env, "pod")]
    assert got == [("1", False), ("2", False), ("3", None)]


# -- TestDependentsRace (as modelled: no threads here, the graph must stay consistent) --


def test_dependents_race_as_modelled() -> None:
    env = Env()
    owner = env.store(_pod("owner", "ns1"))
    env.event("Pod", owner)
    for i in range(20):
        dep = _bare_pod(f"dep{i}", [owner["metadata"]["uid"]])
        env.event("Pod", dep)
        env.event("Pod", dep, _D)
        _verify_graph_invariants(env.gc)
    assert env.gc._nodes[owner["metadata"]["uid"]].dependents == set()


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            id=n,
            marks=pytest.mark.skip(
                reason="discovery is the fixed served-kind table (served_kinds): no failing "
                "or changing discovery, no resync of monitors"
            ),
        )
        for n in ("TestGetDeletableResources", "TestGarbageCollectorSync")
    ],
)
def test_discovery_not_modelled(name: str) -> None:
    raise AssertionError(name)


# -- As modelled: attemptToDeleteItem's cycle rule, addUnblockedOwnersToDeleteQueue -----


def test_waiting_owner_and_deleting_dependent_unblock_then_delete_in_foreground() -> None:
    env = Env()
    a = env.store(_pod("a", "ns1"))
    b = env.store(_pod("b", "ns1", _ref(a, block=True)))
    c = env.store(_pod("c", "ns1", _ref(b, block=True)))
    c["metadata"]["finalizers"] = ["example.com/hold"]
    env.server.update(c)
    env.server.delete("v1", "Pod", "a", "ns1", propagation_policy="Foreground")
    env.server.delete("v1", "Pod", "c", "ns1", propagation_policy="Foreground")
    for name in ("a", "b", "c"):
        env.event("Pod", env.server.get("v1", "Pod", name, "ns1"))
    env.gc.attempt_to_delete_item(b["metadata"]["uid"])
    got = env.server.get("v1", "Pod", "b", "ns1")
    assert got["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] is False
    assert got["metadata"].get("deletionTimestamp")
    assert "foregroundDeletion" in got["metadata"]["finalizers"]


def test_a_dependent_that_stops_blocking_releases_its_foreground_owner() -> None:
    env = Env()
    env.gc.start()
    a = env.store(_pod("a", "ns1"))
    b = _pod("b", "ns1", _ref(a, block=True))
    b["metadata"]["finalizers"] = ["example.com/hold"]
    env.store(b)
    env.server.delete("v1", "Pod", "a", "ns1", propagation_policy="Foreground")
    env.run()
    held = env.server.get("v1", "Pod", "b", "ns1")
    assert held["metadata"].get("deletionTimestamp")  # deleted, held by its finalizer
    assert env.server.try_get("v1", "Pod", "a", "ns1") is not None  # a still waits on b
    held["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] = False
    env.server.update(held)
    env.run()
    assert env.server.try_get("v1", "Pod", "a", "ns1") is None

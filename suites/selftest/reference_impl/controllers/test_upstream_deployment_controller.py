"""Upstream ``deployment_controller_test.go`` (v1.37.2): ``TestSyncDeployment*``, the
ReplicaSet claim (``TestGetReplicaSetsForDeployment*``), ``TestGetPodMapForReplicaSets``,
pod deletion for Recreate and the ReplicaSet event handlers (``TestAddReplicaSet*``,
``TestUpdateReplicaSet*``, ``TestDeleteReplicaSet*``), ``TestSyncDeploymentDeletionRace`` and
``TestReentrantRollback``.

Objects live in a real APIServer seen through the controller's informers; the clock is
never run, so the work queue only collects keys and only explicit ``_sync`` calls act.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.deployment import DeploymentController
from reference_impl.controllers.deployment.util import REVISION, condition_of
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
LABELS = {"foo": "bar"}


@dataclass
class DHarness:
    server: APIServer
    dc: DeploymentController

    def queued(self) -> list[str]:
        """The keys waiting in the work queue, then empty it (``queue.Get``)."""
        keys = list(self.dc.queue._queue)
        self.dc.queue._queue.clear()
        self.dc.queue._dirty.clear()
        return keys

    def rss(self) -> list[Obj]:
        return self.server.list("apps/v1", "ReplicaSet", "default")


def _harness() -> DHarness:
    clock = SimClock()
    rng = Rng(1)
    fg = FeatureGates({})
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, fg, Trace(clock))
    dc = DeploymentController(ctx)
    dc.start()
    return DHarness(server, dc)


def _deployment(
    h: DHarness, name: str = "foo", selector: dict[str, str] = LABELS, recreate: bool = False
) -> Obj:
    """``newDeployment`` stored (defaults apply: 25%/25%, progressDeadlineSeconds 600)."""
    spec: Obj = {
        "replicas": 1,
        "selector": {"matchLabels": dict(selector)},
        "template": {
            "metadata": {"labels": dict(selector)},
            "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
        },
    }
    if recreate:
        spec["strategy"] = {"type": "Recreate"}
    return h.server.create(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        }
    )


def _owner(d: Obj) -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": d["metadata"]["name"],
        "uid": d["metadata"]["uid"],
        "controller": True,
    }


def _rs(
    h: DHarness,
    d: Obj,
    name: str,
    replicas: int = 1,
    owned: bool = True,
    labels: dict[str, str] | None = None,
) -> Obj:
    """``newReplicaSet``: the Deployment's selector and template, owned unless told."""
    meta: Obj = {
        "name": name,
        "namespace": "default",
        "labels": dict(labels if labels is not None else d["spec"]["selector"]["matchLabels"]),
    }
    if owned:
        meta["ownerReferences"] = [_owner(d)]
    return h.server.create(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": meta,
            "spec": {
                "replicas": replicas,
                "selector": d["spec"]["selector"],
                "template": d["spec"]["template"],
            },
        }
    )


def _pod(h: DHarness, rs: Obj, name: str, owned: bool = True, phase: str = "Running") -> Obj:
    """``generatePodFromRS``."""
    meta: Obj = {
        "name": name,
        "namespace": "default",
        "labels": dict(rs["spec"]["selector"]["matchLabels"]),
    }
    if owned:
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": rs["metadata"]["name"],
                "uid": rs["metadata"]["uid"],
                "controller": True,
            }
        ]
    pod = h.server.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
        }
    )
    return h.server.update_status({**pod, "status": {"phase": phase}})


def test_sync_deployment_creates_replica_set() -> None:
    """One ReplicaSet ``<name>-<hash>`` owned by the Deployment; the Deployment records
    revision 1 and Progressing=True NewReplicaSetCreated."""
    h = _harness()
    d = _deployment(h)
    h.dc._sync("default/foo")
    rss = h.rss()
    assert len(rss) == 1
    rs = rss[0]
    assert rs["metadata"]["name"].startswith("foo-")
    assert (controller_ref(rs) or {}).get("uid") == d["metadata"]["uid"]
    assert rs["spec"]["replicas"] == 1
    got = h.server.get("apps/v1", "Deployment", "foo", "default")
    assert got["metadata"]["annotations"][REVISION] == "1"
    cond = condition_of(got["status"], "Progressing") or {}
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True",
        "NewReplicaSetCreated",
        f'Created new replica set "{rs["metadata"]["name"]}"',
    )


def test_sync_deployment_dont_do_anything_during_deletion() -> None:
    """Only the status is written: no ReplicaSet is created."""
    h = _harness()
    d = _deployment(h)
    d["metadata"]["finalizers"] = ["test.garhwal.dev/keep"]
    h.server.update(d)
    h.server.delete("apps/v1", "Deployment", "foo", "default")
    h.dc._sync("default/foo")
    assert h.rss() == []
    got = h.server.get("apps/v1", "Deployment", "foo", "default")
    assert got["status"]["observedGeneration"] == got["metadata"]["generation"]


def test_get_replica_sets_for_deployment() -> None:
    h = _harness()
    d1 = _deployment(h, "foo")
    d2 = _deployment(h, "bar")
    _rs(h, d1, "rs1")
    _rs(h, d2, "rs2")
    assert [rs["metadata"]["name"] for rs in h.dc._claim_replica_sets(d1)] == ["rs1"]
    assert [rs["metadata"]["name"] for rs in h.dc._claim_replica_sets(d2)] == ["rs2"]


def test_get_replica_sets_for_deployment_adopt_release() -> None:
    """A matching orphan is adopted and returned; an owned set whose labels no longer
    match is released (its ownerReference removed) and not returned."""
    h = _harness()
    d = _deployment(h)
    _rs(h, d, "rs-adopt", owned=False)
    _rs(h, d, "rs-release", labels={"foo": "notbar"})
    assert [rs["metadata"]["name"] for rs in h.dc._claim_replica_sets(d)] == ["rs-adopt"]
    adopted = h.server.get("apps/v1", "ReplicaSet", "rs-adopt", "default")
    released = h.server.get("apps/v1", "ReplicaSet", "rs-release", "default")
    assert (controller_ref(adopted) or {}).get("uid") == d["metadata"]["uid"]
    assert controller_ref(released) is None


def test_get_pod_map_for_replica_sets() -> None:
    """Pods by controlling set: inactive pods count, orphans do not."""
    h = _harness()
    d = _deployment(h)
    rs1, rs2 = _rs(h, d, "rs1"), _rs(h, d, "rs2")
    _pod(h, rs1, "rs1-pod")
    _pod(h, rs2, "rs2-pod")
    _pod(h, rs1, "pod3", owned=False)
    _pod(h, rs1, "pod4", phase="Failed")
    pod_map = {
        rs["metadata"]["name"]: sorted(p["metadata"]["name"] for p in h.dc.owned_pods(rs))
        for rs in (rs1, rs2)
    }
    assert pod_map == {"rs1": ["pod4", "rs1-pod"], "rs2": ["rs2-pod"]}


def test_pod_deletion_enqueues_recreate_deployment() -> None:
    """"last pod deleted" and "pod with siblings deleted": the Recreate Deployment is queued."""
    for siblings in (False, True):
        h = _harness()
        d = _deployment(h, recreate=True)
        rs = _rs(h, d, "foo-1")
        _pod(h, rs, "foo-pod")
        if siblings:
            _pod(h, rs, "foo-2")
        h.queued()
        h.server.delete("v1", "Pod", "foo-pod", "default", grace_period_seconds=0)
        assert h.queued() == ["default/foo"]


def test_pod_deletion_partial_replica_set_ownership_enqueue_recreate_deployment() -> None:
    h = _harness()
    d = _deployment(h, recreate=True)
    rs1 = _rs(h, d, "foo-1")
    _rs(h, d, "foo-2", replicas=2, owned=False)
    _pod(h, rs1, "foo-pod")
    h.queued()
    h.server.delete("v1", "Pod", "foo-pod", "default", grace_period_seconds=0)
    assert h.queued() == ["default/foo"]


def test_pod_deletion_does_not_enqueue_rolling_deployment() -> None:
    """``deletePod`` only wakes Recreate Deployments."""
    h = _harness()
    d = _deployment(h)
    rs = _rs(h, d, "foo-1")
    _pod(h, rs, "foo-pod")
    h.queued()
    h.server.delete("v1", "Pod", "foo-pod", "default", grace_period_seconds=0)
    assert h.queued() == []


def test_add_replica_set() -> None:
    h = _harness()
    d1, d2 = _deployment(h, "d1"), _deployment(h, "d2")
    h.queued()
    _rs(h, d1, "rs1")
    assert h.queued() == ["default/d1"]
    _rs(h, d2, "rs2")
    assert h.queued() == ["default/d2"]


def test_add_replica_set_orphan() -> None:
    """An orphan wakes both matching Deployments, not the one selecting other labels."""
    h = _harness()
    d1 = _deployment(h, "d1")
    _deployment(h, "d2")
    _deployment(h, "d3", selector={"foo": "notbar"})
    h.queued()
    _rs(h, d1, "rs1", owned=False)
    assert sorted(h.queued()) == ["default/d1", "default/d2"]


def test_update_replica_set() -> None:
    h = _harness()
    d1, d2 = _deployment(h, "d1"), _deployment(h, "d2")
    rs1, rs2 = _rs(h, d1, "rs1"), _rs(h, d2, "rs2")
    h.queued()
    h.server.update({**rs1, "metadata": {**rs1["metadata"], "annotations": {"bump": "1"}}})
    assert h.queued() == ["default/d1"]
    h.server.update({**rs2, "metadata": {**rs2["metadata"], "annotations": {"bump": "1"}}})
    assert h.queued() == ["default/d2"]


def test_update_replica_set_orphan_with_new_labels() -> None:
    h = _harness()
    d1 = _deployment(h, "d1")
    _deployment(h, "d2")
    rs = _rs(h, d1, "rs1", owned=False, labels={"foo": "notbar"})
    h.queued()
    h.server.update({**rs, "metadata": {**rs["metadata"], "labels": dict(LABELS)}})
    assert sorted(h.queued()) == ["default/d1", "default/d2"]


def test_update_replica_set_change_controller_ref() -> None:
    """Both the old and the new controller are woken."""
    h = _harness()
    d1, d2 = _deployment(h, "d1"), _deployment(h, "d2")
    rs = _rs(h, d2, "rs1")
    h.queued()
    h.server.update({**rs, "metadata": {**rs["metadata"], "ownerReferences": [_owner(d1)]}})
    assert sorted(h.queued()) == ["default/d1", "default/d2"]


def test_update_replica_set_release() -> None:
    """Released: the old owner and every matching Deployment are woken."""
    h = _harness()
    d1 = _deployment(h, "d1")
    _deployment(h, "d2")
    rs = _rs(h, d1, "rs1")
    h.queued()
    meta = {k: v for k, v in rs["metadata"].items() if k != "ownerReferences"}
    h.server.update({**rs, "metadata": meta})
    assert sorted(h.queued()) == ["default/d1", "default/d2"]


def test_delete_replica_set() -> None:
    h = _harness()
    d1, d2 = _deployment(h, "d1"), _deployment(h, "d2")
    _rs(h, d1, "rs1")
    _rs(h, d2, "rs2")
    h.queued()
    h.server.delete("apps/v1", "ReplicaSet", "rs1", "default")
    assert h.queued() == ["default/d1"]
    h.server.delete("apps/v1", "ReplicaSet", "rs2", "default")
    assert h.queued() == ["default/d2"]


def test_delete_replica_set_orphan() -> None:
    h = _harness()
    d1 = _deployment(h, "d1")
    _deployment(h, "d2")
    _rs(h, d1, "rs1", owned=False)
    h.queued()
    h.server.delete("apps/v1", "ReplicaSet", "rs1", "default")
    assert h.queued() == []


def test_dont_sync_deployments_with_empty_pod_selector(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty selector selects everything: nothing is created. Validation rejects one in
    apps/v1, so the cached copy is swapped; upstream's row has generation 0 and so no
    write, here the generation is observed (the same rule)."""
    h = _harness()
    d = _deployment(h)
    cached = {**d, "spec": {**d["spec"], "selector": {}}}
    assert h.dc._deps is not None
    monkeypatch.setattr(h.dc._deps, "get", lambda key: cached if key == "default/foo" else None)
    h.dc._sync("default/foo")
    assert h.rss() == []
    got = h.server.get("apps/v1", "Deployment", "foo", "default")
    assert got["status"]["observedGeneration"] == got["metadata"]["generation"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("my-deployment", id="short name"),
        pytest.param("a" * 250, id="very long name truncated"),
        pytest.param("a" * 242, id="very long name not truncated"),
    ],
)
def test_deployment_controller_generate_replica_set_name(name: str) -> None:
    """``TestDeploymentController_generateReplicaSetName``: the created set's name fits 253
    chars and keeps as much of the Deployment's name as the hash leaves room for. (The
    hash here is not upstream's spew hash, so its length, and the cut, may differ.)"""
    h = _harness()
    _deployment(h, name)
    h.dc._sync(f"default/{name}")
    (rs,) = h.rss()
    rs_name = rs["metadata"]["name"]
    portion, template_hash = rs_name.rsplit("-", 1)
    assert len(rs_name) <= 253
    assert portion == name[: 253 - 1 - len(template_hash)]


def test_sync_deployment_deletion_race() -> None:
    """``TestSyncDeploymentDeletionRace``: the cache says the Deployment is live, the
    apiserver that it is being deleted; the recheck before adopting a matching orphan
    fails the sync (to requeue), and nothing is adopted or created."""
    h = _harness()
    d = _deployment(h)
    d["metadata"]["finalizers"] = ["test.garhwal.dev/keep"]
    d = h.server.update(d)
    orphan = _rs(h, d, "rs1", owned=False)
    h.server.delete("apps/v1", "Deployment", "foo", "default")
    assert h.dc._deps is not None
    h.dc._deps.cache["default/foo"] = d  # Lister (cache) says NOT deleted
    with pytest.raises(ApiError):
        h.dc._sync("default/foo")
    assert [rs["metadata"]["name"] for rs in h.rss()] == ["rs1"]
    assert h.server.get("apps/v1", "ReplicaSet", "rs1", "default")["metadata"].get(
        "ownerReferences"
    ) is None
    assert h.rss()[0]["metadata"]["resourceVersion"] == orphan["metadata"]["resourceVersion"]


def test_reentrant_rollback() -> None:
    """``TestReentrantRollback``: rolling back to revision 0 (the previous one) updates
    only the Deployment: its template becomes the old set's and the annotation is cleared;
    no ReplicaSet is written."""
    h = _harness()
    d = _deployment(h)
    d["metadata"]["annotations"] = {REVISION: "2", "deprecated.deployment.rollback.to": "0"}
    d = h.server.update(d)
    selector = {"matchLabels": {**LABELS, "pod-template-hash": "hash"}}
    template = {**d["spec"]["template"], "metadata": {"labels": {**LABELS, "pod-template-hash": "hash"}}}
    old_template = {**template, "spec": {**template["spec"], "terminationGracePeriodSeconds": 1}}
    made = {}
    for name, replicas, rev, tmpl in (
        ("deploymentrs-old", 0, "1", old_template), ("deploymentrs-new", 1, "2", template)
    ):
        made[name] = h.server.create({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "labels": dict(LABELS),
                         "annotations": {REVISION: rev}, "ownerReferences": [_owner(d)]},
            "spec": {"replicas": replicas, "selector": selector, "template": tmpl},
        })
    h.dc._sync("default/foo")
    got = h.server.get("apps/v1", "Deployment", "foo", "default")
    assert "deprecated.deployment.rollback.to" not in (got["metadata"].get("annotations") or {})
    assert got["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 1
    assert got["spec"]["template"]["metadata"]["labels"] == LABELS
    for name, rs in made.items():
        now = h.server.get("apps/v1", "ReplicaSet", name, "default")
        assert now["metadata"]["resourceVersion"] == rs["metadata"]["resourceVersion"]

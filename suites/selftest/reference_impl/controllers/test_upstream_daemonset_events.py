"""Upstream ``daemon_controller_test.go``: the informer handlers (which sets a pod, node or
update queues), ``getNodesToDaemonPods`` and unscheduled pods of vanished nodes."""

from __future__ import annotations

import copy

import pytest
from daemon_upstream_env import (
    NO_SCHEDULE_TAINTS,
    NS,
    SIMPLE_DS_LABEL,
    SIMPLE_DS_LABEL2,
    SIMPLE_NODE_LABEL,
    STRATEGIES,
    Env,
    Obj,
    new_daemon_set,
)

from reference_impl.controllers.daemon.controller import should_ignore_node_update

strategies = pytest.mark.parametrize("strategy", [pytest.param(s, id=n) for n, s in STRATEGIES])


def _pod(name: str, node: str, labels: dict[str, str], ds: Obj | None, rv: str = "1") -> Obj:
    """``newPod`` as an informer object (not stored)."""
    meta: Obj = {"name": name, "namespace": NS, "labels": dict(labels), "resourceVersion": rv}
    if ds is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
                                    "uid": ds["metadata"]["uid"], "controller": True}]  # fmt: skip
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"nodeName": node}}


def _bumped(pod: Obj) -> Obj:
    """``bumpResourceVersion`` on a copy."""
    out = copy.deepcopy(pod)
    out["metadata"]["resourceVersion"] = str(int(pod["metadata"]["resourceVersion"]) + 1)
    return out


def _sets(strategy: Obj, *names: str, third_selects_label2: bool = False) -> tuple[Env, list[Obj]]:
    env = Env()
    out = []
    for name in names:
        ds = new_daemon_set(name, strategy)
        if third_selects_label2 and name == "foo3":
            ds["spec"]["selector"]["matchLabels"] = dict(SIMPLE_DS_LABEL2)
            ds["spec"]["template"]["metadata"]["labels"] = dict(SIMPLE_DS_LABEL2)
        out.append(env.add_ds(ds))
    env.drain()
    return env, out


def test_add_node() -> None:
    """TestAddNode: every added node is queued for syncNodeUpdate."""
    env = Env()
    ds = new_daemon_set("ds")
    ds["spec"]["template"]["spec"]["nodeSelector"] = dict(SIMPLE_NODE_LABEL)
    env.add_ds(ds)
    env.drain_nodes()
    env.add_node("node1")
    assert env.drain_nodes() == ["node1"]
    env.add_node("node2", SIMPLE_NODE_LABEL)
    assert env.drain_nodes() == ["node2"]


@strategies
def test_add_pod(strategy: Obj) -> None:
    """TestAddPod: a controlled pod queues its set."""
    env, (ds1, ds2) = _sets(strategy, "foo1", "foo2")
    env.fire("Pod", "ADDED", _pod("pod1", "node-0", SIMPLE_DS_LABEL, ds1))
    assert env.drain() == [f"{NS}/foo1"]
    env.fire("Pod", "ADDED", _pod("pod2", "node-0", SIMPLE_DS_LABEL, ds2))
    assert env.drain() == [f"{NS}/foo2"]


@strategies
def test_add_pod_orphan(strategy: Obj) -> None:
    """TestAddPodOrphan: an orphan queues every set selecting it."""
    env, _ = _sets(strategy, "foo1", "foo2", "foo3", third_selects_label2=True)
    env.fire("Pod", "ADDED", _pod("pod1", "node-0", SIMPLE_DS_LABEL, None))
    assert env.drain() == [f"{NS}/foo1", f"{NS}/foo2"]


@strategies
def test_update_pod(strategy: Obj) -> None:
    """TestUpdatePod."""
    env, (ds1, ds2) = _sets(strategy, "foo1", "foo2")
    pod1 = _pod("pod1", "node-0", SIMPLE_DS_LABEL, ds1)
    env.fire("Pod", "MODIFIED", _bumped(pod1), pod1)
    assert env.drain() == [f"{NS}/foo1"]
    pod2 = _pod("pod2", "node-0", SIMPLE_DS_LABEL, ds2)
    env.fire("Pod", "MODIFIED", _bumped(pod2), pod2)
    assert env.drain() == [f"{NS}/foo2"]


@strategies
def test_update_pod_orphan_same_labels(strategy: Obj) -> None:
    """TestUpdatePodOrphanSameLabels."""
    env, _ = _sets(strategy, "foo1", "foo2")
    pod = _pod("pod1", "node-0", SIMPLE_DS_LABEL, None)
    env.fire("Pod", "MODIFIED", _bumped(pod), pod)
    assert env.drain() == []


@strategies
def test_update_pod_orphan_with_new_labels(strategy: Obj) -> None:
    """TestUpdatePodOrphanWithNewLabels."""
    env, _ = _sets(strategy, "foo1", "foo2")
    pod = _pod("pod1", "node-0", SIMPLE_DS_LABEL, None)
    prev = copy.deepcopy(pod)
    prev["metadata"]["labels"] = {"foo2": "bar2"}
    env.fire("Pod", "MODIFIED", _bumped(pod), prev)
    assert env.drain() == [f"{NS}/foo1", f"{NS}/foo2"]


@strategies
def test_update_pod_change_controller_ref(strategy: Obj) -> None:
    """TestUpdatePodChangeControllerRef: the old and the new owner are both queued."""
    env, (ds1, ds2) = _sets(strategy, "foo1", "foo2")
    pod = _pod("pod1", "node-0", SIMPLE_DS_LABEL, ds1)
    prev = _pod("pod1", "node-0", SIMPLE_DS_LABEL, ds2)
    env.fire("Pod", "MODIFIED", _bumped(pod), prev)
    assert len(env.drain()) == 2


@strategies
def test_update_pod_controller_ref_removed(strategy: Obj) -> None:
    """TestUpdatePodControllerRefRemoved: the old owner and the selecting sets."""
    env, (ds1, _) = _sets(strategy, "foo1", "foo2")
    prev = _pod("pod1", "node-0", SIMPLE_DS_LABEL, ds1)
    pod = _bumped(prev)
    del pod["metadata"]["ownerReferences"]
    env.fire("Pod", "MODIFIED", pod, prev)
    assert len(env.drain()) == 2


@strategies
def test_delete_pod(strategy: Obj) -> None:
    """TestDeletePod."""
    env, (ds1, ds2) = _sets(strategy, "foo1", "foo2")
    env.fire("Pod", "DELETED", _pod("pod1", "node-0", SIMPLE_DS_LABEL, ds1))
    assert env.drain() == [f"{NS}/foo1"]
    env.fire("Pod", "DELETED", _pod("pod2", "node-0", SIMPLE_DS_LABEL, ds2))
    assert env.drain() == [f"{NS}/foo2"]


@strategies
def test_delete_pod_orphan(strategy: Obj) -> None:
    """TestDeletePodOrphan: a deleted orphan queues nothing."""
    env, _ = _sets(strategy, "foo1", "foo2", "foo3", third_selects_label2=True)
    env.fire("Pod", "DELETED", _pod("pod1", "node-0", SIMPLE_DS_LABEL, None))
    assert env.drain() == []


def _node(name: str, labels: dict[str, str] | None = None, taints: list[Obj] | None = None,
          allocatable: dict[str, str] | None = None) -> Obj:  # fmt: skip
    node: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}],
                            "allocatable": allocatable or {"pods": "100"}}}  # fmt: skip
    if labels:
        node["metadata"]["labels"] = dict(labels)
    if taints:
        node["spec"]["taints"] = copy.deepcopy(taints)
    return node


def _selecting(name: str) -> Obj:
    ds = new_daemon_set(name)
    ds["spec"]["template"]["spec"]["nodeSelector"] = dict(SIMPLE_NODE_LABEL)
    return ds


def _resource_ds(name: str) -> Obj:
    ds = new_daemon_set(name)
    ds["spec"]["template"]["spec"] = {"containers": [
        {"name": "c", "image": "img", "resources": {"requests": {"memory": "200M", "cpu": "200m"}}}]}
    return ds


_UPDATE_NODE_ROWS = [
    pytest.param(_node("node1"), _node("node1"), _selecting("ds"), False, 0, False,
                 id="Nothing changed, should not enqueue"),
    pytest.param(_node("node1"), _node("node1", SIMPLE_NODE_LABEL), _selecting("ds"), True, 0, False,
                 id="Node labels changed"),
    pytest.param(_node("node1", taints=NO_SCHEDULE_TAINTS), _node("node1"), new_daemon_set("ds"), True, 0, False,
                 id="Node taints changed"),
    pytest.param(_node("node1"), _node("node1", allocatable={"memory": "200M", "cpu": "200m", "pods": "100"}),
                 _resource_ds("ds"), False, 1, False, id="Node Allocatable changed"),
    pytest.param(_node("node1"), _node("node1", SIMPLE_NODE_LABEL), _selecting("ds"), True, 0, True,
                 id="Pod transitions from misscheduled to scheduled due to node label change"),
]  # fmt: skip


@strategies
@pytest.mark.parametrize(("old", "new", "ds", "should_enqueue", "creates", "pre_existing"), _UPDATE_NODE_ROWS)
def test_update_node(
    strategy: Obj, old: Obj, new: Obj, ds: Obj, should_enqueue: bool, creates: int, pre_existing: bool
) -> None:
    """TestUpdateNode: label and taint changes go to syncNodeUpdate, which queues the set
    when it must create, delete, or recount a misscheduled pod."""
    env = Env()
    env.add_node("node1", (old["metadata"].get("labels")), taints=old["spec"].get("taints"))
    ds = copy.deepcopy(ds)
    ds["spec"]["updateStrategy"] = copy.deepcopy(strategy)
    stored = env.add_ds(ds)
    env.expect_sync(creates, 0, 0, name="ds")
    if pre_existing:
        # The row's set says one pod is misscheduled (upstream's lister never sees the
        # sync's status write, so it keeps that).
        stored = env.ds("ds")
        env.server.update_status({**stored, "status": {**stored["status"], "numberMisscheduled": 1}})
        env.add_pods("node1", SIMPLE_DS_LABEL, stored, 1)
    env.drain_nodes()
    stored_node = env.server.get("v1", "Node", "node1")
    updated = {**stored_node, "metadata": {**stored_node["metadata"], "labels": new["metadata"].get("labels", {})},
               "spec": {**stored_node["spec"], "taints": new["spec"].get("taints", [])}}  # fmt: skip
    if not updated["spec"]["taints"]:
        del updated["spec"]["taints"]
    stored_node = env.server.update(updated)
    env.server.update_status({**stored_node, "status": {**stored_node["status"],
                                                        "allocatable": new["status"]["allocatable"]}})  # fmt: skip
    env.drain()
    enqueued: list[str] = []
    env.ctrl._enqueue = lambda ds: enqueued.append(ds["metadata"]["name"])  # type: ignore[method-assign]
    for key in env.drain_nodes():
        env.ctrl.sync_node_update(key)
    assert ("ds" in enqueued) == should_enqueue


def _with_controller(pod: Obj) -> Obj:
    pod["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "ReplicationController",
                                           "name": "rc", "uid": "rc-uid", "controller": True}]  # fmt: skip
    return pod


def _plain(name: str, node: str) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "img",
                                 "resources": {"requests": {"memory": "50M", "cpu": "50m"}}}]}  # fmt: skip
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS}, "spec": spec}


_DELETE_NO_DAEMON_ROWS = [
    pytest.param(False, "pod_0", "node1", id="Deleted non-daemon pods to release resources"),
    pytest.param(True, "pod_0", "node1", id="Deleted non-daemon pods (with controller) to release resources"),
    pytest.param(True, "pod_5", "", id="Deleted no scheduled pods"),
]


@strategies
@pytest.mark.parametrize(("controlled", "deleted", "deleted_node"), _DELETE_NO_DAEMON_ROWS)
def test_delete_no_daemon_pod(strategy: Obj, controlled: bool, deleted: str, deleted_node: str) -> None:
    """TestDeleteNoDaemonPod: deleting pods no DaemonSet controls queues nothing. (The
    controller refs carry a kind and uid here, which validation requires.)"""
    env = Env()
    env.add_node("node1")
    ds = new_daemon_set("ds", strategy)
    ds["spec"]["template"]["spec"] = _plain("x", "")["spec"]
    env.add_ds(ds)
    for i in range(4):
        pod = _plain(f"pod-{i}", "node1")
        env.server.create(_with_controller(pod) if controlled else pod)
    env.expect_sync(1, 0, 0, name="ds")
    env.drain()
    gone = _plain(deleted, deleted_node)
    env.fire("Pod", "DELETED", _with_controller(gone) if controlled else gone)
    assert env.drain() == []


@strategies
def test_delete_unscheduled_pod_for_not_existing_node(strategy: Obj) -> None:
    """TestDeleteUnscheduledPodForNotExistingNode: an unscheduled pod aimed at a node
    that is gone is deleted; a scheduled one on a missing node is left alone."""
    env = Env()
    ds = env.add_ds(new_daemon_set("foo", strategy))
    env.add_nodes(0, 1)
    env.add_pods("node-0", SIMPLE_DS_LABEL, ds, 1)
    env.add_pods("node-1", SIMPLE_DS_LABEL, ds, 1)
    pod = env.new_pod("pod1-node-3", "", SIMPLE_DS_LABEL, ds)
    pod["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}]}}}
    env.server.delete("v1", "Pod", pod["metadata"]["name"], NS)
    del pod["metadata"]["resourceVersion"]
    env.server.create(pod)
    env.expect_sync(0, 1, 0)


def _get_nodes_rows() -> list[object]:
    return [
        pytest.param(False, id="exclude deleted terminal pods"),
        pytest.param(True, id="include deleted terminal pods"),
    ]


@pytest.mark.parametrize("include", _get_nodes_rows())
def test_get_nodes_to_daemon_pods(include: bool) -> None:
    """TestGetNodesToDaemonPods: owned and matching orphan pods by node; not those that
    do not match, those of another set, nor (unless asked) terminal pods being deleted."""
    env = Env()
    ds = env.add_ds(new_daemon_set("foo"))
    ds2 = env.add_ds(new_daemon_set("foo2"))
    env.add_nodes(0, 2)

    def deleting(pod: Obj) -> Obj:
        env.server.update({**pod, "metadata": {**pod["metadata"], "finalizers": ["example.com/keep"]}})
        env.server.delete("v1", "Pod", pod["metadata"]["name"], NS)
        out: Obj = env.server.get("v1", "Pod", pod["metadata"]["name"], NS)
        return out

    wanted = [
        env.new_pod("matching-owned-0-", "node-0", SIMPLE_DS_LABEL, ds),
        env.new_pod("matching-orphan-0-", "node-0", SIMPLE_DS_LABEL, None),
        env.new_pod("matching-owned-1-", "node-1", SIMPLE_DS_LABEL, ds),
        env.new_pod("matching-orphan-1-", "node-1", SIMPLE_DS_LABEL, None),
        env.new_pod("matching-owned-succeeded-pod-0-", "node-0", SIMPLE_DS_LABEL, ds, phase="Succeeded"),
    ]
    ignored = [
        env.new_pod("non-matching-owned-0-", "node-0", SIMPLE_DS_LABEL2, ds),
        env.new_pod("non-matching-orphan-1-", "node-1", SIMPLE_DS_LABEL2, None),
        env.new_pod("matching-owned-by-other-0-", "node-0", SIMPLE_DS_LABEL, ds2),
    ]
    failed_deleted = deleting(env.new_pod("matching-owned-failed-deleted-pod-1-", "node-1", SIMPLE_DS_LABEL,
                                          ds, phase="Failed"))  # fmt: skip
    if include:
        wanted.append(failed_deleted)
    else:
        wanted.append(env.new_pod("matching-owned-failed-pod-1-", "node-1", SIMPLE_DS_LABEL, ds, phase="Failed"))
        ignored += [
            deleting(env.new_pod("matching-owned-succeeded-deleted-pod-0-", "node-0", SIMPLE_DS_LABEL, ds,
                                 phase="Succeeded")),  # fmt: skip
            failed_deleted,
        ]
    got = env.ctrl.nodes_to_daemon_pods(env.ds(), include)
    names = set()
    for node, pods in got.items():
        for pod in pods:
            assert pod["spec"]["nodeName"] == node
            names.add(pod["metadata"]["name"])
    assert names == {p["metadata"]["name"] for p in wanted}
    assert not names & {p["metadata"]["name"] for p in ignored}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(_node("node1"), _node("node1"), True, id="Nothing changed"),
        pytest.param(_node("node1", taints=NO_SCHEDULE_TAINTS), _node("node1"), False, id="Node taints changed"),
        pytest.param(_node("node1"), _node("node1", SIMPLE_NODE_LABEL), False, id="Node labels changed"),
    ],
)  # fmt: skip
def test_should_ignore_node_update(old: Obj, new: Obj, want: bool) -> None:
    """TestShouldIgnoreNodeUpdate."""
    assert should_ignore_node_update(old, new) is want


@pytest.mark.skip(reason="DeletedFinalStateUnknown tombstones do not occur: the model's informers "
                  "are fed every event at commit, so no delete is ever missed")
def test_delete_final_state_unknown() -> None:
    """TestDeleteFinalStateUnknown."""


@pytest.mark.skip(reason="needs a pod control whose creates never reach the pod informer (so the "
                  "expectations stay unfulfilled across syncs); here created pods are seen at "
                  "commit and the expectations are met at once")
def test_expectations_on_recreate() -> None:
    """TestExpectationsOnRecreate."""

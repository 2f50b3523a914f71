"""Upstream ``pkg/controller/daemon/util/daemonset_util_test.go`` and the pure tables of
``daemon_controller_test.go`` (``TestNodeShouldRunDaemonPod``, ``TestStoreDaemonSetStatus``),
against the reference's functions directly."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.controllers.daemon.placement import node_should_run_daemon_pod
from reference_impl.controllers.daemon.status import store_daemon_set_status
from reference_impl.controllers.daemon.util import (
    HASH_LABEL,
    TEMPLATE_GENERATION_LABEL,
    TargetNodeError,
    create_pod_template,
    get_target_node_name,
    is_pod_updated,
    replace_daemonset_pod_node_name_node_affinity,
)
from reference_impl.errors import ApiError

Obj = dict[str, Any]
SIMPLE_DS_LABEL = {"name": "simple-daemon", "type": "production"}
SIMPLE_DS_LABEL2 = {"name": "simple-daemon", "type": "test"}


def _pod(labels: dict[str, str] | None) -> Obj:
    meta: Obj = {"name": "pod1", "namespace": "default"}
    if labels is not None:
        meta["labels"] = labels
    return {"metadata": meta, "spec": {"nodeName": "node1"}}


_GEN, _BAD, _HASH = 12345, 12350, "55555"
_LABELS = {TEMPLATE_GENERATION_LABEL: str(_GEN), HASH_LABEL: _HASH}
_NO_HASH = {TEMPLATE_GENERATION_LABEL: str(_GEN)}


@pytest.mark.parametrize(
    ("generation", "labels", "hash_", "want"),
    [
        pytest.param(_GEN, _LABELS, _HASH, True, id="templateGeneration and hash both match"),
        pytest.param(_GEN, _LABELS, _HASH + "123", True, id="templateGeneration matches, hash doesn't"),
        pytest.param(_GEN, _NO_HASH, _HASH, True, id="templateGeneration matches, no hash label, has hash"),
        pytest.param(_GEN, _NO_HASH, "", True, id="templateGeneration matches, no hash label, no hash"),
        pytest.param(_GEN, _LABELS, "", True, id="templateGeneration matches, has hash label, no hash"),
        pytest.param(_BAD, _LABELS, _HASH, True, id="templateGeneration doesn't match, hash does"),
        pytest.param(_BAD, _LABELS, _HASH + "123", False, id="templateGeneration and hash don't match"),
        pytest.param(_GEN, {}, "", False, id="empty labels, no hash"),
        pytest.param(_GEN, {}, _HASH, False, id="empty labels"),
        pytest.param(_GEN, None, _HASH, False, id="no labels"),
    ],
)
def test_is_pod_updated(generation: int, labels: dict[str, str] | None, hash_: str, want: bool) -> None:
    """TestIsPodUpdated."""
    assert is_pod_updated(_pod(labels), hash_, generation) is want


@pytest.mark.parametrize(
    ("generation", "hash_", "unique"),
    [pytest.param(1, "", False, id="generation 1, no hash"), pytest.param(2, "3242341807", True, id="generation 2, hash")],
)
def test_create_pod_template(generation: int, hash_: str, unique: bool) -> None:
    """TestCreatePodTemplate: the generation label always, the hash label when given."""
    labels = create_pod_template({}, generation, hash_)["metadata"]["labels"]
    assert labels[TEMPLATE_GENERATION_LABEL] == str(generation)
    assert labels.get(HASH_LABEL) == (hash_ if unique else None)


def _name_term(*names: str, op: str = "In", key: str = "metadata.name") -> Obj:
    return {"matchFields": [{"key": key, "operator": op, "values": list(names)}]}


def _required(*terms: Obj) -> Obj:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


_HOST_EXPR = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["host_1"]}]}
_PREFERRED = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 0, "preference": _HOST_EXPR}]}}  # fmt: skip
_EXPECTED = _required(_name_term("host_1"))


@pytest.mark.parametrize(
    ("affinity", "expected"),
    [
        pytest.param(None, _EXPECTED, id="nil affinity"),
        pytest.param(_required(_HOST_EXPR), _EXPECTED, id="hostname expression replaced"),
        pytest.param(_PREFERRED, {"nodeAffinity": {**_PREFERRED["nodeAffinity"],
                                                   **_EXPECTED["nodeAffinity"]}}, id="preferred kept"),  # fmt: skip
        pytest.param(_required(_name_term("host_1", "host_2")), _EXPECTED, id="two names narrowed"),
        pytest.param(None, _EXPECTED, id="nil affinity again"),
        pytest.param(_required({"matchExpressions": [{"key": "hostname", "operator": "In", "values": ["host_1"]}]},
                               _name_term("host_2")), _EXPECTED, id="expression and other name replaced"),
        pytest.param(_required(_name_term("host_2", op="NotIn")), _EXPECTED, id="NotIn replaced"),
        pytest.param(_required(_name_term("bar", key="metadata.foo")), _EXPECTED, id="unknown field key replaced"),
    ],
)  # fmt: skip
def test_replace_daemon_set_pod_node_name_node_affinity(affinity: Obj | None, expected: Obj) -> None:
    """TestReplaceDaemonSetPodNodeNameNodeAffinity (its rows are unnamed; named by content)."""
    got = replace_daemonset_pod_node_name_node_affinity(copy.deepcopy(affinity), "host_1")
    assert got == expected


def _target(name: str, spec: Obj) -> Obj:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


@pytest.mark.parametrize("gate", [pytest.param(None, id="no feature gates")])
@pytest.mark.parametrize(
    ("pod", "node", "err"),
    [
        pytest.param(_target("pod1", {"nodeName": "node-1"}), "node-1", False, id="spec.nodeName"),
        pytest.param(_target("pod2", {"affinity": _required(_name_term("node-1"))}), "node-1", False,
                     id="matchFields name"),
        pytest.param(_target("pod3", {"affinity": _required(_name_term("node-1", "node-2"))}), "", True,
                     id="two names"),
        pytest.param(_target("pod4", {}), "", True, id="no affinity"),
    ],
)  # fmt: skip
def test_get_target_node_name(gate: None, pod: Obj, node: str, err: bool) -> None:
    """TestGetTargetNodeName (upstream runs it per gate of forEachFeatureGate, which is
    called with none)."""
    if err:
        with pytest.raises(TargetNodeError):
            get_target_node_name(pod)
    else:
        assert get_target_node_name(pod) == node


# -- TestNodeShouldRunDaemonPod ---------------------------------------------------------


def _resources(node: str, memory: str, cpu: str, port: int | None = None) -> Obj:
    container: Obj = {"resources": {"requests": {"memory": memory, "cpu": cpu, "pods": "100"}}}
    if port:
        container["ports"] = [{"hostPort": port}]
    spec: Obj = {"containers": [container]}
    if node:
        spec["nodeName"] = node
    return spec


def _ds(spec: Obj) -> Obj:
    return {"metadata": {"name": "ds", "namespace": "default"},
            "spec": {"selector": {"matchLabels": SIMPLE_DS_LABEL},
                     "template": {"metadata": {"labels": SIMPLE_DS_LABEL}, "spec": spec}}}  # fmt: skip


def _affinity(value: str) -> Obj:
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "type", "operator": "In", "values": [value]}]}]}}}}  # fmt: skip


_SHOULD_RUN_ROWS = [
    pytest.param(_resources("", "50M", "0.5"), False, True, True, id="ShouldRunDaemonPod"),
    pytest.param(_resources("", "200M", "0.5"), False, True, True, id="InsufficientResourceError"),
    pytest.param(_resources("other-node", "50M", "0.5"), False, False, False, id="ErrPodNotMatchHostName"),
    pytest.param({"containers": [{"ports": [{"hostPort": 666}]}]}, False, True, True, id="ErrPodNotFitsHostPorts"),
    pytest.param(_resources("", "100M", "0.5"), False, True, True, id="InsufficientResourceError (pod on node)"),
    pytest.param(_resources("", "50M", "0.5"), False, True, True, id="ShouldRunDaemonPod (pod on node)"),
    pytest.param({"nodeSelector": SIMPLE_DS_LABEL2}, False, False, False, id="ErrNodeSelectorNotMatch"),
    pytest.param({"nodeSelector": SIMPLE_DS_LABEL}, False, True, True, id="ShouldRunDaemonPod (nodeSelector)"),
    pytest.param(_affinity("test"), False, False, False, id="ErrPodAffinityNotMatch"),
    pytest.param(_affinity("production"), False, True, True, id="ShouldRunDaemonPod (affinity)"),
    pytest.param(_resources("", "50M", "0.5"), True, True, True, id="ShouldRunDaemonPodOnUnschedulableNode"),
]  # fmt: skip


@pytest.mark.parametrize("strategy", ["OnDelete", "RollingUpdate"])
@pytest.mark.parametrize(("spec", "unschedulable", "should_run", "keep"), _SHOULD_RUN_ROWS)
def test_node_should_run_daemon_pod(
    strategy: str, spec: Obj, unschedulable: bool, should_run: bool, keep: bool
) -> None:
    """TestNodeShouldRunDaemonPod: resources and host ports are the scheduler's; pods on the
    node do not matter. (An unschedulable node here has no taint: the node lifecycle
    controller adds that, and daemon pods tolerate it.)"""
    node: Obj = {"metadata": {"name": "test-node", "labels": dict(SIMPLE_DS_LABEL)},
                 "spec": {"unschedulable": True} if unschedulable else {},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}],
                            "allocatable": {"memory": "100M", "cpu": "1", "pods": "100"}}}  # fmt: skip
    ds = _ds(spec)
    ds["spec"]["updateStrategy"] = {"type": strategy}
    assert node_should_run_daemon_pod(node, ds) == (should_run, keep)


# -- TestStoreDaemonSetStatus -----------------------------------------------------------

UPDATE_ERROR = ApiError("update error")
GET_ERROR = ApiError("get error")


class _Client:
    """The fake clientset's get and update reactors."""

    def __init__(self, ds: Obj, update_errors: int, get_errors: int) -> None:
        self.ds, self.update_errors, self.get_errors = ds, update_errors, get_errors
        self.updates = self.gets = 0

    def update_status(self, manifest: Obj) -> Obj:
        self.updates += 1
        if self.updates <= self.update_errors:
            raise UPDATE_ERROR
        return self.ds

    def get(self, *args: object) -> Obj:
        self.gets += 1
        if self.gets <= self.get_errors:
            raise GET_ERROR
        return self.ds


@pytest.mark.parametrize(
    ("update_errors", "get_errors", "updates", "gets", "err"),
    [
        pytest.param(0, 0, 1, 0, None, id="succeed immediately"),
        pytest.param(1, 0, 2, 1, None, id="succeed after one update failure"),
        pytest.param(2, 0, 2, 1, UPDATE_ERROR, id="fail after two update failures"),
        pytest.param(1, 1, 1, 1, GET_ERROR, id="fail after one update failure and one get failure"),
    ],
)
def test_store_daemon_set_status(
    update_errors: int, get_errors: int, updates: int, gets: int, err: ApiError | None
) -> None:
    """TestStoreDaemonSetStatus: one retry on the fresh object (StatusUpdateRetries)."""
    ds = _ds({})
    ds["metadata"]["generation"] = 1
    client = _Client(ds, update_errors, get_errors)
    counters = dict.fromkeys(
        ("desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled", "numberReady",
         "updatedNumberScheduled", "numberAvailable", "numberUnavailable"), 2)  # fmt: skip
    if err is None:
        store_daemon_set_status(client, ds, counters, True)
    else:
        with pytest.raises(ApiError) as info:
            store_daemon_set_status(client, ds, counters, True)
        assert info.value is err
    assert (client.updates, client.gets) == (updates, gets)

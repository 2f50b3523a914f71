"""Ports pkg/kubelet/lifecycle/predicate_test.go (v1.37.2) row by row against
``reference_impl.kubelet.admission``, plus ``predicateAdmitHandler.Admit`` reason and
message rows for each failure kind."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.kubelet.admission import (
    GOOS,
    AdmitResult,
    InsufficientResource,
    NodeInfo,
    PredicateFailure,
    admit,
    filter_with_refetch,
    reject_by_os_field,
    reject_by_os_selector,
    reject_by_supplemental_groups_policy,
    remove_missing_extended_resources,
    supplemental_groups_policy_stage,
)

Obj = dict[str, Any]
EXT = "foo.com/bar"
IMPLICIT_DRA = "deviceclass.resource.kubernetes.io/bar"
FILE_SOURCE = {"kubernetes.io/config.source": "file"}


# -- TestRemoveMissingExtendedResources ---------------------------------------------------


def _test_pod(requests: Obj, limits: Obj) -> Obj:
    """``makeTestPod``: one container and one init container with the same resources."""
    res = {"requests": dict(requests), "limits": dict(limits)}
    return {"spec": {"containers": [{"resources": copy.deepcopy(res)}],
                     "initContainers": [{"resources": copy.deepcopy(res)}]}}  # fmt: skip


def _dra_pod(name: str) -> Obj:
    """``makeTestPodWithDRAResource``."""
    return {
        "spec": {"containers": [{"name": "test-container",
                                 "resources": {"requests": {name: "1"}, "limits": {name: "1"}}}]},
        "status": {"extendedResourceClaimStatus": {
            "requestMappings": [{"resourceName": name, "containerName": "test-container"}]}},
    }  # fmt: skip


def _empty_requests(pod: Obj) -> Obj:
    out = copy.deepcopy(pod)
    for part in ("containers", "initContainers"):
        for c in out["spec"].get(part) or ():
            c["resources"]["requests"] = {}
    return out


def _alloc_node(allocatable: Obj) -> Obj:
    return {"status": {"allocatable": allocatable}}


REMOVE_ROWS = [
    pytest.param(_test_pod({}, {EXT: "1"}), {"foo.com/baz": "1"}, False,
                 _test_pod({}, {EXT: "1"}), id="requests in Limits should be ignored"),
    pytest.param(_test_pod({EXT: "1"}, {}), {EXT: "1"}, False, _test_pod({EXT: "1"}, {}),
                 id="requests for resources available in node should not be removed"),
    pytest.param(_test_pod({EXT: "1"}, {}), {"foo.com/baz": "1"}, False, _test_pod({}, {}),
                 id="requests for resources unavailable in node should be removed"),
    pytest.param(_test_pod({EXT: "1"}, {EXT: "1"}), {EXT: "0"}, False,
                 _test_pod({EXT: "1"}, {EXT: "1"}),
                 id="requests for extended resources with Allocatable 0 should not be removed"),
    pytest.param(_test_pod({EXT: "1"}, {EXT: "1"}), {}, False, _test_pod({}, {EXT: "1"}),
                 id="requests for extended resources that are not available in node should be removed"),
    pytest.param(_dra_pod(EXT), {EXT: "0"}, True, _empty_requests(_dra_pod(EXT)),
                 id="request for extended resource backed by DRA should be removed if Allocatable is 0"),
    pytest.param(_dra_pod(EXT), {}, True, _empty_requests(_dra_pod(EXT)),
                 id="request for extended resource backed by DRA should be removed if Allocatable is absent"),
    pytest.param(_dra_pod(IMPLICIT_DRA), {}, True, _empty_requests(_dra_pod(IMPLICIT_DRA)),
                 id="request for implicit extended resource backed by DRA should be removed"),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "allocatable", "dra", "want"), REMOVE_ROWS)
def test_remove_missing_extended_resources(pod: Obj, allocatable: Obj, dra: bool, want: Obj) -> None:
    before = copy.deepcopy(pod)
    got = remove_missing_extended_resources(pod, _alloc_node(allocatable), dra_extended=dra)
    assert got == want
    assert pod == before  # the pod itself is left alone (a deep copy is filtered)


# -- TestGeneralPredicates ----------------------------------------------------------------


def _resources(milli_cpu: int, memory: int, pods: int) -> Obj:
    """``makeResources``/``makeAllocatableResources`` with zero extended, storage, hugepages."""
    return {"cpu": f"{milli_cpu}m", "memory": str(memory), "pods": str(pods),
            "example.com/aaa": "0", "ephemeral-storage": "0", "hugepages-2Mi": "0"}  # fmt: skip


def _node(labels: Obj | None = None, taints: list[Obj] | None = None) -> Obj:
    meta: Obj = {"name": "machine1"}
    if labels:
        meta["labels"] = labels
    res = _resources(10, 20, 32)
    return {"metadata": meta, "spec": {"taints": taints} if taints else {},
            "status": {"capacity": dict(res), "allocatable": dict(res)}}  # fmt: skip


def _resource_pod(*requests: Obj) -> Obj:
    """``newResourcePod``."""
    return {"spec": {"containers": [{"resources": {"requests": r}} for r in requests]}}


def _port_pod(*ports: int) -> Obj:
    """``newPodWithPort``."""
    return {"spec": {"containers": [{"ports": [{"hostPort": p} for p in ports]}]}}


def _affinity_pod(node_name: str | None = None) -> Obj:
    term = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    spec: Obj = {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}}
    if node_name:
        spec["nodeName"] = node_name
    return {"metadata": {"annotations": dict(FILE_SOURCE)}, "spec": spec}  # fmt: skip


AFFINITY = PredicateFailure("NodeAffinity", "node(s) didn't match Pod's node affinity/selector")
NODE_NAME = PredicateFailure("NodeName", "node(s) didn't match the requested node name")
PORTS = PredicateFailure("NodePorts", "node(s) didn't have free ports for the requested pod ports")
TAINT = PredicateFailure("TaintToleration", "node(s) had taints that the pod didn't tolerate")
BOTH_TAINTS = [{"key": "foo", "effect": "NoSchedule"}, {"key": "bar", "effect": "NoExecute"}]

GENERAL_ROWS = [
    pytest.param({}, [_resource_pod({"cpu": "9m", "memory": "19"})], _node(), None, [],
                 id="no resources/port/host requested always fits"),
    pytest.param(_resource_pod({"cpu": "8m", "memory": "10"}),
                 [_resource_pod({"cpu": "5m", "memory": "19"})], _node(), None,
                 [InsufficientResource("cpu", 8, 5, 10), InsufficientResource("memory", 10, 19, 20)],
                 id="not enough cpu and memory resource"),
    pytest.param({"spec": {"nodeName": "machine2"}}, [], _node(), None, [NODE_NAME],
                 id="host not match"),
    pytest.param(_port_pod(123), [_port_pod(123)], _node(), None, [PORTS], id="hostport conflict"),
    pytest.param({"spec": {"tolerations": [{"key": "foo"}, {"key": "bar"}]}}, [],
                 _node(taints=BOTH_TAINTS), None, [], id="taint/toleration match"),
    pytest.param({}, [], _node(taints=[{"key": "foo", "effect": "NoSchedule"}]), None, [],
                 id="NoSchedule taint/toleration not match"),
    pytest.param({}, [], _node(taints=[{"key": "bar", "effect": "NoExecute"}]), None, [TAINT],
                 id="NoExecute taint/toleration not match"),
    pytest.param({}, [], _node(taints=[{"key": "baz", "effect": "PreferNoSchedule"}]), None, [],
                 id="PreferNoSchedule taint/toleration not match"),
    pytest.param({"metadata": {"annotations": dict(FILE_SOURCE)}}, [], _node(taints=BOTH_TAINTS),
                 None, [], id="static pods ignore taints"),
    pytest.param(_affinity_pod(), [], _node(), _node(), [AFFINITY], id="node affinity failure"),
    pytest.param(_affinity_pod("some-node-name"), [], _node(), _node({"foo": "bar"}),
                 [AFFINITY, NODE_NAME],
                 id="node affinity failure on cached node and node name doesn't match"),
    pytest.param(_affinity_pod(), [], _node(), _node({"foo": "bar"}), [],
                 id="node affinity failure on cached node, but not the fresh one"),
    pytest.param(_affinity_pod(), [], _node({"foo": "bar"}), _node(), [],
                 id="node affinity failure on fresh node, but not the cached one"),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "others", "cached", "synced", "want"), GENERAL_ROWS)
def test_general_predicates(
    pod: Obj, others: list[Obj], cached: Obj, synced: Obj | None, want: list[object]
) -> None:
    pod = {"metadata": {}, "spec": {}, **pod}
    info = NodeInfo(cached, others)

    def get_node(use_cache: bool) -> Obj:
        node = cached if use_cache else synced
        assert node is not None
        return node

    assert filter_with_refetch(pod, info, get_node) == want


# -- TestRejectPodAdmissionBasedOnOSSelector / OSField -------------------------------------


def _os_labelled(os_name: str) -> Obj:
    return {"metadata": {"labels": {"kubernetes.io/os": os_name}}, "spec": {}}


OS_SELECTOR_ROWS = [
    pytest.param(_os_labelled(GOOS), _os_labelled(GOOS), False, id="OS label match"),
    pytest.param(_os_labelled(GOOS), _os_labelled("dummyOS"), False,
                 id="dummyOS label, but the underlying OS matches"),
    pytest.param(_os_labelled("dummyOS"), _os_labelled("dummyOS"), True,
                 id="dummyOS label, but the underlying OS doesn't match"),
    pytest.param(_os_labelled("dummyOS"), _os_labelled("dummyOS"), True,
                 id="dummyOS label, but the underlying OS doesn't match (repeated row)"),
    pytest.param(_os_labelled("dummyOS"), _os_labelled("dummyOS"), True,
                 id="OS field mismatch, OS label on node object would be reset to correct value"),
    pytest.param({"metadata": {}, "spec": {}}, _os_labelled("dummyOS"), False,
                 id="No label selector on the pod, should be admitted"),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "node", "want"), OS_SELECTOR_ROWS)
def test_reject_pod_admission_based_on_os_selector(pod: Obj, node: Obj, want: bool) -> None:
    assert reject_by_os_selector(pod, node) is want


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param({"spec": {"os": {"name": GOOS}}}, False, id="OS field match"),
        pytest.param({"spec": {"os": {"name": "dummyOS"}}}, True, id="OS field mismatch"),
        pytest.param({"spec": {}}, False, id="no OS field"),
    ],
)
def test_reject_pod_admission_based_on_os_field(pod: Obj, want: bool) -> None:
    assert reject_by_os_field(pod) is want


# -- TestPodAdmissionBasedOnSupplementalGroupsPolicy --------------------------------------

WITH_FEATURE = {"metadata": {"name": "test"}, "status": {"features": {"supplementalGroupsPolicy": True}}}
WITHOUT_FEATURE = {"metadata": {"name": "test"}}
USING = {"spec": {"securityContext": {"supplementalGroupsPolicy": "Strict"}}}
NOT_USING: Obj = {"spec": {}}

SGP_ROWS = [
    pytest.param("1.33", WITHOUT_FEATURE, USING, True,
                 id="feature=Beta, node=feature not supported, pod=in use: it should REJECT"),
    pytest.param("1.33", WITH_FEATURE, USING, False,
                 id="feature=Beta, node=feature supported, pod=in use: it should ADMIT"),
    pytest.param("1.33", WITHOUT_FEATURE, NOT_USING, False,
                 id="feature=Beta, node=feature not supported, pod=not in use: it should ADMIT"),
    pytest.param("1.33", WITH_FEATURE, NOT_USING, False,
                 id="feature=Beta, node=feature supported, pod=not in use: it should ADMIT"),
    pytest.param("1.32", WITHOUT_FEATURE, USING, False,
                 id="feature=Alpha, node=feature not supported, pod=feature used: it should ADMIT"),
    pytest.param("1.32", WITHOUT_FEATURE, NOT_USING, False,
                 id="feature=Alpha, node=feature not supported, pod=feature not used: it should ADMIT"),
    pytest.param("1.32", WITH_FEATURE, USING, False,
                 id="feature=Alpha, node=feature supported, pod=feature used: it should ADMIT"),
    pytest.param("1.32", WITH_FEATURE, NOT_USING, False,
                 id="feature=Alpha, node=feature supported, pod=feature not used: it should ADMIT"),
    pytest.param("1.30", WITHOUT_FEATURE, USING, False,
                 id="feature=NotReleased, node=feature not supported, pod=feature used: it should ADMIT"),
    pytest.param("1.30", WITHOUT_FEATURE, NOT_USING, False,
                 id="feature=NotReleased, node=feature not supported, pod=feature not used: it should ADMIT"),
]  # fmt: skip


@pytest.mark.parametrize(("version", "node", "pod", "want"), SGP_ROWS)
def test_pod_admission_based_on_supplemental_groups_policy(
    version: str, node: Obj, pod: Obj, want: bool
) -> None:
    stage = supplemental_groups_policy_stage(version)
    assert reject_by_supplemental_groups_policy(pod, node, stage) is want


# -- predicateAdmitHandler.Admit: reasons and messages ------------------------------------


def _admit(pod: Obj, others: list[Obj], node: Obj | None) -> AdmitResult:
    pod = {"metadata": {}, "spec": {}, **pod}
    return admit(pod, others, lambda _cache: node)


ADMIT_ROWS = [
    pytest.param(_resource_pod({"cpu": "8m"}), [_resource_pod({"cpu": "5m"})], _node(),
                 AdmitResult(False, "OutOfcpu", "Node didn't have enough resource: cpu, "
                             "requested: 8, used: 5, capacity: 10"), id="OutOfcpu"),
    pytest.param(_resource_pod({"memory": "10"}), [_resource_pod({"memory": "19"})], _node(),
                 AdmitResult(False, "OutOfmemory", "Node didn't have enough resource: memory, "
                             "requested: 10, used: 19, capacity: 20"), id="OutOfmemory"),
    pytest.param({}, [{"spec": {}}] * 32, _node(),
                 AdmitResult(False, "OutOfpods", "Node didn't have enough resource: pods, "
                             "requested: 1, used: 32, capacity: 32"), id="OutOfpods"),
    pytest.param(_resource_pod({"example.com/aaa": "1"}), [], _node(),
                 AdmitResult(False, "OutOfexample.com/aaa", "Node didn't have enough resource: "
                             "example.com/aaa, requested: 1, used: 0, capacity: 0"),
                 id="OutOf an extended resource the node has at zero"),
    pytest.param(_resource_pod({"example.com/bbb": "1"}), [], _node(), AdmitResult(True),
                 id="an extended resource unknown to the node is not checked"),
    pytest.param(_resource_pod({"cpu": "8m", "memory": "10"}),
                 [_resource_pod({"cpu": "5m", "memory": "19"})], _node(),
                 AdmitResult(False, "OutOfcpu", "Node didn't have enough resource: cpu, "
                             "requested: 8, used: 5, capacity: 10"), id="only the first reason"),
    pytest.param({"spec": {"initContainers": [
                     {"restartPolicy": "Always", "resources": {"requests": {"cpu": "3m"}}},
                     {"resources": {"requests": {"cpu": "6m"}}}],
                   "containers": [{"resources": {"requests": {"cpu": "1m"}}}]}},
                 [_resource_pod({"cpu": "2m"})], _node(),
                 AdmitResult(False, "OutOfcpu", "Node didn't have enough resource: cpu, "
                             "requested: 9, used: 2, capacity: 10"),
                 id="an init container runs next to the sidecars started before it"),
    pytest.param({"spec": {"nodeName": "machine2"}}, [], _node(),
                 AdmitResult(False, "NodeName", "Predicate NodeName failed: node(s) didn't match "
                             "the requested node name"), id="NodeName"),
    pytest.param({}, [], _node(taints=[{"key": "bar", "effect": "NoExecute"}]),
                 AdmitResult(False, "TaintToleration", "Predicate TaintToleration failed: node(s) "
                             "had taints that the pod didn't tolerate"), id="TaintToleration"),
    pytest.param({"spec": {"nodeSelector": {"zone": "a"}}}, [], _node(),
                 AdmitResult(False, "NodeAffinity", "Predicate NodeAffinity failed: node(s) didn't "
                             "match Pod's node affinity/selector"), id="NodeAffinity"),
    pytest.param(_os_labelled("windows"), [], _node(),
                 AdmitResult(False, "PodOSSelectorNodeLabelDoesNotMatch", "Failed to admit pod as "
                             "the `kubernetes.io/os` label doesn't match node label"),
                 id="PodOSSelectorNodeLabelDoesNotMatch before the resource fit"),
    pytest.param({"spec": {"os": {"name": "windows"}}}, [], _node(),
                 AdmitResult(False, "PodOSNotSupported",
                             "Failed to admit pod as the OS field doesn't match node OS"),
                 id="PodOSNotSupported"),
    pytest.param(USING, [], _node(),
                 AdmitResult(False, "SupplementalGroupsPolicyNotSupported",
                             "SupplementalGroupsPolicy=Strict is not supported in this node"),
                 id="SupplementalGroupsPolicyNotSupported"),
    pytest.param({}, [], None,
                 AdmitResult(False, "InvalidNodeInfo", "Kubelet cannot get node info."),
                 id="InvalidNodeInfo"),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "others", "node", "want"), ADMIT_ROWS)
def test_admit(pod: Obj, others: list[Obj], node: Obj | None, want: AdmitResult) -> None:
    assert _admit(pod, others, node) == want

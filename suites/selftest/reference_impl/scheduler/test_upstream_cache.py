"""Upstream's scheduler cache tables (pkg/scheduler/backend/cache/cache_test.go) against
the reference ``SchedulerCache``.

Ported: ``TestAssumePodScheduled``, ``TestAddPodWillConfirm``,
``TestAddPodAlwaysUpdatesPodInfoInNodeInfo``, ``TestAddPodWillReplaceAssumed``,
``TestUpdatePod``, ``TestUpdatePodAndGet``, ``TestEphemeralStorageResource``,
``TestRemovePod``, ``TestForgetPod``, ``TestRemoveAssumedPod``, ``TestNodeOperators``.

A NodeInfo is compared on what ``deepEqualWithoutGeneration`` sees and the reference keeps:
the pods (in order), Requested, NonZeroRequested (see ``assert_non_zero``), the used host
ports and image states.
The pod-group and composite-pod-group tables are in test_upstream_cache_podgroups.py.
Not ported: ``TestDump`` (no cache dump), and the most-recently-updated list
(``headNode``): the reference lists nodes in node-tree order (test_upstream_node_tree.py)
and logs changes in ``NodeIndex.changed`` instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.pod_resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
)
from reference_impl.scheduler.framework.types import HostPort, NodeInfo, PodInfo, Resource

Obj = dict[str, Any]
NODE = "node"
NS = "node_info_cache_test"
MB = 1024 * 1024


def base_pod(node: str, name: str, cpu: str, mem: str, extended: str = "",
             ports: list[Obj] | None = None) -> Obj:
    """``makeBasePod``: one container "container" with the requests (memory only with cpu,
    the extended resource only with both) and the container ports."""
    req: dict[str, str] = {}
    if cpu:
        req = {"cpu": cpu, "memory": mem}
        if extended:
            k, v = extended.split(":")
            req[k] = v
    container: Obj = {"name": "container", "image": "pause", "resources": {"requests": req}}
    if ports:
        container["ports"] = ports
    return {
        "metadata": {"name": name, "namespace": NS, "uid": name},
        "spec": {"nodeName": node, "containers": [container]},
        "status": {},
    }


def port(host_port: int, ip: str = "", protocol: str = "") -> Obj:
    out: Obj = {"hostPort": host_port}
    if ip:
        out["hostIP"] = ip
    if protocol:
        out["protocol"] = protocol
    return out


P80 = [port(80, "127.0.0.1", "TCP")]
P8080 = [port(8080, "127.0.0.1", "TCP")]
TEST_PODS = [
    base_pod(NODE, "test-resource-request-and-port-0", "100m", "500", "", P80),
    base_pod(NODE, "test-resource-request-and-port-1", "100m", "500", "", P80),
    base_pod(NODE, "test-resource-request-and-port-2", "200m", "1Ki", "", P8080),
    base_pod(NODE, "test-nonzero-request", "", "", "", P80),
    base_pod(NODE, "test-extended-resource-1", "100m", "500", "example.com/foo:3", P80),
    base_pod(NODE, "test-extended-resource-2", "200m", "1Ki", "example.com/foo:5", P8080),
    base_pod(NODE, "test-extended-key", "100m", "500", "random-invalid-extended-key:100", [{}]),
]


def used_ports(ni: NodeInfo) -> set[HostPort]:
    """NodeInfo.UsedPorts as (ip, protocol, port) triples."""
    return {p for info in ni.pods_with_ports.values() for p in info.ports}


def assert_non_zero(ni: NodeInfo, want: Resource) -> None:
    """NonZeroRequested: upstream's holds only cpu and memory; the reference's also carries
    the other resources, always equal to Requested's (scoring reads them as upstream reads
    Requested)."""
    got = ni.non_zero_requested
    assert (got.milli_cpu, got.memory) == (want.milli_cpu, want.memory)
    assert (got.ephemeral_storage, got.scalar) == (ni.requested.ephemeral_storage, ni.requested.scalar)


def assert_node_info(ni: NodeInfo | None, requested: Resource, non_zero: Resource,
                     pods: list[Obj], ports: set[HostPort], images: dict[str, int] | None = None) -> None:
    """``deepEqualWithoutGeneration`` on the fields the reference keeps."""
    assert ni is not None
    assert ni.requested == requested
    assert_non_zero(ni, non_zero)
    assert [info.pod for info in ni.pods.values()] == pods
    assert used_ports(ni) == ports
    assert ni.images == (images or {})


def node_of(cache: SchedulerCache, name: str) -> NodeInfo | None:
    """``cache.nodes[name]``: the NodeInfo, ghost or not."""
    return cache._nodes.get(name)


def is_forgotten(cache: SchedulerCache, pod: Obj) -> bool:
    """``isForgottenFromCache``: neither assumed nor in the cache."""
    key = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
    return not cache.is_assumed(key) and cache.get_pod(key) is None


def key_of(pod: Obj) -> str:
    return f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"


def assume(cache: SchedulerCache, pod: Obj) -> str:
    """``cache.AssumePod(pod)``: the pod carries its node in spec.nodeName."""
    return cache.assume_pod(PodInfo(pod), pod["spec"]["nodeName"])


def forget(cache: SchedulerCache, pod: Obj) -> str:
    """``cache.ForgetPod(pod)``."""
    return cache.forget_pod(key_of(pod), pod["spec"].get("nodeName") or "")


def R(cpu: int = 0, mem: int = 0, eph: int = 0, scalar: dict[str, int] | None = None) -> Resource:
    return Resource(cpu, mem, eph, 0, scalar or {})


T80: set[HostPort] = {("127.0.0.1", "TCP", 80)}
T8080: set[HostPort] = {("127.0.0.1", "TCP", 8080)}


# -- TestAssumePodScheduled -----------------------------------------------------------


@pytest.mark.parametrize(
    ("pods", "requested", "non_zero", "ports"),
    [
        pytest.param([0], R(100, 500), R(100, 500), T80,
                     id="assumed one pod with resource request and used ports"),
        pytest.param([1, 2], R(300, 1524), R(300, 1524), T80 | T8080,
                     id="node requested resource are equal to the sum of the assumed pods "
                        "requested resource, node contains host ports defined by pods"),
        pytest.param([3], R(0, 0), R(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST), T80,
                     id="assumed pod without resource request"),
        pytest.param([4], R(100, 500, scalar={"example.com/foo": 3}), R(100, 500), T80,
                     id="assumed one pod with extended resource"),
        pytest.param([4, 5], R(300, 1524, scalar={"example.com/foo": 8}), R(300, 1524),
                     T80 | T8080, id="assumed two pods with extended resources"),
        pytest.param([6], R(100, 500), R(100, 500), set(),
                     id="assumed pod with random invalid extended resource key"),
    ],
)
def test_assume_pod_scheduled(pods: list[int], requested: Resource, non_zero: Resource,
                              ports: set[HostPort]) -> None:
    cache = SchedulerCache()
    chosen = [TEST_PODS[i] for i in pods]
    for pod in chosen:
        assert assume(cache, pod) == ""
        # The pod is in the cache now, so it can't be assumed again.
        assert assume(cache, pod) == (
            f"pod {pod['metadata']['uid']}({key_of(pod)}) is in the cache, so can't be assumed"
        )
    ni = node_of(cache, NODE)
    assert ni is not None
    assert ni.requested == requested
    assert_non_zero(ni, non_zero)
    assert [info.key for info in ni.pods.values()] == [key_of(p) for p in chosen]
    assert used_ports(ni) == ports
    assert ni.images == {}
    for pod in chosen:
        assert forget(cache, pod) == ""
        assert is_forgotten(cache, pod)


# -- TestAddPodWillConfirm ------------------------------------------------------------


def test_add_pod_will_confirm() -> None:
    pods = [base_pod(NODE, "test-1", "100m", "500", "", P80),
            base_pod(NODE, "test-2", "200m", "1Ki", "", P8080)]
    cache = SchedulerCache()
    for pod in pods:
        assert assume(cache, pod) == ""
    assert cache.add_pod(pods[0]) == ""
    # The pod is already in added state.
    assert cache.add_pod(pods[0]) == f"pod test-1({NS}/test-1) was already in added state"
    for pod in pods:
        if cache.is_assumed(key_of(pod)):
            assert forget(cache, pod) == ""
    assert_node_info(node_of(cache, NODE), R(100, 500), R(100, 500), [pods[0]], T80)


def test_add_pod_always_updates_pod_info_in_node_info() -> None:
    p1 = base_pod("node1", "test-1", "100m", "500", "", [port(80)])
    p2 = {**p1, "status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}}
    cache = SchedulerCache()
    assert assume(cache, p1) == ""
    assert cache.add_pod(p2) == ""
    assert_node_info(node_of(cache, "node1"), R(100, 500), R(100, 500), [p2],
                     {("0.0.0.0", "TCP", 80)})


def test_add_pod_will_replace_assumed() -> None:
    assumed = base_pod("assumed-node-1", "test-1", "100m", "500", "", [port(80)])
    added = base_pod("actual-node", "test-1", "100m", "500", "", [port(80)])
    updated = base_pod("actual-node", "test-1", "200m", "500", "", [port(90)])
    cache = SchedulerCache()
    assert assume(cache, assumed) == ""
    assert cache.add_pod(added) == ""
    assert cache.update_pod(updated) == ""
    assert node_of(cache, "assumed-node") is None
    assert node_of(cache, "assumed-node-1") is None  # emptied without a Node: dropped
    assert_node_info(node_of(cache, "actual-node"), R(200, 500), R(200, 500), [updated],
                     {("0.0.0.0", "TCP", 90)})


# -- TestUpdatePod / TestUpdatePodAndGet -----------------------------------------------

UPD = [base_pod(NODE, "test", "100m", "500", "", P80),
       base_pod(NODE, "test", "200m", "1Ki", "", P8080)]


def test_update_pod() -> None:
    cache = SchedulerCache()
    assert cache.add_pod(UPD[0]) == ""
    expected = [(R(200, 1024), [UPD[1]], T8080), (R(100, 500), [UPD[0]], T80)]
    for new, (req, pods, ports) in zip([UPD[1], UPD[0]], expected, strict=True):
        assert cache.update_pod(new) == ""
        assert_node_info(node_of(cache, NODE), req, req, pods, ports)


@pytest.mark.parametrize(
    ("pod", "pod_to_update", "assume_it"),
    [
        pytest.param(UPD[0], UPD[0], True,
                     id="do not update pod when pod information has not changed"),
        pytest.param(UPD[0], UPD[1], False, id="update  pod when pod information changed"),
    ],
)
def test_update_pod_and_get(pod: Obj, pod_to_update: Obj, assume_it: bool) -> None:
    cache = SchedulerCache()
    key = key_of(pod)
    # An unknown pod can be neither got nor updated.
    assert cache.get_pod(key) is None
    assert cache.update_pod(pod_to_update) == (
        f"pod test({key}) is not added to scheduler cache, so cannot be updated"
    )
    assert (assume(cache, pod) if assume_it else cache.add_pod(pod)) == ""
    if not assume_it:
        assert cache.update_pod(pod_to_update) == ""
    got = cache.get_pod(key)
    assert got is not None
    assert got["spec"]["containers"] == pod_to_update["spec"]["containers"]
    assert got["spec"]["nodeName"] == pod_to_update["spec"]["nodeName"]


def test_update_assumed_pod_is_refused() -> None:
    """``UpdatePod``'s other error: an assumed pod waits for its Add."""
    cache = SchedulerCache()
    assert assume(cache, UPD[0]) == ""
    assert cache.update_pod(UPD[1]) == f"assumed pod test({key_of(UPD[0])}) should not be updated"
    assert cache.get_pod(key_of(UPD[0])) == UPD[0]


def test_ephemeral_storage_resource() -> None:
    pod = {
        "metadata": {"name": "pod-with-ephemeral-storage", "namespace": "default-namespace",
                     "uid": "pod-with-ephemeral-storage"},
        "spec": {"nodeName": NODE, "containers": [
            {"name": "c", "resources": {"requests": {"ephemeral-storage": "500"}}}]},
    }
    cache = SchedulerCache()
    assert cache.add_pod(pod) == ""
    assert_node_info(node_of(cache, NODE), R(eph=500),
                     R(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST), [pod], set())
    assert cache.remove_pod(pod) == ""
    assert cache.get_pod(key_of(pod)) is None


# -- TestRemovePod / TestForgetPod / TestRemoveAssumedPod -------------------------------


@pytest.mark.parametrize("assume_it", [pytest.param(False, id="bound"),
                                       pytest.param(True, id="assumed")])
def test_remove_pod(assume_it: bool) -> None:
    pod = base_pod("node-1", "test", "100m", "500", "", P80)
    cache = SchedulerCache()
    # Add/Assume succeeds before the nodes exist.
    assert (assume(cache, pod) if assume_it else cache.add_pod(pod)) == ""
    assert_node_info(node_of(cache, "node-1"), R(100, 500), R(100, 500), [pod], T80)
    for name in ("node-1", "node-2"):
        cache.add_node({"metadata": {"name": name}})
    assert cache.remove_pod(pod) == ""
    assert cache.get_pod(key_of(pod)) is None
    # Removing it again is an error.
    assert cache.remove_pod(pod) == (
        f"pod test({key_of(pod)}) is not found in scheduler cache, so cannot be removed from it"
    )
    ni = node_of(cache, "node-1")
    assert ni is not None and not ni.pods


def test_forget_pod() -> None:
    pod = base_pod(NODE, "test", "100m", "500", "", P80)
    cache = SchedulerCache()
    assert assume(cache, pod) == ""
    assert cache.is_assumed(key_of(pod))
    got = cache.get_pod(key_of(pod))
    assert got is not None
    assert (got["metadata"]["namespace"], got["metadata"]["name"]) == (NS, "test")
    assert forget(cache, pod) == ""
    assert is_forgotten(cache, pod)
    assert forget(cache, pod) == ""  # forgetting a forgotten pod is no error


POD0: Obj = {"metadata": {"name": "pod-0", "namespace": "test-ns", "uid": "uid-0"},
        "spec": {"containers": [{"name": "c"}]}}


def _on(node: str, group: str = "") -> Obj:
    spec: Obj = {**POD0["spec"], "nodeName": node}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {**POD0, "spec": spec}


@pytest.mark.parametrize(
    ("add", "assumed", "remove", "gw", "want_err"),
    [
        pytest.param(None, _on("node-1"), _on("node-1"), False, "", id="remove assumed pod"),
        pytest.param(POD0, None, POD0, False,
                     "pod uid-0(test-ns/pod-0) is not assumed, so it cannot be removed or forgotten",
                     id="pod is not assumed"),
        pytest.param(None, None, _on("node-1"), False, "", id="pod doesn't exist in the cache"),
        pytest.param(None, _on("node-1"), _on("node-2"), False,
                     "pod uid-0(test-ns/pod-0) was assumed on node-2 but assigned to node-1",
                     id="remove assumed pod with different node name"),
        pytest.param(None, _on("node-1", "pg"), _on("node-1", "pg"), False, "",
                     id="remove assumed pod group member with GenericWorkload disabled"),
        pytest.param(None, _on("node-1"), _on("node-1"), True, "",
                     id="remove assumed pod without a pod group"),
        pytest.param(None, _on("node-1", "pg"), _on("node-1", "pg"), True, "",
                     id="remove assumed pod group member"),
    ],
)
def test_remove_assumed_pod(
    add: Obj | None, assumed: Obj | None, remove: Obj, gw: bool, want_err: str
) -> None:
    cache = SchedulerCache(generic_workload=gw)
    if add is not None:
        # Upstream adds it with an empty nodeName; so does the reference.
        assert cache.add_pod({**add, "spec": {**add["spec"], "nodeName": ""}}) == ""
    elif assumed is not None:
        assert assume(cache, assumed) == ""
    pod = add if add is not None else assumed
    if pod is not None and pod["spec"].get("schedulingGroup"):
        assert len(cache.pod_group_states) == (1 if gw else 0)
    got = cache.remove_assumed_pod(key_of(remove), remove["spec"].get("nodeName") or "")
    assert got == want_err
    if not want_err:
        assert is_forgotten(cache, remove)
        assert not cache.pod_group_states


# -- TestNodeOperators ----------------------------------------------------------------

RL1 = {"cpu": "1000m", "memory": "100m", "example.com/foo": "1"}
RL2 = {"cpu": "500m", "memory": "50m", "example.com/foo": "2"}
TAINTS = [{"key": "test-key", "value": "test-value", "effect": "PreferNoSchedule"}]
IMG1 = {"gcr.io/80:latest": 80 * MB, "gcr.io/80:v1": 80 * MB,
        "gcr.io/300:latest": 300 * MB, "gcr.io/300:v1": 300 * MB}
IMG2 = {"gcr.io/600:latest": 600 * MB, "gcr.io/80:latest": 80 * MB, "gcr.io/900:latest": 900 * MB}


def st_node(name: str, capacity: dict[str, str], images: dict[str, int]) -> Obj:
    """``st.MakeNode().Capacity(..).Taints(..).Images(..)``: capacity is also allocatable,
    each image one name."""
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"taints": TAINTS},
        "status": {"capacity": dict(capacity), "allocatable": dict(capacity),
                   "images": [{"names": [n], "sizeBytes": s} for n, s in images.items()]},
    }


def half_pod(name: str, ports: bool) -> Obj:
    c: Obj = {"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "50m"}}}
    if ports:
        c["ports"] = [{"name": "http", "hostPort": 80, "containerPort": 80}]
    return {"metadata": {"name": name, "uid": name}, "spec": {"nodeName": "test-node-1",
                                                            "containers": [c]}}


@pytest.mark.parametrize(
    ("nodes", "pods"),
    [
        pytest.param([st_node("test-node-1", RL1, IMG1), st_node("test-node-2", RL2, IMG2),
                      st_node("test-node-3", RL1, IMG1), st_node("test-node-4", RL2, IMG2)],
                     [half_pod("pod1", True)], id="operate the node with one pod"),
        pytest.param([st_node("test-node-1", RL1, IMG1), st_node("test-node-2", RL2, IMG2),
                      st_node("test-node-3", RL1, IMG1)],
                     [half_pod("pod1", False), half_pod("pod2", False)],
                     id="operate the node with two pods"),
    ],
)
def test_node_operators(nodes: list[Obj], pods: list[Obj]) -> None:
    node = nodes[0]
    name = node["metadata"]["name"]
    cache = SchedulerCache()
    for n in nodes:
        cache.add_node(n)
    for p in pods:
        assert cache.add_pod(p) == ""
    # Step 1: the node is in the cache with its pods' totals, allocatable and images.
    ni = cache.get(name)
    assert ni is not None and ni.node is node
    assert cache.num_nodes() == len(nodes)
    req = Resource(500 * len(pods), len(pods))  # memory "50m" rounds up to 1 byte a pod
    assert ni.requested == req
    assert_non_zero(ni, req)
    assert [i.pod for i in ni.pods.values()] == pods
    assert ni.allocatable == Resource(1000, 1, 0, 0, {"example.com/foo": 1})
    assert used_ports(ni) == ({("0.0.0.0", "TCP", 80)} if pods[0]["spec"]["containers"][0].get("ports")
                              else set())
    assert ni.images == IMG1
    # ImageStateSummary: every node sees the same size and node count for an image.
    for image in ("gcr.io/80:latest", "gcr.io/300:latest"):
        holders = {n["metadata"]["name"] for n in nodes
                   if any(image in i["names"] for i in n["status"]["images"])}
        assert cache.index.image_nodes[image] == holders
    # Step 2: the snapshot lists every node, this one as the cache has it.
    snapshot = {i.name: i for i in cache.node_infos()}
    assert len(snapshot) == len(nodes) and snapshot[name] is ni
    # Step 3: an update re-derives allocatable and takes a newer generation.
    gen = ni.generation
    updated = {**node, "status": {**node["status"],
                                  "allocatable": {**node["status"]["allocatable"], "memory": "50m"}}}
    cache.update_node(updated)
    assert ni.generation > gen
    assert ni.allocatable.memory == 1
    assert ni.requested == req and cache.num_nodes() == len(nodes)
    # Step 4: a node with pods leaves a ghost; removing it again is an error.
    assert cache.remove_node(updated) == ""
    ghost = node_of(cache, name)
    assert ghost is not None and ghost.node is None
    assert cache.remove_node(updated) == f'node "{name}" in group "" was not found'
    assert cache.num_nodes() == len(nodes) - 1
    assert cache.index.image_nodes["gcr.io/80:latest"] == {
        n["metadata"]["name"] for n in nodes[1:]}
    assert cache.index.image_nodes["gcr.io/300:latest"] == {"test-node-3"}
    for p in pods:
        assert cache.get_pod(key_of(p)) is not None
    # Step 5: the removed node's pods can still be removed.
    for p in pods:
        assert cache.remove_pod(p) == ""
        assert cache.get_pod(key_of(p)) is None
    assert node_of(cache, name) is None
    assert cache.remove_node(updated) == f"node {name} is not found"

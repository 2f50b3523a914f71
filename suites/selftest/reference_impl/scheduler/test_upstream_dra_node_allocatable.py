"""DRANodeAllocatableResources, rows of upstream ``nodeallocatabledynamicresources_test.go``:
``TestValidateNodeAllocatableDRAClaimSharing``, ``TestBuildNodeAllocatableDRAInfo``,
``TestPatchNodeAllocatableResourceClaimStatus``, ``TestClearNodeAllocatableResourceClaimStatus``,
``TestNodeFitsNativeResources``, ``TestValidatePodLevelResourcesCoverDRA`` and
``TestFilterSlicesForNode``, against ``dynamic_resources_node_allocatable``.

Quantities compare by value, as upstream's ``cmp.Diff`` does through ``Quantity.Equal``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from reference_impl.api.meta import parse_quantity
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import dynamic_resources_node_allocatable as na
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import CLAIM as POD_CLAIM
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    NODE,
    POD,
    RESOURCE,
    Obj,
    claim,
    device_class,
    node,
    node_slice,
    pod,
    setup,
)
from suites.selftest.reference_impl.scheduler.upstream_dra_node_allocatable_rows import (
    BUILD_ROWS,
    COVER_ROWS,
    pod_with,
)

NS = "test-ns"
CLAIM = "node-allocatable-claim"
SHARED = f"node allocatable resource claim {CLAIM} has a mapped device and cannot be shared across pods"


# -- TestValidateNodeAllocatableDRAClaimSharing ------------------------------------------------


def _dev(name: str, res: str, mapping: bool, overhead: bool) -> Obj:
    spec: Obj = {}
    if mapping:
        spec["mapping"] = {"deviceMultiplier": "1"}
    if overhead:
        spec["overhead"] = {"perContainer": "100"}
    return {"name": name, "nodeAllocatableResources": {res: spec}}


def _pool_slice(pool: str, device: Obj) -> Obj:
    return {"spec": {"pool": {"name": pool}, "devices": [device]}}


MAPPED = _pool_slice("pool-1", _dev("cpu0", "cpu", True, False))
OVERHEAD = _pool_slice("pool-2", _dev("gpu0", "memory", False, True))
COMBINED = _pool_slice("pool-combined", _dev("combined", "cpu", True, True))


def _claim(pool: str | None, device: str = "", reserved: list[Obj] | None = None) -> Obj:
    c: Obj = {"metadata": {"name": CLAIM, "namespace": NS, "uid": "claim-uid"}}
    if pool is not None:
        c["status"] = {"allocation": {"devices": {"results": [{"pool": pool, "device": device}]}}}
        if reserved:
            c["status"]["reservedFor"] = reserved
    return c


def _pod(uid: str = "pod-uid", group: str | None = None) -> Obj:
    p: Obj = {"metadata": {"name": "test-pod", "namespace": NS, "uid": uid}, "spec": {"containers": []}}
    if group:
        p["spec"]["schedulingGroup"] = {"podGroupName": group}
    return p


OTHER = [{"uid": "other-pod-uid"}]


def _pg_ref(name: str) -> list[Obj]:
    return [{"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": name}]


@pytest.mark.parametrize(("pod", "claim", "slices", "pending", "workload", "want"), [
    pytest.param(_pod("test-uid"), None, [], None, False, None, id="empty claim"),
    pytest.param(_pod(), _claim(None), [], None, False, None, id="claim not allocated yet"),
    pytest.param(_pod(), _claim("pool-1", "cpu0"), [MAPPED], None, False, None,
                 id="mapped claim, not shared (no other pods on node)"),
    pytest.param(_pod(), _claim("pool-1", "cpu0", OTHER), [MAPPED], None, False, SHARED,
                 id="mapped claim, shared (other pod using it)"),
    pytest.param(_pod(), _claim("pool-2", "gpu0"), [OVERHEAD], None, False, None,
                 id="overhead-only mapped claim, shared (other pod using it)"),
    pytest.param(_pod(), _claim("pool-1", "cpu0"), [MAPPED], None, False, None,
                 id="mapped claim, same name but different namespace (sharing allowed)"),
    pytest.param(_pod(), _claim("pool-1", "cpu0", OTHER), [MAPPED], None, False, SHARED,
                 id="mapped claim, shared (other pod using it via template)"),
    pytest.param(_pod(), _claim("pool-1", "cpu0", OTHER), [MAPPED], None, False, SHARED,
                 id="mapped claim, already reserved for another pod - early exit"),
    pytest.param(_pod(group="my-pod-group"), _claim("pool-1", "cpu0", _pg_ref("my-pod-group")), [MAPPED],
                 None, True, None,
                 id="mapped claim, reserved for same pod group, workload claims enabled - allowed since no pods on node"),
    pytest.param(_pod(group="my-pod-group"), _claim("pool-1", "cpu0", _pg_ref("other-pod-group")), [MAPPED],
                 None, True, SHARED,
                 id="mapped claim, reserved for different pod group, workload claims enabled - exit early"),
    pytest.param(_pod(), _claim("pool-combined", "combined", OTHER), [COMBINED], None, False, SHARED,
                 id="mapping and overhead in same device, shared (other pod using it)"),
    pytest.param(_pod(), _claim("pool-1", "cpu0"), [MAPPED], {"other-pod-uid"}, False, SHARED,
                 id="mapped claim, pending allocation by another pod in same group"),
    pytest.param(_pod(), _claim("pool-1", "cpu0"), [MAPPED], {"pod-uid"}, False, None,
                 id="mapped claim, pending allocation by same pod in same group"),
    pytest.param(_pod(), _claim("pool-2", "gpu0"), [OVERHEAD], {"other-pod-uid"}, False, None,
                 id="overhead-only claim, pending allocation by another pod in same group"),
])
def test_validate_claim_sharing(pod: Obj, claim: Obj | None, slices: list[Obj], pending: set[str] | None,
                                workload: bool, want: str | None) -> None:
    alloc = ((claim or {}).get("status") or {}).get("allocation")
    mapped = na.claim_has_mapped_device(alloc, slices)
    got = na.validate_claim_sharing(pod, claim, mapped, pending, workload)
    if want is None:
        assert got is None
    else:
        assert got is not None and (got.code, got.message()) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, want)


# -- TestBuildNodeAllocatableDRAInfo ------------------------------------------------------------


def _norm(statuses: list[Obj]) -> list[Obj]:
    # normalizeSlices (nil mapping/overhead as empty) and quantities by value.
    def q(v: Any) -> Decimal:
        return parse_quantity(v)
    out = []
    for s in statuses:
        out.append({
            "resourceClaimName": s["resourceClaimName"],
            "containers": list(s.get("containers") or []),
            "mapping": [{"name": m["name"], "quantity": q(m["quantity"])} for m in s.get("mapping") or []],
            "overhead": [{k: (q(v) if k != "name" else v) for k, v in o.items()} for o in s.get("overhead") or []],
        })
    return out


@pytest.mark.parametrize(("pod", "claims", "slices", "allocs", "want"),
                         [pytest.param(*r[1:], id=r[0]) for r in BUILD_ROWS])
def test_build_node_allocatable_info(pod: Obj, claims: dict[str, str], slices: list[Obj],
                                     allocs: dict[tuple[str, str, str], Obj], want: list[Obj] | None) -> None:
    if want is None:
        with pytest.raises(na.NodeAllocatableError):
            na.build_statuses(pod, allocs, claims, slices, None)
        return
    assert _norm(na.build_statuses(pod, allocs, claims, slices, None)) == _norm(want)


# -- TestPatchNodeAllocatableResourceClaimStatus / TestClearNodeAllocatableResourceClaimStatus -----

S1: Obj = {"resourceClaimName": "claim1", "containers": ["c1"], "mapping": [{"name": "cpu", "quantity": "1"}]}
S2: Obj = {"resourceClaimName": "claim1", "containers": ["c1"], "mapping": [{"name": "cpu", "quantity": "2"}]}


def _stored_pod(statuses: list[Obj] | None) -> tuple[Any, Obj]:
    """st.MakePod().Name("test-pod").Namespace("test-ns") with ``statuses`` stored."""
    p: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "test-pod", "namespace": NS},
              "spec": {"containers": [{"name": "c1", "image": "i"}]}}
    if statuses:
        p["status"] = {na.FIELD: statuses}
    env = setup([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}, p], {na.GATE: True})
    return env.server, env.server.get("v1", "Pod", "test-pod", NS)


class _Failing:
    """A server whose writes fail (the fake clientset's PrependReactor)."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self.writes = 0

    def get(self, *args: Any) -> Obj:
        got: Obj = self._server.get(*args)
        return got

    def update_status(self, obj: Obj) -> Obj:
        self.writes += 1
        raise ApiError("inject patch error")


@pytest.mark.parametrize(("assumed", "final", "fail", "want_write", "want"), [
    pytest.param(None, [], False, False, None, id="no node allocatable resource claims for this pod"),
    pytest.param([S1], [S1], False, True, None, id="assumed pod status same as new status"),
    pytest.param([S1], [S2], False, False, (Code.ERROR, "assumed pod status does not match calculated status to be patched"),
                 id="assumed pod status different from new status"),
    pytest.param([S1], [S1], True, True,
                 (Code.ERROR, "updating pod test-ns/test-pod NodeAllocatableResourceClaimStatuses: inject patch error"),
                 id="pod status patch error"),
])
def test_patch_status(assumed: list[Obj] | None, final: list[Obj], fail: bool, want_write: bool,
                      want: tuple[Code, str] | None) -> None:
    server, p = _stored_pod(None)
    rv = p["metadata"]["resourceVersion"]
    assumed_pod = {**p, "status": {**(p.get("status") or {}), **({na.FIELD: assumed} if assumed else {})}}
    target: Any = _Failing(server) if fail else server
    got = na.patch_status(target, assumed_pod, final)
    assert (None if got is None else (got.code, got.message())) == want
    if fail:
        assert target.writes == 1
        return
    after = server.get("v1", "Pod", "test-pod", NS)
    assert (after["metadata"]["resourceVersion"] != rv) == want_write
    if want_write:
        assert _norm(after["status"][na.FIELD]) == _norm(final)


@pytest.mark.parametrize(("initial", "want_write"), [
    pytest.param(None, False, id="no status to clear"),
    pytest.param([S1], True, id="status cleared"),
])
def test_clear_status(initial: list[Obj] | None, want_write: bool) -> None:
    server, p = _stored_pod(initial)
    rv = p["metadata"]["resourceVersion"]
    assert na.clear_status(server, p) is want_write
    after = server.get("v1", "Pod", "test-pod", NS)
    assert (after["metadata"]["resourceVersion"] != rv) == want_write
    assert not (after.get("status") or {}).get(na.FIELD)


# -- TestNodeFitsNativeResources -------------------------------------------------------------


def _ni(capacity: dict[str, str] | None, pods: tuple[Obj, ...] = ()) -> NodeInfo:
    ni = NodeInfo("")
    for p in pods:
        ni.add_pod(PodInfo(p))
    if capacity is not None:
        ni.set_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "test-node"},
                     "status": {"capacity": capacity, "allocatable": capacity}})
    return ni


GI = 1024 ** 3
MEM_POD = pod_with(requests={"memory": "4Gi"})
UU, U = Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.UNSCHEDULABLE


@pytest.mark.parametrize(("demand", "ni", "want"), [
    pytest.param({}, _ni(None), None, id="empty pod request"),
    pytest.param({"cpu": 1000, "memory": GI}, _ni({"cpu": "2000m", "memory": "2Gi"}), None,
                 id="sufficient cpu and memory"),
    pytest.param({"cpu": 3000}, _ni({"cpu": "2000m"}), (UU, None), id="insufficient cpu"),
    pytest.param({"memory": 3 * GI}, _ni({"memory": "5Gi"}, (MEM_POD,)), (U, ("Insufficient memory",)),
                 id="insufficient memory"),
    pytest.param({"hugepages-2Mi": 1, "hugepages-1Gi": 2}, _ni({"hugepages-2Mi": "1", "hugepages-1Gi": "2"}),
                 None, id="sufficient hugepages"),
    pytest.param({"hugepages-2Mi": 2}, _ni({"hugepages-2Mi": "1"}), (UU, None), id="insufficient hugepages 2Mi"),
    pytest.param({"hugepages-1Gi": 3}, _ni({"hugepages-1Gi": "2"}), (UU, None), id="insufficient hugepages 1Gi"),
    pytest.param({"cpu": 1000, "memory": GI, "hugepages-2Mi": 1},
                 _ni({"cpu": "2000m", "memory": "2Gi", "hugepages-2Mi": "1"}), None, id="all resources sufficient"),
])
def test_node_fits_native_resources(demand: dict[str, int], ni: NodeInfo,
                                    want: tuple[Code, tuple[str, ...] | None] | None) -> None:
    got = na.node_fits_resources(ni, demand)
    if want is None:
        assert got is None
        return
    assert got is not None and got.code == want[0]
    if want[1] is not None:  # upstream compares the reasons of Unschedulable only
        assert got.reasons == want[1]


# -- TestValidatePodLevelResourcesCoverDRA ------------------------------------------------------


@pytest.mark.parametrize(("pod", "statuses", "code", "contains"), [pytest.param(*r[1:], id=r[0]) for r in COVER_ROWS])
def test_validate_pod_level_cover(pod: Obj, statuses: list[Obj], code: Code, contains: str) -> None:
    pod = {**pod, "status": {na.FIELD: statuses}}
    got = na.validate_pod_level_cover(pod, True)
    assert (Code.SUCCESS if got is None else got.code) == code
    if code != Code.SUCCESS and contains:
        assert got is not None and contains in got.message()


# -- TestFilterSlicesForNode -----------------------------------------------------------------


def _sel(value: str) -> Obj:
    return {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": [value]}]}]}


def _named(name: str, **spec: Any) -> Obj:
    return {"metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize(("slices", "want"), [
    pytest.param([_named("nodename", nodeName="node1"), _named("othernode", nodeName="node2")], ["nodename"],
                 id="matches NodeName exactly"),
    pytest.param([_named("allnodes", allNodes=True)], ["allnodes"], id="matches AllNodes"),
    pytest.param([_named("nodeselector", nodeSelector=_sel("node1")),
                  _named("othernodeselector", nodeSelector=_sel("node2"))], ["nodeselector"],
                 id="matches NodeSelector"),
])
def test_filter_slices_for_node(slices: list[Obj], want: list[str]) -> None:
    node = {"metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}}}
    got = sorted(s["metadata"]["name"] for s in na.filter_slices_for_node(slices, node))
    assert got == sorted(want)


# -- the plugin, gate on and off (no upstream table: its Filter/PreBind wiring) ------------------


def _plugin_env(gate: bool) -> tuple[Any, Obj]:
    s = node_slice(NODE, "cpu0")
    s["spec"]["devices"][0]["nodeAllocatableResources"] = {"cpu": {"mapping": {"deviceMultiplier": "2"}}}
    p = pod()
    p["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}, "claims": [{"name": RESOURCE}]}
    env = setup([device_class(), s, claim(), p], {na.GATE: gate})
    return env, env.server.get("v1", "Pod", POD, "default")


def _node(cpu: str) -> NodeInfo:
    n = node(NODE)
    n["status"] = {"capacity": {"cpu": cpu}, "allocatable": {"cpu": cpu}}
    return NodeInfo(NODE, n)


@pytest.mark.parametrize(("gate", "cpu", "want"), [
    pytest.param(True, "2", (UU, "Insufficient cpu"), id="gate on: 1 cpu + 2 mapped do not fit 2"),
    pytest.param(True, "4", (Code.SUCCESS, ""), id="gate on: fits 4"),
    pytest.param(False, "2", (Code.SUCCESS, ""), id="gate off: inert"),
])
def test_plugin_filter_and_prebind(gate: bool, cpu: str, want: tuple[Code, str]) -> None:
    env, p = _plugin_env(gate)
    state = CycleState()
    assert env.plugin.pre_filter(state, p, [])[1].code == Code.SUCCESS
    if gate:  # Filter must see every node
        assert env.plugin.filter_suspects(state, p, [_node(cpu)]) is None
    got = env.plugin.filter(state, p, _node(cpu))
    assert (got.code, got.message()) == want
    if got.code != Code.SUCCESS:
        return
    assert env.plugin.reserve(state, p, NODE).code == Code.SUCCESS
    assert env.plugin.pre_bind(state, p, NODE).code == Code.SUCCESS
    stored = env.server.get("v1", "Pod", p["metadata"]["name"], "default")
    if not gate:
        assert na.FIELD not in (stored.get("status") or {})
        return
    assert _norm(stored["status"][na.FIELD]) == _norm(
        [{"resourceClaimName": POD_CLAIM, "containers": ["c"], "mapping": [{"name": "cpu", "quantity": "2"}]}])
    env.plugin.unreserve(state, p, NODE)  # clears them again
    assert not env.server.get("v1", "Pod", p["metadata"]["name"], "default")["status"].get(na.FIELD)


def test_plugin_gate_on_without_such_devices_keeps_fast_path() -> None:
    p = pod()
    env = setup([device_class(), node_slice(NODE), claim(), p], {na.GATE: True})
    p = env.server.get("v1", "Pod", POD, "default")
    state = CycleState()
    assert env.plugin.pre_filter(state, p, [])[1].code == Code.SUCCESS
    assert env.plugin.filter_suspects(state, p, [_node("1")]) is not None
    assert env.plugin.filter(state, p, _node("1")).code == Code.SUCCESS

"""DynamicResources' PodGroupPostFilter: upstream ``TestPodGroupPostFilter``
(dynamicresources_test.go), plus the runtime's ``RunPodGroupPostFilterPlugins`` order
and status merging in a gang cycle.

As upstream's test does, each unscheduled pod's PreFilter state is built by hand (its
claims, with the named ones unavailable) and filed under the pod-group cycle's state.
Upstream compares an Unschedulable want without reasons through ``ErrorContains(got,
"")``, which any reason passes; these rows assert the reason the code returns.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.api.scheduling_builders import make_pod_group
from reference_impl.apiserver.informers import object_key
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.pod_group_post_filter import PodGroupScheduling
from reference_impl.scheduler.plugins import dynamic_resources_podgroup as pgpf
from reference_impl.scheduler.plugins.dynamic_resources import _State
from reference_impl.scheduler.plugins.extended_resources import ANNOTATION
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    CLAIM,
    CLAIM2,
    NODE,
    NS,
    POD,
    POD_UID,
    RESOURCE,
    Env,
    Obj,
    allocated,
    allocation,
    claim,
    device_class,
    for_pod,
    node_slice,
    setup,
)

PG = "my-podgroup"
EXT = "pod-extended-resources"
NO_RUN = PodGroupScheduling()  # the plugin never re-runs the group algorithm
_SCHED = "scheduling.k8s.io/v1beta1"


def _grouped(name: str, uid: str, resource: str, claim_name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS, "uid": uid},
            "spec": {"containers": [{"name": "c", "image": "i"}],
                     "resourceClaims": [{"name": resource, "resourceClaimName": claim_name}],
                     "schedulingGroup": {"podGroupName": PG}}}


POD1 = _grouped(POD, POD_UID, RESOURCE, CLAIM)  # groupedPodWithClaimName
POD2 = _grouped(f"{POD}-2", f"{POD_UID}-2", RESOURCE, CLAIM)  # groupedPodWithClaimName2
POD_LEVEL = _grouped(f"{POD}-podlevel", f"{POD_UID}-podlevel", f"{RESOURCE}-2", CLAIM2)


def _by_group(pg: Obj) -> Obj:
    """inUseClaimByPodGroup: owned by, allocated for and reserved for the PodGroup."""
    c = claim(owned=False)
    ref = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "name": PG,
           "uid": pg["metadata"]["uid"], "controller": True}
    c["metadata"]["ownerReferences"] = [ref]
    return allocated(c, reserved_for=[{"apiGroup": "scheduling.k8s.io", "resource": "podgroups",
                                       "name": PG, "uid": pg["metadata"]["uid"]}])


def _in_use() -> Obj:
    """inUseClaim: owned by and reserved for groupedPodWithClaimName."""
    return allocated(claim(), reserved_for=[for_pod()])


def _pod_level() -> Obj:
    """inUseClaimForPodLevel."""
    c = claim(CLAIM2)
    c["metadata"]["ownerReferences"][0].update(name=POD_LEVEL["metadata"]["name"],
                                               uid=POD_LEVEL["metadata"]["uid"])
    return allocated(c, reserved_for=[for_pod(POD_LEVEL["metadata"]["name"], POD_LEVEL["metadata"]["uid"])])


def _extended() -> Obj:
    """An extended-resource claim owned by the pod (a copy of inUseClaim)."""
    c = _in_use()
    c["metadata"]["name"] = EXT
    c["metadata"]["annotations"] = {ANNOTATION: "true"}
    return c


@dataclass
class Row:
    claims: list[str]  # "pending", "in-use", "by-group", "pod-level", "extended"
    pods: list[Obj] = field(default_factory=lambda: [POD1])
    unavailable: list[str] = field(default_factory=list)
    workload_claims: bool = False
    topology: bool = False
    want: tuple[Code, str] = (Code.UNSCHEDULABLE, pgpf.COMPLETED)


ROWS = {
    "empty": Row(["pending"]),
    "deallocate-pod-level-claim": Row(["in-use"], unavailable=[CLAIM], workload_claims=True),
    "deallocate-podgroup-level-claim": Row(["by-group"], unavailable=[CLAIM], workload_claims=True,
                                           want=(Code.UNSCHEDULABLE, pgpf.GROUP_DEALLOCATED)),
    "delete-pod-level-extended-claim": Row(["extended", "pending"], unavailable=[EXT]),
    "unreserve-podgroup-claim": Row(["by-group"], workload_claims=True,
                                    want=(Code.UNSCHEDULABLE, pgpf.GROUP_UNRESERVED)),
    "unreserve-podgroup-multiple-unscheduled-pods": Row(
        ["by-group"], pods=[POD1, POD2], workload_claims=True,
        want=(Code.UNSCHEDULABLE, pgpf.GROUP_UNRESERVED)),
    "mixed-pod-level-and-podgroup-claims": Row(
        ["by-group", "pod-level"], pods=[POD1, POD_LEVEL], unavailable=[CLAIM2], workload_claims=True,
        want=(Code.UNSCHEDULABLE, pgpf.GROUP_UNRESERVED)),
    "skip-deallocate-feature-disabled": Row(["by-group"]),
    "skip-deallocate-topology-aware-podgroup": Row(["by-group"], workload_claims=True, topology=True,
                                                   want=(Code.UNSCHEDULABLE, "")),
}


def _env(row: Row) -> tuple[Env, Obj]:
    gates = {"GenericWorkload": True, "DRAWorkloadResourceClaims": row.workload_claims,
             "TopologyAwareWorkloadScheduling": row.topology}  # DRAExtendedResource: GA, locked on
    pg = make_pod_group(PG, NS, topology_key="kubernetes.io/hostname" if row.topology else "")
    pg["spec"]["resourceClaims"] = [{"name": RESOURCE, "resourceClaimName": CLAIM}]
    env = setup([pg], gates)
    stored: Obj = env.server.get(_SCHED, "PodGroup", PG, NS)
    makers: dict[str, Any] = {"pending": claim, "in-use": _in_use, "by-group": lambda: _by_group(stored),
                              "pod-level": _pod_level, "extended": _extended}
    for name in row.claims:
        c = makers[name]()
        status = c.pop("status", None)
        created = env.server.create(c)
        if status:
            status["allocation"].setdefault("allocationTimestamp", "2026-09-01T00:00:00Z")
            env.server.update_status({**created, "status": status})
    env.clock.settle()
    return env, stored


def _group_cycle(env: Env, row: Row) -> CycleState:
    """Each pod's state: its claims (the extended one included) and the unavailable ones."""
    group = CycleState()
    claims = list(env.plugin.tracker.claims.items())
    for p in row.pods:
        refs = {r["resourceClaimName"] for r in p["spec"]["resourceClaims"]}
        mine = [c for c in claims if c["metadata"]["name"] in refs or (
            (c["metadata"].get("annotations") or {}).get(ANNOTATION) == "true"
            and any(o.get("uid") == p["metadata"]["uid"] for o in c["metadata"].get("ownerReferences") or ()))]
        s = _State(copy.deepcopy(mine), [], [])
        s.unavailable = {object_key(c) for c in mine if c["metadata"]["name"] in row.unavailable}
        pod_state = CycleState()
        pod_state.pod_group_cycle = group
        pgpf.record(pod_state, p, s)
    return group


def _get(env: Env, name: str) -> Obj | None:
    try:
        got: Obj = env.server.get("resource.k8s.io/v1", "ResourceClaim", name, NS)
    except ApiError:
        return None
    return got


def _status(env: Env, name: str) -> Obj:
    got = _get(env, name)
    assert got is not None
    st: Obj = got.get("status") or {}
    return st


@pytest.mark.parametrize("name", [
    pytest.param("disabled", id="disabled", marks=pytest.mark.skip(
        reason="DynamicResourceAllocation is GA and locked: the plugin cannot be disabled")),
    *(pytest.param(n, id=n) for n in ROWS),
])
def test_pod_group_post_filter(name: str) -> None:
    row = ROWS[name]
    env, pg = _env(row)
    group = _group_cycle(env, row)
    info = pgpf.PodGroupInfo(pg, row.pods)
    _, got = env.plugin.pod_group_post_filter(group, info, NO_RUN)
    assert (got.code, got.message()) == row.want
    env.clock.settle()
    if name in ("deallocate-pod-level-claim", "deallocate-podgroup-level-claim"):
        assert "allocation" not in _status(env, CLAIM) and "reservedFor" not in _status(env, CLAIM)
    elif name == "delete-pod-level-extended-claim":
        assert _get(env, EXT) is None  # deleted
    elif name.startswith("unreserve-podgroup"):
        assert not _status(env, CLAIM).get("reservedFor")
    elif name == "mixed-pod-level-and-podgroup-claims":
        assert _status(env, CLAIM).get("allocation") and not _status(env, CLAIM).get("reservedFor")
        assert "allocation" not in _status(env, CLAIM2) and "reservedFor" not in _status(env, CLAIM2)
    elif name.startswith("skip-"):
        assert _status(env, CLAIM).get("reservedFor")


def test_missing_group_state_is_an_error() -> None:
    """getPodGroupStateDataFromPodGroupCycleState: no member's PreFilter wrote the state."""
    env, pg = _env(ROWS["empty"])
    _, got = env.plugin.pod_group_post_filter(CycleState(), pgpf.PodGroupInfo(pg, [POD1]), NO_RUN)
    assert (got.code, got.message()) == (Code.ERROR, "not found")


def test_composite_pod_group_is_not_supported() -> None:
    env, pg = _env(ROWS["unreserve-podgroup-claim"])
    info = pgpf.PodGroupInfo(pg, [POD1], composite=True)
    _, got = env.plugin.pod_group_post_filter(_group_cycle(env, ROWS["unreserve-podgroup-claim"]), info, NO_RUN)
    assert (got.code, got.message()) == (Code.UNSCHEDULABLE, "")
    assert _status(env, CLAIM).get("reservedFor")


def test_scheduled_member_keeps_group_claims() -> None:
    """deallocatePodGroupClaims: a member already scheduled keeps the group's claims."""
    row = ROWS["unreserve-podgroup-claim"]
    env, pg = _env(row)
    info = pgpf.PodGroupInfo(pg, [POD1], scheduled=1)
    _, got = env.plugin.pod_group_post_filter(_group_cycle(env, row), info, NO_RUN)
    assert (got.code, got.message()) == (Code.UNSCHEDULABLE, pgpf.COMPLETED)
    assert _status(env, CLAIM).get("reservedFor")



# -- RunPodGroupPostFilterPlugins in a gang cycle -------------------------------------


def _gang_with_stale_claims() -> tuple[Cluster, list[str]]:
    """A gang of two whose claims are allocated on a node that is gone (reserved for
    nobody): every member is rejected, so only the group's PostFilter can free them."""
    c = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config={_SCHED: "true"}))
    c.apply(make_node(NODE).capacity(cpu="4", memory="8Gi", pods="10").build())
    c.apply(device_class())
    c.apply(node_slice(NODE, "instance-1", "instance-2"))
    gone = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["gone"]}]}]}
    names = ["c0", "c1"]
    for i, name in enumerate(names):
        created = c.apply(claim(name, owned=False))
        alloc = allocation(f"instance-{i + 1}", selector=gone)
        alloc["allocationTimestamp"] = "2026-09-01T00:00:00Z"
        c.api.update_status({**created, "status": {"allocation": alloc}})
    c.apply(make_pod_group(PG, NS, min_count=2))
    for i, name in enumerate(names):
        p = make_pod(f"g{i}", NS).pod_group(PG).build()
        p["spec"]["resourceClaims"] = [{"name": RESOURCE, "resourceClaimName": name}]
        c.apply(p)
    return c, names


def test_gang_cycle_deallocates_unusable_claims() -> None:
    """DynamicResources' PodGroupPostFilter runs before DefaultPreemption's: the members'
    unusable claims are deallocated, so a later attempt allocates them and binds the gang."""
    c, names = _gang_with_stale_claims()
    c.settle()
    for i in range(2):
        assert c.get("v1", "Pod", f"g{i}", NS)["spec"].get("nodeName") == NODE
    for name in names:
        sel = c.get("resource.k8s.io/v1", "ResourceClaim", name, NS)["status"]["allocation"]["nodeSelector"]
        assert sel["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [NODE]

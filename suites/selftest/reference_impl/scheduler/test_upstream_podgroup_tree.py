"""Upstream's hierarchy lookups, and what the scheduler does with a broken or deep tree.

Ported, against ``plugins/podgroup_tree``:
- ``Test_BuildHierarchySnapshotFromPod`` (backend/cache/cache_test.go): the entities the
  snapshot copies, or an error (``hierarchy_snapshot``);
- ``TestCache_GetRootKeyForGroup`` (cache_test.go) and ``TestSnapshot_GetRootKeyForGroup``
  (snapshot_test.go): ``root_key``.
- ``TestValidateWorkload``'s "exceeds max tree height" (pkg/apis/scheduling/validation):
  the one depth rule the apiserver has (Workload templates; a CompositePodGroup object
  carries only its parent's name, so its depth is the scheduler's to check).

Then the rules those walks make, end to end (no upstream table has such rows; each case
names the Go function it follows):
- GangScheduling's PreEnqueue (``preEnqueueWithHierarchies``) rejects, as
  UnschedulableAndUnresolvable, a pod whose hierarchy snapshot cannot be built or whose
  root is outside it (``hierarchy_error``): a missing CompositePodGroup, a cycle, more
  than 4 CompositePodGroups above its PodGroup (``BuildHierarchySnapshotFromPod`` looks
  the root up at most ``WorkloadMaxTreeDepth - 1`` parents above the PodGroup's parent);
- a tree whose leaves lie ``WorkloadMaxTreeDepth`` below a CompositePodGroup with a
  topology constraint fails the pod-group cycle with an Error (TopologyPlacement's
  ``getScheduledPods`` reads the subtree through ``GetPodGroupStates``): the pods fail
  with it and the PodGroups report SchedulerError (``submitPodGroupAlgorithmResult``);
- ``GetPodPriority`` reads priorities through ``TraverseHierarchyUp``, which visits at
  most ``WorkloadMaxTreeDepth`` entities, the PodGroup included.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from reference_impl.api import condition, make_node, make_pod
from reference_impl.api.gang_builders import make_composite_pod_group
from reference_impl.api.scheduling_builders import make_pod_group
from reference_impl.apiserver.strategies.scheduling_workload import workload_spec_causes
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.cache_podgroups import PodGroupCache
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import PodInfo
from reference_impl.scheduler.plugins.default_preemption_victims import victim_priority
from reference_impl.scheduler.plugins.gang_scheduling import GangScheduling
from reference_impl.scheduler.plugins.podgroup_tree import (
    CPG,
    PG,
    HierarchyError,
    InformerHierarchy,
    hierarchy_snapshot,
    root_key,
)

Obj = dict[str, Any]
NS = "ns1"
PG_V, CPG_V = "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"


class _Store:
    def __init__(self, objs: list[Obj]) -> None:
        self._objs = objs

    def items(self) -> list[Obj]:
        return list(self._objs)

    def get(self, key: str) -> Obj | None:
        return next((o for o in self._objs
                     if f"{o['metadata']['namespace']}/{o['metadata']['name']}" == key), None)

    def add_handler(self, handler: object) -> None:
        pass


def _informers(pgs: list[Obj], cpgs: list[Obj], pods: list[Obj] | None = None) -> SimpleNamespace:
    stores = {"PodGroup": _Store(pgs), "CompositePodGroup": _Store(cpgs), "Pod": _Store(pods or [])}
    return SimpleNamespace(informer=lambda api, kind: stores[kind])


def _pg(name: str, parent: str = "", *, min_count: int | None = None, priority: int = 0) -> Obj:
    pg = make_pod_group(name, NS, min_count=min_count)
    if parent:
        pg["spec"]["parentCompositePodGroupName"] = parent
    if priority:
        pg["spec"]["priority"] = priority
    return pg


def _cpg(name: str, parent: str = "", *, priority: int = 0) -> Obj:
    cpg = make_composite_pod_group(name, NS, parent=parent)
    if priority:
        cpg["spec"]["priority"] = priority
    return cpg


def _pod(name: str, group: str | None) -> Obj:
    b = make_pod(name, NS)
    return (b.pod_group(group) if group else b).build()


# -- Test_BuildHierarchySnapshotFromPod ---------------------------------------------------

_CYCLE_CPGS = [_cpg("cycle1", "cycle2"), _cpg("cycle2", "cycle1")]


@pytest.mark.parametrize(
    ("pod", "pgs", "cpgs", "composite", "want"),
    [
        pytest.param(_pod("p0", None), [], [], False, None, id="pod without scheduling group"),
        pytest.param(_pod("p1", "pg1"), [], [], False, None,
                     id="pod with scheduling group but no pod group in cache"),
        pytest.param(_pod("p1", "pg1"), [_pg("pg1")], [], False, (["pg1"], []),
                     id="simple pod group"),
        pytest.param(_pod("p2", "pg2"), [_pg("pg2", "cpg1")], [_cpg("cpg1")], True,
                     (["pg2"], ["cpg1"]), id="pod group with parent CPG"),
        pytest.param(_pod("p3", "pg3"), [_pg("pg3", "cpg2")], [_cpg("cpg2", "cpg3"), _cpg("cpg3")],
                     True, (["pg3"], ["cpg2", "cpg3"]), id="pod group with parent CPG hierarchy"),
        pytest.param(_pod("pCycle", "pgCycle"), [_pg("pgCycle", "cycle1")], _CYCLE_CPGS, True, None,
                     id="cycle detection in hierarchy"),
        pytest.param(_pod("p2", "pg2"), [_pg("pg2", "cpg1")], [_cpg("cpg1")], False, (["pg2"], []),
                     id="pod group with parent CPG but feature disabled"),
    ],
)
def test_build_hierarchy_snapshot_from_pod(
    pod: Obj, pgs: list[Obj], cpgs: list[Obj], composite: bool,
    want: tuple[list[str], list[str]] | None,
) -> None:
    lister = InformerHierarchy(_informers(pgs, cpgs))
    if want is None:
        with pytest.raises(HierarchyError):
            hierarchy_snapshot(lister, pod, composite=composite)
        return
    snap = hierarchy_snapshot(lister, pod, composite=composite)
    assert sorted(snap.pod_groups) == [f"{NS}/{n}" for n in want[0]]
    assert sorted(snap.composites) == [f"{NS}/{n}" for n in want[1]]


def test_build_hierarchy_snapshot_messages() -> None:
    lister = InformerHierarchy(_informers([_pg("pgCycle", "cycle1")], _CYCLE_CPGS))
    with pytest.raises(HierarchyError, match="^cycle detected in composite pod group hierarchy: "
                       "compositepodgroup/ns1/cycle2$"):
        hierarchy_snapshot(lister, _pod("pCycle", "pgCycle"))
    with pytest.raises(HierarchyError, match="^pod has no scheduling group$"):
        hierarchy_snapshot(lister, _pod("p0", None))


# -- TestCache_GetRootKeyForGroup / TestSnapshot_GetRootKeyForGroup -----------------------

_ROOT_PGS = [_pg("pg1", "cpg1"), _pg("pg_cycle", "cpg_cycle_1"), _pg("pg_missing_parent", "non-existent")]
_ROOT_CPGS = [_cpg("cpg1", "cpg2"), _cpg("cpg2"), _cpg("cpg_cycle_1", "cpg_cycle_2"),
              _cpg("cpg_cycle_2", "cpg_cycle_1")]
_ERR = "error"
_ROOT_ROWS = [
    ("from pg to root (GW=true, CPG=true)", True, (PG, "pg1"), (CPG, "cpg2")),
    ("from cpg to root (GW=true, CPG=true)", True, (CPG, "cpg1"), (CPG, "cpg2")),
    ("from root (GW=true, CPG=true)", True, (CPG, "cpg2"), (CPG, "cpg2")),
    ("from pg (with parent set), compositePodGroup disabled", False, (PG, "pg1"), (PG, "pg1")),
    ("missing intermediate", True, (PG, "pg_missing_parent"), None),
    ("cycle detected", True, (PG, "pg_cycle"), _ERR),
]


@pytest.mark.parametrize(
    ("composite", "key", "want"),
    [pytest.param(*r[1:], id=f"cache: {r[0]}") for r in _ROOT_ROWS]
    + [pytest.param(*r[1:], id=f"snapshot: {r[0]}") for r in _ROOT_ROWS[:4]]
    + [
        pytest.param(False, (CPG, "cpg1"), (CPG, "cpg2"),
                     id="snapshot: from cpg, compositePodGroup disabled"),
        *(pytest.param(*r[1:], id=f"snapshot: {r[0]}") for r in _ROOT_ROWS[4:]),
        pytest.param(True, ("Pod", "pod1"), _ERR, id="snapshot: pod key type is not supported"),
    ],
)
def test_get_root_key_for_group(
    composite: bool, key: tuple[str, str], want: tuple[str, str] | str | None
) -> None:
    lister = InformerHierarchy(_informers(_ROOT_PGS, _ROOT_CPGS))
    if want == _ERR:
        with pytest.raises(HierarchyError):
            root_key(lister, key[0], NS, key[1], composite=composite)
        return
    assert root_key(lister, key[0], NS, key[1], composite=composite) == want


# -- GangScheduling PreEnqueue on a broken or deep hierarchy ------------------------------


def _chain(depth: int, *, missing: str = "", top_parent: str = "") -> list[Obj]:
    """c1 <- c2 <- ... <- c<depth> (c1 the PodGroup's parent), without ``missing``."""
    names = [f"c{i}" for i in range(1, depth + 1)]
    parents = [*names[1:], top_parent]
    return [_cpg(n, p) for n, p in zip(names, parents, strict=True) if n != missing]


_SNAP = "failed to build hierarchy snapshot: "


@pytest.mark.parametrize(
    ("cpgs", "composite", "want"),
    [
        pytest.param(_chain(1), True, None, id="one level"),
        pytest.param(_chain(4), True, None, id="4 levels above the PodGroup"),
        pytest.param(_chain(5), True,
                     _SNAP + "composite pod group object not found in state for compositepodgroup/ns1/c1",
                     id="5 levels: the snapshot's root still has a parent"),
        pytest.param(_chain(3, top_parent="c4"), True,
                     _SNAP + "composite pod group object not found in state for compositepodgroup/ns1/c1",
                     id="the 4th level does not exist"),
        pytest.param(_chain(3, missing="c2"), True,
                     _SNAP + "composite pod group object not found in state for compositepodgroup/ns1/c2",
                     id="a missing intermediate level"),
        pytest.param([], True,
                     _SNAP + "composite pod group object not found in state for compositepodgroup/ns1/c1",
                     id="the parent does not exist"),
        pytest.param(_chain(2, top_parent="c1"), True,
                     _SNAP + "cycle detected in composite pod group hierarchy: compositepodgroup/ns1/c2",
                     id="a cycle"),
        pytest.param(_chain(5), False, None, id="5 levels, CompositePodGroup off"),
    ],
)
def test_pre_enqueue_hierarchy(cpgs: list[Obj], composite: bool, want: str | None) -> None:
    pod = _pod("p1", "pg1")
    pg = _pg("pg1", "c1", min_count=1)
    informers = _informers([pg], cpgs, [pod])
    feats = SchedulerFeatures(enable_generic_workload=True, enable_composite_pod_group=composite)
    # The plugin reads the scheduler cache's pod-group states (its pod-group manager).
    cache = PodGroupCache(generic_workload=True, composite_pod_group=composite)
    cache.add_pod_group(pg)
    for c in cpgs:
        cache.add_composite_pod_group(c)
    cache.add_pod_group_member(pod)
    handle = SimpleNamespace(ctx=SimpleNamespace(informers=informers),
                             snapshot_shared_lister=lambda: cache)
    plugin = GangScheduling(handle, feats)  # type: ignore[arg-type]
    status = plugin.pre_enqueue(pod)
    if want is None:
        assert status.is_success()
    else:
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (want,))


# -- GetPodPriority: TraverseHierarchyUp's depth ------------------------------------------


def test_pod_priority_reads_at_most_four_levels() -> None:
    # PodGroup, c1, c2, c3 are visited; c4's priority is never read.
    pgs = [_pg("pg1", "c1", priority=1)]
    cpgs = [_cpg(f"c{i}", f"c{i + 1}" if i < 4 else "", priority=i + 1) for i in range(1, 5)]
    info = PodInfo(_pod("p1", "pg1"))
    got = victim_priority(_informers(pgs, cpgs), info, workload=True, composite=True)  # type: ignore[arg-type]
    assert got == 4


# -- the pod-group cycle on a tree too deep for GetPodGroupStates -------------------------


def _deep_tree(*, topology: bool) -> Cluster:
    """root (gang, minGroupCount 1) <- c1 <- c2 <- c3 <- pg: the PodGroup at depth 4."""
    gates = {"GenericWorkload": True, "CompositePodGroup": True,
             "TopologyAwareWorkloadScheduling": True}
    c = Cluster(gates, config=ClusterConfig(nodes=0, runtime_config={PG_V: "true", CPG_V: "true"}))
    c.apply(make_node("n0").label("zone", "a").capacity(cpu="4", memory="8Gi", pods="10").build())
    root = make_composite_pod_group("root", "default", min_group_count=1)
    if topology:
        root["spec"]["schedulingConstraints"] = {"topology": [{"key": "zone"}]}
    c.apply(root)
    for name, parent in (("c1", "root"), ("c2", "c1"), ("c3", "c2")):
        c.apply(make_composite_pod_group(name, "default", parent=parent))
    pg = make_pod_group("pg", "default", min_count=1)
    pg["spec"]["parentCompositePodGroupName"] = "c3"
    pg["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "member"}
    c.apply(pg)
    c.apply(make_pod("p1", "default").req(cpu="1").pod_group("pg").build())
    c.settle()
    return c


def test_too_deep_tree_without_topology_schedules() -> None:
    # Nothing else in the cycle limits the depth: PreEnqueue lets 4 levels through.
    pod = _deep_tree(topology=False).get("v1", "Pod", "p1", "default")
    assert pod is not None and pod["spec"].get("nodeName") == "n0"


def test_too_deep_tree_under_topology_fails_with_error() -> None:
    c = _deep_tree(topology=True)
    pod = c.get("v1", "Pod", "p1", "default")
    assert pod is not None and not pod["spec"].get("nodeName")
    want = "exceeded maximum hierarchy depth at podgroup/default/pg"
    got_pg = c.get(PG_V, "PodGroup", "pg", "default")
    cond = condition(got_pg, "PodGroupInitiallyScheduled") if got_pg is not None else None
    assert cond is not None
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "SchedulerError", want)
    scheduled = condition(pod, "PodScheduled")
    assert scheduled is not None
    assert (scheduled["reason"], scheduled["message"]) == ("SchedulerError", want)


# -- TestValidateWorkload: the template depth ---------------------------------------------


def _templates(levels: int) -> Obj:
    """``levels`` nested CompositePodGroupTemplates, a PodGroupTemplate in the deepest."""
    cpg: Obj = {"name": f"cpg{levels}", "podGroupTemplates": [{"name": "leaf"}]}
    for i in range(levels - 1, 0, -1):
        cpg = {"name": f"cpg{i}", "compositePodGroupTemplates": [cpg]}
    return {"compositePodGroupTemplates": [cpg]}


@pytest.mark.parametrize(
    ("levels", "want"),
    [
        pytest.param(3, [], id="3 composite levels (reference boundary)"),
        pytest.param(4, [("spec.compositePodGroupTemplates[0]", "maximum template hierarchy depth is 4")],
                     id="exceeds max tree height"),
    ],
)
def test_workload_template_depth(levels: int, want: list[tuple[str, str]]) -> None:
    causes = workload_spec_causes(_templates(levels))
    # field.Invalid: the message carries the value, then the detail.
    got = [(c.field, c.message.rpartition(": ")[2]) for c in causes if "depth" in c.message]
    assert got == want
    assert all(c.reason == "FieldValueInvalid" for c in causes if "depth" in c.message)


def test_missing_parent_holds_until_it_appears() -> None:
    # PreEnqueue rejects the pod (a placeholder parent without its object); the
    # CompositePodGroup's creation requeues it (isSchedulableAfterCompositePodGroupAdded).
    # CompositePodGroup depends on TopologyAwareWorkloadScheduling (kube's gate dependencies).
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
    c = Cluster(gates, config=ClusterConfig(nodes=0, runtime_config={PG_V: "true", CPG_V: "true"}))
    c.apply(make_node("n0").capacity(cpu="4", memory="8Gi", pods="10").build())
    pg = make_pod_group("pg", "default", min_count=1)
    pg["spec"]["parentCompositePodGroupName"] = "root"
    pg["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "member"}
    c.apply(pg)
    c.apply(make_pod("p1", "default").req(cpu="1").pod_group("pg").build())
    c.settle()
    pod = c.get("v1", "Pod", "p1", "default")
    assert pod is not None and not pod["spec"].get("nodeName")
    c.apply(make_composite_pod_group("root", "default", min_group_count=1))
    c.settle()
    pod = c.get("v1", "Pod", "p1", "default")
    assert pod is not None and pod["spec"].get("nodeName") == "n0"

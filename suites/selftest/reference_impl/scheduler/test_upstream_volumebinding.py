"""VolumeBinding PreFilter/Filter/PreScore/Score rows ported from upstream
pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go (v1.37.2):
TestVolumeBinding; scorer_test.go: TestScore (default shape).

Rows that need static PVs are ported in test_upstream_volume_binder_plugin.py; rows with
a custom utilisation shape (VolumeBindingArgs.shape) are skipped.
Upstream's state-after-PreFilter comparisons are internal and not ported. Its
CSIStorageCapacity objects have no namespace; here they live in "default"."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import volume_binding as vb
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    code_reasons,
    make_pod,
    node,
    snapshot,
)

Obj = dict[str, Any]
OKS, SKIP = ("SUCCESS", ()), ("SKIP", ())
UU = "UNSCHEDULABLE_AND_UNRESOLVABLE"
CAP_SC, CAP_DRIVER = "wait-sc-with-storage-capacity", "driver-with-storage-capacity"
STATIC = pytest.mark.skip(reason="needs static PVs: ported in test_upstream_volume_binder_plugin.py")
SHAPE = pytest.mark.skip(reason="VolumeBindingArgs.shape is not configurable in the reference")
BASE: list[Obj] = [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "immediate-sc"},
     "volumeBindingMode": "Immediate"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait-sc"},
     "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait-hdd-sc"},
     "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": CAP_SC},
     "provisioner": CAP_DRIVER, "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": CAP_DRIVER},
     "spec": {"storageCapacity": True}},
]


def pod(*claims: str) -> Obj:
    w = make_pod("pod-a").ns("default")
    w.p["spec"]["volumes"] = [{"name": "", "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return w.obj()


def pvc(name: str, sc: str, bound: str = "", storage: str = "", phase: str = "") -> Obj:
    o: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
              "spec": {"storageClassName": sc}}
    if bound:
        o["spec"]["volumeName"] = bound
        o["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "true"}
    if storage:
        o["spec"]["resources"] = {"requests": {"storage": storage}}
    if phase:
        o["status"] = {"phase": phase}
    return o


def pv(name: str, sc: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"storageClassName": sc}, "status": {"phase": "Available"}}


def capacity(name: str, capacity_: str) -> Obj:
    """``makeCapacity(name, class, node with nodeKey=name, capacity, "")``."""
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
            "metadata": {"name": name, "namespace": "default"}, "storageClassName": CAP_SC,
            "nodeTopology": {"matchLabels": {"nodeKey": name}}, "capacity": capacity_}


def nodes(*names: str, labels: dict[str, str] | None = None) -> list[Obj]:
    return [node(n, {"nodeKey": n, **(labels or {})}) for n in names]


# (name, pod, nodes, objects, scoring gate, PreFilter, Filter per node, PreScore, scores)
ROWS: list[Any] = [
    ("pod has not pvcs", pod(), nodes("node-a"), [], False, SKIP, None, None, None),
    ("all bound", pod("pvc-a"), nodes("node-a"), [pvc("pvc-a", "wait-sc", bound="pv-a"), pv("pv-a", "wait-sc")],
     False, OKS, [OKS], SKIP, None),
    ("PVC does not exist", pod("pvc-a"), nodes("node-a"), [], False,
     (UU, ('persistentvolumeclaim "pvc-a" not found',)), None, None, None),
    ("Part of PVCs do not exist", pod("pvc-a", "pvc-b"), nodes("node-a"), [pvc("pvc-a", "wait-sc", bound="pv-a")],
     False, (UU, ('persistentvolumeclaim "pvc-b" not found',)), None, None, None),
    ("immediate claims not bound", pod("pvc-a"), nodes("node-a"), [pvc("pvc-a", "immediate-sc")], False,
     (UU, ("pod has unbound immediate PersistentVolumeClaims",)), None, None, None),
    ("unbound claims no matches", pod("pvc-a"), nodes("node-a"), [pvc("pvc-a", "wait-sc")], False, OKS,
     [(UU, (vb.BIND_CONFLICT,))], SKIP, None),
    pytest.param(pod("pvc-a", "pvc-b"), nodes("node-a", labels={"foo": "barbar"}),
                 [pvc("pvc-a", "wait-sc", bound="pv-a"), pvc("pvc-b", "wait-sc"), pv("pv-a", "wait-sc")], False, OKS,
                 [(UU, ("node(s) didn't match PersistentVolume's node affinity", vb.BIND_CONFLICT))], SKIP, None,
                 id="bound and unbound unsatisfied", marks=STATIC),
    ("pv not found", pod("pvc-a"), nodes("node-a"), [pvc("pvc-a", "wait-sc", bound="pv-a")], False, OKS,
     [(UU, (vb.PV_NOT_EXIST,))], SKIP, None),
    ("pv not found claim lost", pod("pvc-a"), nodes("node-a"), [pvc("pvc-a", "wait-sc", bound="pv-a", phase="Lost")],
     False, (UU, ('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"',)), None, None, None),
    ("storage capacity score", pod("pvc-dynamic"), nodes("node-a", "node-b", "node-c"),
     [pvc("pvc-dynamic", CAP_SC, storage="10Gi"), capacity("node-a", "100Gi"), capacity("node-b", "50Gi"),
      capacity("node-c", "10Gi")], True, OKS, [OKS, OKS, OKS], OKS, [90, 80, 0]),
    pytest.param(pod("pvc-dynamic", "pvc-static"), nodes("node-a", "node-b", "node-c"), [], True, OKS,
                 [OKS, OKS, OKS], OKS, [50, 50, 50], id="storage capacity score with static binds", marks=STATIC),
    ("dynamic provisioning with multiple PVCs of the same StorageClass", pod("pvc-dynamic-0", "pvc-dynamic-1"),
     nodes("node-a"), [pvc("pvc-dynamic-0", CAP_SC, storage="50Gi"), pvc("pvc-dynamic-1", CAP_SC, storage="50Gi"),
                       capacity("node-a", "100Gi")], True, OKS, [OKS], OKS, [0]),
    pytest.param(pod("pvc-dynamic"), nodes("node-a", "node-b", "node-c"),
                 [pvc("pvc-dynamic", CAP_SC, storage="10Gi"), capacity("node-a", "100Gi"), capacity("node-b", "20Gi"),
                  capacity("node-c", "10Gi")], True, OKS, [OKS, OKS, OKS], OKS, [10, 50, 100],
                 id="prefer node with least allocatable", marks=SHAPE),
    ("prefer node with maximum allocatable", pod("pvc-dynamic"), nodes("node-a", "node-b", "node-c"),
     [pvc("pvc-dynamic", CAP_SC, storage="10Gi"), capacity("node-a", "100Gi"), capacity("node-b", "20Gi"),
      capacity("node-c", "10Gi")], True, OKS, [OKS, OKS, OKS], OKS, [90, 50, 0]),
]


@pytest.mark.parametrize(("pod", "ns", "objs", "scoring", "want_pre", "want_filter", "want_prescore", "want_scores"),
                         [pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in ROWS])
def test_volume_binding(pod: Obj, ns: list[Obj], objs: list[Obj], scoring: bool, want_pre: Any, want_filter: Any,
                        want_prescore: Any, want_scores: Any) -> None:
    h = snapshot([], ns, [*BASE, *objs], gates={"StorageCapacityScoring": scoring})
    pl = vb.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vb.VolumeBinding)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, [])
    assert code_reasons(pre) == want_pre
    if not pre.is_success():
        return
    infos = [h.node_info(n["metadata"]["name"]) for n in ns]
    assert [code_reasons(pl.filter(state, pod, ni)) for ni in infos] == want_filter
    st = pl.pre_score(state, pod, infos)
    assert code_reasons(st) == want_prescore
    if st.is_success():
        assert [pl.score(state, pod, ni)[0] for ni in infos] == want_scores


# -- scorer_test.go TestScore ----------------------------------------------------------------
def _class_score(*classes: tuple[int, int]) -> int:
    """Score one node whose classes (hdd, ssd, ...) have (requested, capacity) each."""
    objs: list[Obj] = []
    claims = []
    for i, (requested, cap) in enumerate(classes):
        sc, claim = f"class-{i}", f"pvc-{i}"
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": sc},
                     "provisioner": CAP_DRIVER, "volumeBindingMode": "WaitForFirstConsumer"})
        objs.append(pvc(claim, sc, storage=str(requested)))
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                     "metadata": {"name": f"cap-{i}", "namespace": "default"}, "storageClassName": sc,
                     "nodeTopology": {"matchLabels": {"nodeKey": "node-a"}}, "capacity": str(cap)})
        claims.append(claim)
    h = snapshot([], nodes("node-a"), [*BASE, *objs], gates={"StorageCapacityScoring": True})
    pl = vb.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vb.VolumeBinding)
    state = CycleState()
    p = pod(*claims)
    assert pl.pre_filter(state, p, [])[1].is_success()
    assert pl.filter(state, p, h.node_info("node-a")).is_success()  # Score reads what Filter found
    assert pl.pre_score(state, p, h.nodes()).is_success()
    return pl.score(state, p, h.node_info("node-a"))[0]


SCORE_ROWS = [
    pytest.param([(0, 100)], 100, id="default shape, single class/0"),
    pytest.param([(30, 100)], 70, id="default shape, single class/30"),
    pytest.param([(50, 100)], 50, id="default shape, single class/50"),
    pytest.param([(100, 100)], 0, id="default shape, single class/100"),
    pytest.param([(0, 100), (0, 100)], 100, id="default shape, multiple classes/0-0"),
    pytest.param([(0, 100), (30, 100)], 85, id="default shape, multiple classes/0-30"),
    pytest.param([(30, 100), (30, 100)], 70, id="default shape, multiple classes/30-30"),
    pytest.param([(30, 100), (60, 100)], 55, id="default shape, multiple classes/30-60"),
    pytest.param([(50, 100), (50, 100)], 50, id="default shape, multiple classes/50-50"),
    pytest.param([(50, 100), (100, 100)], 25, id="default shape, multiple classes/50-100"),
    pytest.param([(100, 100), (100, 100)], 0, id="default shape, multiple classes/100-100"),
    pytest.param([], 0, id="custom shape, multiple classes", marks=SHAPE),
]


@pytest.mark.parametrize(("classes", "want"), SCORE_ROWS)
def test_score(classes: list[tuple[int, int]], want: int) -> None:
    """TestScore (scorer_test.go), default shape: the plugin's Score over one node."""
    assert _class_score(*classes) == want


@pytest.mark.parametrize(("classes", "want"), [
    pytest.param([(25, 100)], 75, id="utilisation 25"),
    pytest.param([(15, 100), (25, 100)], 80, id="rounded mean of 85 and 75"),
])
def test_score_between_table_points(classes: list[tuple[int, int]], want: int) -> None:
    """Not an upstream row: buildScorerFunction's arithmetic between the table's points
    (shape scaled to 0..100 before interpolating, math.Round of the mean)."""
    assert _class_score(*classes) == want

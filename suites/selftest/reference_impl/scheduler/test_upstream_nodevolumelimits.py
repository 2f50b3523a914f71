"""NodeVolumeLimits (CSILimits) PreFilter/Filter rows ported from upstream
pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go (v1.37.2): TestCSILimits,
TestVolumeLimitScalingGate.

The fixtures follow upstream's helpers (getFakeCSIPVLister, getFakeCSIPVCLister,
getFakeCSIStorageClassLister, getNodeWithPodAndVolumeLimits, buildFakeClientWithVALister),
with the claims of namespace-less pods in "default" (the reference's reading of "").
Upstream's fake PVC lister names a missing claim ``persistentvolumeclaims``; the informer
lister the scheduler uses says ``persistentvolumeclaim``, which these rows expect.
In-tree volume migration (CSINode migrated-plugins annotation, csi-translation-lib) is
not modelled: its rows are skipped."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import node_volume_limits as nvl
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    code_reasons,
    make_pod,
    node,
    snapshot,
)

Obj = dict[str, Any]
EBS, GCE, AWS_INTREE, HOSTPATH = "ebs.csi.aws.com", "pd.csi.storage.gke.io", "kubernetes.io/aws-ebs", "kubernetes.io/hostpath"
NODE = "node-for-max-pd-test-1"
SC = "csi-sc"
OKS, SKIP = ("SUCCESS", ()), ("SKIP", ())
EXCEEDED = ("UNSCHEDULABLE", (nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
MIGRATION = pytest.mark.skip(reason="in-tree CSI migration (csi-translation-lib) is not modelled")


def pvc_pod(*claims: str) -> Obj:
    w = make_pod()
    w.p["spec"]["volumes"] = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return w.obj()


def vol_pod(*volumes: Obj, name: str = "", ns: str = "", uid: str = "") -> Obj:
    w = make_pod(name).ns(ns)
    if uid:
        w.uid(uid)
    w.p["spec"]["volumes"] = list(volumes)
    return w.obj()


def _ephemeral_claim(pod: Obj, vol: str, owned: bool = True) -> Obj:
    meta: Obj = {"name": f"{pod['metadata']['name']}-{vol}", "namespace": pod["metadata"]["namespace"]}
    if owned:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                                    "uid": pod["metadata"]["uid"], "controller": True}]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": {"storageClassName": SC}}


EPH: Obj = {"ephemeral": {}}
CM_SECRET = [{"name": "cm", "configMap": {}}, {"name": "secret", "secret": {}}]
RUNNING = pvc_pod(f"csi-{EBS}-3")
PENDING = pvc_pod("csi-4")
UNBOUND2 = pvc_pod("csi-4")
MISSING_PV = pvc_pod("csi-6")
NO_SC = pvc_pod("csi-5")
GCE_TWO = pvc_pod(f"csi-{GCE}-1", f"csi-{GCE}-2")
INTREE_ONE = pvc_pod(f"csi-{AWS_INTREE}-0")
INTREE_TWO = pvc_pod(f"csi-{AWS_INTREE}-1", f"csi-{AWS_INTREE}-2")
EBS_ONE = pvc_pod(f"csi-{EBS}-0")
EBS_TWO = pvc_pod(f"csi-{EBS}-1", f"csi-{EBS}-2")
HOSTPATH_ONE = pvc_pod(f"csi-{HOSTPATH}-0")
EPH_POD = vol_pod({"name": "xyz", **EPH}, name="abc", ns="test", uid="12345")
EPH_CLAIM = _ephemeral_claim(EPH_POD, "xyz")
CONFLICTING = _ephemeral_claim(EPH_POD, "xyz", owned=False)
EPH_TWO = vol_pod({"name": "x", **EPH}, {"name": "y", **EPH}, name="abc", ns="test", uid="12345II")
EPH_X, EPH_Y = _ephemeral_claim(EPH_TWO, "x"), _ephemeral_claim(EPH_TWO, "y")
INLINE = vol_pod({"name": "v", "awsElasticBlockStore": {"volumeID": "aws-inline1"}})
INLINE_SAME_ID = vol_pod({"name": "v", "awsElasticBlockStore": {"volumeID": f"csi-{EBS}-1"}})
ONLY_CM_SECRET = vol_pod(*CM_SECRET)
PVC_CM_SECRET = vol_pod(*CM_SECRET, {"name": "pvc", "persistentVolumeClaim": {"claimName": f"csi-{EBS}-0"}})
EPH_CM_SECRET = vol_pod(*CM_SECRET, {"name": "xyz", **EPH}, name="abc", ns="test", uid="uid-abc-cm")
INLINE_CM_SECRET = vol_pod(*CM_SECRET, {"name": "v", "awsElasticBlockStore": {"volumeID": "aws-inline1"}})


def _fixtures(drivers: list[str], limit_source: str, max_vols: int, va_count: int) -> list[Obj]:
    objs: list[Obj] = []
    for d in drivers:
        for j in range(4):
            name = f"csi-{d}-{j}"
            if d == AWS_INTREE:
                src: Obj = {"awsElasticBlockStore": {"volumeID": name}}
            elif d == HOSTPATH:
                src = {"hostPath": {"path": "/tmp"}}
            else:
                src = {"csi": {"driver": d, "volumeHandle": name}}
            objs.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": src})
            objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": name, "namespace": "default"}, "spec": {"volumeName": name}})
    for name, spec in (("csi-4", {"storageClassName": SC}), ("csi-5", {}),
                       ("csi-6", {"storageClassName": SC, "volumeName": "missing-in-action"})):
        objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                     "metadata": {"name": name, "namespace": "default"}, "spec": spec})
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": SC},
                 "provisioner": drivers[0]})
    if limit_source in ("csinode", "csinode-with-no-limit", "no-csi-driver"):
        entries: list[Obj] = [] if limit_source == "no-csi-driver" else [{"name": d, "nodeID": NODE} for d in drivers]
        if limit_source == "csinode":
            for e in entries:
                e["allocatable"] = {"count": max_vols}
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                     "metadata": {"name": NODE, "annotations": {
                         "storage.alpha.kubernetes.io/migrated-plugins": AWS_INTREE}},
                     "spec": {"drivers": entries}})
    for d in drivers:
        for j in range(va_count):
            objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                         "metadata": {"name": f"va-{d}-{j}"},
                         "spec": {"nodeName": NODE, "attacher": d,
                                  "source": {"persistentVolumeName": f"csi-{d}-{j}"}}})
    return objs


# (name, new pod, existing pods, extra claims, maxVols, vaCount, drivers, limitSource, want PreFilter, want Filter)
ROWS: list[Any] = [
    ("should count VolumeAttachments towards volume limit when no pods exist", EBS_ONE, [], [], 2, 2, [EBS],
     "csinode", OKS, EXCEEDED),
    ("should schedule pod when VolumeAttachments count does not exceed limit", EBS_ONE, [], [], 2, 1, [EBS],
     "csinode", OKS, OKS),
    ("fits when node volume limit >= new pods CSI volume", EBS_ONE, [RUNNING, EBS_TWO], [], 4, 0, [EBS], "csinode",
     OKS, OKS),
    ("doesn't when node volume limit <= pods CSI volume", EBS_ONE, [RUNNING, EBS_TWO], [], 2, 0, [EBS], "csinode",
     OKS, EXCEEDED),
    ("should when driver does not support volume limits", EBS_ONE, [RUNNING, EBS_TWO], [], 2, 0, [EBS],
     "csinode-with-no-limit", OKS, OKS),
    ("count pending PVCs towards volume limit <= pods CSI volume", EBS_ONE, [PENDING, EBS_TWO], [], 2, 0, [EBS],
     "csinode", OKS, EXCEEDED),
    ("count multiple pending pvcs towards volume limit >= pods CSI volume", EBS_ONE, [PENDING, UNBOUND2, EBS_TWO],
     [], 4, 0, [EBS], "csinode", OKS, OKS),
    ("should count PVCs with invalid PV name but valid SC", EBS_ONE, [MISSING_PV, EBS_TWO], [], 2, 0, [EBS],
     "csinode", OKS, EXCEEDED),
    ("don't count pvcs with missing SC towards volume limit", EBS_ONE, [RUNNING, NO_SC], [], 2, 0, [EBS],
     "csinode", OKS, OKS),
    ("count pvcs with the same type towards volume limit", EBS_ONE, [GCE_TWO, EBS_TWO], [], 2, 0, [EBS, GCE],
     "csinode", OKS, EXCEEDED),
    ("don't count pvcs with different type towards volume limit", GCE_TWO, [EBS_TWO, RUNNING], [], 2, 0,
     [EBS, GCE], "csinode", OKS, OKS),
    pytest.param(INTREE_ONE, [INTREE_TWO], [], 2, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="should count in-tree volumes if migration is enabled", marks=MIGRATION),
    pytest.param(INLINE, [INTREE_TWO], [], 0, 0, [AWS_INTREE, EBS], "", OKS, OKS, id="nil csi node",
                 marks=MIGRATION),
    pytest.param(PENDING, [INTREE_TWO], [], 2, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="should count unbound in-tree volumes if migration is enabled", marks=MIGRATION),
    ("should not limit pod if volume used does not report limits", INTREE_ONE, [INTREE_TWO], [], 2, 0,
     [AWS_INTREE, EBS], "csinode-with-no-limit", OKS, OKS),
    ("should not count non-migratable in-tree volumes", HOSTPATH_ONE, [EBS_TWO], [], 2, 0, [HOSTPATH, EBS],
     "csinode", OKS, OKS),
    pytest.param(INLINE, [INTREE_TWO], [], 2, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="should count in-tree inline volumes if migration is enabled", marks=MIGRATION),
    pytest.param(INTREE_ONE, [EBS_TWO], [], 2, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)",
                 marks=MIGRATION),
    pytest.param(INLINE, [EBS_TWO, INTREE_ONE], [], 3, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree "
                    "volumes)", marks=MIGRATION),
    pytest.param(INLINE_SAME_ID, [EBS_TWO, INTREE_ONE], [], 3, 0, [AWS_INTREE, EBS], "csinode", OKS, OKS,
                 id="should not count in-tree, inline and csi volumes if migration is enabled (when scheduling "
                    "in-tree volumes)", marks=MIGRATION),
    pytest.param(EBS_ONE, [INTREE_TWO], [], 2, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)",
                 marks=MIGRATION),
    ("ephemeral volume missing", EPH_POD, [], [], 0, 0, [EBS], "csinode-with-no-limit", OKS,
     ("UNSCHEDULABLE_AND_UNRESOLVABLE", ('looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found',))),
    ("ephemeral volume not owned", EPH_POD, [], [CONFLICTING], 0, 0, [EBS], "csinode-with-no-limit", OKS,
     ("ERROR", ("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)",))),
    ("ephemeral volume unbound", EPH_POD, [], [EPH_CLAIM], 0, 0, [EBS], "csinode-with-no-limit", OKS, OKS),
    ("ephemeral doesn't when node volume limit <= pods CSI volume", EPH_POD, [RUNNING, EBS_TWO], [EPH_CLAIM], 2, 0,
     [EBS], "csinode", OKS, EXCEEDED),
    ("ephemeral doesn't when node volume limit <= pods ephemeral CSI volume", EBS_ONE, [RUNNING, EPH_TWO],
     [EPH_X, EPH_Y], 2, 0, [EBS], "csinode", OKS, EXCEEDED),
    ("persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume, ephemeral disabled",
     EBS_ONE, [RUNNING, EPH_POD, EBS_TWO], [EPH_CLAIM], 3, 0, [EBS], "csinode", OKS, EXCEEDED),
    ("persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
     EBS_ONE, [RUNNING, EPH_POD, EBS_TWO], [EPH_CLAIM], 3, 0, [EBS], "csinode", OKS, EXCEEDED),
    ("persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
     EBS_ONE, [RUNNING, EPH_POD, EBS_TWO], [EPH_CLAIM], 5, 0, [EBS], "csinode", OKS, OKS),
    ("skip Filter when the pod only uses secrets and configmaps", ONLY_CM_SECRET, [], [], 2, 0, [EBS], "csinode",
     SKIP, None),
    ("don't skip Filter when the pod has pvcs", PVC_CM_SECRET, [], [], 2, 0, [EBS], "csinode", OKS, OKS),
    ("don't skip Filter when the pod has ephemeral volumes", EPH_CM_SECRET, [], [], 0, 0, [EBS],
     "csinode-with-no-limit", OKS,
     ("UNSCHEDULABLE_AND_UNRESOLVABLE", ('looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found',))),
    pytest.param(INLINE_CM_SECRET, [INTREE_TWO], [], 2, 0, [AWS_INTREE, EBS], "csinode", OKS, EXCEEDED,
                 id="don't skip Filter when the pod has inline migratable volumes", marks=MIGRATION),
]


@pytest.mark.parametrize(
    ("pod", "existing", "claims", "max_vols", "va_count", "drivers", "source", "want_pre", "want"),
    [pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in ROWS])
def test_csi_limits(pod: Obj, existing: list[Obj], claims: list[Obj], max_vols: int, va_count: int,
                    drivers: list[str], source: str, want_pre: Any, want: Any) -> None:
    pods = [{**p, "spec": {**p["spec"], "nodeName": NODE}} for p in existing]
    h = snapshot(pods, [node(NODE)], [*_fixtures(drivers, source, max_vols, va_count), *claims])
    pl = nvl.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, nvl.NodeVolumeLimits)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, [])
    assert code_reasons(pre) == want_pre
    if pre.code.name != "SKIP":
        assert code_reasons(pl.filter(state, pod, h.node_info(NODE))) == want


# (name, VolumeLimitScaling, limitSource, limit, CSIDriver present, preventPodSchedulingIfMissing, want Filter)
SCALING = [
    ("gate enabled - allow scheduling when CSIDriver exists but PreventPodSchedulingIfMissing is not set", True,
     "no-csi-driver", 0, True, False, OKS),
    ("gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true", True, "no-csi-driver",
     0, True, True, ("UNSCHEDULABLE", (f"{EBS} CSI driver is not installed on the node",))),
    ("gate disabled - skip driver presence check (regardless of CSIDriver presence)", False, "no-csi-driver", 0, True,
     True, OKS),
    ("gate enabled - driver installed within limit", True, "csinode", 2, True, True, OKS),
    ("gate enabled - allow scheduling when CSIDriver object missing", True, "no-csi-driver", 0, False, False, OKS),
]


@pytest.mark.parametrize(("gate", "source", "limit", "driver_present", "prevent", "want"),
                         [pytest.param(*r[1:], id=r[0]) for r in SCALING])
def test_volume_limit_scaling_gate(gate: bool, source: str, limit: int, driver_present: bool, prevent: bool,
                                   want: Any) -> None:
    objs = _fixtures([EBS], source, limit, 0)
    if driver_present:
        spec: Obj = {"preventPodSchedulingIfMissing": True} if prevent else {}
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": EBS}, "spec": spec})
    h = snapshot([], [node(NODE)], objs, gates={"VolumeLimitScaling": gate})
    pl = nvl.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, nvl.NodeVolumeLimits)
    state = CycleState()
    pod = pvc_pod(f"csi-{EBS}-0")
    assert not pl.pre_filter(state, pod, [])[1].is_skip()
    assert code_reasons(pl.filter(state, pod, h.node_info(NODE))) == want

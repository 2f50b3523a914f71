"""VolumeZone PreFilter/Filter rows ported from upstream
pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go (v1.37.2):
TestSingleZone, TestMultiZone, TestWithBinding.

Upstream runs Filter after every PreFilter, whatever its status (Filter then recomputes
the volumes' topologies). Its fake StorageClass lister reports a missing class as
``storageclasses.storage.k8s.io``; the informer lister the scheduler really uses (and the
reference models) says ``storageclass.storage.k8s.io``, which the one such row expects."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import volume_zone as vz
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    code_reasons,
    make_pod,
    node,
    snapshot,
)

Obj = dict[str, Any]
BZ, BR = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
Z, R = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
OKS, SKIP = ("SUCCESS", ()), ("SKIP", ())
CONFLICT = ("UNSCHEDULABLE_AND_UNRESOLVABLE", (vz.ERR_REASON_CONFLICT,))


def pv(name: str, **labels: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": labels}, "spec": {}}


def pvc(name: str, volume: str = "", sc: str | None = None) -> Obj:
    spec: Obj = {}
    if volume:
        spec["volumeName"] = volume
    if sc is not None:
        spec["storageClassName"] = sc
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def sc(name: str, mode: str | None = None) -> Obj:
    o: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name}}
    if mode is not None:
        o["volumeBindingMode"] = mode
    return o


def with_volume(claim: str) -> Obj:
    """``createPodWithVolume``."""
    w = make_pod("pod_1").ns("default")
    w.p["spec"]["volumes"] = [{"name": "vol", "persistentVolumeClaim": {"claimName": claim}}]
    return w.obj()


def _run(objs: list[Obj], pod: Obj, labels: dict[str, str]) -> tuple[Any, Any]:
    n = node("host1", labels)
    h = snapshot([], [n], objs)
    pl = vz.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vz.VolumeZone)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, [])
    return code_reasons(pre), code_reasons(pl.filter(state, pod, h.node_info("host1")))


USELESS = {"uselessLabel": "none"}
SINGLE_OBJS = [
    pv("Vol_1", **{BZ: "us-west1-a"}), pv("Vol_2", **{BR: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", **{BR: "us-west1"}), pv("Vol_Stable_1", **{Z: "us-west1-a"}),
    pv("Vol_Stable_2", **{R: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", **{Z: "us-west1-a", R: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"), pvc("PVC_2", "Vol_2"), pvc("PVC_3", "Vol_3"), pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"), pvc("PVC_Stable_2", "Vol_Stable_2"), pvc("PVC_Stable_3", "Vol_Stable_3"),
]
SINGLE = [
    ("pod without volume", make_pod("pod_1").ns("default").obj(), {BZ: "us-west1-a"}, SKIP, OKS),
    ("node without labels", with_volume("PVC_1"), {}, OKS, OKS),
    ("beta zone label matched", with_volume("PVC_1"), {BZ: "us-west1-a", **USELESS}, OKS, OKS),
    ("beta region label matched", with_volume("PVC_2"), {BR: "us-west1", **USELESS}, OKS, OKS),
    ("beta region label doesn't match", with_volume("PVC_2"), {BR: "no_us-west1", **USELESS}, OKS, CONFLICT),
    ("beta zone label doesn't match", with_volume("PVC_1"), {BZ: "no_us-west1-a", **USELESS}, OKS, CONFLICT),
    ("zone label matched", with_volume("PVC_Stable_1"), {Z: "us-west1-a", **USELESS}, OKS, OKS),
    ("region label matched", with_volume("PVC_Stable_2"), {R: "us-west1", **USELESS}, OKS, OKS),
    ("region label doesn't match", with_volume("PVC_Stable_2"), {R: "no_us-west1", **USELESS}, OKS, CONFLICT),
    ("zone label doesn't match", with_volume("PVC_Stable_1"), {Z: "no_us-west1-a", **USELESS}, OKS, CONFLICT),
    ("pv with zone and region, node with only zone", with_volume("PVC_Stable_3"), {Z: "us-west1-a"}, OKS, CONFLICT),
    ("pv with zone,node with beta zone", with_volume("PVC_Stable_1"), {BZ: "us-west1-a"}, OKS, CONFLICT),
    ("pv with beta label,node with ga label, matched", with_volume("PVC_1"), {Z: "us-west1-a"}, OKS, OKS),
    ("pv with beta label,node with ga label, don't match", with_volume("PVC_1"), {Z: "us-west1-b"}, OKS, CONFLICT),
]


@pytest.mark.parametrize(("pod", "labels", "want_pre", "want"), [pytest.param(*r[1:], id=r[0]) for r in SINGLE])
def test_single_zone(pod: Obj, labels: dict[str, str], want_pre: Any, want: Any) -> None:
    assert _run(SINGLE_OBJS, pod, labels) == (want_pre, want)


MULTI_OBJS = [
    pv("Vol_1", **{BZ: "us-west1-a"}), pv("Vol_2", **{BZ: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", **{BZ: "us-west1-c__us-west1-a"}), pv("Vol_Stable_1", **{Z: "us-west1-a"}),
    pv("Vol_Stable_2", **{Z: "us-west1-c__us-west1-a"}),
    pvc("PVC_1", "Vol_1"), pvc("PVC_2", "Vol_2"), pvc("PVC_3", "Vol_3"), pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"), pvc("PVC_Stable_2", "Vol_Stable_2"),
]
MULTI = [
    ("node without labels", with_volume("PVC_3"), {}, OKS, OKS),
    ("beta zone label matched", with_volume("PVC_3"), {BZ: "us-west1-a", **USELESS}, OKS, OKS),
    ("beta zone label doesn't match", with_volume("PVC_1"), {BZ: "us-west1-b", **USELESS}, OKS, CONFLICT),
    ("zone label matched", with_volume("PVC_Stable_2"), {Z: "us-west1-a", **USELESS}, OKS, OKS),
    ("zone label doesn't match", with_volume("PVC_Stable_1"), {Z: "us-west1-b", **USELESS}, OKS, CONFLICT),
]


@pytest.mark.parametrize(("pod", "labels", "want_pre", "want"), [pytest.param(*r[1:], id=r[0]) for r in MULTI])
def test_multi_zone(pod: Obj, labels: dict[str, str], want_pre: Any, want: Any) -> None:
    assert _run(MULTI_OBJS, pod, labels) == (want_pre, want)


BINDING_OBJS = [
    sc("Class_Immediate"), sc("Class_Wait", "WaitForFirstConsumer"), pv("Vol_1", **{BZ: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"), pvc("PVC_NoSC", sc="Class_0"), pvc("PVC_EmptySC"), pvc("PVC_WaitSC", sc="Class_Wait"),
    pvc("PVC_ImmediateSC", sc="Class_Immediate"),
]


def _uu(msg: str) -> tuple[str, tuple[str, ...]]:
    return "UNSCHEDULABLE_AND_UNRESOLVABLE", (msg,)


NO_NAMES = _uu("PersistentVolumeClaim had no pv name and storageClass name")
NO_CLASS = _uu('storageclass.storage.k8s.io "Class_0" not found')
NO_MODE = _uu('VolumeBindingMode not set for StorageClass "Class_Immediate"')
BINDING = [
    ("label zone failure domain matched", with_volume("PVC_1"), OKS, OKS),
    ("unbound volume empty storage class", with_volume("PVC_EmptySC"), NO_NAMES, NO_NAMES),
    ("unbound volume no storage class", with_volume("PVC_NoSC"), NO_CLASS, NO_CLASS),
    ("unbound volume immediate binding mode", with_volume("PVC_ImmediateSC"), NO_MODE, NO_MODE),
    ("unbound volume wait binding mode", with_volume("PVC_WaitSC"), SKIP, OKS),
]


@pytest.mark.parametrize(("pod", "want_pre", "want"), [pytest.param(*r[1:], id=r[0]) for r in BINDING])
def test_with_binding(pod: Obj, want_pre: Any, want: Any) -> None:
    assert _run(BINDING_OBJS, pod, {BZ: "us-west1-a", **USELESS}) == (want_pre, want)

"""Deferred-resize rows ported from upstream (v1.37.2): TestInterPodAffinity_DeferredResizeSkipped,
TestPodTopologySpread_DeferredResizeSkipped, TestVolumeRestrictions_DeferredResizeSkipped,
TestVolumeZone_DeferredResizeSkipped, TestCSILimits_DeferredResizeSkipped,
TestVolumeBinding_DeferredResizeSkipped: with InPlacePodVerticalScalingSchedulerPreemption
on, a pod whose resize is deferred is skipped by PreFilter and passed by Filter."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import (
    inter_pod_affinity,
    node_volume_limits,
    pod_topology_spread,
    volume_binding,
    volume_restrictions,
    volume_zone,
)
from suites.selftest.reference_impl.scheduler.upstream_st_b import make_pod, node, snapshot


@pytest.mark.parametrize("module", [
    pytest.param(inter_pod_affinity, id="InterPodAffinity"),
    pytest.param(pod_topology_spread, id="PodTopologySpread"),
    pytest.param(volume_restrictions, id="VolumeRestrictions"),
    pytest.param(volume_zone, id="VolumeZone"),
    pytest.param(node_volume_limits, id="CSILimits"),
    pytest.param(volume_binding, id="VolumeBinding"),
])
def test_deferred_resize_skipped(module: Any) -> None:
    pod = make_pod("p").uid("p").obj()
    pod["status"]["conditions"] = [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]
    h = snapshot([], [node("node1")])
    pl = module.new(None, h, SchedulerFeatures(enable_in_place_pod_vertical_scaling_scheduler_preemption=True))
    state = CycleState()
    res, pre = pl.pre_filter(state, pod, [])
    assert (res, pre.code.name) == (None, "SKIP")
    assert pl.filter(state, pod, h.node_info("node1")).code.name == "SUCCESS"

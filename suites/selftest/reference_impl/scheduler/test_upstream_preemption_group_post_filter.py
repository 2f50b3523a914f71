"""DefaultPreemption's PodGroupPostFilter, upstream's remaining tables.

Ported (plugins/defaultpreemption/default_preemption_test.go):
``TestDefaultPreemption_PodGroupPostFilter_CompositePodGroup`` (a CompositePodGroup
preemptor with nothing to preempt is UnschedulableAndUnresolvable, upstream's message) and
``TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts`` (skipped: it counts
``scheduler_workload_preemption_attempts_total``; the reference records no metrics).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod, make_pod_group
from reference_impl.api.gang_builders import make_composite_pod_group
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.pod_group_post_filter import (
    PodGroupPostFilterInfo,
    PodGroupScheduling,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from suites.selftest.reference_impl.scheduler.test_upstream_podgroup_preemption import (
    _Ctx,
    _Handle,
    _Informers,
    _Lister,
)

Obj = dict[str, Any]
HIGH = 1000


def test_default_preemption_pod_group_post_filter_composite_pod_group() -> None:
    pg_ok = make_pod_group("preemptor-pg-ok", "default")
    pg_ok["spec"]["priority"] = HIGH
    handle = _Handle(_Lister([]), _Ctx(_Informers([pg_ok], [])))
    features = SchedulerFeatures(enable_generic_workload=True,
                                 enable_topology_aware_workload_scheduling=True,
                                 enable_composite_pod_group=True)
    pl = DefaultPreemption(handle, features)  # type: ignore[arg-type] # the fake handle
    pod = make_pod("p").set("spec.priority", HIGH).build()
    cpg = make_composite_pod_group("cpg", "default")
    info = PodGroupPostFilterInfo(cpg, [pod], composite=True, need=1)
    result, status = pl.pod_group_post_filter(CycleState(), info, PodGroupScheduling())
    assert result is None
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message() == "pod group preemption: No preemption victims found for incoming preemptor"


@pytest.mark.parametrize(
    "code",
    [pytest.param(Code.SUCCESS, id="preemption success"),
     pytest.param(Code.UNSCHEDULABLE, id="preemption unschedulable"),
     pytest.param(Code.ERROR, id="preemption error")],
)
@pytest.mark.skip(reason="scheduler_workload_preemption_attempts_total: no metrics in the reference")
def test_default_preemption_pod_group_post_filter_workload_preemption_attempts(code: Code) -> None:
    raise AssertionError(code)

"""Upstream's PodGroupInitiallyScheduled condition table, row by row.

Ported: ``TestUpdatePodGroupCondition`` (schedule_one_podgroup_test.go). Upstream patches
the PodGroup through a fake client and reads the condition back; the reference's rule is
``podgroup_rules.initially_scheduled_status`` (what ``WorkloadCycle._set_condition``
writes), so each row merges the row's condition into the existing PodGroup and compares
the condition found, lastTransitionTime aside unless the row says it must not move.

Also from ``TestSubmitPodGroupAlgorithmResult``, the row "PodGroup waiting on preemption
uses nominating info instead of suggested host for successfully evaluated pods": a gang
that waits on preemption still reports Unschedulable. It runs through a reference
Cluster, recording the condition each PodGroup event carries (the message is the
reference's own, not upstream's injected status, so only status and reason are checked).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import (
    condition,
    make_node,
    make_pod,
    make_pod_group,
    make_priority_class,
)
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.podgroup_rules import (
    INITIALLY_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    initially_scheduled_status,
)

Obj = dict[str, Any]
T0, NOW = "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"
ALL_REQUIRED = "All required pods have been successfully scheduled"


def _cond(status: str, reason: str, message: str, **extra: Any) -> Obj:
    return {"type": INITIALLY_SCHEDULED, "status": status, "reason": reason, "message": message,
            **extra}


def _pg(name: str, existing: Obj | None = None, generation: int = 0) -> Obj:
    pg: Obj = {"metadata": {"name": name, "namespace": "ns1"}, "spec": {}}
    if generation:
        pg["metadata"]["generation"] = generation
    if existing is not None:
        pg["status"] = {"conditions": [{**existing, "lastTransitionTime": T0}]}
    return pg


CASES = [
    pytest.param(_pg("pg1"), _cond("True", "SomeReason", ALL_REQUIRED),
                 _cond("True", "SomeReason", ALL_REQUIRED), False,
                 id="set Scheduled condition to True on empty status"),
    pytest.param(_pg("pg2"),
                 _cond("False", REASON_UNSCHEDULABLE, "0/3 nodes are available: insufficient cpu"),
                 _cond("False", REASON_UNSCHEDULABLE, "0/3 nodes are available: insufficient cpu"),
                 False, id="set Scheduled condition to False with Unschedulable reason"),
    pytest.param(_pg("pg3"), _cond("False", REASON_SCHEDULER_ERROR, "Internal scheduling error"),
                 _cond("False", REASON_SCHEDULER_ERROR, "Internal scheduling error"), False,
                 id="set Scheduled condition to False with SchedulerError reason"),
    pytest.param(_pg("pg4", _cond("False", REASON_UNSCHEDULABLE, "previously unschedulable")),
                 _cond("True", "Scheduled", ALL_REQUIRED), _cond("True", "Scheduled", ALL_REQUIRED),
                 False, id="transition from Unschedulable to Scheduled"),
    pytest.param(_pg("pg-se-to-true", _cond("False", REASON_SCHEDULER_ERROR, "internal error")),
                 _cond("True", "Scheduled", ALL_REQUIRED), _cond("True", "Scheduled", ALL_REQUIRED),
                 False, id="transition from SchedulerError to Scheduled"),
    pytest.param(_pg("pg-true-to-unsched", _cond("True", "Scheduled", "All pods scheduled")),
                 _cond("False", REASON_UNSCHEDULABLE, "extra pods could not be placed"),
                 _cond("True", "Scheduled", "All pods scheduled"), True,
                 id="do not regress Scheduled to Unschedulable"),
    pytest.param(_pg("pg-true-to-se", _cond("True", "Scheduled", "All pods scheduled")),
                 _cond("False", REASON_SCHEDULER_ERROR, "internal error"),
                 _cond("True", "Scheduled", "All pods scheduled"), True,
                 id="do not regress Scheduled to SchedulerError"),
    pytest.param(_pg("pg-unsched-to-se", _cond("False", REASON_UNSCHEDULABLE, "not enough resources")),
                 _cond("False", REASON_SCHEDULER_ERROR, "internal error"),
                 _cond("False", REASON_SCHEDULER_ERROR, "internal error"), True,
                 id="transition from Unschedulable to SchedulerError preserves LastTransitionTime"),
    pytest.param(_pg("pg-se-to-unsched", _cond("False", REASON_SCHEDULER_ERROR, "internal error")),
                 _cond("False", REASON_UNSCHEDULABLE, "not enough resources"),
                 _cond("False", REASON_UNSCHEDULABLE, "not enough resources"), True,
                 id="transition from SchedulerError to Unschedulable preserves LastTransitionTime"),
    pytest.param(_pg("pg-true-to-true", _cond("True", "Scheduled", "All pods scheduled")),
                 _cond("True", "Scheduled", "New condition message"),
                 _cond("True", "Scheduled", "New condition message"), True,
                 id="Scheduled to Scheduled preserves LastTransitionTime"),
    pytest.param(_pg("pg-gen", generation=7), _cond("True", "Scheduled", "All pods scheduled"),
                 _cond("True", "Scheduled", "All pods scheduled", observedGeneration=7), False,
                 id="ObservedGeneration is set from PodGroup generation"),
]


@pytest.mark.parametrize(("pg", "cond", "want", "ltt_kept"), CASES)
def test_update_pod_group_condition(pg: Obj, cond: Obj, want: Obj, ltt_kept: bool) -> None:
    status = initially_scheduled_status(pg, cond, NOW)
    if status is None:  # nothing to write: the stored condition stays
        status = pg.get("status") or {}
    got = next(c for c in status["conditions"] if c["type"] == INITIALLY_SCHEDULED)
    assert {k: v for k, v in got.items() if k != "lastTransitionTime"} == want
    if ltt_kept:
        assert got["lastTransitionTime"] == T0


def test_submit_result_waiting_on_preemption_is_unschedulable() -> None:
    runtime = {"scheduling.k8s.io/v1beta1": "true"}
    c = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config=runtime))
    c.apply(make_priority_class("low", 10))
    c.apply(make_priority_class("high", 1000))
    for i in range(2):
        c.apply(make_node(f"n{i}").capacity(cpu="1", memory="8Gi", pods="10").build())
        c.apply(make_pod(f"v{i}", "default").req(cpu="1").priority_class("low").build())
    c.settle()
    seen: list[tuple[str, str, int]] = []

    def record(ev: ObjectEvent) -> None:  # with the pod-group attempts made by then
        cond = condition(ev.obj, INITIALLY_SCHEDULED)
        if cond is not None:
            seen.append((cond["status"], cond["reason"], c.scheduler.workload.group_attempts))

    c.scheduler.ctx.informers.informer("scheduling.k8s.io/v1beta1", "PodGroup").add_handler(record)
    c.apply(make_pod_group("pg", "default", min_count=2, priority_class="high"))
    for i in range(2):
        c.apply(make_pod(f"g{i}", "default").req(cpu="1").priority_class("high").pod_group("pg")
                .build())
    c.settle()
    # The first attempt preempts the low pods and the gang, waiting on that, reports
    # Unschedulable at once; a later attempt binds it.
    assert seen[0] == ("False", REASON_UNSCHEDULABLE, 1)
    assert seen[-1][:2] == ("True", "Scheduled")

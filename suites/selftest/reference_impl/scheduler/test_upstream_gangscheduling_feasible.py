"""Upstream's GangScheduling PlacementFeasible table, row by row.

Ported: ``TestPlacementFeasible`` (plugins/gangscheduling/gangscheduling_test.go). Each row
feeds the plugin the progress of a pod-group attempt pod by pod (``remaining`` is
``childrenCount - (i + 1)``, ``scheduled`` the initially scheduled count plus the pods
that succeeded so far) and checks the status code after each. The gate states change
nothing the plugin reads here (only whether the group is a CompositePodGroup), so each
row runs as written. A CompositePodGroup row's minimum is ``gang.minGroupCount``; a basic
policy means 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins.gang_scheduling import GangScheduling

Obj = dict[str, Any]
CODES = {"S": Code.SUCCESS, "W": Code.WAIT, "U": Code.UNSCHEDULABLE}


@dataclass
class _Ctx:
    informers: object = None


@dataclass
class _Handle:
    ctx: _Ctx

    def snapshot_shared_lister(self) -> None:
        return None  # PlacementFeasible reads no snapshot


def _group(is_cpg: bool, min_count: int) -> Obj:
    if min_count > 0:
        key = "minGroupCount" if is_cpg else "minCount"
        policy: Obj = {"gang": {key: min_count}}
    else:
        policy = {"basic": {}}
    kind = "CompositePodGroup" if is_cpg else "PodGroup"
    return {"kind": kind, "metadata": {"name": "test-pg", "namespace": "default"},
            "spec": {"schedulingPolicy": policy}}


# (name, isCPG, minCount, childrenCount, pod statuses, expected statuses, initially scheduled)
ROWS = [
    ('All pods succeed, minCount met at end (isCPG=false, cpgFeatureGate=false)',
     False, 2, 2, 'SS', 'WS', 0),
    ('All pods succeed, minCount met at end (isCPG=false, cpgFeatureGate=true)',
     False, 2, 2, 'SS', 'WS', 0),
    ('All pods succeed, minCount met at end (isCPG=true, cpgFeatureGate=true)',
     True, 2, 2, 'SS', 'WS', 0),
    ('First pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)',
     False, 3, 3, 'U', 'U', 0),
    ('First pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)',
     False, 3, 3, 'U', 'U', 0),
    ('First pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)',
     True, 3, 3, 'U', 'U', 0),
    ('Second pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)',
     False, 2, 2, 'SU', 'WU', 0),
    ('Second pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)',
     False, 2, 2, 'SU', 'WU', 0),
    ('Second pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)',
     True, 2, 2, 'SU', 'WU', 0),
    ('Non-gang pod group with 0 scheduled pods fails (isCPG=false, cpgFeatureGate=false)',
     False, 0, 1, 'U', 'U', 0),
    ('Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=false)',
     True, 0, 1, 'U', 'U', 0),
    ('Non-gang pod group with 0 scheduled pods fails (isCPG=false, cpgFeatureGate=true)',
     False, 0, 1, 'U', 'U', 0),
    ('Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=true)',
     True, 0, 1, 'U', 'U', 0),
    ('Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=false, cpgFeatureGate=false)',
     False, 0, 1, 'S', 'S', 0),
    ('Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=false)',
     True, 0, 1, 'S', 'S', 0),
    ('Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=false, cpgFeatureGate=true)',
     False, 0, 1, 'S', 'S', 0),
    ('Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=true)',
     True, 0, 1, 'S', 'S', 0),
    ('Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=false, cpgFeatureGate=false)',
     False, 0, 1, 'U', 'S', 1),
    ('Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=false)',
     True, 0, 1, 'U', 'S', 1),
    ('Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=false, cpgFeatureGate=true)',
     False, 0, 1, 'U', 'S', 1),
    ('Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=true)',
     True, 0, 1, 'U', 'S', 1),
    ('More than minCount pods, all succeed (isCPG=false, cpgFeatureGate=false)',
     False, 2, 3, 'SSS', 'WSS', 0),
    ('More than minCount pods, all succeed (isCPG=false, cpgFeatureGate=true)',
     False, 2, 3, 'SSS', 'WSS', 0),
    ('More than minCount pods, all succeed (isCPG=true, cpgFeatureGate=true)',
     True, 2, 3, 'SSS', 'WSS', 0),
    ('More than minCount pods, first fails (isCPG=false, cpgFeatureGate=false)',
     False, 2, 3, 'USS', 'WWS', 0),
    ('More than minCount pods, first fails (isCPG=false, cpgFeatureGate=true)',
     False, 2, 3, 'USS', 'WWS', 0),
    ('More than minCount pods, first fails (isCPG=true, cpgFeatureGate=true)',
     True, 2, 3, 'USS', 'WWS', 0),
    ('More than minCount pods, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)',
     False, 2, 3, 'UU', 'WU', 0),
    ('More than minCount pods, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)',
     False, 2, 3, 'UU', 'WU', 0),
    ('More than minCount pods, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)',
     True, 2, 3, 'UU', 'WU', 0),
    ('1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=false, cpgFeatureGate=false)',
     False, 3, 2, 'SS', 'WS', 1),
    ('1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=false, cpgFeatureGate=true)',
     False, 3, 2, 'SS', 'WS', 1),
    ('1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=true, cpgFeatureGate=true)',
     True, 3, 2, 'SS', 'WS', 1),
    ('minCount already met by scheduled pods (isCPG=false, cpgFeatureGate=false)',
     False, 2, 1, 'U', 'S', 2),
    ('minCount already met by scheduled pods (isCPG=false, cpgFeatureGate=true)',
     False, 2, 1, 'U', 'S', 2),
    ('minCount already met by scheduled pods (isCPG=true, cpgFeatureGate=true)',
     True, 2, 1, 'U', 'S', 2),
    ('1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=false, cpgFeatureGate=false)',
     False, 3, 2, 'U', 'U', 1),
    ('1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=false, cpgFeatureGate=true)',
     False, 3, 2, 'U', 'U', 1),
    ('1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=true, cpgFeatureGate=true)',
     True, 3, 2, 'U', 'U', 1),
    ('1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=false, cpgFeatureGate=false)',
     False, 4, 2, 'S', 'U', 1),
    ('1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=false, cpgFeatureGate=true)',
     False, 4, 2, 'S', 'U', 1),
    ('1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining '
     '(isCPG=true, cpgFeatureGate=true)',
     True, 4, 2, 'S', 'U', 1),
]


@pytest.mark.parametrize(
    ("is_cpg", "min_count", "children", "pods", "want", "initial"),
    [pytest.param(*r[1:], id=r[0]) for r in ROWS],
)
def test_placement_feasible(is_cpg: bool, min_count: int, children: int, pods: str, want: str,
                            initial: int) -> None:
    # GenericWorkload off: the plugin keeps no informer handlers; PlacementFeasible reads
    # only its arguments.
    pl = GangScheduling(_Handle(_Ctx()), SchedulerFeatures())  # type: ignore[arg-type]
    group, scheduled = _group(is_cpg, min_count), initial
    got = []
    for i, code in enumerate(pods):
        scheduled += code == "S"
        status = pl.placement_feasible(group, children - (i + 1), scheduled, composite=is_cpg)
        got.append(status.code)
    assert got == [CODES[c] for c in want]


def test_placement_feasible_messages() -> None:
    """The reasons upstream's PlacementFeasible gives (its Unschedulable one ends a gang's
    pod-group attempt early and becomes the attempt's status message)."""
    pl = GangScheduling(_Handle(_Ctx()), SchedulerFeatures())  # type: ignore[arg-type]
    pg = _group(False, 3)
    assert pl.placement_feasible(pg, 0, 1).reasons == (
        "minCount (3) cannot be satisfied: 1 scheduled, 0 remaining",
    )
    assert pl.placement_feasible(pg, 1, 2).reasons == (
        "minCount (3) is not yet satisfied: 2 scheduled, 1 remaining",
    )
    assert pl.placement_feasible(pg, 0, 3).is_success()

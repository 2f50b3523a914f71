"""The rest of pkg/scheduler/framework/preemption/preemption_test.go.

``TestDryRunPreemption`` and ``TestGetVictimsOnNode`` are ported elsewhere
(test_upstream_preemption_dryrun.py, test_upstream_preemption_util.py). The other three,
``TestSelectCandidate``, ``TestCallExtenders`` and ``TestPreemptionEvaluationDurationMetric``,
test seams the reference does not have; each row is listed here, skipped with the reason.
"""

from __future__ import annotations

import pytest

from reference_impl.scheduler.plugins import default_preemption

NO_INTERFACE = (
    "the row injects an Evaluator Interface (FakePreemptionScorePostFilterPlugin's "
    "OrderedScoreFuncs: fewest containers first); the reference's DefaultPreemption ranks "
    "candidates with the fixed pickOneNodeForPreemption order (_node_rank) and takes no "
    "custom Interface"
)
NO_EXTENDERS = "the reference has no scheduler extenders (callExtenders / ProcessPreemption)"
NO_METRICS = "the reference keeps no scheduler metrics (preemption_evaluation_duration_seconds)"

ROWS = [
    pytest.param(NO_INTERFACE, id="TestSelectCandidate/pod has different number of containers on each node"),
    *(pytest.param(NO_EXTENDERS, id=f"TestCallExtenders/{name}") for name in (
        "no extenders",
        "one extender supports preemption",
        "one extender with return no victims",
        "one extender does not support preemption",
        "one extender with no return victims and is ignorable",
        "one extender returns error and is ignorable",
        "one extender returns error and is not ignorable",
        "one extender with empty victims input",
    )),
    pytest.param(NO_METRICS, id="TestPreemptionEvaluationDurationMetric/eligible preemptor, success"),
    pytest.param(NO_METRICS,
                 id="TestPreemptionEvaluationDurationMetric/ineligible preemptor, unschedulable"),
]


@pytest.mark.parametrize("reason", ROWS)
def test_not_expressible(reason: str) -> None:
    # Sanity: the plugin that would host these seams exists and has neither.
    plugin_cls = default_preemption.DefaultPreemption
    assert not hasattr(plugin_cls, "ordered_score_funcs")
    assert not hasattr(plugin_cls, "call_extenders")
    pytest.skip(reason)

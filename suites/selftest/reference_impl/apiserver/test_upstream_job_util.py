"""Rows of pkg/api/job/util_test.go (v1.37.2): TestDropDisabledFieldsScheduling on
``strategies.job_util`` (and through the APIServer), and TestWorkloadInput,
TestWorkloadItemForJob and TestWorkloadItemForJobMinCountDefaulting mapped onto what the
reference builds from a Job: ``job_workload.generate_workload``'s PodGroup template (the
Go WorkloadInput/WorkloadItem are plumbing of the workload builder, which the reference
does not keep as separate objects) and the error paths of ``spec.scheduling``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies import job_util
from reference_impl.clock import SimClock
from reference_impl.controllers import job_workload
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
_SCHED: Obj = {"schedulingPolicy": {"basic": {}}}


def _gates(on: bool) -> FeatureGates:
    # WorkloadWithJob depends on GenericWorkload, so they are toggled together.
    return FeatureGates({"GenericWorkload": on, "WorkloadWithJob": on})


# TestDropDisabledFieldsScheduling: (enabled, jobSpec, oldJobSpec, hasOldSpec, wantDropped)
@pytest.mark.parametrize(
    ("enabled", "sched", "old_sched", "has_old", "dropped"),
    [
        pytest.param(True, _SCHED, None, False, False, id="feature enabled, create keeps scheduling"),  # noqa: E501
        pytest.param(False, _SCHED, None, False, True, id="feature disabled, create drops scheduling"),  # noqa: E501
        pytest.param(False, None, None, False, False, id="feature disabled, create without scheduling stays nil"),  # noqa: E501
        pytest.param(True, _SCHED, _SCHED, True, False, id="feature enabled, update keeps scheduling"),  # noqa: E501
        pytest.param(False, _SCHED, _SCHED, True, False, id="feature disabled, update preserves scheduling already in use"),  # noqa: E501
        pytest.param(False, _SCHED, None, True, True, id="feature disabled, update drops newly added scheduling"),  # noqa: E501
    ],
)
def test_drop_disabled_fields_scheduling(
    enabled: bool, sched: Obj | None, old_sched: Obj | None, has_old: bool, dropped: bool
) -> None:
    spec: Obj = {} if sched is None else {"scheduling": copy.deepcopy(sched)}
    old: Obj | None = None
    if has_old:
        old = {} if old_sched is None else {"scheduling": copy.deepcopy(old_sched)}
    job_util.drop_disabled_fields(spec, old, _gates(enabled))
    assert spec.get("scheduling") == (None if dropped else sched)


def _server(gates: FeatureGates) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), gates)
    s.create(make_namespace("default").build())
    return s


def _job(name: str, scheduling: Obj | None = None, parallelism: int | None = 1) -> Obj:
    spec: Obj = {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
        },
        "suspend": True,
    }
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if scheduling is not None:
        spec["scheduling"] = scheduling
    meta = {"name": name, "namespace": "default", "uid": "uid-" + name}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


@pytest.mark.parametrize("enabled", [True, False], ids=["gate on", "gate off"])
def test_drop_disabled_fields_scheduling_on_create(enabled: bool) -> None:
    """The Job strategy's PrepareForCreate: stored only with WorkloadWithJob."""
    got = _server(_gates(enabled)).create(_job("j", _SCHED))
    assert ("scheduling" in got["spec"]) is enabled


def _template(job: Obj) -> Obj:
    tpl: Obj = job_workload.generate_workload(job)["spec"]["podGroupTemplates"][0]
    return tpl


_POLICY: Obj = {"gang": {"minCount": 3}}
_CONSTRAINTS: Obj = {"topology": [{"key": "topology.kubernetes.io/rack"}]}
_DISRUPTION: Obj = {"all": {}}
_CLAIMS: list[Obj] = [{"name": "c1", "resourceClaimName": "rc1"}]


def test_workload_input_nil_blocks_still_carry_path_elements() -> None:
    """TestWorkloadInput "nil blocks still carry path elements": absent blocks take the
    item's default (basic) and the errors of the blocks sit under their own field."""
    assert _template(_job("j", {}))["schedulingPolicy"] == {"basic": {}}
    s = _server(_gates(True))
    bad = {"schedulingPolicy": {"gang": {"minCount": 0}}}
    with pytest.raises(Invalid) as err:
        s.create(_job("j", bad, parallelism=4))
    fields = {c.field for c in err.value.causes}
    assert "spec.scheduling.schedulingPolicy.gang.minCount" in fields


def test_workload_input_populated_blocks_pass_through_with_path_elements() -> None:
    sched = {
        "schedulingPolicy": _POLICY,
        "schedulingConstraints": _CONSTRAINTS,
        "disruptionMode": _DISRUPTION,
        "resourceClaims": _CLAIMS,
    }
    tpl = _template(_job("j", sched, parallelism=3))
    assert tpl["schedulingPolicy"] == _POLICY
    assert tpl["schedulingConstraints"] == _CONSTRAINTS
    assert tpl["disruptionMode"] == _DISRUPTION
    assert tpl["resourceClaims"] == _CLAIMS


# TestWorkloadItemForJob: (priorityClassName, parallelism); the item's name is the
# template name the controller derives from the Job.
@pytest.mark.parametrize(
    ("priority_class", "parallelism"),
    [
        pytest.param("high", 4, id="name and priority class carried onto the item"),
        pytest.param("", None, id="empty priority class and nil parallelism"),
        pytest.param("", None, id="nil path is carried through"),
    ],
)
def test_workload_item_for_job(priority_class: str, parallelism: int | None) -> None:
    job = _job("job", {}, parallelism=parallelism)
    if priority_class:
        job["spec"]["template"]["spec"]["priorityClassName"] = priority_class
    tpl = _template(job)
    assert tpl["name"] == job_workload.template_name(job)
    assert tpl.get("priorityClassName", "") == priority_class
    assert tpl["schedulingPolicy"] == {"basic": {}}


# TestWorkloadItemForJobMinCountDefaulting: (parallelism, policy, want minCount)
@pytest.mark.parametrize(
    ("parallelism", "policy", "want"),
    [
        pytest.param(5, {"gang": {}}, 5, id="gang unset minCount defaults to parallelism"),
        pytest.param(None, {"gang": {}}, 1, id="gang unset minCount with nil parallelism clamps to 1"),  # noqa: E501
        pytest.param(0, {"gang": {}}, 1, id="gang unset minCount with zero parallelism clamps to 1"),  # noqa: E501
        pytest.param(5, {"gang": {"minCount": 2}}, 2, id="gang minCount already set is preserved"),
    ],
)
def test_workload_item_for_job_min_count_defaulting(
    parallelism: int | None, policy: Obj, want: int
) -> None:
    job = _job("job", {"schedulingPolicy": policy}, parallelism=parallelism)
    assert _template(job)["schedulingPolicy"] == {"gang": {"minCount": want}}
    assert "minCount" not in job["spec"]["scheduling"]["schedulingPolicy"]["gang"] or want == 2


def test_workload_item_for_job_min_count_defaulting_basic_policy_is_left_untouched() -> None:
    job = _job("job", {"schedulingPolicy": {"basic": {}}}, parallelism=5)
    assert _template(job)["schedulingPolicy"] == {"basic": {}}


def test_workload_item_for_job_min_count_defaulting_nil_config_does_not_panic() -> None:
    assert _template(_job("job", None, parallelism=5))["schedulingPolicy"] == {"basic": {}}

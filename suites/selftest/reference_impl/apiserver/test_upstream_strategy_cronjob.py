"""Rows of pkg/registry/batch/cronjob/strategy_test.go (v1.37.2): TestStrategy_ResetFields
and TestCronJobStatusStrategy_ResetFields, through the APIServer.

The reference keeps no server-side-apply managed fields, so ``GetResetFields`` (upstream
asserts only that each set has one path: status for the main resource, spec for /status)
is checked by its effect: a main-resource update keeps the stored status, a /status
update keeps the stored spec.
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
_TEMPLATE = {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "abc", "image": "image"}]}}
_SCHEDULED = {"lastScheduleTime": "2026-09-01T00:00:00Z"}


def _created() -> tuple[APIServer, Obj]:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    cron = s.create(
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "myscheduledjob", "namespace": "default"},
            "spec": {"schedule": "5 5 * * ?", "jobTemplate": {"spec": {"template": _TEMPLATE}}},
        }
    )
    return s, cron


def test_strategy_reset_fields() -> None:
    """TestStrategy_ResetFields: the main resource resets ``status``."""
    s, cron = _created()
    cron = s.update_status({**cron, "status": _SCHEDULED})
    got = s.update({**cron, "spec": {**cron["spec"], "suspend": True}, "status": {}})
    assert got["spec"]["suspend"] is True
    assert got["status"] == _SCHEDULED


def test_cronjob_status_strategy_reset_fields() -> None:
    """TestCronJobStatusStrategy_ResetFields: the /status subresource resets ``spec``."""
    s, cron = _created()
    got = s.update_status({**cron, "spec": {**cron["spec"], "suspend": True}, "status": _SCHEDULED})
    assert got["spec"] == cron["spec"]
    assert got["status"] == _SCHEDULED

"""Upstream ``pkg/controller/job/util/utils_test.go`` (v1.37.2): ``TestFinishedCondition``
and ``TestIsJobSucceeded``, against ``job/util.py``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controllers.job.util import (
    finished_condition,
    is_job_finished,
    is_job_succeeded,
)


def _job(*conds: tuple[str, str]) -> dict[str, Any]:
    return {"status": {"conditions": [{"type": t, "status": s} for t, s in conds]}}


@pytest.mark.parametrize(
    ("job", "finished", "ctype"),
    [
        pytest.param(_job(), False, "", id="Job doesn't have any conditions"),
        pytest.param(_job(("Complete", "True")), True, "Complete", id="Job is completed and condition is true"),
        pytest.param(_job(("Complete", "False")), False, "", id="Job is completed and condition is false"),
        pytest.param(_job(("Complete", "Unknown")), False, "", id="Job is completed and condition is unknown"),
        pytest.param(
            _job(("Suspended", "False"), ("Complete", "True"), ("Failed", "False")), True, "Complete",
            id="Job has multiple conditions, one of them being complete and condition true",
        ),
        pytest.param(_job(("Failed", "True")), True, "Failed", id="Job is failed and condition is true"),
        pytest.param(_job(("Failed", "False")), False, "", id="Job is failed and condition is false"),
        pytest.param(_job(("Failed", "Unknown")), False, "", id="Job is failed and condition is unknown"),
        pytest.param(
            _job(("Suspended", "False"), ("Complete", "False"), ("Failed", "False")), False, "",
            id="Job has multiple conditions, none of them has condition true",
        ),
    ],
)
def test_finished_condition(job: dict[str, Any], finished: bool, ctype: str) -> None:
    assert finished_condition(job) == (finished, ctype)
    assert is_job_finished(job) == finished


@pytest.mark.parametrize(
    ("job", "want"),
    [
        pytest.param({}, False, id="job doesn't have any conditions"),
        pytest.param(_job(("Suspended", "False"), ("Complete", "True")), True,
                     id="job has Complete=True condition"),
        pytest.param(_job(("Failed", "True"), ("Complete", "False")), False,
                     id="job has Complete=False condition"),
    ],
)
def test_is_job_succeeded(job: dict[str, Any], want: bool) -> None:
    assert is_job_succeeded(job) == want

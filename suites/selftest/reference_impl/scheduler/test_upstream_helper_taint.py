"""Upstream's plugins/helper/taint_test.go (``TestDoNotScheduleTaintsFilterFunc``) against
``do_not_schedule_taints_filter``, and the TaintToleration filter's effect set agreeing."""

from __future__ import annotations

import pytest

from reference_impl.scheduler.plugins.helper import do_not_schedule_taints_filter
from reference_impl.scheduler.plugins.taint_toleration import DO_NOT_SCHEDULE


@pytest.mark.parametrize(
    ("effect", "expected"),
    [
        pytest.param("NoSchedule", True, id="should include the taints with NoSchedule effect"),
        pytest.param("NoExecute", True, id="should include the taints with NoExecute effect"),
        pytest.param("PreferNoSchedule", False,
                     id="should not include the taints with PreferNoSchedule effect"),
    ],
)
def test_do_not_schedule_taints_filter_func(effect: str, expected: bool) -> None:
    assert do_not_schedule_taints_filter({"effect": effect}) is expected
    assert (effect in DO_NOT_SCHEDULE) is expected

"""Ports plugins/helper/normalize_score_test.go: TestDefaultNormalizeScore (the
normalisation TaintToleration and NodeAffinity use)."""

from __future__ import annotations

import pytest

from reference_impl.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore
from reference_impl.scheduler.plugins.helper import default_normalize_score


@pytest.mark.parametrize(
    ("reverse", "scores", "want"),
    [
        pytest.param(False, [1, 2, 3, 4], [25, 50, 75, 100], id="case_0"),
        pytest.param(True, [1, 2, 3, 4], [75, 50, 25, 0], id="case_1"),
        pytest.param(False, [1000, 10, 20, 30], [100, 1, 2, 3], id="case_2"),
        pytest.param(True, [1000, 10, 20, 30], [0, 99, 98, 97], id="case_3"),
        pytest.param(False, [1, 1, 1, 1], [100, 100, 100, 100], id="case_4"),
        pytest.param(False, [1000, 1, 1, 1], [100, 0, 0, 0], id="case_5"),
        pytest.param(True, [0, 1, 1, 1], [100, 0, 0, 0], id="case_6"),
        pytest.param(False, [0, 0, 0, 0], [0, 0, 0, 0], id="case_7"),
        pytest.param(True, [0, 0, 0, 0], [100, 100, 100, 100], id="case_8"),
    ],
)
def test_default_normalize_score(reverse: bool, scores: list[int], want: list[int]) -> None:
    got = [NodeScore("", s) for s in scores]
    assert default_normalize_score(MAX_NODE_SCORE, reverse, got).is_success()
    assert [s.score for s in got] == want

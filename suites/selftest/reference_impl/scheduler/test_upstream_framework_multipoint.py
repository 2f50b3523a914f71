"""Upstream's ``TestNewFrameworkMultiPointExpansion`` (pkg/scheduler/framework/runtime/
framework_test.go) against the reference Framework: the rows that configure only the
MultiPoint set. The others enable or disable plugins per extension point, which a
reference profile (a multi-point list) cannot express; they are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pytest
from upstream_core_fakes import cache_of

from reference_impl.clock import Duration
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, ScoreExtensions, Status
from reference_impl.scheduler.framework.placement import Placement, PodGroupInfo
from reference_impl.scheduler.framework.pod_group_post_filter import (
    PodGroupPostFilterInfo,
    PodGroupPostFilterResult,
    PodGroupScheduling,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.profile import PluginConfig, Profile

Obj = dict[str, Any]
P1 = "score-plugin-1"


class AllPointsPl:
    """``TestPlugin``: implements every extension point (PreEnqueue aside)."""

    def __init__(self, plugin_name: str = "test-plugin") -> None:
        self.plugin_name = plugin_name

    def name(self) -> str:
        return self.plugin_name

    def less(self, a: Any, b: Any) -> bool:
        return False

    def pre_filter(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> tuple[None, Status]:
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        return OK

    def post_filter(self, state: CycleState, pod: Obj, statuses: Any) -> tuple[None, Status]:
        return None, OK

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        return 0, OK

    def score_extensions(self) -> ScoreExtensions | None:
        return None

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return OK

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        return None

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status, Duration]:
        return OK, Duration(0)

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return OK

    def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return OK

    def post_bind(self, state: CycleState, pod: Obj, node_name: str) -> None:
        return None

    def generate_placements(self, group: PodGroupInfo, parent: Placement) -> tuple[list[Placement], Status]:
        return [parent], OK

    def score_placement(self, group: PodGroupInfo, assignments: Any) -> tuple[int, Status]:
        return 0, OK

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        return None

    def pod_group_post_filter(
        self, state: CycleState | None, info: PodGroupPostFilterInfo, schedule: PodGroupScheduling
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        return None, OK


class PlacementScorePl:
    """``placementScorePlugin1``: PlacementScore only."""

    def name(self) -> str:
        return "placement-score-plugin-1"

    def score_placement(self, group: PodGroupInfo, assignments: Any) -> tuple[int, Status]:
        return 0, OK

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        return None


class ScorePreScorePl:
    """``TestScorePlugin``: PreScore and Score."""

    def name(self) -> str:
        return P1

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        return 0, OK

    def score_extensions(self) -> ScoreExtensions | None:
        return None


def _multi_point(*entries: tuple[Any, int]) -> Framework:
    registry = {p.name(): (lambda pl: lambda *_: pl)(p) for p, _ in entries}
    profile = Profile(plugins=tuple(PluginConfig(p.name(), weight=w) for p, w in entries))
    return Framework(profile, registry, cast(Any, None), cache_of([]), SchedulerFeatures())


def _listed(fw: Framework) -> dict[str, list[Any]]:
    """``ListPlugins``: each extension point's plugins, Score ones with their weights."""
    points: dict[str, Sequence[Any]] = {
        "QueueSort": [fw.queue_sort], "PreFilter": fw.pre_filter, "Filter": fw.filter,
        "PostFilter": fw.post_filter, "PreScore": fw.pre_score, "Reserve": fw.reserve,
        "Permit": fw.permit, "PreBind": fw.pre_bind, "Bind": fw.bind, "PostBind": fw.post_bind,
        "PlacementGenerate": fw.placement_generate, "PodGroupPostFilter": fw.pod_group_post_filter,
    }
    out: dict[str, list[Any]] = {k: [p.name() for p in v] for k, v in points.items() if v}
    for k, v in (("Score", fw.score), ("PlacementScore", fw.placement_score)):
        if v:
            out[k] = [(p.name(), fw.weights[p.name()]) for p in v]
    return out


TP = "test-plugin"
ALL_POINTS = ("QueueSort", "PreFilter", "Filter", "PostFilter", "PreScore", "Reserve", "Permit",
              "PreBind", "Bind", "PostBind", "PlacementGenerate", "PodGroupPostFilter")
PER_POINT = pytest.mark.skip(reason="per-extension-point sets: a reference profile is multi-point only")


@pytest.mark.parametrize(
    ("entries", "want", "want_err"),
    [
        pytest.param([(AllPointsPl(), 5)],
                     {**{k: [TP] for k in ALL_POINTS}, "Score": [(TP, 5)], "PlacementScore": [(TP, 5)]},
                     "", id="plugin expansion"),
        pytest.param([], {}, "", id="disable MultiPoint plugin at some extension points", marks=PER_POINT),
        pytest.param([(AllPointsPl(), 1), (ScorePreScorePl(), 1), (PlacementScorePl(), 1)],
                     {**{k: [TP] for k in ALL_POINTS}, "PreScore": [TP, P1],
                      "Score": [(TP, 1), (P1, 1)],
                      "PlacementScore": [(TP, 1), ("placement-score-plugin-1", 1)]},
                     "", id="Multiple MultiPoint plugins"),
        pytest.param([], {}, "", id="disable MultiPoint extension", marks=PER_POINT),
        pytest.param([], {}, "", id="Reorder MultiPoint plugins (specified extension takes precedence)",
                     marks=PER_POINT),
        pytest.param([], {}, "", id="Reorder MultiPoint plugins (specified extension only takes "
                                    "precedence when it exists in MultiPoint)", marks=PER_POINT),
        pytest.param([], {}, "", id="Override MultiPoint plugins weights", marks=PER_POINT),
        pytest.param([], {}, "", id="disable and enable MultiPoint plugins with '*'", marks=PER_POINT),
        pytest.param([], {}, "", id="disable and enable MultiPoint plugin by name", marks=PER_POINT),
        pytest.param([(AllPointsPl(), 1), (AllPointsPl(), 1)], {}, "already registered",
                     id="Expect 'already registered' error"),
        pytest.param([], {}, "", id="Override MultiPoint plugins weights and avoid a plugin being "
                                    "loaded multiple times", marks=PER_POINT),
    ],
)
def test_new_framework_multi_point_expansion(entries: list[tuple[Any, int]], want: dict[str, list[Any]],
                                             want_err: str) -> None:
    if want_err:
        with pytest.raises(ValueError, match=want_err):
            _multi_point(*entries)
        return
    assert _listed(_multi_point(*entries)) == want

"""Models the placement extension points of kube-scheduler/framework (TopologyAwareWorkload
Scheduling, KEP-5732): PlacementGenerate and PlacementScore, and how
pkg/scheduler/framework/runtime/framework.go runs them for one pod group.

A placement is a set of nodes the whole group is tried on. The first PlacementGenerate
plugin splits the parent placement (every node) into candidates; each candidate is tried
in turn; the PlacementScore plugins score the feasible ones, each plugin normalised and
weighted, and the highest total wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    OK,
    Code,
    Plugin,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo

__all__ = [
    "Placement",
    "PlacementFeasiblePlugin",
    "PlacementGeneratePlugin",
    "PlacementScorePlugin",
    "PodGroupAssignments",
    "PodGroupInfo",
    "run_placement_feasible_plugins",
    "run_placement_generate_plugins",
    "run_placement_score_plugins",
]

Obj = dict[str, Any]


def code_string(code: Code) -> str:
    """``Code.String()``: "UnschedulableAndUnresolvable" for UNSCHEDULABLE_AND_UNRESOLVABLE."""
    return "".join(w.capitalize() for w in code.name.split("_"))


@dataclass(frozen=True, slots=True)
class PodGroupInfo:
    """The group being placed, and the nodes of its members already bound or assumed."""

    pod_group: Obj
    scheduled_nodes: tuple[str, ...] = ()
    # The first error of the helper.GetPodGroupStates walk that found ``scheduled_nodes``
    # (a missing entity, a tree too deep): the plugins reading scheduled pods fail with it.
    walk_error: str = ""


@dataclass(frozen=True, slots=True)
class Placement:
    """``fwk.Placement``: a named set of nodes (the parent placement has no name)."""

    name: str
    nodes: Sequence[NodeInfo]


@dataclass(frozen=True, slots=True)
class PodGroupAssignments:
    """``fwk.PodGroupAssignments``: a feasible placement and the pods it would bind where."""

    placement: Placement
    proposed: tuple[tuple[PodInfo, str], ...]  # (the pod, with its requests; node name)


@runtime_checkable
class PlacementGeneratePlugin(Plugin, Protocol):
    """Splits the parent placement into the candidates the group is tried on."""

    def generate_placements(
        self, group: PodGroupInfo, parent: Placement
    ) -> tuple[list[Placement], Status]:
        """The candidate placements, or a non-success status."""
        ...


@runtime_checkable
class PlacementFeasiblePlugin(Plugin, Protocol):
    """Whether a group can still meet its constraints, given the progress of an attempt."""

    def placement_feasible(
        self, group: Obj, remaining: int, scheduled: int, *, composite: bool = False
    ) -> Status:
        """Success (met), Wait (may still be met) or Unschedulable (cannot be met)."""
        ...


@runtime_checkable
class PlacementScorePlugin(Plugin, Protocol):
    """Scores one feasible placement; ``normalize_placement_scores`` may rescale them all."""

    def score_placement(self, group: PodGroupInfo, assignments: PodGroupAssignments) -> tuple[int, Status]:
        """The placement's raw score."""
        ...

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        """Rescale ``scores`` in place into [MIN_NODE_SCORE, MAX_NODE_SCORE]; None = the
        plugin has no normalisation (``PlacementScoreExtensions`` returns nil)."""
        ...


def run_placement_generate_plugins(
    plugins: Sequence[PlacementGeneratePlugin], group: PodGroupInfo, nodes: Sequence[NodeInfo]
) -> tuple[list[Placement], Status]:
    """Only the first generator runs (upstream's rule); none = one placement of every node."""
    parent = Placement("", nodes)
    if not plugins:
        return [parent], OK
    plugin = plugins[0]
    placements, status = plugin.generate_placements(group, parent)
    if not status.is_success():
        return [], status.with_plugin(plugin.name())
    if not placements:
        return [], Status(Code.UNSCHEDULABLE, ("no feasible placements found",), plugin.name())
    return placements, status


def run_placement_score_plugins(
    plugins: Sequence[PlacementScorePlugin],
    weights: Mapping[str, int],
    group: PodGroupInfo,
    candidates: Sequence[PodGroupAssignments],
) -> tuple[list[int], Status]:
    """Each candidate's total: every plugin's (normalised) score times its weight."""
    totals = [0] * len(candidates)
    for pl in plugins:
        scores: list[int] = []
        for cand in candidates:
            score, status = pl.score_placement(group, cand)
            if not status.is_success():
                return [], _failed("PlacementScore", pl.name(), status)
            scores.append(score)
        status_n = pl.normalize_placement_scores(group, scores)
        if status_n is not None and not status_n.is_success():
            return [], _failed("NormalizePlacementScore on PlacementScore", pl.name(), status_n)
        for i, score in enumerate(scores):
            if not MIN_NODE_SCORE <= score <= MAX_NODE_SCORE:
                return [], Status(Code.ERROR, (
                    "applying score defaultWeights on PlacementScore plugins: "
                    f'plugin "{pl.name()}" returns an invalid score {score}, it should in the '
                    f"range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",), pl.name())
            totals[i] += score * weights.get(pl.name(), 1)
    return totals, OK


def _failed(point: str, plugin: str, status: Status) -> Status:
    return Status(Code.ERROR, (f'running {point} plugins: plugin "{plugin}" failed with: '
                               f"{status.message()}",), plugin)


def run_placement_feasible_plugins(
    plugins: Sequence[PlacementFeasiblePlugin],
    group: Obj,
    remaining: int,
    scheduled: int,
    *,
    composite: bool = False,
) -> Status:
    """``RunPlacementFeasiblePlugins``: the first Unschedulable (or error) ends it; else the
    last Wait, else Success. Statuses carry the plugin's name."""
    out = OK
    for pl in plugins:
        st = pl.placement_feasible(group, remaining, scheduled, composite=composite)
        if st.is_success():
            continue
        name = pl.name()
        if st.code is Code.WAIT:
            out = st.with_plugin(name)
        elif st.code is Code.UNSCHEDULABLE:
            return st.with_plugin(name)
        elif st.code is Code.ERROR:
            return Status(Code.ERROR, (f"running PlacementFeasible plugin: {st.message()}",), name)
        else:
            why = f"unexpected status from PlacementFeasible plugin: {code_string(st.code)}"
            return Status(Code.ERROR, (why,), name)
    return out

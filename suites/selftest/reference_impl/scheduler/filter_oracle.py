"""The oracle the filter-pass fast paths are checked against: the runtime's own Filter
runner, node by node (first failing plugin, attributed), as upstream's sequential search."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.types import NodeInfo

__all__ = ["per_node_search"]


def per_node_search(
    fw: Framework, pod: dict[str, Any], nodes: Sequence[NodeInfo]
) -> tuple[list[str], dict[str, tuple[str, tuple[str, ...]]]]:
    """(the feasible node names in order, node name -> (plugin, reasons) of each rejection)."""
    state = CycleState()
    fw.run_pre_filter_plugins(state, pod, nodes)
    filters = fw.active_filters(state)
    rejected: dict[str, tuple[str, tuple[str, ...]]] = {}
    for ni in nodes:
        s = fw.run_filter_plugins(state, pod, ni, filters)
        if not s.is_success():
            rejected[ni.name] = (s.plugin, s.reasons)
    return [ni.name for ni in nodes if ni.name not in rejected], rejected

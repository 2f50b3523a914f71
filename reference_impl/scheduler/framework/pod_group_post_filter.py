"""Models the PodGroupPostFilter extension point (kube-scheduler/framework
``PodGroupPostFilterPlugin``) and how pkg/scheduler/framework/runtime/framework.go runs it
(``RunPodGroupPostFilterPlugins``) once a pod group found no placement.

The Framework lists the plugins implementing it once, in profile order (upstream's
``podGroupPostFilterPlugins``): DynamicResources frees unusable claims before
DefaultPreemption evicts anything, as the default profile orders them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code, Plugin, Status

__all__ = [
    "GATE_DISABLED",
    "PodGroupPostFilterInfo",
    "PodGroupPostFilterPlugin",
    "PodGroupPostFilterResult",
    "PodGroupScheduling",
    "run_pod_group_post_filter_plugins",
]

Obj = dict[str, Any]
GATE_DISABLED: Final = "generic workload feature is disabled, cannot perform PodGroupPostFilter"


@dataclass(frozen=True, slots=True)
class PodGroupPostFilterInfo:
    """``fwk.PodGroupInfo`` as the plugins read it. ``scheduled`` is the PodGroup manager's
    ``ScheduledPodsCount`` (members bound or assumed before this cycle); ``need`` how many
    more must fit together; ``exclude`` the PodGroups whose pods are the preemptor's own
    (empty: the group itself)."""

    pod_group: Obj | None
    unscheduled: Sequence[Obj]
    composite: bool = False
    scheduled: int = 0
    need: int = 0
    exclude: frozenset[str] = frozenset()


def _never_fits() -> bool:
    return False


def _no_placement() -> dict[str, str]:
    return {}


def _no_message() -> str:
    return ""


@dataclass(frozen=True, slots=True)
class PodGroupScheduling:
    """``fwk.PodGroupSchedulingFunc``: re-run the group's algorithm on the current
    snapshot. ``fits``: whether enough members fit together now; ``place``: pod key ->
    node of the first placement that fits ({} if none); ``message``: the status message of
    the last run that did not fit (what upstream's func returns)."""

    fits: Callable[[], bool] = _never_fits
    place: Callable[[], dict[str, str]] = _no_placement
    message: Callable[[], str] = _no_message


@dataclass(frozen=True, slots=True)
class PodGroupPostFilterResult:
    """``fwk.PodGroupPostFilterResult``: pod key -> the node it is nominated to."""

    nominating: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class PodGroupPostFilterPlugin(Plugin, Protocol):
    """Makes room for a pod group that found no placement (or reports why it cannot)."""

    def pod_group_post_filter(
        self, state: CycleState | None, info: PodGroupPostFilterInfo, schedule: PodGroupScheduling
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        """The plugin's result and status; ``state`` is the pod-group cycle's."""
        ...


def run_pod_group_post_filter_plugins(
    plugins: Iterable[PodGroupPostFilterPlugin],
    state: CycleState | None,
    info: PodGroupPostFilterInfo,
    schedule: PodGroupScheduling,
    *,
    generic_workload: bool,
) -> tuple[PodGroupPostFilterResult | None, Status]:
    """``RunPodGroupPostFilterPlugins``: a Success ends the run with the plugin's result and
    status as given, UnschedulableAndUnresolvable ends it attributed to the plugin, every
    Unschedulable reason is kept (the first such plugin the rejector), and any other code
    is an Error naming the plugin."""
    if not generic_workload:
        return None, Status(Code.UNSCHEDULABLE, (GATE_DISABLED,))
    reasons: list[str] = []
    rejector = ""
    for pl in plugins:
        res, st = pl.pod_group_post_filter(state, info, schedule)
        if st.is_success():
            return res, st
        if st.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return res, st.with_plugin(pl.name())
        if st.code is not Code.UNSCHEDULABLE:
            why = f'error in "{pl.name()}" PodGroupPostFilter plugins: {st.message()}'
            return None, Status(Code.ERROR, (why,), pl.name())
        reasons += st.reasons
        rejector = rejector or pl.name()
    return None, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

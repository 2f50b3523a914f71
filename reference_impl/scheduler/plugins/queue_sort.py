"""Models pkg/scheduler/framework/plugins/queuesort/priority_sort.go."""

from __future__ import annotations

from typing import Final, final

from reference_impl.scheduler.framework.interface import Plugin, QueueSortPlugin
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import QueuedPodInfo
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "PrioritySort", "new"]

NAME: Final = names.PRIORITY_SORT


@final
class PrioritySort:
    """Higher ``spec.priority`` first, then the pod that entered the queue earlier."""

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Whether ``a`` is scheduled before ``b`` (the heap breaks full ties by arrival)."""
        pa, pb = a.info.priority, b.info.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return PrioritySort()


_: type[QueueSortPlugin] = PrioritySort

"""Models pkg/scheduler/framework/cycle_state.go: per-cycle plugin state under typed keys.

Keys follow pytest's ``StashKey`` style (``StateKey[NodeNameState]("NodeName")``), so
reads are typed without casts. Values implement ``clone()`` because preemption copies the
state to simulate removing victims.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

if TYPE_CHECKING:
    from reference_impl.scheduler.framework.types import PodInfo

__all__ = ["CycleState", "StateData", "StateKey"]


class StateData(Protocol):
    """A value stored in the CycleState."""

    def clone(self) -> Self:
        """A copy that can diverge from the original (shallow where values are immutable)."""
        ...


T = TypeVar("T", bound=StateData)


class StateKey(Generic[T]):
    """A typed key; identity is the name, so two plugins never collide by accident."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class CycleState:
    """State shared by the plugins within one scheduling cycle of one pod."""

    __slots__ = ("_data", "pod_group_cycle", "pod_info", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self, pod_info: PodInfo | None = None) -> None:
        self._data: dict[str, Any] = {}
        # The cycle's pod as the queue derived it (its request totals), when the scheduler
        # knows it; plugins use it only while it still holds the pod they are given.
        self.pod_info = pod_info
        # Plugins whose PreFilter/PreScore returned SKIP; the framework skips them.
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        # The pod-group cycle's own state while a gang is tried (GetPodGroupSchedulingCycle).
        self.pod_group_cycle: CycleState | None = None

    def read(self, key: StateKey[T]) -> T:
        """The value under ``key``; KeyError names the key when a PreFilter did not run."""
        try:
            value: T = self._data[key.name]
        except KeyError:
            raise KeyError(f"{key.name!r} not found in the CycleState") from None
        return value

    def try_read(self, key: StateKey[T]) -> T | None:
        """The value under ``key``, or None."""
        value: T | None = self._data.get(key.name)
        return value

    def write(self, key: StateKey[T], value: T) -> None:
        """Store ``value`` under ``key``."""
        self._data[key.name] = value

    def delete(self, key: StateKey[T]) -> None:
        """Remove ``key`` if present."""
        self._data.pop(key.name, None)

    def clone(self) -> CycleState:
        """A copy whose values are cloned (``CycleState.Clone``)."""
        out = CycleState(self.pod_info)
        out._data = {k: v.clone() for k, v in self._data.items()}
        out.skip_filter_plugins = set(self.skip_filter_plugins)
        out.skip_score_plugins = set(self.skip_score_plugins)
        out.pod_group_cycle = self.pod_group_cycle
        return out

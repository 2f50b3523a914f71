"""The reference's spot market: reclaim notices, then the instance is terminated.

``reclaim(node, provider)`` issues the provider's notice now and, when its window ends,
terminates the instance: the node's kubelet stops (``on_terminated``) and, as
cloud-controller-manager's node lifecycle controller does for a node whose instance no
longer exists, the Node object is deleted. Whatever was not drained by then dies with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.clock import EPOCH_UNIX_SECONDS, Instant, seconds
from reference_impl.cloud.notices import Notice, notice_for
from reference_impl.errors import NotFound

__all__ = ["SpotMarket"]

_NS: Final = 1_000_000_000


class SpotMarket:
    """Spot instances behind the cluster's nodes."""

    name: Final = "spot-market"

    def __init__(self, ctx: ComponentContext, on_terminated: Callable[[str], None]) -> None:
        self._ctx = ctx
        self._on_terminated = on_terminated
        self.notices: dict[str, Notice] = {}  # node -> its outstanding notice
        self.terminated: dict[str, float] = {}  # node -> when its instance went

    def now_unix(self) -> float:
        """The simulated time in unix seconds (what the notice's timestamps use)."""
        return EPOCH_UNIX_SECONDS + self._ctx.clock.now() / _NS

    def reclaim(self, node: str, provider: str) -> Notice:
        """Send ``provider``'s notice for ``node``; terminate its instance at the deadline."""
        notice = notice_for(provider, node, self.now_unix())
        self.notices[node] = notice
        at = Instant(self._ctx.clock.now() + seconds(notice.window_seconds))
        self._ctx.clock.call_at(at, lambda: self._terminate(node))
        self._ctx.trace.record(self.name, "notice", node, f"{provider} {notice.window_seconds:g}s")
        return notice

    def _terminate(self, node: str) -> None:
        if self.notices.pop(node, None) is None:
            return
        self.terminated[node] = self.now_unix()
        self._on_terminated(node)
        try:
            self._ctx.server.delete("v1", "Node", node)
        except NotFound:
            pass  # already deleted by the termination handler
        self._ctx.trace.record(self.name, "terminated", node)

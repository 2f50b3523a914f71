"""Models pkg/scheduler/framework/runtime/waiting_pods_map.go.

A pod that a Permit plugin answered WAIT is parked here until every waiting plugin allows
it, any plugin rejects it, or a plugin's timeout (a clock timer) fires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.clock import Duration, SimClock, Timer
from reference_impl.scheduler.framework.interface import OK, Code, Status

__all__ = ["WaitingPod"]

Obj = dict[str, Any]


class WaitingPod:
    """A reserved pod waiting at Permit; ``on_done`` receives the final Status once."""

    def __init__(
        self,
        pod: Obj,
        node_name: str,
        timeouts: dict[str, Duration],
        clock: SimClock,
        on_done: Callable[[Status], None],
    ) -> None:
        self.pod = pod
        self.node_name = node_name
        self._on_done = on_done
        self._done = False
        self._pending: dict[str, Timer] = {}
        for plugin, timeout in sorted(timeouts.items()):
            self._pending[plugin] = clock.call_later(timeout, self._timeout(plugin, timeout))

    def _timeout(self, plugin: str, timeout: Duration) -> Callable[[], None]:
        def fire() -> None:
            self.reject(plugin, f"rejected due to timeout after waiting {timeout / 1e9:g}s at plugin {plugin}")
        return fire

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.pod['metadata'].get('namespace', 'default')}/{self.pod['metadata']['name']}"

    def pending_plugins(self) -> list[str]:
        """Plugins that have not allowed the pod yet."""
        return sorted(self._pending)

    def allow(self, plugin: str) -> None:
        """``plugin`` lets the pod go; it binds once no plugin is pending."""
        timer = self._pending.pop(plugin, None)
        if timer is not None:
            timer.cancel()
        if not self._pending:
            self._finish(OK)

    def reject(self, plugin: str, message: str) -> None:
        """Any plugin can reject the pod; it is then unreserved and requeued."""
        self._finish(Status(Code.UNSCHEDULABLE, (message,), plugin))

    def _finish(self, status: Status) -> None:
        if self._done:
            return
        self._done = True
        for timer in self._pending.values():
            timer.cancel()
        self._pending.clear()
        self._on_done(status)

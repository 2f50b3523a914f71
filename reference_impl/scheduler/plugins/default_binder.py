"""Models pkg/scheduler/framework/plugins/defaultbinder/default_binder.go."""

from __future__ import annotations

from typing import Any, Final, final

from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, BindPlugin, Code, Plugin, Status
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "DefaultBinder", "new"]

Obj = dict[str, Any]
NAME: Final = names.DEFAULT_BINDER


@final
class DefaultBinder:
    """Binds through the pods/binding subresource, as the real binder POSTs a Binding."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Write the binding; an API error becomes an ERROR status."""
        meta = pod["metadata"]
        try:
            self._handle.ctx.server.bind(meta.get("namespace", "default"), meta["name"], node_name)
        except ApiError as e:
            return Status(Code.ERROR, (str(e),), NAME)
        return OK


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return DefaultBinder(handle)


_: type[BindPlugin] = DefaultBinder

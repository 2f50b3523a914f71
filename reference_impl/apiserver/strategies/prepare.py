"""``PrepareForCreate`` / ``PrepareForUpdate`` hooks that need the old object or the clock.

Upstream strategies drop gated fields unless the old object already used them
(``dropDisabledFields``) and stamp times (``DeviceTaint.timeAdded``). The registry's
defaulters see neither the old object nor the server's clock, so these hooks run through
``StrategyPrepare``, the first mutating step of every write after defaulting: it has the
operation, the old object and the simulated clock. (It sits in the admission chain only
for that reason; it is no upstream admission plugin. Folding it into the server's
prepare step would make it independent of ``install``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.clock import SimClock, rfc3339
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["Preparer", "StrategyPrepare", "install", "preparer"]

Obj = dict[str, Any]
# (new object, old object or None on create, "now" as RFC 3339 seconds, context)
Preparer = Callable[[Obj, Obj | None, str, Context], None]
_PREPARERS: dict[str, list[Preparer]] = {}


def preparer(*kinds: str) -> Callable[[Preparer], Preparer]:
    """Register a prepare hook for ``kinds`` (spec writes only, not /status)."""

    def deco(fn: Preparer) -> Preparer:
        for k in kinds:
            _PREPARERS.setdefault(k, []).append(fn)
        return fn

    return deco


class StrategyPrepare:
    """Runs the registered prepare hooks of the written kind."""

    name = "StrategyPrepare"

    def __init__(self, clock: SimClock) -> None:
        self._clock = clock

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Call each hook with the old object (None on create) and the current time."""
        hooks = _PREPARERS.get(info.kind)
        if not hooks or ctx.subresource or op is Operation.DELETE:
            return
        now = rfc3339(self._clock.now())
        for hook in hooks:
            hook(obj, old if op is Operation.UPDATE else None, now, ctx)

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Run the prepare hooks on every write to ``server`` (first in the chain)."""
    if not any(isinstance(p, StrategyPrepare) for p in server.admission):
        server.admission.insert(0, StrategyPrepare(server.clock))

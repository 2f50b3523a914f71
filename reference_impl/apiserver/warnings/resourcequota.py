"""The ResourceQuota strategy's WarningsOnCreate (``pkg/registry/core/resourcequota/
strategy.go``): a hard request above its limit. Updates and status writes warn of nothing."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.quantity import quantity_string, quantity_value
from reference_impl.apiserver.registry import Context, warner

__all__ = ["resource_quota_warnings"]

Obj = dict[str, Any]

_KNOWN: Final = ("cpu", "memory", "storage", "ephemeral-storage")


@warner("ResourceQuota")
def resource_quota_warnings(rq: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """requests.X (or bare cpu/memory) greater than limits.X."""
    if old is not None:
        return []
    hard = (rq.get("spec") or {}).get("hard") or {}
    out = []
    for name in _KNOWN:
        request_name = f"requests.{name}"
        if request_name not in hard and name in ("cpu", "memory") and name in hard:
            request_name = name
        limit_name = f"limits.{name}"
        if request_name in hard and limit_name in hard:
            request, limit = hard[request_name], hard[limit_name]
            if quantity_value(request) > quantity_value(limit):
                out.append(f"ResourceQuota {request_name} ({quantity_string(request)}) should be less "
                           f"than {limit_name} ({quantity_string(limit)})")  # fmt: skip
    return out

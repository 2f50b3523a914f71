"""``DeviceTaint.timeAdded`` as the apiserver sets it.

Every version's ``SetDefaults_DeviceTaint`` gives a taint without ``timeAdded`` the
current time (seconds), on create and on update alike: the taints of ResourceSlice
devices and a DeviceTaintRule's ``spec.taint``. A rule's ``PrepareForUpdate`` then resets
it when the effect changes and the client left the old time in place, so ``timeAdded``
tracks when the *effect* was added; a changed key or value with the same effect keeps
it. ``tolerationSeconds`` count from this instant (controllers/device_taint_eviction_time).
"""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, preparer

__all__ = ["prepare_rule", "prepare_slice"]

Obj = dict[str, Any]


@preparer("ResourceSlice")
def prepare_slice(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Device taints without a time get ``now``."""
    for d in (obj.get("spec") or {}).get("devices") or ():
        for t in (d.get("taints") or ()) if isinstance(d, dict) else ():
            if isinstance(t, dict) and not t.get("timeAdded"):
                t["timeAdded"] = now


@preparer("DeviceTaintRule")
def prepare_rule(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Default ``timeAdded``; on update reset it when only the effect moved on."""
    taint = (obj.get("spec") or {}).get("taint")
    if not isinstance(taint, dict):
        return  # validation reports the missing taint
    if not taint.get("timeAdded"):
        taint["timeAdded"] = now
    before = ((old or {}).get("spec") or {}).get("taint") or {}
    if old is not None and taint.get("effect") != before.get("effect") and (
        taint.get("timeAdded") == before.get("timeAdded")
    ):
        taint["timeAdded"] = now

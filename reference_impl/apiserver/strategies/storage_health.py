"""CSINode /status: ``ValidateCSINodeStatusUpdate`` of ``pkg/apis/storage/validation``
(1.37.2). The storageHealth list is kept only with CSIVolumeHealth (``storage_csi``
drops it first), so these rules see entries only where that gate is on."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.persistent_volume import ACCESS_MODES, csi_driver_causes
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_STATUSES: Final = ("StorageDegraded", "StorageUnreachable")
_VOLUME_MODES: Final = ("Filesystem", "Block")
_MAX_CONDITIONS: Final = 16
_REASON_RE: Final = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
_REASON_MSG: Final = (
    "a condition reason must start with alphabetic character, optionally followed by a string "
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
)


def _reason(reason: str, path: str) -> list[Cause]:
    if not reason:
        return [fe.required(path)]
    out = [] if _REASON_RE.match(reason) else [fe.invalid(path, reason, _REASON_MSG)]
    return out + ([fe.too_long(path, 256)] if len(reason) > 256 else [])


def _condition(c: Obj, path: str) -> list[Cause]:
    """``validateStorageHealthCondition``."""
    out: list[Cause] = []
    if c.get("status") not in _STATUSES:
        out.append(fe.not_supported(f"{path}.status", c.get("status") or "", _STATUSES))
    out += _reason(str(c.get("reason") or ""), f"{path}.reason")
    if len(str(c.get("message") or "")) > 1024:
        out.append(fe.too_long(f"{path}.message", 1024))
    mode, vmode = c.get("accessMode"), c.get("volumeMode")
    if mode is not None and mode not in ACCESS_MODES:
        out.append(fe.not_supported(f"{path}.accessMode", mode, ACCESS_MODES))
    if vmode is not None and vmode not in _VOLUME_MODES:
        out.append(fe.not_supported(f"{path}.volumeMode", vmode, _VOLUME_MODES))
    return out


def _health(h: Obj, path: str) -> list[Cause]:
    """``validateStorageHealth``: a driver name, at most 16 conditions."""
    out = csi_driver_causes(str(h.get("name") or ""), f"{path}.name")
    conds = [c for c in h.get("healthConditions") or () if isinstance(c, dict)]
    if len(conds) > _MAX_CONDITIONS:
        return out + [fe.too_many(f"{path}.healthConditions", len(conds), _MAX_CONDITIONS)]
    for i, c in enumerate(conds):
        out += _condition(c, f"{path}.healthConditions[{i}]")
    return out


@validator("CSINode", status=True)
def validate_csinode_status(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCSINodeStatusUpdate``: each storageHealth entry, no name twice."""
    out: list[Cause] = []
    seen: set[str] = set()
    entries = ((node.get("status") or {}).get("storageHealth")) or ()
    for i, h in enumerate(e for e in entries if isinstance(e, dict)):
        path, name = f"status.storageHealth[{i}]", str(h.get("name") or "")
        if name in seen:
            out.append(fe.duplicate(path, name))
        seen.add(name)
        out += _health(h, path)
    return out

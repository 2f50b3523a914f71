"""``ValidatePersistentVolumeClaimStatusUpdate`` (core 1.37.2, RecoverVolumeExpansionFailure
on): capacity quantities, and the keys and values of allocatedResources and
allocatedResourceStatuses (a native key must be ``storage``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import label_key_errors, parse_quantity
from reference_impl.api.resource_names import is_native_resource
from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_RESIZE: Final = (
    "ControllerResizeInProgress",
    "ControllerResizeInfeasible",
    "NodeResizeInProgress",
    "NodeResizeInfeasible",
    "NodeResizePending",
)


def _key_causes(key: str, path: str) -> list[Cause]:
    """``validatePersistentVolumeClaimResourceKey``."""
    errs = [fe.invalid(path, key, e) for e in label_key_errors(key)]
    if not errs and is_native_resource(key) and key != "storage":
        errs.append(fe.not_supported(path, key, ("storage",)))
    return errs


def _basic(value: Any, path: str) -> list[Cause]:
    """``validateBasicResource``: not negative."""
    try:
        negative = parse_quantity(value) < 0
    except ValueError as e:
        return [fe.invalid(path, value, str(e))]
    return [fe.invalid(path, value, "must be a valid resource quantity")] if negative else []


def _map(status: Obj, field: str) -> Obj:
    value = status.get(field)
    return value if isinstance(value, dict) else {}


@validator("PersistentVolumeClaim", status=True)
def validate_pvc_status(pvc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The status rules above."""
    status = pvc.get("status") if isinstance(pvc.get("status"), dict) else {}
    assert isinstance(status, dict)
    causes: list[Cause] = []
    for name, qty in _map(status, "capacity").items():
        causes += _basic(qty, f"status.capacity[{name}]")
    path = "status.allocatedResourceStatuses"
    for name, value in _map(status, "allocatedResourceStatuses").items():
        causes += _key_causes(str(name), path)
        if value not in _RESIZE:
            causes.append(fe.not_supported(path, name, _RESIZE))
    path = "status.allocatedResources"
    for name, qty in _map(status, "allocatedResources").items():
        errs = _key_causes(str(name), path)
        causes += errs or _basic(qty, f"{path}[{name}]")
    return causes

"""Opaque device configuration and ``RawExtension`` payloads (``validateRawExtension``)."""

from __future__ import annotations

import json
from typing import Any, Final

from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.lists import as_dict
from reference_impl.apiserver.validation.resource.names import driver_name
from reference_impl.errors import Cause

__all__ = ["OPAQUE_PARAMETERS_MAX", "device_configuration", "raw_extension"]

OPAQUE_PARAMETERS_MAX: Final = 10 * 1024


def raw_extension(value: Any, path: str, stored: bool, limit: int) -> list[Cause]:
    """A JSON object of at most ``limit`` bytes (stored payloads are grandfathered)."""
    if value is None:
        return [f.required(path)]
    # Upstream measures the bytes as the client sent them; both targets' client (the
    # kubernetes package) writes json.dumps' default separators, so the reference counts
    # that encoding (kubectl's compact JSON is a few bytes shorter).
    if not stored and len(json.dumps(value).encode()) > limit:
        return [f.too_long(path, limit)]
    if not isinstance(value, dict):
        return [f.invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []


def device_configuration(config: Any, path: str, stored: bool) -> list[Cause]:
    """``validateDeviceConfiguration``: ``opaque`` with a driver and parameters."""
    opaque = as_dict(config).get("opaque")
    if opaque is None:
        return [f.required(f"{path}.opaque")]
    opaque = as_dict(opaque)
    p = f"{path}.opaque"
    return (driver_name(str(opaque.get("driver") or ""), f"{p}.driver", declarative=True)
            + raw_extension(opaque.get("parameters"), f"{p}.parameters", stored, OPAQUE_PARAMETERS_MAX))

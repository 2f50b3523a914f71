"""ResourceSlice ``version``/``versions`` attribute values must be SemVer 2.0.0.

Upstream's ``validateDeviceAttributeVersionValue`` checks each value against a
semver.org regular expression and the 64-byte value limit. The apiserver enforces it in
``apiserver/validation/resource/device.py``; this pure form sits beside ``cel_semver``,
whose parser the selftests compare it with: the regex is upstream's, not blang's parser,
so a value such as an overflowing major number passes here and fails only when matched.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from reference_impl.errors import Cause

__all__ = ["MAX_VALUE_LENGTH", "version_causes"]

MAX_VALUE_LENGTH: Final = 64  # resource.DeviceAttributeMaxValueLength
_NUM: Final = r"(0|[1-9][0-9]*)"
_PRE: Final = r"(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD: Final = r"[0-9a-zA-Z-]+"
# Go's RE2 ``\d`` and ``$`` are ASCII-only and end-of-text: spelled out for Python.
_SEMVER: Final = re.compile(
    rf"{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?", re.ASCII
)


def _value(value: Any, path: str) -> list[Cause]:
    text = value if isinstance(value, str) else str(value)
    out: list[Cause] = []
    if not _SEMVER.fullmatch(text):
        out.append(Cause(path, "FieldValueInvalid",
                         f"Invalid value: {json.dumps(text)}: must be a string compatible with semver.org spec 2.0.0"))
    if len(text.encode()) > MAX_VALUE_LENGTH:
        out.append(Cause(path, "FieldValueTooLong", f"Too long: may not be more than {MAX_VALUE_LENGTH} bytes"))
    return out


def version_causes(device: dict[str, Any], path: str) -> list[Cause]:
    """Causes for the device's version values, under ``path`` (``...devices[i]``)."""
    out: list[Cause] = []
    for name, attr in sorted((device.get("attributes") or {}).items()):
        if not isinstance(attr, dict):
            continue
        p = f"{path}.attributes[{name}]"
        if attr.get("version") is not None:
            out += _value(attr["version"], f"{p}.version")
        for j, v in enumerate(attr.get("versions") or ()):
            out += _value(v, f"{p}.versions[{j}]")
    return out

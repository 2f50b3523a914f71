"""metav1 ``ValidateConditions``: unique types, label-name types, known statuses,
a transition time and a reason in upstream's format."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.formats import label_key_errors, regex_error
from reference_impl.apiserver.validation import field as f
from reference_impl.errors import Cause

__all__ = ["condition", "conditions"]

_STATUSES: Final = ("False", "True", "Unknown")
_REASON_FMT: Final = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON_RE: Final = re.compile(f"^{_REASON_FMT}$")
_REASON_MSG: Final = regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string "
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
    _REASON_FMT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")


def condition(c: Any, path: str) -> list[Cause]:
    d = c if isinstance(c, dict) else {}
    out: list[Cause] = []
    ctype, status, reason = str(d.get("type") or ""), str(d.get("status") or ""), str(d.get("reason") or "")
    if not ctype:
        out.append(f.required(f"{path}.type", "is required"))
    else:
        out += [f.invalid(f"{path}.type", ctype, m) for m in label_key_errors(ctype)]
    if not status:
        out.append(f.required(f"{path}.status"))
    elif status not in _STATUSES:
        out.append(f.not_supported(f"{path}.status", status, _STATUSES))
    gen = d.get("observedGeneration")
    if isinstance(gen, int) and gen < 0:
        out.append(f.invalid(f"{path}.observedGeneration", gen, "must be greater than or equal to zero"))
    if not d.get("lastTransitionTime"):
        out.append(f.required(f"{path}.lastTransitionTime"))
    if not reason:
        out.append(f.required(f"{path}.reason"))
    else:
        if not _REASON_RE.match(reason):
            out.append(f.invalid(f"{path}.reason", reason, _REASON_MSG))
        if len(reason) > 1024:
            out.append(f.too_long(f"{path}.reason", 1024))
    if len(str(d.get("message") or "")) > 32 * 1024:
        out.append(f.too_long(f"{path}.message", 32 * 1024))
    return out


def conditions(items: list[Any], path: str) -> list[Cause]:
    out: list[Cause] = []
    seen: set[str] = set()
    for i, c in enumerate(items):
        ctype = str((c if isinstance(c, dict) else {}).get("type") or "")
        if ctype in seen:
            out.append(f.duplicate(f"{path}[{i}]", ctype))
        seen.add(ctype)
        out += condition(c, f"{path}[{i}]")
    return out

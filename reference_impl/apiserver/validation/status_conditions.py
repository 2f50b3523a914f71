"""``metav1validation.ValidateConditions`` (apimachinery 1.37): each condition's type,
status, observedGeneration, lastTransitionTime, reason and message, and repeated types."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import label_key_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["validate_conditions"]

_STATUSES: Final = ("False", "True", "Unknown")
_REASON: Final = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
_REASON_MSG: Final = (
    "a condition reason must start with alphabetic character, optionally followed by a string "
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' "
    "(e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
    "'ReasonA:ReasonB', regex used for validation is "
    "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"
)
_MAX_REASON: Final = 1024
_MAX_MESSAGE: Final = 32 * 1024


def validate_conditions(conditions: Any, path: str) -> list[Cause]:
    """The errors of a ``[]metav1.Condition`` at ``path``."""
    causes: list[Cause] = []
    seen: set[str] = set()
    for i, c in enumerate(conditions if isinstance(conditions, list) else []):
        if not isinstance(c, dict):
            continue
        p = f"{path}[{i}]"
        ctype = str(c.get("type") or "")
        if ctype in seen:
            causes.append(fe.duplicate(p, ctype))
        seen.add(ctype)
        if not ctype:
            causes.append(fe.required(f"{p}.type", "is required"))
        else:
            causes += [fe.invalid(f"{p}.type", ctype, e) for e in label_key_errors(ctype)]
        status = str(c.get("status") or "")
        if not status:
            causes.append(fe.required(f"{p}.status"))
        elif status not in _STATUSES:
            causes.append(fe.not_supported(f"{p}.status", status, _STATUSES))
        gen = c.get("observedGeneration")
        if isinstance(gen, int) and gen < 0:
            causes.append(
                fe.invalid(f"{p}.observedGeneration", gen, "must be greater than or equal to zero")
            )
        if not c.get("lastTransitionTime"):
            causes.append(fe.required(f"{p}.lastTransitionTime"))
        reason = str(c.get("reason") or "")
        if not reason:
            causes.append(fe.required(f"{p}.reason"))
        else:
            if not _REASON.match(reason):
                causes.append(fe.invalid(f"{p}.reason", reason, _REASON_MSG))
            if len(reason) > _MAX_REASON:
                causes.append(fe.too_long(f"{p}.reason", _MAX_REASON))
        if len(str(c.get("message") or "")) > _MAX_MESSAGE:
            causes.append(fe.too_long(f"{p}.message", _MAX_MESSAGE))
    return causes

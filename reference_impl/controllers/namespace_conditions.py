"""The namespace deleter's status conditions (``namespace/deletion/status_condition_utils.go``).

The deleter owns five condition types. Each sync computes the failing ones; every type
without a failure is written in its "ok" form (status False), so a namespace that stops
failing shows it (``updateConditions``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "CONDITION_TYPES",
    "content_totals_conditions",
    "delete_content_condition",
    "discovery_failure_condition",
    "gv_parsing_failure_condition",
    "successful_condition",
    "update_conditions",
]

Obj = dict[str, Any]

DISCOVERY: Final = "NamespaceDeletionDiscoveryFailure"
GV_PARSING: Final = "NamespaceDeletionGroupVersionParsingFailure"
CONTENT_FAILURE: Final = "NamespaceDeletionContentFailure"
CONTENT_REMAINING: Final = "NamespaceContentRemaining"
FINALIZERS_REMAINING: Final = "NamespaceFinalizersRemaining"

# The order upstream appends missing types in (``conditionTypes``).
CONDITION_TYPES: Final = (
    DISCOVERY,
    GV_PARSING,
    CONTENT_FAILURE,
    CONTENT_REMAINING,
    FINALIZERS_REMAINING,
)
_OK: Final[Mapping[str, tuple[str, str]]] = {
    DISCOVERY: ("ResourcesDiscovered", "All resources successfully discovered"),
    GV_PARSING: ("ParsedGroupVersions", "All legacy kube types successfully parsed"),
    CONTENT_FAILURE: (
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    CONTENT_REMAINING: ("ContentRemoved", "All content successfully removed"),
    FINALIZERS_REMAINING: ("ContentHasNoFinalizers", "All content-preserving finalizers finished"),
}


def _cond(ctype: str, status: str, reason: str, message: str) -> Obj:
    return {"type": ctype, "status": status, "reason": reason, "message": message}


def successful_condition(ctype: str) -> Obj:
    """``newSuccessfulCondition`` (without lastTransitionTime, which the caller stamps)."""
    reason, message = _OK[ctype]
    return _cond(ctype, "False", reason, message)


def discovery_failure_condition(message: str) -> Obj:
    """``ProcessDiscoverResourcesErr``."""
    return _cond(DISCOVERY, "True", "DiscoveryFailed", message)


def gv_parsing_failure_condition(message: str) -> Obj:
    """``ProcessGroupVersionErr``."""
    return _cond(GV_PARSING, "True", "GroupVersionParsingFailed", message)


def delete_content_condition(errors: list[str]) -> Obj | None:
    """``makeDeleteContentCondition``: one condition for every content deletion error."""
    if not errors:
        return None
    msgs = sorted(errors)
    return _cond(
        CONTENT_FAILURE,
        "True",
        "ContentDeletionFailed",
        f"Failed to delete all resource types, {len(msgs)} remaining: {', '.join(msgs)}",
    )


def content_totals_conditions(
    remaining: Mapping[tuple[str, str], int], finalizers: Mapping[str, int]
) -> list[Obj]:
    """``ProcessContentTotals``. ``remaining`` is keyed by (group, resource)."""
    out: list[Obj] = []
    if remaining:
        # "resource.group", even for the core group ("pods."), as upstream formats it.
        parts = sorted(
            f"{res}.{group} has {n} resource instances"
            for (group, res), n in remaining.items()
            if n
        )
        msg = f"Some resources are remaining: {', '.join(parts)}"
        out.append(_cond(CONTENT_REMAINING, "True", "SomeResourcesRemain", msg))
    if finalizers:
        parts = sorted(f"{f} in {n} resource instances" for f, n in finalizers.items() if n)
        msg = f"Some content in the namespace has finalizers remaining: {', '.join(parts)}"
        out.append(_cond(FINALIZERS_REMAINING, "True", "SomeFinalizersRemain", msg))
    return out


def update_conditions(status: Obj, new: list[Obj], now: str) -> bool:
    """``updateConditions``: write every owned type into ``status``; True when changed.

    Types the deleter does not own are left alone, and existing ones keep their place.
    """
    conds: list[Obj] = status.setdefault("conditions", [])
    changed = False
    for ctype in CONDITION_TYPES:
        want = next((c for c in new if c["type"] == ctype), None) or successful_condition(ctype)
        old = next((c for c in conds if c.get("type") == ctype), None)
        if old is None:
            conds.append({**want, "lastTransitionTime": now})
            changed = True
            continue
        if any(old.get(k) != want[k] for k in ("status", "message", "reason")):
            if old.get("status") != want["status"]:
                old["lastTransitionTime"] = now
            old.update(status=want["status"], reason=want["reason"], message=want["message"])
            changed = True
    return changed

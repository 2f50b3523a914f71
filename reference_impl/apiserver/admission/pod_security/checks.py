"""Models ``policy/checks.go`` (the check types), ``policy/helpers.go`` and
``policy/visitor.go``: what a check is, what it returns, and the helpers every check
uses to word its message. Pods are JSON dicts; an absent or null field is Go's nil.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from reference_impl.apiserver.admission.pod_security.levels import Level, Version

__all__ = [
    "ALLOWED",
    "Check",
    "CheckFn",
    "CheckResult",
    "Obj",
    "VersionedCheck",
    "go_quote",
    "join_quote",
    "pluralize",
    "relax_for_user_namespace",
    "security_context",
    "visit_containers",
    "windows",
]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """``CheckResult``: allowed, or the reason and detail that word the refusal."""

    allowed: bool
    reason: str = ""
    detail: str = ""


ALLOWED = CheckResult(True)

# ``CheckPodFn``: (pod metadata, pod spec) -> result.
CheckFn = Callable[[Obj, Obj], CheckResult]


@dataclass(frozen=True, slots=True)
class VersionedCheck:
    """``VersionedCheck``: the check from ``minimum`` on, and the baseline checks it
    replaces at the restricted level."""

    minimum: Version
    check: CheckFn
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Check:
    """``Check``: an ID, the level it belongs to and its versions (increasing)."""

    id: str
    level: Level
    versions: tuple[VersionedCheck, ...]


def visit_containers(spec: Obj) -> Iterator[Obj]:
    """``visitContainers``: init containers, containers, then ephemeral containers."""
    for part in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(part) or ():
            if isinstance(c, dict):
                yield c


def security_context(obj: Obj) -> Obj | None:
    """A container's or pod spec's securityContext (None when nil)."""
    sc = obj.get("securityContext")
    return sc if isinstance(sc, dict) else None


def windows(spec: Obj) -> bool:
    """``podSpec.OS != nil && podSpec.OS.Name == corev1.Windows``."""
    return bool((spec.get("os") or {}).get("name") == "windows")


def relax_for_user_namespace(spec: Obj) -> bool:
    """``relaxPolicyForUserNamespacePod``: ``hostUsers: false``."""
    return spec.get("hostUsers") is False


def join_quote(items: list[str]) -> str:
    """``joinQuote``: each item in double quotes (unescaped), comma-separated."""
    return '"' + '", "'.join(items) + '"' if items else ""


def pluralize(singular: str, plural: str, count: int) -> str:
    """``pluralize``."""
    return singular if count == 1 else plural


_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
            "\v": "\\v", '"': '\\"', "\\": "\\\\"}  # fmt: skip


def go_quote(s: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``)."""
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)

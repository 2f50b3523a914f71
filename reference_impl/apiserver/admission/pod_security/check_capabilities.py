"""Models ``policy/check_capabilities_baseline.go`` and
``check_capabilities_restricted.go``.

Baseline, v1.0+: containers may add only the default capabilities. Restricted, v1.22+
(replacing the baseline check): containers must drop ALL and may add only
NET_BIND_SERVICE; from v1.25 Windows pods are exempt.
"""

from __future__ import annotations

from typing import Final

from reference_impl.apiserver.admission.pod_security.checks import (
    ALLOWED,
    Check,
    CheckResult,
    Obj,
    VersionedCheck,
    join_quote,
    pluralize,
    security_context,
    visit_containers,
    windows,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = [
    "ALLOWED_1_0",
    "BASELINE",
    "BASELINE_ID",
    "RESTRICTED",
    "capabilities_baseline_1_0",
    "capabilities_restricted_1_22",
    "capabilities_restricted_1_25",
]

BASELINE_ID: Final = "capabilities_baseline"
ALLOWED_1_0: Final = frozenset({
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
})  # fmt: skip


def _caps(c: Obj) -> Obj | None:
    caps = (security_context(c) or {}).get("capabilities")
    return caps if isinstance(caps, dict) else None


def _names(caps: Obj, part: str) -> list[str]:
    return [str(x) for x in caps.get(part) or ()]


def capabilities_baseline_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``capabilitiesBaseline_1_0``."""
    bad: list[str] = []
    added: set[str] = set()
    for c in visit_containers(spec):
        caps = _caps(c)
        if caps is None:
            continue
        extra = [x for x in _names(caps, "add") if x not in ALLOWED_1_0]
        if extra:
            bad.append(str(c.get("name", "")))
            added.update(extra)
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "non-default capabilities",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not include "
        f"{join_quote(sorted(added))} in securityContext.capabilities.add",
    )


def capabilities_restricted_1_22(meta: Obj, spec: Obj) -> CheckResult:
    """``capabilitiesRestricted_1_22``."""
    missing_drop: list[str] = []
    adding: list[str] = []
    forbidden: set[str] = set()
    for c in visit_containers(spec):
        name = str(c.get("name", ""))
        caps = _caps(c)
        if caps is None:
            missing_drop.append(name)
            continue
        if "ALL" not in _names(caps, "drop"):
            missing_drop.append(name)
        extra = [x for x in _names(caps, "add") if x != "NET_BIND_SERVICE"]
        if extra:
            adding.append(name)
            forbidden.update(extra)
    details = []
    if missing_drop:
        details.append(
            f"{pluralize('container', 'containers', len(missing_drop))} {join_quote(missing_drop)} "
            'must set securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(
            f"{pluralize('container', 'containers', len(adding))} {join_quote(adding)} must not "
            f"include {join_quote(sorted(forbidden))} in securityContext.capabilities.add"
        )
    return (
        CheckResult(False, "unrestricted capabilities", "; ".join(details)) if details else ALLOWED
    )


def capabilities_restricted_1_25(meta: Obj, spec: Obj) -> CheckResult:
    """``capabilitiesRestricted_1_25``: Windows pods are exempt."""
    return ALLOWED if windows(spec) else capabilities_restricted_1_22(meta, spec)


BASELINE: Final = Check(
    BASELINE_ID, Level.BASELINE, (VersionedCheck(major_minor(1, 0), capabilities_baseline_1_0),)
)
RESTRICTED: Final = Check(
    "capabilities_restricted",
    Level.RESTRICTED,
    (
        VersionedCheck(major_minor(1, 22), capabilities_restricted_1_22, (BASELINE_ID,)),
        VersionedCheck(major_minor(1, 25), capabilities_restricted_1_25, (BASELINE_ID,)),
    ),
)

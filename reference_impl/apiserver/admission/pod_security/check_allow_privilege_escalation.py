"""Models ``policy/check_allowPrivilegeEscalation.go``: restricted, v1.8+. Every
container must set ``allowPrivilegeEscalation=false``; from v1.25 Windows pods are
exempt."""

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

__all__ = ["CHECK", "allow_privilege_escalation_1_25", "allow_privilege_escalation_1_8"]


def allow_privilege_escalation_1_8(meta: Obj, spec: Obj) -> CheckResult:
    """``allowPrivilegeEscalation_1_8``: unset counts as true."""
    bad = [
        str(c.get("name", ""))
        for c in visit_containers(spec)
        if (security_context(c) or {}).get("allowPrivilegeEscalation") is not False
    ]
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "allowPrivilegeEscalation != false",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
        "must set securityContext.allowPrivilegeEscalation=false",
    )


def allow_privilege_escalation_1_25(meta: Obj, spec: Obj) -> CheckResult:
    """``allowPrivilegeEscalation_1_25``: Windows pods are exempt."""
    return ALLOWED if windows(spec) else allow_privilege_escalation_1_8(meta, spec)


CHECK: Final = Check(
    "allowPrivilegeEscalation",
    Level.RESTRICTED,
    (
        VersionedCheck(major_minor(1, 8), allow_privilege_escalation_1_8),
        VersionedCheck(major_minor(1, 25), allow_privilege_escalation_1_25),
    ),
)

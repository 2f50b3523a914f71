"""Models ``policy/check_privileged.go``: baseline, v1.0+. No container may set
``securityContext.privileged=true``."""

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
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["CHECK", "privileged_1_0"]


def privileged_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``privileged_1_0``."""
    bad = [
        str(c.get("name", ""))
        for c in visit_containers(spec)
        if (security_context(c) or {}).get("privileged") is True
    ]
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "privileged",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
        "must not set securityContext.privileged=true",
    )


CHECK: Final = Check(
    "privileged", Level.BASELINE, (VersionedCheck(major_minor(1, 0), privileged_1_0),)
)

"""Models ``policy/check_procMount_baseline.go`` and ``check_procMount_restricted.go``.

Baseline, v1.0+: ``securityContext.procMount`` may only be ``Default``; from v1.35 a pod
with ``hostUsers: false`` may set any. Restricted, v1.35+ (replacing the baseline
check): only ``Default``, user namespace or not.
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
    relax_for_user_namespace,
    security_context,
    visit_containers,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["BASELINE", "BASELINE_ID", "RESTRICTED", "proc_mount_1_0", "proc_mount_1_35_baseline"]

BASELINE_ID: Final = "procMount"


def proc_mount_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``procMount_1_0``."""
    bad: list[str] = []
    types: set[str] = set()
    for c in visit_containers(spec):
        pm = (security_context(c) or {}).get("procMount")
        if pm is not None and pm != "Default":
            bad.append(str(c.get("name", "")))
            types.add(str(pm))
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "procMount",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not set "
        f"securityContext.procMount to {join_quote(sorted(types))}",
    )


def proc_mount_1_35_baseline(meta: Obj, spec: Obj) -> CheckResult:
    """``procMount1_35baseline``: user-namespaced pods may set any procMount."""
    return ALLOWED if relax_for_user_namespace(spec) else proc_mount_1_0(meta, spec)


BASELINE: Final = Check(
    BASELINE_ID,
    Level.BASELINE,
    (
        VersionedCheck(major_minor(1, 0), proc_mount_1_0),
        VersionedCheck(major_minor(1, 35), proc_mount_1_35_baseline),
    ),
)
RESTRICTED: Final = Check(
    "procMount_restricted",
    Level.RESTRICTED,
    (VersionedCheck(major_minor(1, 35), proc_mount_1_0, (BASELINE_ID,)),),
)

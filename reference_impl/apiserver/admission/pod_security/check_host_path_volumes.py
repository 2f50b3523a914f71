"""Models ``policy/check_hostPathVolumes.go``: baseline, v1.0+ (at restricted the
restricted volumes check replaces it). No hostPath volumes."""

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
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["CHECK", "ID", "host_path_volumes_1_0"]

ID: Final = "hostPathVolumes"


def host_path_volumes_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``hostPathVolumes_1_0``."""
    bad = [
        str(v.get("name", ""))
        for v in spec.get("volumes") or ()
        if isinstance(v, dict) and v.get("hostPath") is not None
    ]
    if not bad:
        return ALLOWED
    return CheckResult(
        False, "hostPath volumes", f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)}"
    )


CHECK: Final = Check(
    ID, Level.BASELINE, (VersionedCheck(major_minor(1, 0), host_path_volumes_1_0),)
)

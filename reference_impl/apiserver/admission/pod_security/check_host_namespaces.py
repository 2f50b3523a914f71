"""Models ``policy/check_hostNamespaces.go``: baseline, v1.0+. The pod may not share
the host's network, PID or IPC namespace."""

from __future__ import annotations

from typing import Final

from reference_impl.apiserver.admission.pod_security.checks import (
    ALLOWED,
    Check,
    CheckResult,
    Obj,
    VersionedCheck,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["CHECK", "host_namespaces_1_0"]


def host_namespaces_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``hostNamespaces_1_0``."""
    used = [f"{f}=true" for f in ("hostNetwork", "hostPID", "hostIPC") if spec.get(f) is True]
    return CheckResult(False, "host namespaces", ", ".join(used)) if used else ALLOWED


CHECK: Final = Check(
    "hostNamespaces", Level.BASELINE, (VersionedCheck(major_minor(1, 0), host_namespaces_1_0),)
)

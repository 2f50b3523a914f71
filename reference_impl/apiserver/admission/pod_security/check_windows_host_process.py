"""Models ``policy/check_windowsHostProcess.go``: baseline, v1.0+. Neither the pod nor a
container may set ``windowsOptions.hostProcess=true``."""

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

__all__ = ["CHECK", "windows_host_process_1_0"]


def _host_process(owner: Obj) -> bool:
    opts = (security_context(owner) or {}).get("windowsOptions")
    return isinstance(opts, dict) and opts.get("hostProcess") is True


def windows_host_process_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``windowsHostProcess_1_0``."""
    bad = [str(c.get("name", "")) for c in visit_containers(spec) if _host_process(c)]
    setters = ["pod"] if _host_process(spec) else []
    if bad:
        setters.append(f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)}")
    if not setters:
        return ALLOWED
    return CheckResult(
        False,
        "hostProcess",
        f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true",
    )


CHECK: Final = Check(
    "windowsHostProcess",
    Level.BASELINE,
    (VersionedCheck(major_minor(1, 0), windows_host_process_1_0),),
)

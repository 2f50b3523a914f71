"""Models ``policy/check_sysctls.go``: baseline. The pod's sysctls must be in the safe
set of its version: v1.0, grown at v1.27, v1.29, v1.32 and v1.37."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from reference_impl.apiserver.admission.pod_security.checks import (
    ALLOWED,
    Check,
    CheckResult,
    Obj,
    VersionedCheck,
    security_context,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["ALLOWED_BY_VERSION", "CHECK", "sysctls"]

_V1_0 = frozenset({
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start",
})  # fmt: skip
_V1_27 = _V1_0 | {"net.ipv4.ip_local_reserved_ports"}
_V1_29 = _V1_27 | {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                   "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}  # fmt: skip
_V1_32 = _V1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}
_V1_37 = _V1_32 | {"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"}

# The allowed set from each minimum (minor) version on.
ALLOWED_BY_VERSION: Final = ((0, _V1_0), (27, _V1_27), (29, _V1_29), (32, _V1_32), (37, _V1_37))


def sysctls(spec: Obj, allowed: frozenset[str]) -> CheckResult:
    """``sysctls``: the forbidden names in the pod's order (repeats kept)."""
    bad = [
        str(s.get("name", ""))
        for s in (security_context(spec) or {}).get("sysctls") or ()
        if isinstance(s, dict) and s.get("name", "") not in allowed
    ]
    return CheckResult(False, "forbidden sysctls", ", ".join(bad)) if bad else ALLOWED


def _at(allowed: frozenset[str]) -> Callable[[Obj, Obj], CheckResult]:
    def check(meta: Obj, spec: Obj) -> CheckResult:
        return sysctls(spec, allowed)

    return check


CHECK: Final = Check(
    "sysctls",
    Level.BASELINE,
    tuple(
        VersionedCheck(major_minor(1, minor), _at(allowed)) for minor, allowed in ALLOWED_BY_VERSION
    ),
)

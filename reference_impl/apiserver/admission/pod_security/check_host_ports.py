"""Models ``policy/check_hostPorts.go``: baseline, v1.0+. No container port may name a
hostPort."""

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
    visit_containers,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["CHECK", "host_ports_1_0"]


def host_ports_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``hostPorts_1_0``: the ports listed as sorted strings."""
    bad: list[str] = []
    ports: set[str] = set()
    for c in visit_containers(spec):
        used = [
            str(p["hostPort"])
            for p in c.get("ports") or ()
            if isinstance(p, dict) and p.get("hostPort")
        ]
        if used:
            bad.append(str(c.get("name", "")))
            ports.update(used)
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "hostPort",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
        f"{pluralize('uses', 'use', len(bad))} {pluralize('hostPort', 'hostPorts', len(ports))} "
        f"{', '.join(sorted(ports))}",
    )


CHECK: Final = Check(
    "hostPorts", Level.BASELINE, (VersionedCheck(major_minor(1, 0), host_ports_1_0),)
)

"""Models ``policy/check_hostProbesAndhostLifecycle.go``: baseline, v1.34+. Probes and
lifecycle handlers may not name a ``host`` (httpGet or tcpSocket)."""

from __future__ import annotations

from typing import Any, Final

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

__all__ = ["CHECK", "host_probes_and_host_lifecycle_1_34"]


def _hosts(handler: Any) -> list[str]:
    """``getForbiddenHostProbes``/``getForbiddenHostLifecycle``."""
    if not isinstance(handler, dict):
        return []
    out = []
    for kind in ("httpGet", "tcpSocket"):
        action = handler.get(kind)
        if isinstance(action, dict) and action.get("host"):
            out.append(str(action["host"]))
    return out


def host_probes_and_host_lifecycle_1_34(meta: Obj, spec: Obj) -> CheckResult:
    """``hostProbesAndHostLifecycleV1Dot34``: containers and hosts as sorted sets."""
    bad: set[str] = set()
    hosts: set[str] = set()
    for c in visit_containers(spec):
        lc = c.get("lifecycle")
        lifecycle: Obj = lc if isinstance(lc, dict) else {}
        handlers = [c.get(p) for p in ("livenessProbe", "readinessProbe", "startupProbe")]
        handlers += [lifecycle.get(h) for h in ("postStart", "preStop")]
        for h in handlers:
            found = _hosts(h)
            if found:
                bad.add(str(c.get("name", "")))
                hosts.update(found)
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "probe or lifecycle host",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(sorted(bad))} "
        f"{pluralize('uses', 'use', len(bad))} "
        f"{pluralize('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} "
        f"{join_quote(sorted(hosts))}",
    )


CHECK: Final = Check(
    "hostProbesAndHostLifecycle",
    Level.BASELINE,
    (VersionedCheck(major_minor(1, 34), host_probes_and_host_lifecycle_1_34),),
)

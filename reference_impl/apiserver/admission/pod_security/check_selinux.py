"""Models ``policy/check_seLinuxOptions.go``: baseline. ``seLinuxOptions`` (pod or
container) may set no user or role, and a type only from the allowed set:
container_t, container_init_t, container_kvm_t (v1.0+), and container_engine_t (v1.31+).
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
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = [
    "ALLOWED_TYPES_1_0",
    "ALLOWED_TYPES_1_31",
    "CHECK",
    "selinux_options_1_0",
    "selinux_options_1_31",
]

ALLOWED_TYPES_1_0: Final = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
ALLOWED_TYPES_1_31: Final = ALLOWED_TYPES_1_0 | {"container_engine_t"}


def _check(spec: Obj, allowed: frozenset[str]) -> CheckResult:
    """``seLinuxOptions``."""
    bad_types: set[str] = set()
    flags = {"user": False, "role": False}

    def valid(owner: Obj) -> bool:
        opts = (security_context(owner) or {}).get("seLinuxOptions")
        if not isinstance(opts, dict):
            return True
        ok = True
        t = str(opts.get("type") or "")
        if t not in allowed:
            ok = False
            bad_types.add(t)
        for f in ("user", "role"):
            if opts.get(f):
                ok, flags[f] = False, True
        return ok

    setters = [] if valid(spec) else ["pod"]
    bad = [str(c.get("name", "")) for c in visit_containers(spec) if not valid(c)]
    if bad:
        setters.append(f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)}")
    if not setters:
        return ALLOWED
    data = []
    if bad_types:
        data.append(f"{pluralize('type', 'types', len(bad_types))} {join_quote(sorted(bad_types))}")
    data += [f"{f} may not be set" for f in ("user", "role") if flags[f]]
    return CheckResult(
        False,
        "seLinuxOptions",
        f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}",
    )


def selinux_options_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``seLinuxOptions1_0``."""
    return _check(spec, ALLOWED_TYPES_1_0)


def selinux_options_1_31(meta: Obj, spec: Obj) -> CheckResult:
    """``seLinuxOptions1_31``: container_engine_t allowed too."""
    return _check(spec, ALLOWED_TYPES_1_31)


CHECK: Final = Check(
    "seLinuxOptions",
    Level.BASELINE,
    (
        VersionedCheck(major_minor(1, 0), selinux_options_1_0),
        VersionedCheck(major_minor(1, 31), selinux_options_1_31),
    ),
)

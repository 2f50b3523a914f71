"""Models ``policy/check_runAsUser.go``: restricted, v1.23+. Neither the pod nor a
container may set ``runAsUser: 0``; from v1.35 a pod with ``hostUsers: false`` is
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
    relax_for_user_namespace,
    security_context,
    visit_containers,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["CHECK", "run_as_user_1_23", "run_as_user_1_35"]


def _root(owner: Obj) -> bool:
    uid = (security_context(owner) or {}).get("runAsUser")
    return uid is not None and not isinstance(uid, bool) and uid == 0


def run_as_user_1_23(meta: Obj, spec: Obj) -> CheckResult:
    """``runAsUser1_23``."""
    setters = ["pod"] if _root(spec) else []
    bad = [str(c.get("name", "")) for c in visit_containers(spec) if _root(c)]
    if bad:
        setters.append(f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)}")
    if not setters:
        return ALLOWED
    return CheckResult(False, "runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0")


def run_as_user_1_35(meta: Obj, spec: Obj) -> CheckResult:
    """``runAsUser1_35``: user-namespaced pods are exempt."""
    return ALLOWED if relax_for_user_namespace(spec) else run_as_user_1_23(meta, spec)


CHECK: Final = Check(
    "runAsUser",
    Level.RESTRICTED,
    (
        VersionedCheck(major_minor(1, 23), run_as_user_1_23),
        VersionedCheck(major_minor(1, 35), run_as_user_1_35),
    ),
)

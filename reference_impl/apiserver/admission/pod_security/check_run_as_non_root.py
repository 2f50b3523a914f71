"""Models ``policy/check_runAsNonRoot.go``: restricted, v1.0+. The pod or every
container must set ``runAsNonRoot=true`` and none may set it false; from v1.35 a pod with
``hostUsers: false`` is exempt."""

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

__all__ = ["CHECK", "run_as_non_root_1_0", "run_as_non_root_1_35"]

_REASON: Final = "runAsNonRoot != true"


def run_as_non_root_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``runAsNonRoot1_0``: explicit false first, then containers left unset."""
    pod = (security_context(spec) or {}).get("runAsNonRoot")
    setters = ["pod"] if pod is False else []
    explicit: list[str] = []
    implicit: list[str] = []
    for c in visit_containers(spec):
        mine = (security_context(c) or {}).get("runAsNonRoot")
        if mine is False:
            explicit.append(str(c.get("name", "")))
        elif mine is None and pod is not True:
            implicit.append(str(c.get("name", "")))
    if explicit:
        setters.append(
            f"{pluralize('container', 'containers', len(explicit))} {join_quote(explicit)}"
        )
    if setters:
        return CheckResult(
            False,
            _REASON,
            f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false",
        )
    if implicit:
        return CheckResult(
            False,
            _REASON,
            f"pod or {pluralize('container', 'containers', len(implicit))} {join_quote(implicit)} "
            "must set securityContext.runAsNonRoot=true",
        )
    return ALLOWED


def run_as_non_root_1_35(meta: Obj, spec: Obj) -> CheckResult:
    """``runAsNonRoot1_35``: user-namespaced pods are exempt."""
    return ALLOWED if relax_for_user_namespace(spec) else run_as_non_root_1_0(meta, spec)


CHECK: Final = Check(
    "runAsNonRoot",
    Level.RESTRICTED,
    (
        VersionedCheck(major_minor(1, 0), run_as_non_root_1_0),
        VersionedCheck(major_minor(1, 35), run_as_non_root_1_35),
    ),
)

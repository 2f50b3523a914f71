"""Models ``policy/check_seccompProfile_baseline.go`` and
``check_seccompProfile_restricted.go``.

Baseline: v1.0-v1.18 the seccomp annotations may name only ``runtime/default``,
``docker/default`` or ``localhost/*``; v1.19+ ``seccompProfile.type`` (pod or container)
may only be RuntimeDefault or Localhost. Restricted, v1.19+ (replacing the baseline
check): the pod or every container must also set one; from v1.25 Windows pods are exempt.
"""

from __future__ import annotations

from typing import Final

from reference_impl.apiserver.admission.pod_security.checks import (
    ALLOWED,
    Check,
    CheckResult,
    Obj,
    VersionedCheck,
    go_quote,
    join_quote,
    pluralize,
    security_context,
    visit_containers,
    windows,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = [
    "ANNOTATION_CONTAINER_PREFIX",
    "ANNOTATION_POD",
    "BASELINE",
    "BASELINE_ID",
    "RESTRICTED",
    "seccomp_baseline_1_0",
    "seccomp_baseline_1_19",
    "seccomp_restricted_1_19",
    "seccomp_restricted_1_25",
]

ANNOTATION_POD: Final = "seccomp.security.alpha.kubernetes.io/pod"
ANNOTATION_CONTAINER_PREFIX: Final = "container.seccomp.security.alpha.kubernetes.io/"
BASELINE_ID: Final = "seccompProfile_baseline"
_REASON: Final = "seccompProfile"


def _valid_annotation(v: str) -> bool:
    return v in ("runtime/default", "docker/default") or v.startswith("localhost/")


def _profile_type(obj: Obj) -> str | None:
    """The seccompProfile type of a pod spec or container (None without a profile)."""
    profile = (security_context(obj) or {}).get("seccompProfile")
    return str(profile.get("type") or "") if isinstance(profile, dict) else None


def seccomp_baseline_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``seccompProfileBaseline_1_0``: the alpha annotations."""
    annotations = meta.get("annotations") or {}
    keys = [ANNOTATION_POD] + [
        ANNOTATION_CONTAINER_PREFIX + str(c.get("name", "")) for c in visit_containers(spec)
    ]
    bad = {f"{k}={go_quote(str(annotations[k]))}" for k in keys
           if k in annotations and not _valid_annotation(str(annotations[k]))}  # fmt: skip
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        _REASON,
        f"forbidden {pluralize('annotation', 'annotations', len(bad))} {', '.join(sorted(bad))}",
    )


def _explicit(spec: Obj, bad_setters: list[str], values: set[str]) -> tuple[bool, list[str]]:
    """The pod's and containers' bad types (into the lists); whether the pod sets a
    valid one, and the containers that set none."""
    pod_type = _profile_type(spec)
    pod_set = pod_type in ("RuntimeDefault", "Localhost")
    if pod_type is not None and not pod_set:
        bad_setters.append("pod")
        values.add(pod_type)
    explicit: list[str] = []
    implicit: list[str] = []
    for c in visit_containers(spec):
        t = _profile_type(c)
        if t is None:
            implicit.append(str(c.get("name", "")))
        elif t not in ("RuntimeDefault", "Localhost"):
            explicit.append(str(c.get("name", "")))
            values.add(t)
    if explicit:
        bad_setters.append(
            f"{pluralize('container', 'containers', len(explicit))} {join_quote(explicit)}"
        )
    return pod_set, implicit


def _bad_types(bad_setters: list[str], values: set[str]) -> CheckResult:
    return CheckResult(
        False,
        _REASON,
        f"{' and '.join(bad_setters)} must not set securityContext.seccompProfile.type to "
        f"{join_quote(sorted(values))}",
    )


def seccomp_baseline_1_19(meta: Obj, spec: Obj) -> CheckResult:
    """``seccompProfileBaseline_1_19``: set types must be RuntimeDefault or Localhost."""
    setters: list[str] = []
    values: set[str] = set()
    _explicit(spec, setters, values)
    return _bad_types(setters, values) if setters else ALLOWED


def seccomp_restricted_1_19(meta: Obj, spec: Obj) -> CheckResult:
    """``seccompProfileRestricted_1_19``: bad types first, then containers left unset
    by a pod without a valid profile."""
    setters: list[str] = []
    values: set[str] = set()
    pod_set, implicit = _explicit(spec, setters, values)
    if setters:
        return _bad_types(setters, values)
    if implicit and not pod_set:
        return CheckResult(
            False,
            _REASON,
            f"pod or {pluralize('container', 'containers', len(implicit))} {join_quote(implicit)} "
            'must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        )
    return ALLOWED


def seccomp_restricted_1_25(meta: Obj, spec: Obj) -> CheckResult:
    """``seccompProfileRestricted_1_25``: Windows pods are exempt."""
    return ALLOWED if windows(spec) else seccomp_restricted_1_19(meta, spec)


BASELINE: Final = Check(
    BASELINE_ID,
    Level.BASELINE,
    (
        VersionedCheck(major_minor(1, 0), seccomp_baseline_1_0),
        VersionedCheck(major_minor(1, 19), seccomp_baseline_1_19),
    ),
)
RESTRICTED: Final = Check(
    "seccompProfile_restricted",
    Level.RESTRICTED,
    (
        VersionedCheck(major_minor(1, 19), seccomp_restricted_1_19, (BASELINE_ID,)),
        VersionedCheck(major_minor(1, 25), seccomp_restricted_1_25, (BASELINE_ID,)),
    ),
)

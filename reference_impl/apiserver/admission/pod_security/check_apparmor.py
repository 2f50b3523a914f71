"""Models ``policy/check_appArmorProfile.go``: baseline, v1.0+. ``appArmorProfile.type``
(pod or container) may only be RuntimeDefault or Localhost, and the beta container
annotations only ``runtime/default``, ``localhost/*`` or empty."""

from __future__ import annotations

from typing import Final

from reference_impl.api.well_known_annotations import APPARMOR_CONTAINER_PREFIX
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
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["ANNOTATION_PREFIX", "CHECK", "apparmor_profile_1_0"]

ANNOTATION_PREFIX: Final = APPARMOR_CONTAINER_PREFIX


def _bad_type(owner: Obj) -> str | None:
    """The profile type when it is set and not allowed."""
    profile = (security_context(owner) or {}).get("appArmorProfile")
    if not isinstance(profile, dict):
        return None
    t = str(profile.get("type") or "")
    return None if t in ("RuntimeDefault", "Localhost") else t


def apparmor_profile_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``appArmorProfile_1_0``: the bad types (sorted), then the bad annotations (sorted)."""
    setters: list[str] = []
    values: set[str] = set()
    if (t := _bad_type(spec)) is not None:
        setters.append("pod")
        values.add(t)
    bad: list[str] = []
    for c in visit_containers(spec):
        if (t := _bad_type(c)) is not None:
            bad.append(str(c.get("name", "")))
            values.add(t)
    if bad:
        setters.append(f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)}")
    annotations = [
        f"{k}={go_quote(str(v))}"
        for k, v in (meta.get("annotations") or {}).items()
        if str(k).startswith(ANNOTATION_PREFIX)
        and not (not v or v == "runtime/default" or str(v).startswith("localhost/"))
    ]
    value_list = sorted(values)
    if annotations:
        value_list += sorted(annotations)
        setters.append(pluralize("annotation", "annotations", len(annotations)))
    if not setters:
        return ALLOWED
    return CheckResult(
        False,
        pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(value_list)),
        f"{' and '.join(setters)} must not set AppArmor profile type to {join_quote(value_list)}",
    )


CHECK: Final = Check(
    "appArmorProfile", Level.BASELINE, (VersionedCheck(major_minor(1, 0), apparmor_profile_1_0),)
)

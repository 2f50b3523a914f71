"""Models ``k8s.io/pod-security-admission/api`` (constants.go, helpers.go): the levels, the
policy versions, the namespace labels that choose them and how a namespace's labels are
parsed into the policy to evaluate (``PolicyToEvaluate``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = [
    "AUDIT_LEVEL_LABEL",
    "AUDIT_VERSION_LABEL",
    "ENFORCE_LEVEL_LABEL",
    "ENFORCE_VERSION_LABEL",
    "LATEST",
    "LABEL_PREFIX",
    "WARN_LEVEL_LABEL",
    "WARN_VERSION_LABEL",
    "Level",
    "LevelVersion",
    "Policy",
    "Version",
    "compare_levels",
    "major_minor",
    "parse_level",
    "parse_version",
    "policy_to_evaluate",
]

LABEL_PREFIX: Final = "pod-security.kubernetes.io/"
ENFORCE_LEVEL_LABEL: Final = LABEL_PREFIX + "enforce"
ENFORCE_VERSION_LABEL: Final = LABEL_PREFIX + "enforce-version"
AUDIT_LEVEL_LABEL: Final = LABEL_PREFIX + "audit"
AUDIT_VERSION_LABEL: Final = LABEL_PREFIX + "audit-version"
WARN_LEVEL_LABEL: Final = LABEL_PREFIX + "warn"
WARN_VERSION_LABEL: Final = LABEL_PREFIX + "warn-version"


class Level(StrEnum):
    """``api.Level``: the three Pod Security Standards."""

    PRIVILEGED = "privileged"
    BASELINE = "baseline"
    RESTRICTED = "restricted"


@dataclass(frozen=True, slots=True)
class Version:
    """``api.Version``: ``v1.X`` or ``latest``; the zero value is "undefined"."""

    major: int = 0
    minor: int = 0
    latest: bool = False

    def __str__(self) -> str:
        return "latest" if self.latest else f"v{self.major}.{self.minor}"

    def older(self, other: Version) -> bool:
        """``Version.Older``: latest is never older, even than a future version."""
        if self.latest:
            return False
        if other.latest:
            return True
        return (self.major, self.minor) < (other.major, other.minor)


LATEST: Final = Version(latest=True)


def major_minor(major: int, minor: int) -> Version:
    """``MajorMinorVersion``."""
    return Version(major, minor)


@dataclass(frozen=True, slots=True)
class LevelVersion:
    """``api.LevelVersion``, printed ``level:version``."""

    level: Level
    version: Version

    def __str__(self) -> str:
        return f"{self.level.value}:{self.version}"


@dataclass(frozen=True, slots=True)
class Policy:
    """``api.Policy``: what is enforced, audited and warned about."""

    enforce: LevelVersion
    audit: LevelVersion
    warn: LevelVersion

    def fully_privileged(self) -> bool:
        """``FullyPrivileged``."""
        return all(lv.level is Level.PRIVILEGED for lv in (self.enforce, self.audit, self.warn))


_LEVELS: Final = ", ".join(level.value for level in Level)
_VERSION_RE: Final = re.compile(r"v1\.(0|[1-9][0-9]*)")
_MAX_INT: Final = 2**63 - 1


def parse_level(level: str) -> tuple[Level, str | None]:
    """``ParseLevel``: the level, or restricted and the error text."""
    try:
        return Level(level), None
    except ValueError:
        return Level.RESTRICTED, f"must be one of {_LEVELS}"


def parse_version(version: str) -> tuple[Version, str | None]:
    """``ParseVersion``: the version, or latest and the error text."""
    if version == "latest":
        return LATEST, None
    m = _VERSION_RE.fullmatch(version)
    if m is None or int(m.group(1)) > _MAX_INT:  # strconv.Atoi's range
        return LATEST, 'must be "latest" or "v1.x"'
    return Version(1, int(m.group(1))), None


def compare_levels(a: Level, b: Level) -> int:
    """``CompareLevels``: privileged < baseline < restricted."""
    order = (Level.PRIVILEGED, Level.BASELINE, Level.RESTRICTED)
    ia, ib = order.index(a), order.index(b)
    return (ia > ib) - (ia < ib)


def _invalid(label: str, value: str, err: str) -> Cause:
    return fe.invalid(f"metadata.labels[{label}]", value, err)


def policy_to_evaluate(
    labels: dict[str, str] | None, defaults: Policy
) -> tuple[Policy, list[Cause]]:
    """``PolicyToEvaluate``: the namespace's labels over the defaults, and the label
    errors. A bad enforce level fails closed (restricted); a bad audit or warn level fails
    open (privileged); a bad version is latest. Warn follows a stricter enforce level
    when warn is not labelled."""
    if not labels:
        return defaults, []
    errs: list[Cause] = []
    enforce_level, enforce_version = defaults.enforce.level, defaults.enforce.version
    audit_level, audit_version = defaults.audit.level, defaults.audit.version
    warn_level, warn_version = defaults.warn.level, defaults.warn.version
    has_enforce_level = has_warn_level = has_warn_version = False

    def level_of(label: str, fail_open: bool) -> Level | None:
        if label not in labels:
            return None
        lvl, err = parse_level(labels[label])
        if err is not None:
            errs.append(_invalid(label, labels[label], err))
            return Level.PRIVILEGED if fail_open else lvl
        return lvl

    def version_of(label: str) -> Version | None:
        if label not in labels:
            return None
        v, err = parse_version(labels[label])
        if err is not None:
            errs.append(_invalid(label, labels[label], err))
        return v

    if (lvl := level_of(ENFORCE_LEVEL_LABEL, False)) is not None:
        enforce_level = lvl
        has_enforce_level = not errs
    if (v := version_of(ENFORCE_VERSION_LABEL)) is not None:
        enforce_version = v
    if (lvl := level_of(AUDIT_LEVEL_LABEL, True)) is not None:
        audit_level = lvl
    if (v := version_of(AUDIT_VERSION_LABEL)) is not None:
        audit_version = v
    if (lvl := level_of(WARN_LEVEL_LABEL, True)) is not None:
        has_warn_level, warn_level = True, lvl
    if (v := version_of(WARN_VERSION_LABEL)) is not None:
        has_warn_version, warn_version = True, v
    if not has_warn_level and has_enforce_level and compare_levels(enforce_level, warn_level) > 0:
        warn_level = enforce_level
        if not has_warn_version:
            warn_version = enforce_version
    policy = Policy(
        LevelVersion(enforce_level, enforce_version),
        LevelVersion(audit_level, audit_version),
        LevelVersion(warn_level, warn_version),
    )
    return policy, errs

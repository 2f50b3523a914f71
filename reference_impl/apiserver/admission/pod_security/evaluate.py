"""Models ``policy/registry.go`` (``checkRegistry``, ``NewEvaluator``) and the
aggregation of ``policy/checks.go``: which checks run at a level and version, in what
order, and how their refusals are worded together.

Every version from v1.0 to the newest minimum version of any check gets its list: each
check at the version it had then; at restricted, the baseline checks too, less those a
restricted check overrides at that version. Baseline checks come first, then restricted
ones, each group ordered by ID. ``latest`` and versions past the newest are evaluated as
the newest (v1.37 in 1.37.2, for the sysctls list).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl.apiserver.admission.pod_security.checks import (
    Check,
    CheckResult,
    Obj,
    VersionedCheck,
)
from reference_impl.apiserver.admission.pod_security.levels import (
    Level,
    LevelVersion,
    Version,
    major_minor,
)

__all__ = [
    "UNKNOWN_FORBIDDEN_REASON",
    "AggregateCheckResult",
    "Evaluator",
    "aggregate",
    "default_checks",
    "default_evaluator",
]

UNKNOWN_FORBIDDEN_REASON = "unknown forbidden reason"


@dataclass(frozen=True, slots=True)
class AggregateCheckResult:
    """``AggregateCheckResult``: the refusals of every check that refused, in order."""

    reasons: tuple[str, ...]
    details: tuple[str, ...]

    @property
    def allowed(self) -> bool:
        return not self.reasons

    def forbidden_reason(self) -> str:
        """``ForbiddenReason``: the reasons, comma-separated."""
        return ", ".join(self.reasons)

    def forbidden_detail(self) -> str:
        """``ForbiddenDetail``: ``reason (detail)`` for each, comma-separated."""
        return ", ".join(
            f"{r} ({d})" if d else r for r, d in zip(self.reasons, self.details, strict=True)
        )


def aggregate(results: Sequence[CheckResult]) -> AggregateCheckResult:
    """``AggregateCheckResults``."""
    refused = [r for r in results if not r.allowed]
    return AggregateCheckResult(
        tuple(r.reason or UNKNOWN_FORBIDDEN_REASON for r in refused),
        tuple(r.detail for r in refused),
    )


def _next_minor(v: Version) -> Version:
    return v if v.latest else major_minor(v.major, v.minor + 1)


def _validate(checks: Sequence[Check]) -> None:
    """``validateChecks``: unique IDs, valid levels, strictly increasing defined
    versions, overrides only from restricted checks and only of baseline ones."""
    ids: dict[str, Level] = {}
    for c in checks:
        if c.id in ids:
            raise ValueError(f"multiple checks registered for ID {c.id}")
        ids[c.id] = c.level
        if c.level not in (Level.BASELINE, Level.RESTRICTED):
            raise ValueError(f"check {c.id}: invalid level {c.level}")
        if not c.versions:
            raise ValueError(f"check {c.id}: empty")
        last = Version()
        for v in c.versions:
            if v.minimum == Version():
                raise ValueError(f"check {c.id}: undefined version found")
            if v.minimum.latest:
                raise ValueError(f"check {c.id}: version cannot be 'latest'")
            if v.minimum == last:
                raise ValueError(f"check {c.id}: duplicate version {v.minimum}")
            if not last.older(v.minimum):
                raise ValueError(f"check {c.id}: versions must be strictly increasing")
            last = v.minimum
    for c in checks:
        for v in c.versions:
            if v.overrides and c.level is not Level.RESTRICTED:
                raise ValueError(f"check {c.id}: only restricted checks may set overrides")
            for o in v.overrides:
                if ids.get(o, Level.BASELINE) is not Level.BASELINE:
                    raise ValueError(f"check {c.id}: overrides {ids[o]} check {o}")


class Evaluator:
    """``checkRegistry``: the checks of each level at each version."""

    def __init__(self, checks: Sequence[Check], emulation_version: Version | None = None) -> None:
        _validate(checks)
        self.max_version = Version()
        for c in checks:
            if self.max_version.older(c.versions[-1].minimum):
                self.max_version = c.versions[-1].minimum
        self._baseline: dict[Version, list[VersionedCheck]] = {}
        self._restricted: dict[Version, list[VersionedCheck]] = {}
        self._populate(checks)
        if emulation_version is not None and emulation_version.older(self.max_version):
            self.max_version = emulation_version

    def _inflate(self, c: Check, into: dict[Version, dict[str, VersionedCheck]]) -> None:
        """``inflateVersions``: each version of the check until the next one's minimum."""
        for i, vc in enumerate(c.versions):
            end = (
                c.versions[i + 1].minimum
                if i + 1 < len(c.versions)
                else _next_minor(self.max_version)
            )
            v = vc.minimum
            while v.older(end):
                into.setdefault(v, {})[c.id] = vc
                v = _next_minor(v)

    def _populate(self, checks: Sequence[Check]) -> None:
        """``populate``."""
        restricted: dict[Version, dict[str, VersionedCheck]] = {}
        baseline: dict[Version, dict[str, VersionedCheck]] = {}
        for c in checks:
            self._inflate(c, restricted if c.level is Level.RESTRICTED else baseline)
        ordered = sorted(c.id for c in checks if c.level is Level.BASELINE) + sorted(
            c.id for c in checks if c.level is Level.RESTRICTED
        )
        v = major_minor(1, 0)
        while v.older(_next_minor(self.max_version)):
            overridden = {o for vc in restricted.get(v, {}).values() for o in vc.overrides}
            at = restricted.setdefault(v, {})
            for cid, vc in baseline.get(v, {}).items():
                if cid not in overridden:
                    at[cid] = vc
            self._restricted[v] = [at[i] for i in ordered if i in at]
            base = baseline.get(v, {})
            self._baseline[v] = [base[i] for i in ordered if i in base]
            v = _next_minor(v)

    def checks_for(self, lv: LevelVersion) -> list[VersionedCheck]:
        """The checks ``EvaluatePod`` runs for ``lv``, in order."""
        if lv.level is Level.PRIVILEGED:
            return []
        version = self.max_version if self.max_version.older(lv.version) else lv.version
        table = self._baseline if lv.level is Level.BASELINE else self._restricted
        return list(table.get(version, ()))

    def evaluate_pod(self, lv: LevelVersion, meta: Obj, spec: Obj) -> list[CheckResult]:
        """``EvaluatePod``: every check's result (privileged runs none)."""
        return [vc.check(meta, spec) for vc in self.checks_for(lv)]


def default_checks() -> list[Check]:
    """``DefaultChecks``: the checks kube-apiserver 1.37.2 registers."""
    from reference_impl.apiserver.admission.pod_security import (
        check_allow_privilege_escalation,
        check_apparmor,
        check_capabilities,
        check_host_namespaces,
        check_host_path_volumes,
        check_host_ports,
        check_host_probes,
        check_privileged,
        check_proc_mount,
        check_restricted_volumes,
        check_run_as_non_root,
        check_run_as_user,
        check_seccomp,
        check_selinux,
        check_sysctls,
        check_windows_host_process,
    )

    return [
        check_allow_privilege_escalation.CHECK,
        check_apparmor.CHECK,
        check_capabilities.BASELINE,
        check_capabilities.RESTRICTED,
        check_host_namespaces.CHECK,
        check_host_path_volumes.CHECK,
        check_host_ports.CHECK,
        check_host_probes.CHECK,
        check_privileged.CHECK,
        check_proc_mount.BASELINE,
        check_proc_mount.RESTRICTED,
        check_restricted_volumes.CHECK,
        check_run_as_non_root.CHECK,
        check_run_as_user.CHECK,
        check_seccomp.BASELINE,
        check_seccomp.RESTRICTED,
        check_selinux.CHECK,
        check_sysctls.CHECK,
        check_windows_host_process.CHECK,
    ]


_DEFAULT: list[Evaluator] = []


def default_evaluator() -> Evaluator:
    """The evaluator over ``default_checks`` (built once)."""
    if not _DEFAULT:
        _DEFAULT.append(Evaluator(default_checks()))
    return _DEFAULT[0]

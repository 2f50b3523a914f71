"""Feature gate dependencies, as component-base ``featuregate`` v0.37.2 declares and checks them.

``add_dependencies`` ports ``featureGate.AddDependencies`` (its registration-time rules
and texts); ``disabled_dependency_errors`` ports the check ``unsafeSetFromMap`` runs after
a gate set's values are settled (``Set``, ``SetFromMap``, ``SetEmulationVersion``).
Upstream walks Go maps in random order; here names are visited sorted so that a gate set
with several faults always reports them the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

__all__ = [
    "PreRelease",
    "VersionedSpec",
    "add_dependencies",
    "disabled_dependency_errors",
    "spec_at",
]

Version = tuple[int, int]


class PreRelease(Enum):
    """featuregate.prerelease with upstream's strings (GA is the empty string)."""

    PRE_ALPHA = "PRE-ALPHA"
    ALPHA = "ALPHA"
    BETA = "BETA"
    GA = ""
    DEPRECATED = "DEPRECATED"


# stabilityOrder: a gate cannot depend on a less stable one; alpha may use pre-alpha.
_STABILITY: Final = {
    PreRelease.DEPRECATED: 0,
    PreRelease.PRE_ALPHA: 1,
    PreRelease.ALPHA: 1,
    PreRelease.BETA: 2,
    PreRelease.GA: 3,
}


@dataclass(frozen=True, slots=True)
class VersionedSpec:
    """One entry of a gate's VersionedSpecs (as AddVersioned completes it)."""

    version: Version
    pre_release: PreRelease = PreRelease.GA  # FeatureSpec's zero value
    default: bool = False
    locked: bool = False
    min_compat: Version | None = None


def _fmt(v: Version) -> str:
    return f"{v[0]}.{v[1]}"


def spec_at(
    specs: Sequence[VersionedSpec], emulation: Version, min_compat: Version | None
) -> VersionedSpec:
    """featureSpecAtEmulationAndMinCompatVersion: the last entry at or below ``emulation``
    whose MinCompatibilityVersion ``min_compat`` (default emulation - 1) reaches; else
    pre-alpha, off."""
    floor = min_compat if min_compat is not None else (emulation[0], emulation[1] - 1)
    for spec in reversed(specs):
        if spec.version > emulation:
            continue
        if spec.min_compat is not None and floor < spec.min_compat:
            continue
        return spec
    return VersionedSpec((0, 0), PreRelease.PRE_ALPHA, False)


def add_dependencies(
    known: Mapping[str, Sequence[VersionedSpec]],
    existing: Mapping[str, Sequence[str]],
    new: Mapping[str, Sequence[str]],
) -> dict[str, tuple[str, ...]]:
    """featureGate.AddDependencies: ``new`` merged into ``existing`` (lists sorted and
    compacted), checked against ``known``; the merged map, or ValueError with upstream's
    text. Closing the gate set (``Close``) is not modelled: sets here are immutable."""
    merged: dict[str, list[str]] = {k: list(v) for k, v in new.items()}
    for k, v in existing.items():
        merged.setdefault(k, []).extend(v)
    deps = {k: tuple(sorted(set(v))) for k, v in sorted(merged.items())}
    for feature, feature_deps in deps.items():
        versioned = known.get(feature)
        if versioned is None:
            raise ValueError(f"cannot add dependency for unknown feature {feature}")
        for dep in feature_deps:
            versioned_dep = known.get(dep)
            if versioned_dep is None:
                raise ValueError(f"cannot add dependency from {feature} to unknown feature {dep}")
            # Newest version first, as upstream, for the more intuitive message.
            for spec in reversed(versioned):
                dep_spec = spec_at(versioned_dep, spec.version, spec.min_compat)
                at = _fmt(spec.version)
                if _STABILITY[spec.pre_release] > _STABILITY[dep_spec.pre_release]:
                    raise ValueError(
                        f"{spec.pre_release.value} feature {feature} cannot depend on "
                        f"{dep_spec.pre_release.value} feature {dep} at version {at}"
                    )
                if spec.default and not dep_spec.default:
                    raise ValueError(
                        f"default-enabled feature {feature} cannot depend on default-disabled feature {dep} "
                        f"at version {at}"
                    )
                if spec.locked and not dep_spec.locked:
                    raise ValueError(
                        f"locked-to-default feature {feature} cannot depend on unlocked feature {dep} at version {at}"
                    )
    _check_cycles(deps)
    return deps


def _check_cycles(deps: Mapping[str, Sequence[str]]) -> None:
    visited: set[str] = set()
    finished: set[str] = set()

    def visit(feature: str) -> None:
        if feature in finished:
            return
        if feature in visited:
            raise ValueError(f"cycle detected with feature {feature}")
        visited.add(feature)
        for dep in deps.get(feature, ()):
            visit(dep)
        finished.add(feature)

    for feature in deps:
        visit(feature)


def disabled_dependency_errors(
    deps: Mapping[str, Sequence[str]], enabled: Mapping[str, bool]
) -> list[str]:
    """unsafeSetFromMap's last pass: one error per enabled gate with disabled dependencies,
    naming them as Go prints a []Feature."""
    errors: list[str] = []
    for feature in sorted(deps):
        if not enabled[feature]:
            continue
        disabled = [dep for dep in deps[feature] if not enabled[dep]]
        if disabled:
            errors.append(
                f"{feature} is enabled, but depends on features that are disabled: [{' '.join(disabled)}]"
            )
    return errors

"""The frozen 1.37 feature table and feature gates.

Models ``k8s.io/component-base/featuregate``: a fixed set of known gates with a stage and
a default, overridable per cluster, where locked GA gates refuse ``false``. The catalogue
of project features (``v1_37.toml``) is the single source that markers, ``garhwal
features`` and the reports read.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from typing import Final, NewType

from reference_impl.features.dependencies import (
    PreRelease,
    VersionedSpec,
    add_dependencies,
    disabled_dependency_errors,
)

__all__ = [
    "ALL_ALPHA",
    "ALL_BETA",
    "DEPENDENCIES",
    "FEATURES",
    "GATES",
    "Feature",
    "FeatureGates",
    "FeatureTable",
    "GateSpec",
    "KepId",
    "Stage",
    "UnknownFeature",
    "kep_id",
    "parse_feature_gates_flag",
    "versioned_specs",
]

KepId = NewType("KepId", str)
_KEP_RE: Final = re.compile(r"^KEP-\d+$")


def kep_id(value: str) -> KepId:
    """Return ``value`` as a KepId, raising ValueError unless it looks like ``KEP-1234``."""
    if not _KEP_RE.match(value):
        raise ValueError(f"{value!r} is not a KEP id; write it as KEP-NNNN, e.g. KEP-5055")
    return KepId(value)


class Stage(Enum):
    """A feature's maturity in 1.37; NONE marks probes that are not features."""

    ALPHA = "alpha"
    BETA = "beta"
    GA = "ga"
    # featuregate.Deprecated: a gate on its way out (only gates have it, not features).
    DEPRECATED = "deprecated"
    NONE = "none"


class UnknownFeature(KeyError):
    """Raised for a KEP, feature id or gate that 1.37 does not have."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class GateSpec:
    """One feature gate as the 1.37 registry knows it."""

    name: str
    stage: Stage
    default: bool
    locked: bool
    # The Go packages that register it (gates_1_37.json); empty for the few gates the
    # reference models that upstream v1.37.2 does not have (v1_37.toml, upstream = false).
    sources: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Feature:
    """One row of the catalogue: a feature id, its KEPs, gates, stage and default."""

    id: str
    title: str
    section: str
    keps: tuple[KepId, ...]
    gates: tuple[str, ...]
    stage: Stage
    default: bool
    # --runtime-config entries (group/version=true) the feature's API needs beyond the
    # stable versions upstream serves by default.
    runtime_config: tuple[str, ...] = ()

    @property
    def kep(self) -> KepId | None:
        """The primary KEP, or None for probes with no KEP."""
        return self.keps[0] if self.keps else None


class FeatureTable:
    """The frozen table, indexed by feature id and by KEP."""

    def __init__(self, features: list[Feature]) -> None:
        self._by_id = {f.id: f for f in features}
        self._by_kep: dict[str, Feature] = {}
        for f in features:
            for k in f.keps:
                self._by_kep.setdefault(k, f)

    def __iter__(self) -> Iterator[Feature]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def lookup(self, key: str) -> Feature:
        """Find a feature by KEP (``KEP-5055``) or by id (``DRA-TAINT``)."""
        if key in self._by_kep:
            return self._by_kep[key]
        if key in self._by_id:
            return self._by_id[key]
        known = ", ".join(sorted(self._by_kep))
        raise UnknownFeature(
            f"{key!r} is not in the 1.37 feature table (reference_impl/features/v1_37.toml); "
            f"use one of: {known}, or a feature id such as DRA-TAINT"
        )


# featuregate's built-in toggles (feature_gate.go allAlphaGate/allBetaGate): known to every
# gate set; switching one sets every gate of that stage the same map leaves unset.
ALL_ALPHA: Final = "AllAlpha"
ALL_BETA: Final = "AllBeta"
_FEATUREGATE_PKG: Final = "k8s.io/component-base/featuregate"
_SPECIAL: Final = {
    ALL_ALPHA: GateSpec(ALL_ALPHA, Stage.ALPHA, False, False, (_FEATUREGATE_PKG,)),
    ALL_BETA: GateSpec(ALL_BETA, Stage.BETA, False, False, (_FEATUREGATE_PKG,)),
}
# strconv.ParseBool's accepted spellings.
_BOOLS: Final = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


_PRE_RELEASE: Final = {
    Stage.ALPHA: PreRelease.ALPHA,
    Stage.BETA: PreRelease.BETA,
    Stage.GA: PreRelease.GA,
    Stage.DEPRECATED: PreRelease.DEPRECATED,
}


def versioned_specs(specs: Mapping[str, GateSpec]) -> dict[str, tuple[VersionedSpec, ...]]:
    """Each gate as a one-entry VersionedSpecs at 1.37: the registry keeps only the 1.37
    spec, so AddDependencies' rules are checked at that version alone."""
    return {
        n: (VersionedSpec((1, 37), _PRE_RELEASE[s.stage], s.default, s.locked),)
        for n, s in specs.items()
    }


def parse_feature_gates_flag(value: str) -> dict[str, bool]:
    """``--feature-gates=A=true,B=false`` as featureGate.Set parses it (feature_gate.go
    SetWithLogger): empty items skipped, names and values trimmed, ParseBool values."""
    out: dict[str, bool] = {}
    for item in value.split(","):
        if not item:
            continue
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep:
            raise ValueError(f"missing bool value for {name}")
        raw = raw.strip()
        if raw not in _BOOLS:
            raise ValueError(
                f'invalid value of {name}={raw}, err: strconv.ParseBool: parsing "{raw}": invalid syntax'
            )
        out[name] = _BOOLS[raw]
    return out


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


class FeatureGates(Mapping[str, bool]):
    """An immutable gate map: 1.37 defaults with overrides, validated like ``--feature-gates``.

    Ports featureGate.unsafeSetFromMap (component-base featuregate/feature_gate.go): an
    unknown name fails first, a locked gate refuses any other value, AllAlpha/AllBeta fill
    the gates of their stage the map leaves unset, and setting a GA or deprecated gate
    only logs a warning (kept in ``warnings``). Then, as upstream, an enabled gate whose
    dependencies (``DEPENDENCIES``, kube's AddDependencies map) are not all enabled fails.
    ``known`` replaces the 1.37 registry (upstream's tests use their own gates); with it,
    ``dependencies`` (checked as AddDependencies checks them) replaces kube's map.
    """

    def __init__(
        self,
        overrides: Mapping[str, bool] | None = None,
        *,
        known: Mapping[str, GateSpec] | None = None,
        dependencies: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        specs = {**_SPECIAL, **(GATES if known is None else known)}
        if dependencies is None:
            deps: Mapping[str, tuple[str, ...]] = DEPENDENCIES if known is None else {}
        else:
            deps = add_dependencies(versioned_specs(specs), {}, dependencies)
        explicit = dict(overrides or {})
        for name in explicit:
            if name not in specs:
                raise UnknownFeature(f"unrecognized feature gate: {name}")
        errors: list[str] = []
        warnings: list[str] = []
        values = {name: spec.default for name, spec in specs.items()}
        for name, value in sorted(explicit.items()):
            spec = specs[name]
            if spec.locked and bool(value) is not spec.default:
                errors.append(
                    f"cannot set feature gate {name} to {_go_bool(bool(value))}, "
                    f"feature is locked to {_go_bool(spec.default)}"
                )
                continue
            values[name] = bool(value)
            if spec.stage in (Stage.DEPRECATED, Stage.GA) and name not in _SPECIAL:
                kind = "deprecated" if spec.stage is Stage.DEPRECATED else "GA"
                warnings.append(
                    f"Warning: setting {kind} feature gate. It will be removed in a future release. "
                    f"featureGate={name} value={_go_bool(bool(value))}"
                )
        if errors:
            # utilerrors.NewAggregate: one error as is, more as a bracketed list.
            raise ValueError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        for toggle, stage in ((ALL_ALPHA, Stage.ALPHA), (ALL_BETA, Stage.BETA)):
            if toggle in explicit:
                for name, spec in specs.items():
                    if spec.stage is stage and name not in explicit and name not in _SPECIAL:
                        values[name] = bool(explicit[toggle])
        errors = disabled_dependency_errors(deps, values)
        if errors:
            raise ValueError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        # As given, so that with_overrides rebuilds the same way (without re-checking kube's map).
        self._given = (known, dependencies)
        self._dependencies = deps
        self._explicit = {k: bool(v) for k, v in explicit.items()}
        self._values = values
        self.warnings: tuple[str, ...] = tuple(warnings)

    @classmethod
    def from_flag(
        cls,
        value: str,
        *,
        known: Mapping[str, GateSpec] | None = None,
        dependencies: Mapping[str, Sequence[str]] | None = None,
    ) -> FeatureGates:
        """The gates of a ``--feature-gates`` value (parse_feature_gates_flag)."""
        return cls(parse_feature_gates_flag(value), known=known, dependencies=dependencies)

    def __getitem__(self, name: str) -> bool:
        try:
            return self._values[name]
        except KeyError:
            raise UnknownFeature(f"unrecognized feature gate: {name}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def enabled(self, name: str) -> bool:
        """Whether the gate is on (``__getitem__`` inlined: it is on every write's path)."""
        try:
            return self._values[name]
        except KeyError:
            raise UnknownFeature(f"unrecognized feature gate: {name}") from None

    def dependencies(self) -> dict[str, tuple[str, ...]]:
        """featureGate.Dependencies: a copy of the gate dependency map."""
        return dict(self._dependencies)

    def with_overrides(self, overrides: Mapping[str, bool]) -> FeatureGates:
        """A new gate map with more overrides on top of this one's (as a second SetFromMap)."""
        known, dependencies = self._given
        return FeatureGates({**self._explicit, **overrides}, known=known, dependencies=dependencies)


def _load() -> tuple[FeatureTable, dict[str, GateSpec], dict[str, tuple[str, ...]]]:
    raw = tomllib.loads(resources.files(__name__).joinpath("v1_37.toml").read_text("utf-8"))
    features = [
        Feature(
            id=row["id"],
            title=row["title"],
            section=row["section"],
            keps=tuple(kep_id(k) for k in row["keps"]),
            gates=tuple(row["gates"]),
            stage=Stage(row["stage"]),
            default=bool(row["default"]),
            runtime_config=tuple(row.get("runtime_config", ())),
        )
        for row in raw["feature"]
    ]
    upstream = json.loads(resources.files(__name__).joinpath("gates_1_37.json").read_text("utf-8"))
    gates = {
        g["name"]: GateSpec(g["name"], Stage(g["stage"]), bool(g["default"]), bool(g["locked"]),
                            tuple(g["sources"]))
        for g in upstream["gates"]
    }  # fmt: skip
    # The catalogue's [gates] rows must agree with upstream's (test_features checks it);
    # only rows marked upstream = false add gates.
    for name, g in raw["gates"].items():
        if g.get("upstream", True) is False:
            gates[name] = GateSpec(name, Stage(g["stage"]), bool(g["default"]), bool(g["locked"]))
    # kube's init(): runtime.Must(AddDependencies(defaultKubernetesFeatureGateDependencies)).
    deps = add_dependencies(versioned_specs(gates), {}, upstream["dependencies"])
    return FeatureTable(features), dict(sorted(gates.items())), deps


_TABLE = _load()
FEATURES: Final[FeatureTable] = _TABLE[0]
GATES: Final[dict[str, GateSpec]] = _TABLE[1]
DEPENDENCIES: Final[dict[str, tuple[str, ...]]] = _TABLE[2]

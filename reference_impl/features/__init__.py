"""The frozen 1.37 feature table and feature gates.

Models ``k8s.io/component-base/featuregate``: a fixed set of known gates with a stage and
a default, overridable per cluster, where locked GA gates refuse ``false``. The catalogue
of project features (``v1_37.toml``) is the single source that markers, ``garhwal
features`` and the reports read.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from typing import Final, NewType

__all__ = [
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


class FeatureGates(Mapping[str, bool]):
    """An immutable gate map: 1.37 defaults with overrides, validated like ``--feature-gates``."""

    def __init__(self, overrides: Mapping[str, bool] | None = None) -> None:
        values = {name: spec.default for name, spec in GATES.items()}
        for name, value in sorted((overrides or {}).items()):
            spec = GATES.get(name)
            if spec is None:
                raise UnknownFeature(f"unrecognized feature gate: {name}")
            if spec.locked and value is not spec.default:
                raise ValueError(
                    f"cannot set feature gate {name} to {value}, feature is locked to {spec.default}"
                )
            values[name] = bool(value)
        self._values = values

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
        """Whether the gate is on."""
        return self[name]

    def with_overrides(self, overrides: Mapping[str, bool]) -> FeatureGates:
        """A new gate map with more overrides on top of this one."""
        return FeatureGates({**self._values, **overrides})


def _load() -> tuple[FeatureTable, dict[str, GateSpec]]:
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
    gates = {
        name: GateSpec(name, Stage(g["stage"]), bool(g["default"]), bool(g["locked"]))
        for name, g in raw["gates"].items()
    }
    return FeatureTable(features), gates


_TABLE = _load()
FEATURES: Final[FeatureTable] = _TABLE[0]
GATES: Final[dict[str, GateSpec]] = _TABLE[1]

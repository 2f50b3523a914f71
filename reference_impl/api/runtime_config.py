"""Which group/versions the apiserver serves: upstream's defaults and ``--runtime-config``.

Upstream kube-apiserver 1.37 (``DefaultAPIResourceConfigSource`` in
pkg/controlplane/instance.go) serves the stable versions and none of the beta or alpha
ones; ``--runtime-config`` switches them, merged as ``MergeAPIResourceConfigs``
(k8s.io/apiserver/pkg/server/resourceconfig) does: ``api/all``, ``api/ga``, ``api/beta``,
``api/alpha`` first, in that order, then ``group/version`` keys, then
``group/version/resource`` keys, each later step winning. The core group is ``api/v1``.
A kind is served only when its version (or resource) is enabled *and* its gates are on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from reference_impl.api.resources import RESOURCES, ResourceInfo, served_versions

__all__ = [
    "APIResourceConfig",
    "DEFAULT_ENABLED",
    "MATCHER_KEYS",
    "RuntimeConfigError",
    "entry_enabled",
    "format_runtime_config",
    "api_version_of",
    "parse_runtime_config",
]

_MATCHERS: Final[dict[str, re.Pattern[str]]] = {
    "api/all": re.compile(r"^v\d+(?:(?:alpha|beta)\d+)?$"),
    "api/ga": re.compile(r"^v\d+$"),
    "api/beta": re.compile(r"^v\d+beta\d+$"),
    "api/alpha": re.compile(r"^v\d+alpha\d+$"),
}
# strconv.ParseBool's spellings; the matcher keys take only "true" and "false".
_TRUE: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE: Final = frozenset({"0", "f", "F", "FALSE", "false", "False"})
MATCHER_KEYS: Final = tuple(_MATCHERS)
_VERSIONS: Final = frozenset(served_versions())
_GROUPS: Final = frozenset(v.rpartition("/")[0] for v in _VERSIONS)
_PLURALS: Final = frozenset((r.api_version, r.plural) for r in RESOURCES.values())


def _ver(api_version: str) -> str:
    return api_version.rpartition("/")[2]


# Upstream enables every stable version it has and disables every beta and alpha one.
DEFAULT_ENABLED: Final = frozenset(v for v in _VERSIONS if _MATCHERS["api/ga"].match(_ver(v)))


class RuntimeConfigError(ValueError):
    """A ``--runtime-config`` entry upstream would refuse (or that names no 1.37 API)."""


def entry_enabled(value: str) -> bool:
    """Whether a checked entry's value switches on (a bare key means true)."""
    return value == "" or value in _TRUE


def api_version_of(key: str) -> str:
    """``group/version`` of a key; the core group is spelled ``api/v1`` on the flag."""
    gv = "/".join(key.split("/")[:2])
    return gv.removeprefix("api/") if gv.startswith("api/") else gv


def parse_runtime_config(text: str | Iterable[str]) -> dict[str, str]:
    """``a/v1=true,b/v1beta1`` (or a list of entries) as ``{key: value}``, checked.

    RuntimeConfigError names the entry and why: an unknown group or version, a resource
    that is not lowercase plural, or a value that is not a boolean.
    """
    parts = text.split(",") if isinstance(text, str) else list(text)
    out: dict[str, str] = {}
    for part in (p.strip() for p in parts):
        if not part:
            continue
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        _check(key, value)
        out[key] = value
    return out


def _check(key: str, value: str) -> None:
    where = f"--runtime-config: {key}={value}"
    if key in _MATCHERS:
        if value not in ("true", "false"):
            raise RuntimeConfigError(f"{where}: invalid value {value!r}; use true or false")
        return
    if value and value not in _TRUE | _FALSE:
        raise RuntimeConfigError(f"{where}: invalid value {value!r}; use true or false")
    tokens = key.split("/")
    if len(tokens) not in (2, 3) or not all(tokens):
        raise RuntimeConfigError(
            f"{where}: the key must be group/version, group/version/resource or one of "
            + ", ".join(_MATCHERS)
        )
    gv = api_version_of(key)
    if gv not in _VERSIONS:
        group = gv.rpartition("/")[0]
        if group not in _GROUPS:
            raise RuntimeConfigError(f"{where}: 1.37 has no API group {group or 'core'!r}")
        known = ", ".join(sorted(v for v in _VERSIONS if v.rpartition("/")[0] == group))
        raise RuntimeConfigError(
            f"{where}: group version {gv} has not been registered; known: {known}"
        )
    if len(tokens) == 3:
        resource = tokens[2]
        if resource.lower() != resource:
            raise RuntimeConfigError(
                f"{where}: group/version/resource and resource is always lowercase plural, "
                f"not {resource!r}"
            )
        if (gv, resource) not in _PLURALS:
            raise RuntimeConfigError(f"{where}: {gv} has no resource {resource!r}")


def format_runtime_config(overrides: Mapping[str, str]) -> str:
    """The flag value for ``overrides``, in name order (JUnit-safe)."""
    return ",".join(f"{k}={v}" if v else k for k, v in sorted(overrides.items()))


@dataclass(frozen=True, slots=True)
class APIResourceConfig:
    """The served group/versions (and per-resource exceptions) of one apiserver."""

    versions: frozenset[str] = DEFAULT_ENABLED
    # "group/version/plural" -> enabled, from group/version/resource keys.
    resources: Mapping[str, bool] = field(default_factory=dict)

    @classmethod
    def from_overrides(cls, overrides: Mapping[str, str] | None) -> APIResourceConfig:
        """Upstream's defaults with ``overrides`` (``parse_runtime_config`` output) merged."""
        given = dict(overrides or {})
        for key, value in given.items():
            _check(key, value)
        enabled = set(DEFAULT_ENABLED)
        for matcher, pattern in _MATCHERS.items():
            if matcher in given:
                hit = {v for v in _VERSIONS if pattern.match(_ver(v))}
                enabled = enabled | hit if given[matcher] == "true" else enabled - hit
        resources: dict[str, bool] = {}
        for key, value in given.items():
            on = entry_enabled(value)
            if key in _MATCHERS:
                continue
            if key.count("/") == 1:
                enabled = enabled | {api_version_of(key)} if on else enabled - {api_version_of(key)}
            else:
                resources[f"{api_version_of(key)}/{key.rpartition('/')[2]}"] = on
        return cls(frozenset(enabled), resources)

    def version_enabled(self, api_version: str) -> bool:
        """Whether ``api_version`` is switched on (ignoring per-resource exceptions)."""
        return api_version in self.versions

    def resource_enabled(self, info: ResourceInfo) -> bool:
        """``ResourceEnabled``: a per-resource key wins over its version's switch."""
        explicit = self.resources.get(f"{info.api_version}/{info.plural}")
        return self.version_enabled(info.api_version) if explicit is None else explicit

    def served_versions(self, gates: Mapping[str, bool]) -> tuple[str, ...]:
        """The group/versions discovery lists: those with a kind that is enabled and whose
        gates are on (upstream installs no version whose every resource is off)."""
        return tuple(
            sorted(
                {
                    r.api_version
                    for r in RESOURCES.values()
                    if self.resource_enabled(r) and all(gates.get(g, False) for g in r.gates)
                }
            )
        )

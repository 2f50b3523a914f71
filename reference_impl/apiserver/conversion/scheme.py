"""Hub-and-spoke conversion between served versions, after apimachinery's ``runtime.Scheme``.

Every multi-version kind has one storage version (the hub). A write in any served version
is converted to it before defaulting, validation and storage; every read, list, watch event
and informer object is converted from it to the version the caller asked for. Upstream
converts through the internal type; here the hub is the storage version itself, so a
spoke registers two functions: to the storage shape and back. Kinds whose versions have
identical shapes register nothing: converting them only rewrites ``apiVersion``.

Versioned defaulting (``pkg/apis/<group>/<version>/defaults.go``) also belongs here: as
upstream's codec, a write is defaulted in the shape the client sent, before conversion.
A spoke may also map the field paths of semantic errors back to its own shape, for the
rules upstream checks declaratively on the versioned object.

The storage versions follow ``pkg/kubeapiserver/default_storage_factory_builder.go``: the
group's preferred version that serves the kind, except for the resources it overrides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api import resources
from reference_impl.api.resources import ResourceInfo
from reference_impl.errors import Cause

__all__ = [
    "CauseMapper",
    "Converter",
    "Defaulter",
    "convert",
    "default",
    "register",
    "register_defaulter",
    "register_stored_defaulter",
    "registered",
    "storage_info",
    "storage_version",
    "stored_default",
    "to_storage",
    "wire_causes",
]

Obj = dict[str, Any]
Converter = Callable[[Obj], Obj]
"""Converts a private copy in place (and returns it); never sees ``apiVersion``."""
Defaulter = Callable[[Obj], None]
CauseMapper = Callable[[list[Cause]], list[Cause]]

# ResourceEncodingOverrides in 1.37: resources stored in a version other than the preferred.
_OVERRIDES: Final[dict[tuple[str, str], str]] = {
    ("coordination.k8s.io", "LeaseCandidate"): "v1beta1",
    ("certificates.k8s.io", "ClusterTrustBundle"): "v1beta1",
    ("certificates.k8s.io", "PodCertificateRequest"): "v1beta1",
    ("storagemigration.k8s.io", "StorageVersionMigration"): "v1beta1",
    ("resource.k8s.io", "DeviceTaintRule"): "v1beta2",
    ("resource.k8s.io", "ResourcePoolStatusRequest"): "v1alpha3",
    ("scheduling.k8s.io", "Workload"): "v1beta1",
    ("scheduling.k8s.io", "PodGroup"): "v1beta1",
    ("scheduling.k8s.io", "CompositePodGroup"): "v1alpha3",
    ("lifecycle.k8s.io", "Eviction"): "v1alpha1",
    ("lifecycle.k8s.io", "EvictionRequest"): "v1alpha1",
}

_VERSION_RE: Final = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_LEVEL: Final = {None: 2, "beta": 1, "alpha": 0}


def version_priority(version: str) -> tuple[int, int, int]:
    """Kube-aware ordering: GA above beta above alpha, then the higher numbers."""
    m = _VERSION_RE.match(version)
    if m is None:
        return (-1, 0, 0)
    return (_LEVEL[m.group(2)], int(m.group(1)), int(m.group(3) or 0))


def _keep(causes: list[Cause]) -> list[Cause]:
    return causes


@dataclass(frozen=True, slots=True)
class _Spoke:
    to_storage: Converter
    from_storage: Converter
    causes: CauseMapper = _keep


_SPOKES: dict[tuple[str, str, str], _Spoke] = {}
_DEFAULTERS: dict[tuple[str, str, str], list[Defaulter]] = {}
_STORED_DEFAULTERS: dict[tuple[str, str], list[Defaulter]] = {}


def _storage_table() -> dict[tuple[str, str], str]:
    versions: dict[tuple[str, str], list[str]] = {}
    for info in resources.RESOURCES.values():
        if not info.virtual:
            versions.setdefault((info.group, info.kind), []).append(info.version)
    table = {gk: max(vs, key=version_priority) for gk, vs in versions.items()}
    for gk, v in _OVERRIDES.items():
        if gk in table:
            table[gk] = v
    return table


_STORAGE: Final = _storage_table()


def _api_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def storage_version(info: ResourceInfo) -> str:
    """The apiVersion ``info``'s kind is stored in."""
    version = _STORAGE.get((info.group, info.kind), info.version)
    return _api_version(info.group, version)


def storage_info(info: ResourceInfo) -> ResourceInfo:
    """The served resource of ``info``'s kind at its storage version."""
    found = resources.lookup(storage_version(info), info.kind)
    return found if found is not None else info


def register(
    group: str,
    version: str,
    kind: str,
    *,
    to_storage: Converter,
    from_storage: Converter,
    causes: CauseMapper = _keep,
) -> None:
    """Register the converters between ``group/version`` and the kind's storage version,
    and how semantic errors found on the storage shape are reported in this version."""
    _SPOKES[(group, version, kind)] = _Spoke(to_storage, from_storage, causes)


def register_defaulter(group: str, version: str, kind: str, fn: Defaulter) -> None:
    """Default writes of ``kind`` sent as ``group/version``, in that version's shape."""
    _DEFAULTERS.setdefault((group, version, kind), []).append(fn)


def register_stored_defaulter(group: str, kind: str, fn: Defaulter) -> None:
    """Default ``kind`` as upstream's storage codec does when it decodes the stored object
    (every read, and the reply to a write, dry runs included): the server applies it to a
    write's object after validation, which sees the object as the request's version left it."""
    _STORED_DEFAULTERS.setdefault((group, kind), []).append(fn)


def stored_default(obj: Obj, info: ResourceInfo) -> None:
    """Apply the stored-object defaults of ``info``'s kind (in place, storage shape)."""
    for fn in _STORED_DEFAULTERS.get((info.group, info.kind), ()):
        fn(obj)


def registered() -> list[tuple[str, str, str]]:
    """The (group, version, kind) spokes with their own converters, sorted."""
    return sorted(_SPOKES)


def _split(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def default(obj: Obj, info: ResourceInfo) -> None:
    """Apply the versioned defaults of the version ``obj`` was written in (in place)."""
    for fn in _DEFAULTERS.get((*_split(str(obj.get("apiVersion"))), info.kind), ()):
        fn(obj)


def wire_causes(causes: list[Cause], info: ResourceInfo, api_version: str) -> list[Cause]:
    """Semantic errors of a write sent as ``api_version``, with that version's paths."""
    if api_version == storage_version(info):
        return causes
    spoke = _SPOKES.get((*_split(api_version), info.kind))
    return causes if spoke is None else spoke.causes(causes)


def to_storage(obj: Obj, info: ResourceInfo) -> Obj:
    """Convert a private copy written at ``obj['apiVersion']`` to the storage version."""
    target = storage_version(info)
    if obj.get("apiVersion") != target:
        spoke = _SPOKES.get((*_split(str(obj.get("apiVersion"))), info.kind))
        if spoke is not None:
            obj = spoke.to_storage(obj)
        obj["apiVersion"] = target
    return obj


def convert(obj: Obj, api_version: str) -> Obj:
    """Convert a private copy of a stored object to ``api_version`` (in place)."""
    if obj.get("apiVersion") == api_version:
        return obj
    spoke = _SPOKES.get((*_split(api_version), str(obj.get("kind"))))
    if spoke is not None:
        obj = spoke.from_storage(obj)
    obj["apiVersion"] = api_version
    return obj

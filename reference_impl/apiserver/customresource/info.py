"""The served resource a CustomResourceDefinition defines (``customresource_handler.go``
``getOrCreateServingInfoFor``): one per ``served`` version of an Established CRD, with its
scope, names, storage version, schema and subresources."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final
from weakref import WeakKeyDictionary

from reference_impl.api import resources
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver import keys
from reference_impl.apiserver.customresource.deprecation import version_warnings
from reference_impl.storage.mvcc import MVCCStore

__all__ = ["CRD_PREFIX", "CustomResourceInfo", "StoredCRDs", "is_custom", "lookup", "stored_crds"]

Obj = dict[str, Any]
CRD_PREFIX: Final = f"{keys.PREFIX}customresourcedefinitions.apiextensions.k8s.io/"


@dataclass(frozen=True, slots=True)
class CustomResourceInfo(ResourceInfo):
    """A served version of a custom resource."""

    crd_name: str = ""
    storage_version: str = ""
    list_kind: str = ""
    schema: Obj = field(default_factory=dict, compare=False, hash=False)
    scale: Obj | None = field(default=None, compare=False, hash=False)
    # Terminating condition True: creates are refused (``serveResource``), reads and
    # deletes still served, for the CRD finalizer among others.
    terminating: bool = field(default=False, compare=False, hash=False)
    # The version's selectableFields, as field selectors name them (no leading dot).
    selectable_fields: tuple[str, ...] = field(default=(), compare=False, hash=False)
    # A deprecated version's warnings, sent with every request to it (deprecation.py).
    deprecation_warnings: tuple[str, ...] = field(default=(), compare=False, hash=False)

    def storage_info(self) -> CustomResourceInfo:
        """This resource at its CRD's storage version (what commit events name)."""
        group = self.group
        return CustomResourceInfo(
            f"{group}/{self.storage_version}", self.kind, self.plural, self.namespaced,
            self.status, crd_name=self.crd_name, storage_version=self.storage_version,
            list_kind=self.list_kind, schema=self.schema, scale=self.scale,
            terminating=self.terminating, selectable_fields=self.selectable_fields,
        )  # fmt: skip


def is_custom(api_version: object, kind: object) -> bool:
    """Whether a write may be a custom resource's: a grouped apiVersion and a kind the
    static tables miss (a built-in write never reaches the CRD scan; a body without
    either is the built-in decoder's to refuse)."""
    if not (isinstance(api_version, str) and "/" in api_version and isinstance(kind, str) and kind):
        return False
    return resources.lookup(api_version, kind) is None


def _condition_true(crd: Obj, kind: str) -> bool:
    conds = (crd.get("status") or {}).get("conditions") or ()
    return any(
        c.get("type") == kind and c.get("status") == "True" for c in conds if isinstance(c, dict)
    )


def from_crd(crd: Obj, version: str) -> CustomResourceInfo | None:
    """The served ``version`` of ``crd``; None unless Established and served (a deleting
    CRD is still served until it is gone)."""
    spec = crd.get("spec") or {}
    if not _condition_true(crd, "Established"):
        return None
    names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
    versions = [v for v in spec.get("versions") or () if isinstance(v, dict)]
    storage = next((v["name"] for v in versions if v.get("storage")), version)
    for v in versions:
        if v.get("name") != version or not v.get("served"):
            continue
        subs = v.get("subresources") or {}
        schema = (v.get("schema") or {}).get("openAPIV3Schema") or {}
        kind = str(names.get("kind", ""))
        return CustomResourceInfo(
            f"{spec.get('group')}/{version}", kind, str(names.get("plural", "")),
            spec.get("scope") != "Cluster", "status" in subs,
            crd_name=str(crd["metadata"]["name"]), storage_version=str(storage),
            list_kind=str(names.get("listKind") or f"{kind}List"), schema=schema,
            scale=subs.get("scale"),
            terminating=bool(crd["metadata"].get("deletionTimestamp"))
            or _condition_true(crd, "Terminating"),
            selectable_fields=tuple(
                str(sf["jsonPath"]).removeprefix(".")
                for sf in v.get("selectableFields") or ()
                if isinstance(sf, dict) and isinstance(sf.get("jsonPath"), str)
            ),
            deprecation_warnings=version_warnings(spec, version),
        )  # fmt: skip
    return None


class StoredCRDs:
    """A store's CRDs, decoded once per stored version (customresource_handler.go's
    ``crdStorageMap``, dropped on a CRD's update or delete), and what is derived from
    them. Shared and read-only: callers must not change the CRDs or the infos' schemas."""

    __slots__ = ("_by_kind", "_served", "crds", "revisions", "served_infos")

    def __init__(self, revisions: tuple[int, ...], crds: list[Obj]) -> None:
        # The mod revisions identify the stored versions: any write under the prefix
        # (spec, status, a delete) changes them.
        self.revisions = revisions
        self.crds = crds  # in key order
        self._by_kind: dict[tuple[str, str], Obj] = {}
        for crd in self.crds:
            spec = crd.get("spec") or {}
            names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
            group, kind = spec.get("group"), names.get("kind")
            if isinstance(group, str) and isinstance(kind, str):
                self._by_kind.setdefault((group, kind), crd)  # the first in key order wins
        self._served: dict[tuple[str, str, str], CustomResourceInfo | None] = {}
        # discovery.served_custom_resources' view, built there on first use
        self.served_infos: list[CustomResourceInfo] | None = None

    def lookup(self, group: str, version: str, kind: str) -> CustomResourceInfo | None:
        """The served ``version`` of the CRD defining group/kind, or None."""
        crd = self._by_kind.get((group, kind))
        if crd is None:
            return None
        slot = (group, version, kind)
        if slot not in self._served:
            self._served[slot] = from_crd(crd, version)
        return self._served[slot]


_STORED: WeakKeyDictionary[MVCCStore, tuple[dict[str, tuple[int, Obj]], StoredCRDs]] = (
    WeakKeyDictionary()
)


def stored_crds(store: MVCCStore) -> StoredCRDs:
    """The store's current CRDs: a Range on every call (so an unavailable store still
    fails), decoding only the CRDs written since the last call."""
    kvs = store.range(CRD_PREFIX).kvs
    revisions = tuple(kv.mod_revision for kv in kvs)
    hit = _STORED.get(store)
    if hit is not None and hit[1].revisions == revisions:
        return hit[1]
    old = hit[0] if hit is not None else {}
    decoded: dict[str, tuple[int, Obj]] = {}
    for kv in kvs:
        prev = old.get(kv.key)
        if prev is None or prev[0] != kv.mod_revision:
            prev = (kv.mod_revision, kv.decode())
        decoded[kv.key] = prev
    out = StoredCRDs(revisions, [crd for _, crd in decoded.values()])
    _STORED[store] = (decoded, out)
    return out


def lookup(store: MVCCStore, api_version: str, kind: str) -> CustomResourceInfo | None:
    """The custom resource ``kind`` served at ``api_version``, or None."""
    group, _, version = api_version.rpartition("/")
    if not group:
        return None
    return stored_crds(store).lookup(group, version, kind)

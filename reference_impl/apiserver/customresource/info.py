"""The served resource a CustomResourceDefinition defines (``customresource_handler.go``
``getOrCreateServingInfoFor``): one per ``served`` version of an Established CRD, with its
scope, names, storage version, schema and subresources."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api import resources
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver import keys
from reference_impl.storage.mvcc import MVCCStore

__all__ = ["CRD_PREFIX", "CustomResourceInfo", "is_custom", "lookup"]

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
        )  # fmt: skip
    return None


def lookup(store: MVCCStore, api_version: str, kind: str) -> CustomResourceInfo | None:
    """The custom resource ``kind`` served at ``api_version``, or None."""
    group, _, version = api_version.rpartition("/")
    if not group:
        return None
    for kv in store.range(CRD_PREFIX).kvs:
        crd = kv.decode()
        spec = crd.get("spec") or {}
        names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
        if spec.get("group") == group and names.get("kind") == kind:
            return from_crd(crd, version)
    return None

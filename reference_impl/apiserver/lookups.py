"""Lookups a request depends on: the served resource, the namespace, the replaced object."""

from __future__ import annotations

from typing import Any

from reference_impl.api import resources
from reference_impl.api.resources import ResourceInfo
from reference_impl.api.runtime_config import APIResourceConfig
from reference_impl.apiserver import keys
from reference_impl.errors import Conflict, Forbidden, NotFound
from reference_impl.features import FeatureGates
from reference_impl.storage.mvcc import KeyValue, MVCCStore

__all__ = ["check_namespace", "check_served", "current", "resolve"]

Obj = dict[str, Any]


def resolve(
    api_version: str, kind: str, gates: FeatureGates, served: APIResourceConfig | None = None
) -> ResourceInfo:
    """The served resource, or NotFound naming why (unknown, not enabled, or gated off).

    ``served`` is the client's view (``--runtime-config``); None skips that check, for the
    in-process components, which reach storage past the REST layer.
    """
    info = resources.lookup(api_version, kind)
    if info is not None and served is not None:
        check_served(info, served)
    if info is None:
        group_known = any(v == api_version for v in resources.served_versions())
        why = "" if group_known else f' (1.37 does not serve "{api_version}")'
        raise NotFound(f'no matches for kind "{kind}" in version "{api_version}"{why}')
    off = [g for g in info.gates if not gates.enabled(g)]
    if off:
        raise NotFound(
            f'no matches for kind "{kind}" in version "{api_version}": the resource is not '
            f"served while feature gate {', '.join(off)} is disabled; enable it with "
            f"--feature-gates={off[0]}=true"
        )
    return info


def check_served(info: ResourceInfo, served: APIResourceConfig) -> None:
    """NotFound, as a client meets it, for a kind whose version (or resource) is off."""
    if served.resource_enabled(info):
        return
    key = info.api_version if info.group else f"api/{info.api_version}"
    if f"{info.api_version}/{info.plural}" in served.resources:
        key = f"{key}/{info.plural}"  # switched off by its own group/version/resource key
    raise NotFound(
        f'no matches for kind "{info.kind}" in version "{info.api_version}": '
        f"{key} is not served unless the apiserver runs with "
        f"--runtime-config={key}=true"
    )


def check_namespace(store: MVCCStore, ns: str, info: ResourceInfo, name: str = "") -> None:
    """NotFound for a missing namespace, Forbidden for one being terminated (NamespaceLifecycle's
    ``NewForbidden`` names the object when the request does: not for a generated name)."""
    kv = store.get(f"{keys.PREFIX}namespaces/{ns}")
    if kv is None:
        raise NotFound(f'namespaces "{ns}" not found')
    # Most namespaces never held the word, so most creates skip the decode.
    if b'"deletionTimestamp"' in kv.value and kv.decode()["metadata"].get("deletionTimestamp"):
        who = f'{info.group_resource} "{name}"' if name else info.group_resource
        raise Forbidden(
            f"{who} is forbidden: unable to create new content in namespace {ns} "
            "because it is being terminated"
        )


class StoredPeek:
    """The stored object an update body names, read once: the decoder compares the body
    with it, and ``current`` reuses it while it is still the stored one."""

    __slots__ = ("_store", "seen")

    def __init__(self, store: MVCCStore) -> None:
        self._store = store
        self.seen: tuple[KeyValue, Obj] | None = None

    def __call__(self, info: ResourceInfo, meta: Obj) -> Obj | None:
        name, ns = meta.get("name"), meta.get("namespace")
        if not isinstance(name, str) or not (ns is None or isinstance(ns, str)):
            return None  # the decoder reports the bad metadata
        kv = self._store.get(keys.key(info, name, keys.namespace_for(info, ns)))
        if kv is None:
            return None
        self.seen = (kv, kv.decode())
        return self.seen[1]


def current(
    store: MVCCStore, info: ResourceInfo, meta: Obj, peek: StoredPeek | None = None
) -> tuple[str, Obj]:
    """The storage key and stored object a write replaces; NotFound, or Conflict on a
    stale resourceVersion. ``peek``: the decode's read, reused when still current."""
    name = meta.get("name", "")
    key = keys.key(info, name, keys.namespace_for(info, meta.get("namespace")))
    kv = store.get(key)
    if kv is None:
        raise NotFound(f'{info.group_resource} "{meta.get("name")}" not found')
    seen = peek is not None and peek.seen is not None and peek.seen[0] is kv
    stored = peek.seen[1] if peek is not None and peek.seen is not None and seen else kv.decode()
    if uid := meta.get("uid"):  # defaultUpdatedObjectInfo.Preconditions: the body's uid
        _check_uid(info, key, str(name), uid, stored["metadata"].get("uid"))
    rv = meta.get("resourceVersion")
    if rv and rv != str(kv.mod_revision):
        raise Conflict(
            f'Operation cannot be fulfilled on {info.group_resource} "{meta.get("name")}": the '
            "object has been modified; please apply your changes to the latest version and try again"
        )
    return key, stored


def _check_uid(info: ResourceInfo, key: str, name: str, want: object, have: object) -> None:
    """``Preconditions.Check``'s uid half, as ``InterpretUpdateError`` answers it."""
    if want != have:
        raise Conflict(
            f'Operation cannot be fulfilled on {info.group_resource} "{name}": StorageError: '
            f"invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: "
            f"Precondition failed: UID in precondition: {want}, UID in object meta: {have}"
        )

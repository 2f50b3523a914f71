"""Owner indexes over ResourceClaims (upstream ``claimPodOwnerIndex``/``claimPodGroupOwnerIndex``).

``pkg/controller/resourceclaim/controller.go`` indexes claims by ``namespace/uid`` of
their controlling v1 Pod (``claimPodOwnerIndexFunc``) or scheduling.k8s.io PodGroup
(``claimPodGroupOwnerIndexFunc``) so that finding an owner's generated claim
(``findPodResourceClaim``) does not scan every claim. UIDs are unique, so one map serves
both owner kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent

__all__ = ["ClaimOwnerIndex", "KeyIndex", "owner_keys"]

Obj = dict[str, Any]
POD_CLAIM_NAME: Final = "resource.kubernetes.io/pod-claim-name"


def owner_keys(claim: Obj) -> list[str]:
    """``namespace/uid`` of the claim's controlling Pod or PodGroup."""
    meta = claim["metadata"]
    ns = meta.get("namespace") or "default"
    out: list[str] = []
    for r in meta.get("ownerReferences") or ():
        if not r.get("controller"):
            continue
        pod = r.get("apiVersion") == "v1" and r.get("kind") == "Pod"
        group = r.get("kind") == "PodGroup" and str(r.get("apiVersion", "")).startswith("scheduling.k8s.io/")
        if pod or group:
            out.append(f"{ns}/{r.get('uid')}")
    return out


class ClaimOwnerIndex:
    """Claim keys by ``namespace/owner uid``, kept current by informer events."""

    def __init__(self) -> None:
        self._by_owner: dict[str, dict[str, Obj]] = {}
        # Tuples, not lists: one per indexed object, and a tuple of strings drops out of
        # the cyclic collector's view after its first pass, a list never does.
        self._of_key: dict[str, tuple[str, ...]] = {}

    def seed(self, claims: Iterable[Obj]) -> None:
        """Index claims already in the informer cache."""
        for c in claims:
            self._put(object_key(c), c)

    def on_event(self, ev: ObjectEvent) -> None:
        """Informer handler: re-index the claim (or drop it when deleted)."""
        key = object_key(ev.obj)
        self._drop(key)
        if ev.type != "DELETED":
            self._put(key, ev.obj)

    def find(self, ns: str, owner_uid: str, claim_name: str) -> Obj | None:
        """``findPodResourceClaim``: the first owned claim (key order) annotated with
        ``claim_name``; claims without the annotation are not generated ones."""
        owned = self._by_owner.get(f"{ns}/{owner_uid}") or {}
        for key in sorted(owned):
            if (owned[key]["metadata"].get("annotations") or {}).get(POD_CLAIM_NAME) == claim_name:
                return owned[key]
        return None

    def _put(self, key: str, obj: Obj) -> None:
        entries = owner_keys(obj)
        if entries:
            self._of_key[key] = tuple(entries)
            for e in entries:
                self._by_owner.setdefault(e, {})[key] = obj

    def _drop(self, key: str) -> None:
        for e in self._of_key.pop(key, ()):
            owned = self._by_owner.get(e)
            if owned is not None:
                owned.pop(key, None)
                if not owned:
                    del self._by_owner[e]


class KeyIndex:
    """A ``cache.Indexer`` index: object keys by the values ``fn`` gives for the object."""

    def __init__(self, fn: Callable[[Obj], list[str]]) -> None:
        self._fn = fn
        # Keys as dict keys (a set of strings the collector need not walk: a dict holding
        # only strings is untracked, a set never is); tuples as ClaimOwnerIndex's.
        self._by_value: dict[str, dict[str, None]] = {}
        self._of_key: dict[str, tuple[str, ...]] = {}

    def seed(self, objs: Iterable[Obj]) -> None:
        """Index objects already in the informer cache."""
        for o in objs:
            self.put(o)

    def put(self, obj: Obj) -> None:
        """(Re-)index ``obj``."""
        key = object_key(obj)
        self.drop(key)
        values = self._fn(obj)
        if values:
            self._of_key[key] = tuple(values)
            for v in values:
                self._by_value.setdefault(v, {})[key] = None

    def drop(self, key: str) -> None:
        """Forget the object with ``key``."""
        for v in self._of_key.pop(key, ()):
            keys = self._by_value.get(v)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del self._by_value[v]

    def on_event(self, ev: ObjectEvent) -> None:
        """Informer handler."""
        if ev.type == "DELETED":
            self.drop(object_key(ev.obj))
        else:
            self.put(ev.obj)

    def keys(self, value: str) -> list[str]:
        """Keys of the objects indexed under ``value``, sorted."""
        return sorted(self._by_value.get(value, ()))

    def values(self) -> list[str]:
        """``ListIndexFuncValues``: every value with at least one object, sorted."""
        return sorted(self._by_value)

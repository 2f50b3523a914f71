"""An owner index over generated ResourceClaims (upstream's ``claimPodOwnerIndex``).

``pkg/controller/resourceclaim/controller.go`` registers an informer indexer keyed by the
owning pod's UID so that finding a pod's generated claim does not scan every claim. This
keeps the same ``(owner uid, pod claim name) -> claim keys`` map from informer events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent

__all__ = ["ClaimOwnerIndex"]

Obj = dict[str, Any]
POD_CLAIM_NAME: Final = "resource.kubernetes.io/pod-claim-name"


def _entries(obj: Obj) -> list[tuple[str, str]]:
    meta = obj["metadata"]
    name = (meta.get("annotations") or {}).get(POD_CLAIM_NAME)
    if name is None:
        return []
    return [(str(r["uid"]), str(name)) for r in meta.get("ownerReferences") or () if r.get("uid")]


class ClaimOwnerIndex:
    """Claim keys by (owner uid, pod claim name annotation), kept current by events."""

    def __init__(self) -> None:
        self._by_owner: dict[tuple[str, str], set[str]] = {}
        self._of_key: dict[str, list[tuple[str, str]]] = {}

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

    def find(self, owner_uid: str, claim_name: str) -> str | None:
        """The first claim key (in key order, as a sorted scan finds it), or None."""
        keys = self._by_owner.get((owner_uid, claim_name))
        return min(keys) if keys else None

    def _put(self, key: str, obj: Obj) -> None:
        entries = _entries(obj)
        if entries:
            self._of_key[key] = entries
            for e in entries:
                self._by_owner.setdefault(e, set()).add(key)

    def _drop(self, key: str) -> None:
        for e in self._of_key.pop(key, ()):
            keys = self._by_owner.get(e)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_owner[e]

"""Controller history (``pkg/controller/history/controller_history.go``).

ControllerRevisions record the templates a DaemonSet or StatefulSet has run. This module
ports the pure helpers (``ControllerRevisionName``, ``HashControllerRevision``,
``NewControllerRevision``, ``SortControllerRevisions``, ``EqualRevision``,
``FindEqualRevisions``) and ``realHistory`` as a small store-backed ``History``.

Hashes: upstream's ``HashControllerRevision`` runs FNV-1 (``fnv.New32``, not 1a) over
``Data.Raw`` and then the probe's decimal digits, and safe-encodes the decimal sum. The
wire ``data`` here is a JSON value, so its raw bytes are rebuilt as Go's ``json.Marshal``
writes a ``map[string]interface{}``: keys sorted, compact, ``<``, ``>``, ``&``, U+2028 and
U+2029 escaped. That is the encoding of the patches the DaemonSet and StatefulSet
controllers store (``getPatch`` re-marshals a map), so for such data the hash is
upstream's exactly; a ``bytes`` data value is hashed as is. (Floats are written by Python's
``repr``, which differs from Go's for exponents; revision data holds none in practice.)
Collisions are handled as upstream: ``create_controller_revision`` bumps the collision
count and renames until the name is free or holds equal data.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.clock import parse_rfc3339
from reference_impl.controllers.controller_utils import controller_ref, owner_reference
from reference_impl.errors import AlreadyExists, Conflict, Invalid, NotFound

__all__ = [
    "CONTROLLER_REVISION_HASH_LABEL",
    "History",
    "controller_revision_name",
    "equal_revision",
    "find_equal_revisions",
    "go_json",
    "hash_controller_revision",
    "new_controller_revision",
    "sort_controller_revisions",
]

Obj = dict[str, Any]
CONTROLLER_REVISION_HASH_LABEL: Final = "controller.kubernetes.io/hash"
_SAFE: Final = "bcdfghjklmnpqrstvwxz2456789"  # rand.SafeEncodeString's alphabet
_MAX_PREFIX: Final = 223  # a 253-byte name leaves room for "-" and the hash
_UPDATE_STEPS: Final = 4  # retry.DefaultBackoff.Steps for RetryOnConflict
_GO_ESCAPES: Final = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                      "\u2029": "\\u2029"}  # fmt: skip


def go_json(value: Any) -> bytes:
    """``json.Marshal`` of a decoded JSON value (maps sorted by key, HTML-safe escapes)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in _GO_ESCAPES.items():
        text = text.replace(ch, esc)
    return text.encode()


def _raw(data: Any) -> bytes | None:
    if data is None:
        return None
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    return go_json(data)


def _fnv32(data: bytes) -> int:
    """FNV-1 32-bit (Go's ``fnv.New32``): multiply, then xor."""
    h = 0x811C9DC5
    for b in data:
        h = ((h * 0x01000193) & 0xFFFFFFFF) ^ b
    return h


def controller_revision_name(prefix: str, hash_: str) -> str:
    """``ControllerRevisionName``: ``prefix-hash``, the prefix cut to 223 bytes."""
    raw = prefix.encode()
    if len(raw) > _MAX_PREFIX:
        prefix = raw[:_MAX_PREFIX].decode(errors="ignore")
    return f"{prefix}-{hash_}"


def hash_controller_revision(revision: Mapping[str, Any], probe: int | None = None) -> str:
    """``HashControllerRevision``: FNV-1 of the raw data, then of ``probe`` when given."""
    data = _raw(revision.get("data"))
    buf = data or b""
    if probe is not None:
        buf += str(probe).encode()
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(_fnv32(buf)))


def new_controller_revision(
    parent: Mapping[str, Any],
    template_labels: Mapping[str, str] | None,
    data: Any,
    revision: int,
    collision_count: int | None,
) -> Obj:
    """``NewControllerRevision``: owned by ``parent`` (its apiVersion and kind), the
    template's labels plus the hash label, named ``<parent>-<hash>``."""
    labels = dict(template_labels or {})
    cr: Obj = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"labels": labels, "ownerReferences": [owner_reference(parent)]},
        "data": copy.deepcopy(data),
        "revision": revision,
    }
    namespace = parent["metadata"].get("namespace")
    if namespace:
        cr["metadata"]["namespace"] = namespace
    hash_ = hash_controller_revision(cr, collision_count)
    cr["metadata"]["name"] = controller_revision_name(parent["metadata"]["name"], hash_)
    labels[CONTROLLER_REVISION_HASH_LABEL] = hash_
    return cr


def _revision_key(cr: Mapping[str, Any]) -> tuple[int, int, str]:
    """``byRevision.Less``: revision, then creationTimestamp, then name."""
    created = cr["metadata"].get("creationTimestamp")
    when = parse_rfc3339(str(created)) if created else -(2**62)
    return (int(cr.get("revision", 0)), when, str(cr["metadata"].get("name", "")))


def sort_controller_revisions(revisions: list[Obj]) -> list[Obj]:
    """``SortControllerRevisions``: a stable sort in place by ``byRevision``; returns it."""
    revisions.sort(key=_revision_key)
    return revisions


def equal_revision(lhs: Mapping[str, Any] | None, rhs: Mapping[str, Any] | None) -> bool:
    """``EqualRevision``: both None, or both with equal data."""
    if lhs is None or rhs is None:
        return lhs is rhs
    return _raw(lhs.get("data")) == _raw(rhs.get("data"))


def find_equal_revisions(revisions: Iterable[Obj], needle: Mapping[str, Any]) -> list[Obj]:
    """``FindEqualRevisions``: the revisions equal to ``needle``, in order."""
    return [r for r in revisions if equal_revision(r, needle)]


class History:
    """``realHistory`` over the apiserver (the ``server`` protocol of the controllers:
    ``list``/``get``/``create``/``update``/``delete``)."""

    def __init__(self, server: Any, lister: Callable[[str], list[Obj]] | None = None) -> None:
        self._server = server
        # The informer's view of a namespace's revisions; the server's list without one.
        self._lister = lister or (lambda ns: server.list("apps/v1", "ControllerRevision", ns))

    def list_controller_revisions(
        self, parent: Mapping[str, Any], selector: Mapping[str, Any] | None
    ) -> list[Obj]:
        """``ListControllerRevisions``: those ``selector`` matches that ``parent``
        controls or no one does."""
        sel = selector_from_label_selector(selector)
        uid = parent["metadata"].get("uid")
        out: list[Obj] = []
        for cr in self._lister(str(parent["metadata"].get("namespace", ""))):
            ref = controller_ref(cr)
            if sel.matches(cr["metadata"].get("labels")) and (ref is None or ref.get("uid") == uid):
                out.append(cr)
        return out

    def create_controller_revision(
        self, parent: Mapping[str, Any], revision: Mapping[str, Any], collision_count: int
    ) -> tuple[Obj, int]:
        """``CreateControllerRevision``: create, renaming with the bumped collision count
        while the name is taken by different data; a taken name with equal data returns
        the existing revision. Returns (revision, the collision count now)."""
        clone: Obj = copy.deepcopy(dict(revision))
        namespace = parent["metadata"].get("namespace")
        clone["metadata"]["namespace"] = namespace
        while True:
            hash_ = hash_controller_revision(revision, collision_count)
            clone["metadata"]["name"] = controller_revision_name(parent["metadata"]["name"], hash_)
            try:
                created: Obj = self._server.create(clone)
                return created, collision_count
            except AlreadyExists:
                exists: Obj = self._server.get(
                    "apps/v1", "ControllerRevision", clone["metadata"]["name"], namespace
                )
                if _raw(exists.get("data")) == _raw(clone.get("data")):
                    return exists, collision_count
                collision_count += 1

    def update_controller_revision(self, revision: Mapping[str, Any], new_revision: int) -> Obj:
        """``UpdateControllerRevision``: set ``revision``, retrying conflicts on the
        fresh object (``retry.RetryOnConflict`` with the default four steps)."""
        clone: Obj = copy.deepcopy(dict(revision))
        meta = clone["metadata"]
        for attempt in range(_UPDATE_STEPS):
            if clone.get("revision") == new_revision:
                return clone
            clone["revision"] = new_revision
            try:
                updated: Obj = self._server.update(clone)
                return updated
            except Conflict:
                if attempt == _UPDATE_STEPS - 1:
                    raise
                fresh: Obj = self._server.get(
                    "apps/v1", "ControllerRevision", meta["name"], meta.get("namespace")
                )
                clone = copy.deepcopy(fresh)
                meta = clone["metadata"]
        return clone  # unreachable: the last conflict is raised

    def delete_controller_revision(self, revision: Mapping[str, Any]) -> None:
        """``DeleteControllerRevision``."""
        meta = revision["metadata"]
        self._server.delete("apps/v1", "ControllerRevision", meta["name"], meta.get("namespace"))

    def adopt_controller_revision(
        self, parent: Mapping[str, Any], revision: Mapping[str, Any]
    ) -> Obj:
        """``AdoptControllerRevision``: add a controller ref to ``parent``; a revision
        someone controls is refused, and the patch's UID precondition holds."""
        owner = controller_ref(revision)
        if owner is not None:
            raise ValueError(f"attempt to adopt revision owned by {owner}")
        meta = revision["metadata"]
        fresh: Obj = self._server.get(
            "apps/v1", "ControllerRevision", meta["name"], meta.get("namespace")
        )
        _check_uid(fresh, revision)
        refs = [
            r for r in fresh["metadata"].get("ownerReferences") or []
            if r.get("uid") != parent["metadata"].get("uid")
        ]  # fmt: skip
        fresh["metadata"]["ownerReferences"] = [*refs, owner_reference(parent)]
        out: Obj = self._server.update(fresh)
        return out

    def release_controller_revision(
        self, parent: Mapping[str, Any], revision: Mapping[str, Any]
    ) -> Obj | None:
        """``ReleaseControllerRevision``: drop ``parent``'s ownerReferences; a revision
        that is gone (or invalid) releases to None."""
        meta = revision["metadata"]
        try:
            fresh: Obj = self._server.get(
                "apps/v1", "ControllerRevision", meta["name"], meta.get("namespace")
            )
            _check_uid(fresh, revision)
            uid = parent["metadata"].get("uid")
            refs = [r for r in fresh["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
            if refs:
                fresh["metadata"]["ownerReferences"] = refs
            else:
                fresh["metadata"].pop("ownerReferences", None)
            out: Obj = self._server.update(fresh)
            return out
        except (NotFound, Invalid):
            return None


def _check_uid(fresh: Mapping[str, Any], revision: Mapping[str, Any]) -> None:
    """A patch carrying ``metadata.uid`` fails when the stored object is another one."""
    want = revision["metadata"].get("uid")
    if want and fresh["metadata"].get("uid") != want:
        raise Conflict(
            f'Operation cannot be fulfilled on controllerrevisions.apps "{fresh["metadata"]["name"]}": '
            f"Precondition failed: UID in precondition: {want}, UID in object meta: "
            f"{fresh['metadata'].get('uid')}"
        )

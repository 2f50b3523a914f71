"""The garbage collector (``pkg/controller/garbagecollector``).

A uid-keyed dependency graph of every stored object with its ownerReferences
(``graph.go``), kept current from the apiserver's commit stream as ``GraphBuilder`` does
from its monitors. Work items are uids, drained in event order:

- **Background.** A dependent whose owners are all gone is deleted; one that still has a
  live owner only loses its dangling references. Owners are judged by live lookups in
  the dependent's namespace, by name then uid (``isDangling``), with absences cached
  (``absentOwnerCache``); a reference the graph sees disagree with its observed owner
  is rechecked, with an ``OwnerRefInvalidNamespace`` warning when namespaces differ.
- **Foreground.** An owner marked for deletion with ``foregroundDeletion`` has every
  dependent deleted (``blockOwnerDeletion`` ones first); the finalizer is removed once no
  blocking dependent remains.
- **Orphan.** An owner with the ``orphan`` finalizer has its reference removed from every
  dependent, then the finalizer.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.customresource.discovery import served_custom_resources
from reference_impl.apiserver.informers import WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.controllers.served import served_kinds
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = ["GarbageCollector"]

Obj = dict[str, Any]
FOREGROUND: Final = "foregroundDeletion"
ORPHAN: Final = "orphan"
ABSENT_OWNER_CACHE_SIZE: Final = 500  # NewReferenceCache(500)
# Most objects own nothing: they share this until a dependent shows up (_dependents_of),
# rather than each graph node holding an empty set the cyclic collector must walk.
_NO_DEPENDENTS: Final[frozenset[str]] = frozenset()


class _Unresolvable(Exception):
    """An owner reference that no lookup can settle (unknown kind, or a namespaced owner
    of a cluster-scoped object): the item is left alone."""


@dataclass(slots=True)
class _Node:
    """One object in the graph (``garbagecollector.node``)."""

    info: ResourceInfo
    namespace: str | None
    name: str
    uid: str
    owners: dict[str, Obj]  # owner uid -> its ownerReference
    deleting: bool
    finalizers: tuple[str, ...]
    dependents: set[str] | frozenset[str] = _NO_DEPENDENTS

    @property
    def key(self) -> tuple[str, str]:
        """Sort key: namespace then name."""
        return (self.namespace or "", self.name)

    def blocks(self, owner_uid: str) -> bool:
        """Whether this dependent's reference to ``owner_uid`` has blockOwnerDeletion."""
        return bool(self.owners.get(owner_uid, {}).get("blockOwnerDeletion"))

    def waiting_for_dependents(self) -> bool:
        """Being deleted in the foreground (``isDeletingDependents``)."""
        return self.deleting and FOREGROUND in self.finalizers


def _node(info: ResourceInfo, obj: Obj) -> _Node:
    meta = obj["metadata"]
    owners = {str(r["uid"]): dict(r) for r in meta.get("ownerReferences") or []}
    return _Node(
        info,
        meta.get("namespace"),
        str(meta["name"]),
        str(meta["uid"]),
        owners,
        bool(meta.get("deletionTimestamp")),
        tuple(meta.get("finalizers") or ()),
    )


class GarbageCollector:
    """Deletes dependents of deleted owners, honouring the three propagation policies."""

    name: Final = "garbage-collector-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._nodes: dict[str, _Node] = {}
        # Owners referenced before they are seen: upstream's "virtual" graph nodes.
        self._virtual: dict[str, set[str]] = {}
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name,
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        # absentOwnerCache: owners found absent, keyed by coordinates and namespace (LRU).
        self.absent_owner_cache_size = ABSENT_OWNER_CACHE_SIZE
        self._absent: OrderedDict[tuple[tuple[str, str, str, str], str], None] = OrderedDict()
        # Events the collector recorded: (involved object, type, reason, message).
        self.events: list[tuple[str, str, str, str]] = []

    def start(self) -> None:
        """List every stored kind into the graph, then follow the commit stream."""
        custom = served_custom_resources(self._server.store)
        for info in [*served_kinds(self._ctx.gates), *custom]:
            for obj in self._server.list(info.api_version, info.kind):
                self._upsert(_node(info, obj))
        for uid in sorted(self._nodes, key=lambda u: self._nodes[u].key):
            n = self._nodes[uid]
            if n.owners or n.waiting_for_dependents() or (n.deleting and ORPHAN in n.finalizers):
                self._queue.add(uid)
        self._server.add_event_handler(self._on_event)

    # -- graph building (graph_builder.go) --------------------------------------------

    def _upsert(self, n: _Node) -> _Node | None:
        old = self._nodes.get(n.uid)
        if old is not None:
            n.dependents = old.dependents
            for o in old.owners.keys() - n.owners.keys():
                self._dependents_of(o).discard(n.uid)
        self._nodes[n.uid] = n
        for o in n.owners:
            self._dependents_of(o).add(n.uid)
        return old

    def _dependents_of(self, uid: str) -> set[str]:
        owner = self._nodes.get(uid)
        if owner is None:
            return self._virtual.setdefault(uid, set())
        if not isinstance(owner.dependents, set):
            owner.dependents = set()
        return owner.dependents

    def _on_event(self, ev: ObjectEvent) -> None:
        if ev.info.virtual or "uid" not in ev.obj["metadata"]:
            return
        n = _node(ev.info, ev.obj)
        if ev.type == "DELETED":
            self._on_delete(n)
            return
        was_virtual = n.uid in self._virtual
        n.dependents = self._virtual.pop(n.uid, None) or n.dependents  # n's own: none yet
        old = self._upsert(n)
        if old is None and was_virtual:
            self._verify_dependents(n)
        if old is None or old.owners != n.owners:
            added = [u for u in n.owners if old is None or u not in old.owners]
            # addDependentToOwners queues only owners seen as a uid alone (virtual; their
            # dependents are judged here instead); an observed owner being deleted waits on it.
            if any(u not in self._nodes or self._nodes[u].deleting for u in added) or old is not None:
                self._queue.add(n.uid)
            self._check_new_owners(n, added)
            for o in sorted(_unblocked_owners(old, n)):
                self._queue.add(o)  # a foreground owner may be waiting on this dependent
        if n.deleting and (old is None or not old.deleting or old.finalizers != n.finalizers):
            if n.waiting_for_dependents():
                self._enqueue_dependents(n)
            if n.waiting_for_dependents() or ORPHAN in n.finalizers:
                self._queue.add(n.uid)

    def _check_new_owners(self, n: _Node, added: list[str]) -> None:
        """``addDependentToOwners``: warn about, and recheck, a reference to an observed
        owner in another namespace or under other coordinates (first such one only)."""
        for uid in added:
            owner = self._nodes.get(uid)
            if owner is None:
                continue
            ref = n.owners[uid]
            if owner.namespace and owner.namespace != n.namespace:
                self._report_invalid_namespace(n, ref)
            elif not _coordinates_match(ref, owner):
                pass
            else:
                continue
            self._queue.add(n.uid)
            return

    def _verify_dependents(self, owner: _Node) -> None:
        """``processGraphChanges`` observing an owner its dependents saw only as a uid:
        dependents whose reference disagrees with it are rechecked (and warned about when
        the namespace is what disagrees)."""
        for d in sorted((self._nodes[u] for u in owner.dependents if u in self._nodes), key=_k):
            ref = d.owners.get(owner.uid)
            if ref is None:
                continue
            same_ns = not owner.namespace or d.namespace == owner.namespace
            if same_ns and _coordinates_match(ref, owner):
                continue
            if owner.namespace and d.namespace != owner.namespace:
                self._report_invalid_namespace(d, ref)
            self._queue.add(d.uid)

    def _report_invalid_namespace(self, n: _Node, ref: Obj) -> None:
        """``reportInvalidNamespaceOwnerRef``: a Warning event on the dependent."""
        ns = n.namespace or ""
        msg = (
            f"ownerRef [{ref.get('apiVersion', '')}/{ref.get('kind', '')}, namespace: {ns}, "
            f"name: {ref.get('name', '')}, uid: {ref.get('uid', '')}] "
            f'does not exist in namespace "{ns}"'
        )
        self.events.append((self._ref(n), "Warning", "OwnerRefInvalidNamespace", msg))
        self._ctx.trace.record(self.name, "event", self._ref(n), f"OwnerRefInvalidNamespace {msg}")

    def _on_delete(self, n: _Node) -> None:
        gone = self._nodes.pop(n.uid, None)
        if gone is None:
            return
        for o in gone.owners:
            self._dependents_of(o).discard(gone.uid)
        self._enqueue_dependents(gone)
        for o in sorted(gone.owners):
            owner = self._nodes.get(o)
            if owner is not None and owner.waiting_for_dependents():
                self._queue.add(o)

    def _enqueue_dependents(self, owner: _Node) -> None:
        deps = [self._nodes[d] for d in owner.dependents if d in self._nodes]
        # Blocking dependents first, then by namespace/name, so runs replay exactly.
        deps.sort(key=lambda d: (not d.blocks(owner.uid), d.key))
        for d in deps:
            self._queue.add(d.uid)

    # -- workers (garbagecollector.go) ------------------------------------------------

    def _sync(self, uid: str) -> None:
        n = self._nodes.get(uid)
        if n is None:
            return
        if n.deleting and ORPHAN in n.finalizers:
            self._orphan_dependents(n)
        elif n.waiting_for_dependents():
            self._process_deleting_dependents(n)
        elif n.owners and not n.deleting:
            self._attempt_to_delete(n)

    def _attempt_to_delete(self, n: _Node) -> None:
        """``attemptToDeleteItem``: delete ``n`` once every owner is gone (or waits on
        its dependents), judging owners by live lookups as upstream does, not the graph."""
        if n.deleting and not n.waiting_for_dependents():
            return
        latest = self._current(n)
        if latest is None:
            self._on_delete(n)  # enqueueVirtualDeleteEvent
            return
        refs: list[Obj] = list(latest["metadata"].get("ownerReferences") or [])
        if not refs:
            return
        solid: list[str] = []
        dangling: list[str] = []
        waiting: list[str] = []
        for ref in refs:  # classifyReferences
            try:
                gone, owner = self._is_dangling(n, ref)
            except _Unresolvable:
                return  # not retried here: a restart or new event rechecks it
            if gone:
                dangling.append(str(ref["uid"]))
            elif owner is not None and _waits_for_dependents(owner):
                waiting.append(str(ref["uid"]))
            else:
                solid.append(str(ref["uid"]))
        if solid:
            if dangling or waiting:
                self._remove_owner_refs(n, set(dangling) | set(waiting))
            return
        if waiting and n.dependents:
            deps = (self._nodes.get(d) for d in n.dependents)
            if any(d is not None and d.waiting_for_dependents() for d in deps):
                # A cycle could block both forever: stop blocking the waiting owners.
                self._unblock_owner_refs(n)
            policy = "Foreground"  # the owner waits, so this item's own dependents go first
        elif ORPHAN in (latest["metadata"].get("finalizers") or ()):
            policy = "Orphan"
        elif FOREGROUND in (latest["metadata"].get("finalizers") or ()):
            policy = "Foreground"
        else:
            policy = "Background"
        self._ctx.trace.record(self.name, "delete", self._ref(n), policy)
        if not self._delete(n, policy):
            self._on_delete(n)  # NotFound: enqueueVirtualDeleteEvent

    def attempt_to_delete_item(self, uid: str) -> None:
        """Run ``attemptToDeleteItem`` on one graph node now (for tests and tools)."""
        n = self._nodes.get(uid)
        if n is not None:
            self._attempt_to_delete(n)

    def _is_dangling(self, n: _Node, ref: Obj) -> tuple[bool, Obj | None]:
        """``isDangling``: whether ``ref``'s owner is absent (or another object by now)."""
        coords = (
            str(ref.get("apiVersion", "")),
            str(ref.get("kind", "")),
            str(ref.get("name", "")),
            str(ref.get("uid", "")),
        )
        for key in ((coords, ""), (coords, n.namespace or "")):
            if key in self._absent:
                self._absent.move_to_end(key)  # an LRU hit promotes the entry
                return True, None
        try:
            info = self._server.resource(coords[0], coords[1])
        except NotFound:
            raise _Unresolvable from None
        if info.namespaced and not n.namespace:
            raise _Unresolvable  # namespacedOwnerOfClusterScopedObjectErr
        ns = n.namespace if info.namespaced else None
        owner = self._server.try_get(coords[0], coords[1], coords[2], ns)
        if owner is None or owner["metadata"].get("uid") != coords[3]:
            self._absent[(coords, ns or "")] = None
            while len(self._absent) > self.absent_owner_cache_size:
                self._absent.popitem(last=False)
            return True, None
        return False, owner

    def _process_deleting_dependents(self, n: _Node) -> None:
        blocking = [
            self._nodes[d]
            for d in sorted(n.dependents)
            if d in self._nodes and self._nodes[d].blocks(n.uid)
        ]
        if not blocking:
            self._remove_finalizer(n, FOREGROUND)
            return
        for d in sorted(blocking, key=lambda x: x.key):
            if not d.waiting_for_dependents():
                self._queue.add(d.uid)

    def _orphan_dependents(self, n: _Node) -> None:
        """``orphanDependents`` then the finalizer's removal; every dependent is tried,
        and any failure but NotFound keeps the finalizer (the sync is retried)."""
        errs: list[ApiError] = []
        for d in sorted((self._nodes[u] for u in n.dependents if u in self._nodes), key=_k):
            try:
                self._remove_owner_refs(d, {n.uid})
            except NotFound:
                pass
            except ApiError as e:
                errs.append(type(e)(f"orphaning {_identity(d)} failed, {e.message}"))
        if errs:
            msgs = [e.message for e in errs]
            agg = msgs[0] if len(msgs) == 1 else f"[{', '.join(msgs)}]"
            raise type(errs[0])(
                f"failed to orphan dependents of owner {_identity(n)}, got errors: {agg}"
            )
        self._remove_finalizer(n, ORPHAN)

    # -- writes -------------------------------------------------------------------------

    def _current(self, n: _Node) -> Obj | None:
        obj = self._server.try_get(n.info.api_version, n.info.kind, n.name, n.namespace)
        if obj is None or obj["metadata"].get("uid") != n.uid:
            return None
        return obj

    def _remove_owner_refs(self, n: _Node, uids: set[str]) -> None:
        obj = self._current(n)
        if obj is None:
            return
        refs = obj["metadata"].get("ownerReferences") or []
        kept = [r for r in refs if r.get("uid") not in uids]
        if len(kept) == len(refs):
            return
        if kept:
            obj["metadata"]["ownerReferences"] = kept
        else:
            obj["metadata"].pop("ownerReferences", None)
        self._ctx.trace.record(self.name, "remove-owner-refs", self._ref(n), ",".join(sorted(uids)))
        self._server.update(obj)

    def _unblock_owner_refs(self, n: _Node) -> None:
        """``unblockOwnerReferences``: every set blockOwnerDeletion becomes false."""
        obj = self._current(n)
        if obj is None:
            return
        refs = obj["metadata"].get("ownerReferences") or []
        if not any(r.get("blockOwnerDeletion") for r in refs):
            return
        obj["metadata"]["ownerReferences"] = [
            {**r, "blockOwnerDeletion": False} if "blockOwnerDeletion" in r else r for r in refs
        ]
        self._ctx.trace.record(self.name, "unblock-owner-refs", self._ref(n))
        self._server.update(obj)

    def _remove_finalizer(self, n: _Node, finalizer: str) -> None:
        obj = self._current(n)
        if obj is None:
            return
        fins = [f for f in obj["metadata"].get("finalizers") or [] if f != finalizer]
        obj["metadata"]["finalizers"] = fins
        self._ctx.trace.record(self.name, "remove-finalizer", self._ref(n), finalizer)
        self._server.update(obj)

    def _delete(self, n: _Node, policy: str) -> bool:
        """``deleteObject`` with a UID precondition; False when the object is not found."""
        try:
            self._server.delete(
                n.info.api_version,
                n.info.kind,
                n.name,
                n.namespace,
                propagation_policy=policy,
                uid=n.uid,
            )
        except (NotFound, Conflict):
            return False  # already gone, or replaced by a new object of the same name
        return True

    @staticmethod
    def _ref(n: _Node) -> str:
        where = f"{n.namespace}/" if n.namespace else ""
        return f"{n.info.kind}/{where}{n.name}"


def _k(n: _Node) -> tuple[str, str]:
    return n.key


def _coordinates_match(ref: Obj, owner: _Node) -> bool:
    """``ownerReferenceMatchesCoordinates`` against an observed owner."""
    return (
        ref.get("uid") == owner.uid
        and ref.get("name") == owner.name
        and ref.get("kind") == owner.info.kind
        and ref.get("apiVersion") == owner.info.api_version
    )


def _waits_for_dependents(obj: Obj) -> bool:
    meta = obj["metadata"]
    return bool(meta.get("deletionTimestamp")) and FOREGROUND in (meta.get("finalizers") or ())


def _unblocked_owners(old: _Node | None, new: _Node) -> set[str]:
    """``addUnblockedOwnersToDeleteQueue``: owners a dependent stopped blocking (or left)."""
    if old is None:
        return set()
    out = old.owners.keys() - new.owners.keys()
    for uid, ref in new.owners.items():
        if old.blocks(uid) and not ref.get("blockOwnerDeletion"):
            out.add(uid)
    return out


def _identity(n: _Node) -> str:
    """``objectReference.String``."""
    return (
        f"[{n.info.api_version}/{n.info.kind}, namespace: {n.namespace or ''}, "
        f"name: {n.name}, uid: {n.uid}]"
    )

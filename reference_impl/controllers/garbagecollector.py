"""The garbage collector (``pkg/controller/garbagecollector``).

A uid-keyed dependency graph of every stored object with its ownerReferences
(``graph.go``), kept current from the apiserver's commit stream as ``GraphBuilder`` does
from its monitors. Work items are uids, drained in event order:

- **Background.** A dependent whose owners are all gone is deleted; one that still has a
  live owner only loses its dangling references.
- **Foreground.** An owner marked for deletion with ``foregroundDeletion`` has every
  dependent deleted (``blockOwnerDeletion`` ones first); the finalizer is removed once no
  blocking dependent remains.
- **Orphan.** An owner with the ``orphan`` finalizer has its reference removed from every
  dependent, then the finalizer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.controllers.served import served_kinds
from reference_impl.errors import Conflict, NotFound

__all__ = ["GarbageCollector"]

Obj = dict[str, Any]
FOREGROUND: Final = "foregroundDeletion"
ORPHAN: Final = "orphan"


@dataclass(slots=True)
class _Node:
    """One object in the graph (``garbagecollector.node``)."""

    info: ResourceInfo
    namespace: str | None
    name: str
    uid: str
    owners: dict[str, bool]  # owner uid -> blockOwnerDeletion
    deleting: bool
    finalizers: tuple[str, ...]
    dependents: set[str] = field(default_factory=set)

    @property
    def key(self) -> tuple[str, str]:
        """Sort key: namespace then name."""
        return (self.namespace or "", self.name)

    def waiting_for_dependents(self) -> bool:
        """Being deleted in the foreground (``isDeletingDependents``)."""
        return self.deleting and FOREGROUND in self.finalizers


def _node(info: ResourceInfo, obj: Obj) -> _Node:
    meta = obj["metadata"]
    owners = {
        str(r["uid"]): bool(r.get("blockOwnerDeletion")) for r in meta.get("ownerReferences") or []
    }
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
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)

    def start(self) -> None:
        """List every stored kind into the graph, then follow the commit stream."""
        for info in served_kinds(self._ctx.gates):
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
        return owner.dependents

    def _on_event(self, ev: ObjectEvent) -> None:
        if ev.info.virtual or "uid" not in ev.obj["metadata"]:
            return
        n = _node(ev.info, ev.obj)
        if ev.type == "DELETED":
            self._on_delete(n)
            return
        n.dependents = self._virtual.pop(n.uid, set()) | n.dependents
        old = self._upsert(n)
        if old is None or old.owners != n.owners:
            self._queue.add(n.uid)
            for o in sorted((old.owners.keys() - n.owners.keys()) if old else ()):
                self._queue.add(o)  # a foreground owner may be waiting on this dependent
        if n.deleting and (old is None or not old.deleting or old.finalizers != n.finalizers):
            if n.waiting_for_dependents():
                self._enqueue_dependents(n)
            if n.waiting_for_dependents() or ORPHAN in n.finalizers:
                self._queue.add(n.uid)

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
        deps.sort(key=lambda d: (not d.owners.get(owner.uid, False), d.key))
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
        solid, dangling, waiting = [], [], []
        for o in sorted(n.owners):
            owner = self._nodes.get(o)
            if owner is None:
                dangling.append(o)
            elif owner.waiting_for_dependents():
                waiting.append(o)
            else:
                solid.append(o)
        if solid:
            if dangling or waiting:
                self._remove_owner_refs(n, set(dangling) | set(waiting))
            return
        if waiting and n.dependents:
            policy = "Foreground"  # the owner waits, so this item's own dependents go first
        elif ORPHAN in n.finalizers:
            policy = "Orphan"
        elif FOREGROUND in n.finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        self._ctx.trace.record(self.name, "delete", self._ref(n), policy)
        self._delete(n, policy)

    def _process_deleting_dependents(self, n: _Node) -> None:
        blocking = [
            self._nodes[d]
            for d in sorted(n.dependents)
            if d in self._nodes and self._nodes[d].owners.get(n.uid, False)
        ]
        if not blocking:
            self._remove_finalizer(n, FOREGROUND)
            return
        for d in sorted(blocking, key=lambda x: x.key):
            if not d.waiting_for_dependents():
                self._queue.add(d.uid)

    def _orphan_dependents(self, n: _Node) -> None:
        for d in sorted((self._nodes[u] for u in n.dependents if u in self._nodes), key=_k):
            self._remove_owner_refs(d, {n.uid})
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

    def _remove_finalizer(self, n: _Node, finalizer: str) -> None:
        obj = self._current(n)
        if obj is None:
            return
        fins = [f for f in obj["metadata"].get("finalizers") or [] if f != finalizer]
        obj["metadata"]["finalizers"] = fins
        self._ctx.trace.record(self.name, "remove-finalizer", self._ref(n), finalizer)
        self._server.update(obj)

    def _delete(self, n: _Node, policy: str) -> None:
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
            pass  # already gone, or replaced by a new object of the same name

    @staticmethod
    def _ref(n: _Node) -> str:
        where = f"{n.namespace}/" if n.namespace else ""
        return f"{n.info.kind}/{where}{n.name}"


def _k(n: _Node) -> tuple[str, str]:
    return n.key

"""GangScheduling's CompositePodGroup tree quorum (gangscheduling.go, KEP-6012).

Models ``checkCPGHierarchyReadiness`` / ``isCPGTreeReady`` / ``isPGReady`` with the
PreEnqueue count (``AllPodsCount``: the group's existing, non-terminal pods). A PodGroup
is ready with at least its gang minCount of pods (1 for a basic group); a
CompositePodGroup with at least its gang minGroupCount of ready children (1 for a basic
one; one without an object never is); a pod under a CompositePodGroup may enter the queue
only while the tree from its root is ready.

Verdicts are memoised per root and dropped whenever a member pod comes or goes or a
PodGroup / CompositePodGroup object changes, so the pods of one tree re-checked after the
same event (the queueing hints wake them together) cost one walk, not one each.
"""

from __future__ import annotations

from typing import Any

from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.plugins.podgroup_tree import (
    CPG,
    HierarchyError,
    InformerHierarchy,
    entity_key,
    root_key,
)

__all__ = ["TreeReadiness"]

Obj = dict[str, Any]


def _gang(obj: Obj) -> Obj | None:
    gang: Obj | None = ((obj.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
    return gang


class TreeReadiness:
    """The tree quorum over an ``InformerHierarchy`` and GangScheduling's membership index
    (PodGroup key -> pod keys, shared, not copied)."""

    def __init__(self, tree: InformerHierarchy, members: dict[str, set[str]]) -> None:
        self._tree = tree
        self._members = members
        self._member_gen = 0
        self._memo: dict[tuple[str, str], bool] = {}
        self._memo_at: tuple[int, tuple[int, int]] | None = None

    def members_changed(self) -> None:
        """A group's membership changed: every memoised verdict may be stale."""
        self._member_gen += 1

    def check(self, ns: str, parent: str, plugin: str) -> Status:
        """``checkCPGHierarchyReadiness`` from the pod's PodGroup's parent ``ns/parent``."""
        try:
            root = root_key(self._tree, CPG, ns, parent)
        except HierarchyError as err:
            return Status(Code.ERROR, (str(err),), plugin)  # fwk.AsStatus
        if root is None:
            why = (
                "failed to build hierarchy snapshot: composite pod group object not found in "
                f"state for {entity_key(CPG, ns, parent)}"
            )
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (why,), plugin)
        if not self._root_ready(ns, root[1]):
            why = f'waiting for composite pod group "{root[1]}" tree to meet quorum'
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (why,), plugin)
        return OK

    def _root_ready(self, ns: str, root: str) -> bool:
        versions = self._tree.versions()
        if versions is None:  # stores without versions: nothing can be memoised
            return self.composite_ready(ns, root)
        at = (self._member_gen, versions)
        if at != self._memo_at:
            self._memo.clear()
            self._memo_at = at
        key = (ns, root)
        if key not in self._memo:
            self._memo[key] = self.composite_ready(ns, root)
        return self._memo[key]

    def pod_group_ready(self, ns: str, name: str) -> bool:
        """``isPGReady``: at least minCount pods (1 for a basic group); no object, False."""
        pg = self._tree.pod_group(ns, name)
        if pg is None:
            return False
        gang = _gang(pg)
        need = int(gang.get("minCount") or 0) if gang is not None else 1
        return len(self._members.get(f"{ns}/{name}", ())) >= need

    def composite_ready(self, ns: str, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """``isCPGTreeReady``: at least minGroupCount ready children (1 for a basic
        composite). ``seen`` only guards against a parent cycle, which PreEnqueue has
        already rejected (``hierarchy_error``)."""
        cpg = self._tree.composite(ns, name)
        if cpg is None or name in seen:
            return False
        gang = _gang(cpg)
        need = int(gang.get("minGroupCount") or 0) if gang is not None else 1
        if need <= 0:
            return True
        pgs, cpgs = self._tree.children(ns, name)
        ready = 0
        for pg in pgs:
            ready += self.pod_group_ready(ns, pg["metadata"]["name"])
            if ready >= need:
                return True
        below = seen | {name}
        for child in cpgs:
            ready += self.composite_ready(ns, child["metadata"]["name"], below)
            if ready >= need:
                return True
        return False

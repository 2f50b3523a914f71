"""DRADeviceCompatibilityGroups in the allocator, after ``structured/internal/experimental/
compatibility_groups.go`` and ``checkAndConsumeCompatibilityGroups``.

Per counter set of a pool, the devices drawing from it (already allocated, or picked in
this search) must be compatible: their declared ``compatibilityGroups`` intersect, and a
device declaring none only goes with others declaring none. The rolling state of a
counter set is ``None`` (no member yet) or ``(all_empty, groups)``: every member declared
no groups, or the intersection of the members' groups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from reference_impl.dra.pools import DeviceID, DeviceInfo

__all__ = ["GroupKey", "Groups", "Undo", "add", "admits", "baseline", "fold", "restore"]

Obj = dict[str, Any]
GroupKey = tuple[str, str, str]  # (driver, pool, counter set)
Intersection = tuple[bool, frozenset[str]] | None
Groups = dict[GroupKey, Intersection]
Undo = list[tuple[GroupKey, Intersection, bool]]  # (key, previous state, whether it existed)


def _groups(use: Obj) -> frozenset[str]:
    return frozenset(use.get("compatibilityGroups") or ())


def admits(cur: Intersection, groups: frozenset[str]) -> bool:
    """``compatibilityGroupIntersection.admits``."""
    if cur is None:
        return True
    all_empty, have = cur
    if not groups:
        return all_empty
    return not all_empty and not have.isdisjoint(groups)


def add(cur: Intersection, groups: frozenset[str]) -> Intersection:
    """``compatibilityGroupIntersection.add``: the first member decides whether the set
    holds group-less devices; later group-less members (or any while it does) change
    nothing."""
    if cur is None:
        return (True, frozenset()) if not groups else (False, groups)
    if cur[0] or not groups:
        return cur
    return False, cur[1] & groups


def baseline(
    pool: tuple[str, str], allocated: Iterable[DeviceID], lookup: Callable[[DeviceID], DeviceInfo | None]
) -> Groups:
    """``compatibilityGroupsBaselineForPool``: the state the pool's allocated devices leave,
    their groups read from the published devices (a device no longer published adds
    nothing)."""
    out: Groups = {}
    for did in allocated:
        if did[:2] != pool:
            continue
        d = lookup(did)
        if d is None:
            continue
        for use in d.counters:
            key = (did[0], did[1], use.get("counterSet", ""))
            out[key] = add(out.get(key), _groups(use))
    return out


def fold(d: DeviceInfo, running: Groups, base: Groups) -> Undo | None:
    """``checkAndConsumeCompatibilityGroups``: admit ``d`` on every counter set it draws
    from and fold its groups in (the returned undo restores ``running``), or None with
    ``running`` unchanged."""
    undo: Undo = []
    for use in d.counters:
        key = (d.id[0], d.id[1], use.get("counterSet", ""))
        existed = key in running
        cur = running[key] if existed else base.get(key)
        groups = _groups(use)
        if not admits(cur, groups):
            restore(running, undo)
            return None
        undo.append((key, running.get(key), existed))
        running[key] = add(cur, groups)
    return undo


def restore(running: Groups, undo: Undo) -> None:
    """Undo ``fold``'s changes, newest first."""
    for key, prev, existed in reversed(undo):
        if existed:
            running[key] = prev
        else:
            running.pop(key, None)

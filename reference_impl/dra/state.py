"""What is already allocated: exclusive devices, shared-device capacity and counters."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from reference_impl.api.meta import parse_quantity
from reference_impl.dra.pools import DeviceID, DeviceInfo, Pool

__all__ = ["AllocatedState", "CounterKey", "allocated_state", "apply_allocation"]

Obj = dict[str, Any]
CounterKey = tuple[str, str, str, str]  # (driver, pool, counter set, counter)


@dataclass(slots=True)
class AllocatedState:
    """Devices in use by existing allocations (``structured.AllocatedState``)."""

    # device -> how many allocations (written or assumed) hold it; >1 only transiently
    devices: dict[DeviceID, int] = field(default_factory=dict)
    shared: dict[DeviceID, dict[str, Decimal]] = field(default_factory=dict)
    counters: dict[CounterKey, Decimal] = field(default_factory=dict)
    # shared device -> how many shares hold it (its counters are charged once while any do)
    shares: dict[DeviceID, int] = field(default_factory=dict)
    # Devices taken or freed (or whose counters or shared capacity moved) since a
    # watcher (dra/free_index.py) last looked; None while nobody watches.
    dirty: set[DeviceID] | None = None

    def is_allocated(self, d: DeviceID) -> bool:
        """Whether ``d`` is exclusively allocated."""
        return self.devices.get(d, 0) > 0

    def shared_in_use(self, d: DeviceID) -> bool:
        """Whether shares of ``d`` are allocated (``deviceCapacityInUse``)."""
        return self.shares.get(d, 0) > 0

    def consumed(self, d: DeviceID, capacity: str) -> Decimal:
        """Capacity of a shared device already consumed."""
        return self.shared.get(d, {}).get(capacity, Decimal(0))


def _bump(counts: dict[DeviceID, int], did: DeviceID, sign: int) -> tuple[int, int]:
    """Add ``sign`` to a holder count kept only above zero; (before, after)."""
    was = counts.get(did, 0)
    n = was + sign
    if n > 0:
        counts[did] = n
    else:
        counts.pop(did, None)
    return was, n


def apply_allocation(
    st: AllocatedState, alloc: Obj, by_id: Mapping[DeviceID, DeviceInfo], sign: int = 1
) -> None:
    """Add (``sign=1``) or remove (``-1``) one ``status.allocation`` to the state."""
    for r in (alloc.get("devices") or {}).get("results") or ():
        if r.get("adminAccess"):
            continue
        did: DeviceID = (r["driver"], r["pool"], r["device"])
        dev = by_id.get(did)
        if r.get("shareID"):
            if st.dirty is not None:
                st.dirty.add(did)
            used = st.shared.setdefault(did, {})
            for cap, q in (r.get("consumedCapacity") or {}).items():
                key = cap if "/" in cap else f"{did[0]}/{cap}"
                used[key] = used.get(key, Decimal(0)) + sign * parse_quantity(q)
            was, n = _bump(st.shares, did, sign)
            if dev is not None and (was > 0) != (n > 0):
                # Upstream charges a shared device's counters once, for all its shares.
                _charge(st, did, dev, sign)
            continue
        was, n = _bump(st.devices, did, sign)
        # Watchers count free devices: a second holder (the written allocation of a
        # claim still assumed) frees or takes nothing, unless counters moved.
        if st.dirty is not None and ((was > 0) != (n > 0) or dev is None or dev.counters):
            st.dirty.add(did)
        if dev is not None:
            _charge(st, did, dev, sign)


def _charge(st: AllocatedState, did: DeviceID, dev: DeviceInfo, sign: int) -> None:
    for use in dev.counters:
        for cname, c in (use.get("counters") or {}).items():
            key4: CounterKey = (did[0], did[1], use["counterSet"], cname)
            st.counters[key4] = st.counters.get(key4, Decimal(0)) + sign * parse_quantity(c.get("value", 0))


def allocated_state(allocations: Iterable[Obj], pools: Iterable[Pool]) -> AllocatedState:
    """The state from ``status.allocation`` objects (admin-access results do not count)."""
    by_id = {d.id: d for p in pools for d in p.devices}
    st = AllocatedState()
    for alloc in allocations:
        apply_allocation(st, alloc, by_id)
    return st

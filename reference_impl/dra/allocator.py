"""The structured-parameter allocator, after ``k8s.io/dynamic-resource-allocation/structured``.

``Allocator.allocate(claims, node)`` finds devices for every request of every claim at
once, by a deterministic depth-first search with backtracking: requests in claim order,
``firstAvailable`` alternatives in their order, candidate devices sorted by
``(driver, pool, device)``. A device must be reachable from the node, match every class
and request CEL selector, tolerate-check clean (NoSchedule/NoExecute) and be free: not
allocated before and not picked earlier in this search, unless it allows multiple
allocations and still has the capacity asked for (it then gets a ``shareID``). Shared
counters of partitionable devices and ``matchAttribute``/``distinctAttribute`` constraints
are checked as devices are picked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.dra.cel import CELError, compile_selector
from reference_impl.dra.nodes import node_matches
from reference_impl.dra.pools import DeviceID, DeviceInfo, Pool
from reference_impl.dra.state import AllocatedState, CounterKey
from reference_impl.dra.taints import taints_for, untolerated

__all__ = ["CANNOT_ALLOCATE", "MAX_SEARCH_STEPS", "AllocationError", "Allocator", "Plan", "for_pools"]

Obj = dict[str, Any]
CANNOT_ALLOCATE: Final = "cannot allocate all claims"
MAX_SEARCH_STEPS: Final = 20_000


def for_pools(pools: Sequence[Pool]) -> tuple[list[DeviceInfo], dict[tuple[str, str], dict[str, dict[str, Decimal]]]]:
    """The devices and counter sets of ``pools``, as ``Allocator`` takes them."""
    return [d for p in pools for d in p.devices], {(p.driver, p.name): p.counter_sets for p in pools}


class AllocationError(Exception):
    """Allocation could not be attempted: an unknown class or a CEL runtime error."""


@dataclass(slots=True)
class _Alt:
    """One way to satisfy a request: an ``exactly`` or one ``firstAvailable`` entry."""

    claim: int
    request: str  # result name: "<request>" or "<request>/<sub>"
    base: str  # the request name constraints refer to
    spec: Obj
    candidates: list[DeviceInfo]


@dataclass(slots=True)
class _Pick:
    alt: _Alt
    device: DeviceInfo
    consumed: dict[str, Decimal] | None  # set for shared (multi-allocatable) devices


@dataclass(slots=True)
class _Search:
    picks: list[_Pick] = field(default_factory=list)
    used: set[DeviceID] = field(default_factory=set)
    shared: dict[DeviceID, dict[str, Decimal]] = field(default_factory=dict)
    counters: dict[CounterKey, Decimal] = field(default_factory=dict)
    steps: int = 0


class Plan:
    """A successful search for some claims on one node; ``results()`` is computed once."""

    __slots__ = ("_alloc", "_claims", "_node", "_results", "_search")

    def __init__(self, alloc: Allocator, claims: list[Obj], search: _Search, node: Obj | None) -> None:
        self._alloc, self._claims, self._search, self._node = alloc, claims, search, node
        self._results: list[Obj] | None = None

    def results(self) -> list[Obj]:
        """One ``status.allocation`` per claim, in claim order."""
        if self._results is None:
            self._results = [self._alloc._result(i, c, self._search, self._node)
                             for i, c in enumerate(self._claims)]
        return self._results


class Allocator:
    """Allocates claims from complete pools against the already-allocated state."""

    def __init__(
        self,
        devices: Sequence[DeviceInfo],
        counter_sets: Mapping[tuple[str, str], Mapping[str, Mapping[str, Decimal]]],
        classes: Mapping[str, Obj],
        rules: Sequence[Obj],
        state: AllocatedState,
        share_id: Callable[[], str],
        memo: dict[Any, Any] | None = None,
    ) -> None:
        self._memo = memo
        self._devices = devices
        self._counter_sets = counter_sets
        self._classes = classes
        self._rules = rules
        self._state = state
        self._share_id = share_id

    # -- candidates -------------------------------------------------------------------

    def _selectors(self, spec: Obj) -> list[str]:
        cls_name = spec.get("deviceClassName", "")
        cls = self._classes.get(cls_name)
        if cls is None:
            raise AllocationError(f'device class "{cls_name}" not found')
        sels = list((cls.get("spec") or {}).get("selectors") or ())
        sels += spec.get("selectors") or ()
        return [s["cel"]["expression"] for s in sels if "cel" in s]

    def _eligible(self, d: DeviceInfo, exprs: Sequence[str], tolerations: Sequence[Obj]) -> bool:
        cache = d.selector_cache
        for e in exprs:
            hit = cache.get(e)
            if hit is None:
                try:
                    hit = cache[e] = compile_selector(e).matches(d.activation)
                except CELError as err:
                    raise AllocationError(f"{'/'.join(d.id)}: {err}") from None
            if not hit:
                return False
        taints = taints_for(d.id, d.taints, self._rules)
        return not (taints and untolerated(taints, tolerations))

    def _candidates(self, spec: Obj, node: Obj | None) -> list[DeviceInfo]:
        return list(self._candidate_entry(spec, node, self._devices)[0])

    def _candidate_entry(
        self, spec: Obj, node: Obj | None, devices: Sequence[DeviceInfo]
    ) -> tuple[Sequence[DeviceInfo], bool, frozenset[DeviceID]]:
        """The candidates, whether all are exclusive without shared counters, their ids."""
        exprs = self._selectors(spec)
        tols = spec.get("tolerations") or ()
        memo = self._memo
        if memo is None:
            out = [d for d in devices if node_matches(d, node) and self._eligible(d, exprs, tols)]
            return out, _simple(out), frozenset(d.id for d in out)
        # Selectors and taints do not depend on the node: while classes and rules stay the
        # same, each (selectors, tolerations, device) verdict is computed once.
        sel, tol = tuple(exprs), repr(tols) if tols else ""
        # The whole candidate list is memoised too (per node version and device objects):
        # the scheduler asks the same question of the same devices for every pod.
        ckey, version = _candidates_key(sel, tol, node)
        hit = memo.get(ckey)
        if hit is not None and hit[0] == version and _same(hit[1], devices):
            return hit[2], hit[3], hit[4]
        out = []
        for d in devices:
            if not node_matches(d, node):
                continue
            ok = memo.get((sel, tol, d.id))
            if ok is None:
                ok = memo[(sel, tol, d.id)] = self._eligible(d, exprs, tols)
            if ok:
                out.append(d)
        simple, ids = _simple(out), frozenset(d.id for d in out)
        if version is not None:
            memo[ckey] = (version, devices, tuple(out), simple, ids)
        return out, simple, ids

    def free_exclusive(
        self, spec: Obj, node: Obj | None, devices: Sequence[DeviceInfo] | None = None
    ) -> int | None:
        """How many candidates for ``spec`` are free, when that alone decides feasibility.

        For one ExactCount request without constraints the search takes the first free
        candidates in order, so it succeeds exactly when at least ``count`` are free, as
        long as every candidate is exclusive and uses no shared counters. None otherwise.
        ``devices`` (default: this allocator's) lets one allocator answer for many nodes.
        """
        if spec.get("allocationMode", "ExactCount") != "ExactCount" or spec.get("adminAccess"):
            return None
        cands, simple, ids = self._candidate_entry(
            spec, node, self._devices if devices is None else devices)
        if not simple or len(cands) > MAX_SEARCH_STEPS:
            return None
        taken = self._state.devices
        return sum(1 for i in ids if taken.get(i, 0) <= 0)

    def _alternatives(self, i: int, req: Obj, node: Obj | None) -> list[_Alt]:
        name = req["name"]
        if "exactly" in req:
            return [_Alt(i, name, name, req["exactly"], self._candidates(req["exactly"], node))]
        return [
            _Alt(i, f"{name}/{sub['name']}", name, sub, self._candidates(sub, node))
            for sub in req.get("firstAvailable") or ()
        ]

    # -- the search -------------------------------------------------------------------

    def allocate(self, claims: Sequence[Obj], node: Obj | None) -> list[Obj] | None:
        """One ``status.allocation`` per claim, or None when they cannot all be allocated."""
        plan = self.plan(claims, node)
        return None if plan is None else plan.results()

    def plan(self, claims: Sequence[Obj], node: Obj | None) -> Plan | None:
        """The search alone: a Plan whose ``results()`` builds the allocations on demand
        (the scheduler's Filter only needs feasibility; Reserve needs one node's results)."""
        slots = [
            self._alternatives(i, r, node)
            for i, c in enumerate(claims)
            for r in ((c.get("spec") or {}).get("devices") or {}).get("requests") or ()
        ]
        constraints = [
            (i, con)
            for i, c in enumerate(claims)
            for con in ((c.get("spec") or {}).get("devices") or {}).get("constraints") or ()
        ]
        search = _Search()
        if not self._slot(slots, 0, constraints, search):
            return None
        return Plan(self, list(claims), search, node)

    def _slot(self, slots: list[list[_Alt]], k: int, cons: list[tuple[int, Obj]], s: _Search) -> bool:
        if k == len(slots):
            return True
        for alt in slots[k]:
            if alt.spec.get("allocationMode", "ExactCount") == "All":
                need = len(alt.candidates)
                if need == 0:
                    continue
            else:
                need = int(alt.spec.get("count", 1))
            if self._pick(slots, k, alt, need, 0, cons, s):
                return True
        return False

    def _pick(
        self, slots: list[list[_Alt]], k: int, alt: _Alt, need: int, start: int,
        cons: list[tuple[int, Obj]], s: _Search,
    ) -> bool:
        if need == 0:
            return self._slot(slots, k + 1, cons, s)
        for j in range(start, len(alt.candidates)):
            s.steps += 1
            if s.steps > MAX_SEARCH_STEPS:
                return False
            d = alt.candidates[j]
            consumed = self._take(alt, d, s)
            if consumed is False:
                if alt.spec.get("allocationMode") == "All":
                    return False  # All needs every matching device
                continue
            pick = _Pick(alt, d, consumed if isinstance(consumed, dict) else None)
            s.picks.append(pick)
            if self._constraints_hold(cons, s) and self._pick(slots, k, alt, need - 1, j + 1, cons, s):
                return True
            s.picks.pop()
            self._release(pick, s)
            if alt.spec.get("allocationMode") == "All":
                return False
        return False

    def _take(self, alt: _Alt, d: DeviceInfo, s: _Search) -> dict[str, Decimal] | bool:
        """Mark ``d`` used; False when it is not free. Shared devices return consumption."""
        admin = bool(alt.spec.get("adminAccess"))
        if d.allow_multiple:
            want = _consumption(alt.spec, d)
            before = s.shared.get(d.id, {})
            for cap, amount in want.items():
                total = self._state.consumed(d.id, cap) + before.get(cap, Decimal(0)) + amount
                if total > d.capacity.get(cap, Decimal(0)):
                    return False
            s.shared[d.id] = {c: before.get(c, Decimal(0)) + a for c, a in want.items()}
        else:
            if d.id in s.used or (not admin and self._state.is_allocated(d.id)):
                return False
            if not self._counters_fit(d, s, +1):
                return False
            s.used.add(d.id)
            return True
        return s.shared[d.id]

    def _release(self, pick: _Pick, s: _Search) -> None:
        d = pick.device
        if d.allow_multiple:
            want = _consumption(pick.alt.spec, d)
            s.shared[d.id] = {c: v - want.get(c, Decimal(0)) for c, v in s.shared[d.id].items()}
        else:
            s.used.discard(d.id)
            self._counters_fit(d, s, -1)

    def _counters_fit(self, d: DeviceInfo, s: _Search, sign: int) -> bool:
        sets = self._counter_sets.get((d.id[0], d.id[1]), {})
        adds: list[tuple[CounterKey, Decimal]] = []
        for use in d.counters:
            for cname, c in (use.get("counters") or {}).items():
                key: CounterKey = (d.id[0], d.id[1], use["counterSet"], cname)
                amount = parse_quantity(c.get("value", 0))
                limit = sets.get(use["counterSet"], {}).get(cname, Decimal(0))
                now = self._state.counters.get(key, Decimal(0)) + s.counters.get(key, Decimal(0))
                if sign > 0 and now + amount > limit:
                    return False
                adds.append((key, amount))
        for key, amount in adds:
            s.counters[key] = s.counters.get(key, Decimal(0)) + sign * amount
        return True

    def _constraints_hold(self, cons: list[tuple[int, Obj]], s: _Search) -> bool:
        for i, con in cons:
            applies = con.get("requests") or None
            values = [
                p.device.attributes.get(_attr(con))
                for p in s.picks
                if p.alt.claim == i and (applies is None or p.alt.base in applies
                                         or p.alt.request in applies)
            ]
            if any(v is None for v in values):
                return False
            if con.get("matchAttribute") and len(set(values)) > 1:
                return False
            if con.get("distinctAttribute") and len(set(values)) != len(values):
                return False
        return True

    # -- results ----------------------------------------------------------------------

    def _result(self, i: int, claim: Obj, s: _Search, node: Obj | None) -> Obj:
        results: list[Obj] = []
        config: list[Obj] = []
        local = False
        selector: Obj | None = None
        for p in s.picks:
            if p.alt.claim != i:
                continue
            driver, pool, dev = p.device.id
            r: Obj = {"request": p.alt.request, "driver": driver, "pool": pool, "device": dev}
            if p.alt.spec.get("adminAccess"):
                r["adminAccess"] = True
            if p.alt.spec.get("tolerations"):
                r["tolerations"] = list(p.alt.spec["tolerations"])
            if p.consumed is not None:
                r["shareID"] = self._share_id()
                r["consumedCapacity"] = {
                    c.rpartition("/")[2] if c.startswith(driver + "/") else c: _fmt(v)
                    for c, v in sorted(_consumption(p.alt.spec, p.device).items())
                }
            results.append(r)
            local = local or p.device.node_name is not None
            selector = selector or p.device.node_selector
            for cfg in (self._classes[p.alt.spec["deviceClassName"]].get("spec") or {}).get("config") or ():
                config.append({"source": "FromClass", "requests": [p.alt.request], **cfg})
        for cfg in ((claim.get("spec") or {}).get("devices") or {}).get("config") or ():
            config.append({"source": "FromClaim", **cfg})
        out: Obj = {"devices": {"results": results}}
        if config:
            out["devices"]["config"] = config
        if local and node is not None:
            term = {"key": "metadata.name", "operator": "In", "values": [node["metadata"]["name"]]}
            out["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [term]}]}
        elif selector is not None:
            out["nodeSelector"] = selector
        return out


def _candidates_key(
    sel: tuple[str, ...], tol: str, node: Obj | None
) -> tuple[tuple[Any, ...], str | None]:
    """The memo key of a candidate list, and the node version it holds for.

    The memo lives until slices, classes or taint rules change; within it a device object
    is immutable and the node's resourceVersion fixes its labels. A node without one
    (hand-built in a test) is never cached: version None.
    """
    if node is None:
        return ("candidates", sel, tol, None), ""
    meta = node["metadata"]
    rv = meta.get("resourceVersion")
    return ("candidates", sel, tol, meta.get("name")), (str(rv) if rv else None)


def _same(a: Sequence[DeviceInfo], b: Sequence[DeviceInfo]) -> bool:
    # The same device objects in the same order (the memo keeps ``a`` alive, so no reuse).
    return a is b or (len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True)))


def _simple(cands: Sequence[DeviceInfo]) -> bool:
    return not any(d.allow_multiple or d.counters for d in cands)


def _attr(con: Obj) -> str:
    return str(con.get("matchAttribute") or con.get("distinctAttribute") or "")


def _fmt(v: Decimal) -> str:
    return str(int(v)) if v == v.to_integral_value() else str(v)


def _consumption(spec: Obj, d: DeviceInfo) -> dict[str, Decimal]:
    """Capacity a request takes from a shared device, rounded up by the request policy."""
    asked = {
        (k if "/" in k else f"{d.id[0]}/{k}"): parse_quantity(v)
        for k, v in ((spec.get("capacity") or {}).get("requests") or {}).items()
    }
    out: dict[str, Decimal] = {}
    for cap, total in d.capacity.items():
        raw = (d.raw.get("capacity") or {}).get(cap.rpartition("/")[2]) or (d.raw.get("capacity") or {}).get(cap) or {}
        policy = raw.get("requestPolicy") or {}
        amount = asked.get(cap)
        if amount is None:
            amount = parse_quantity(policy["default"]) if "default" in policy else total
        out[cap] = _round_up(amount, policy)
    return out


def _round_up(amount: Decimal, policy: Obj) -> Decimal:
    values = [parse_quantity(v) for v in policy.get("validValues") or ()]
    if values:
        return next((v for v in values if v >= amount), amount)
    rng = policy.get("validRange")
    if rng:
        lo = parse_quantity(rng.get("min", 0))
        if amount <= lo:
            return lo
        if rng.get("step"):
            step = parse_quantity(rng["step"])
            n = -((lo - amount) // step)
            return lo + n * step
    return amount

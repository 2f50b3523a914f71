"""The structured-parameter allocator, after ``k8s.io/dynamic-resource-allocation/structured``.

``Allocator.allocate(claims, node)`` finds devices for every request of every claim at
once, by a deterministic depth-first search with backtracking: requests in claim order,
``firstAvailable`` alternatives in their order, candidate devices in pool order (the
order ``gather_pools`` gives: upstream tries a pool's slices, and each slice's devices,
as listed). A device must be reachable from the node, match every class
and request CEL selector, tolerate-check clean (NoSchedule/NoExecute) and be free: not
allocated before and not picked earlier in this search, unless it allows multiple
allocations and still has the capacity asked for (it then gets a ``shareID``). Shared
counters of partitionable devices and ``matchAttribute``/``distinctAttribute`` constraints
are checked as devices are picked, and (DRADeviceCompatibilityGroups) the compatibility
groups of the devices sharing a counter set. With upstream's ``experimental`` allocator a
device whose slice skips node operations needs DRAOptionalNodeOperations, on and declared
by the node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.dra import compat_groups
from reference_impl.dra.candidates import AllocationError, Candidates, ClaimError
from reference_impl.dra.constraints import constraint_attribute, distinct_ok, match_ok
from reference_impl.dra.consumption import CapacityError, asks_capacity, consumption, fits
from reference_impl.dra.derived import DerivedAttributes
from reference_impl.dra.features import Features
from reference_impl.dra.nodes import node_matches
from reference_impl.dra.pools import DeviceID, DeviceInfo, Pool, TypedAttribute
from reference_impl.dra.results import Picked, allocation_result
from reference_impl.dra.state import AllocatedState, CounterKey

# resourceapi.AllocationResultsMaxSize: the most devices one claim's allocation holds.
MAX_RESULTS: Final = 32

__all__ = ["CANNOT_ALLOCATE", "MAX_RESULTS", "MAX_SEARCH_STEPS", "AllocationError", "Allocator", "Plan", "for_pools"]

Obj = dict[str, Any]
CANNOT_ALLOCATE: Final = "cannot allocate all claims"
INVALID_POOLS: Final = "invalid resource pools were encountered"
MAX_SEARCH_STEPS: Final = 20_000
# The node feature (status.declaredFeatures) devices skipping node operations need.
OPTIONAL_NODE_OPERATIONS: Final = "DRAOptionalNodeOperations"
_FAIL, _OK, _EXCEEDED = 0, 1, 2  # outcomes of the search's steps


def for_pools(pools: Sequence[Pool]) -> tuple[list[DeviceInfo], dict[tuple[str, str], dict[str, dict[str, Decimal]]]]:
    """The devices and counter sets of ``pools``, as ``Allocator`` takes them."""
    return [d for p in pools for d in p.devices], {(p.driver, p.name): p.counter_sets for p in pools}


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
    counted: bool = False  # this share charged the shared device's counters
    undo: compat_groups.Undo | None = None  # what taking it folded into the groups


@dataclass(slots=True)
class _Search:
    picks: list[_Pick] = field(default_factory=list)
    # dedicated device -> the claims (by index) picking it, once per pick: an admin-access
    # request may take a device another claim picks, never one its own claim picks
    used: dict[DeviceID, list[int]] = field(default_factory=dict)
    shared: dict[DeviceID, dict[str, Decimal]] = field(default_factory=dict)
    shares: dict[DeviceID, int] = field(default_factory=dict)  # shares picked per device
    last_counted: bool = False  # whether the share ``_take`` just made charged counters
    last_undo: compat_groups.Undo | None = None  # the groups ``_take`` just folded
    node_ops: bool = True  # devices of slices with skipNodeOperations may be taken
    groups: compat_groups.Groups = field(default_factory=dict)  # picked devices' groups
    bases: dict[tuple[str, str], compat_groups.Groups] = field(default_factory=dict)  # per pool
    counters: dict[CounterKey, Decimal] = field(default_factory=dict)
    steps: int = 0


class Plan:
    """A successful search for some claims on one node; ``results()`` is computed once."""

    __slots__ = ("_alloc", "_claims", "_node", "_picks", "_results")

    def __init__(self, alloc: Allocator, claims: list[Obj], picks: list[_Pick], node: Obj | None) -> None:
        self._alloc, self._claims, self._picks, self._node = alloc, claims, picks, node
        self._results: list[Obj] | None = None

    def results(self) -> list[Obj]:
        """One ``status.allocation`` per claim, in claim order."""
        if self._results is None:
            self._results = [self._alloc._result(i, c, self._picks, self._node)  # noqa: SLF001
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
        features: Features | None = None,
        invalid: Sequence[Pool] = (),
        published: Callable[[DeviceID], DeviceInfo | None] | None = None,
    ) -> None:
        """``invalid``: pools upstream's GatherPools reports invalid; when allocation fails
        and one of them concerns the node, the failure names them. ``published``: every
        published device by id (default: ``devices``), for the compatibility groups of
        devices allocated elsewhere in their pools."""
        self._published = published
        self._features = features or Features()
        self._invalid = invalid
        self._devices = devices
        self._counter_sets = counter_sets
        self._classes = classes
        self._state = state
        self._share_id = share_id
        self._cands = Candidates(devices, classes, rules, self._features, memo)
        self._derived = DerivedAttributes(self._features)

    # -- candidates -------------------------------------------------------------------

    def free_exclusive(
        self, spec: Obj, node: Obj | None, devices: Sequence[DeviceInfo] | None = None
    ) -> int | None:
        """How many candidates for ``spec`` are free, when that alone decides feasibility.

        For one ExactCount request without constraints the search takes the first free
        candidates in order, so it succeeds exactly when at least ``count`` are free, as
        long as every candidate is exclusive and uses no shared counters. None otherwise.
        ``devices`` (default: this allocator's) lets one allocator answer for many nodes.
        """
        return self._cands.free_exclusive(spec, node, self._state, MAX_SEARCH_STEPS, devices)

    def simple_candidates(
        self, spec: Obj, node: Obj | None, devices: Sequence[DeviceInfo] | None = None
    ) -> tuple[Sequence[DeviceInfo], frozenset[DeviceID]] | None:
        """The candidates behind ``free_exclusive``'s count, in search order, and their ids
        (None where it has none): a caller can recount them as the state changes, and
        hand them to ``first_free`` for the search's outcome."""
        return self._cands.simple_candidates(spec, node, MAX_SEARCH_STEPS, devices)

    def _alternatives(self, i: int, req: Obj, node: Obj | None) -> list[_Alt]:
        name = req["name"]
        if "exactly" in req:
            return [_Alt(i, name, name, req["exactly"], self._of(req["exactly"], node, name))]
        return [
            _Alt(i, f"{name}/{sub['name']}", name, sub, self._of(sub, node, f"{name}/{sub['name']}"))
            for sub in req.get("firstAvailable") or ()
        ]

    def _of(self, spec: Obj, node: Obj | None, request: str) -> list[DeviceInfo]:
        try:
            cands = self._cands.of(spec, node)
        except ClaimError as e:
            e.request = e.request or request
            raise
        if spec.get("allocationMode") == "All":
            # validateDeviceRequest: "all" leaves out devices whose capacity could never
            # serve the request (what is in use is checked as devices are picked).
            cands = [d for d in cands if self._fits(spec, d, {}, request, d.id[2])]
        return cands

    def _fits(
        self, spec: Obj, d: DeviceInfo, used: Mapping[str, Decimal], request: str, who: str, claim: int = 0,
    ) -> bool:
        """CmpRequestOverCapacity, its errors named as upstream's allocator names them."""
        if not d.capacity and not asks_capacity(spec):
            return True
        try:
            return fits(spec, d, used, self._features.fractional_capacity_range)
        except CapacityError as e:
            raise ClaimError(f"checking capacity for device {who}: {e}", True,
                             request.rpartition("/")[2], claim) from None

    # -- the search -------------------------------------------------------------------

    def allocate(self, claims: Sequence[Obj], node: Obj | None) -> list[Obj] | None:
        """One ``status.allocation`` per claim, or None when they cannot all be allocated."""
        plan = self.plan(claims, node)
        return None if plan is None else plan.results()

    def plan(self, claims: Sequence[Obj], node: Obj | None) -> Plan | None:
        """The search alone: a Plan whose ``results()`` builds the allocations on demand
        (the scheduler's Filter only needs feasibility; Reserve needs one node's results)."""
        first = self._first_free(claims, node)
        plan = first[0] if first is not None else self.searched(claims, node)
        if plan is None and any(_reaches(p, node) for p in self._invalid):
            raise AllocationError(INVALID_POOLS)
        return plan

    def searched(self, claims: Sequence[Obj], node: Obj | None) -> Plan | None:
        """``plan`` by the depth-first search alone, whatever the shape."""
        slots = []
        for i, c in enumerate(claims):
            for r in ((c.get("spec") or {}).get("devices") or {}).get("requests") or ():
                try:
                    slots.append(self._alternatives(i, r, node))
                except ClaimError as e:  # upstream's message names the claim
                    raise e.for_claim(c) from None
        constraints = [
            (i, con)
            for i, c in enumerate(claims)
            for con in ((c.get("spec") or {}).get("devices") or {}).get("constraints") or ()
        ]
        _check_claim_limit(claims, slots)
        for i, con in constraints:
            if not constraint_attribute(con):  # a future constraint type
                n = [c for j, c in constraints if j == i].index(con)
                raise ClaimError(f"constraint #{n}: empty constraint (unsupported constraint type?)",
                                 False).for_claim(claims[i])
        search = _Search(node_ops=_node_ops_ok(self._features, node))
        try:
            if self._slot(slots, 0, constraints, search) != _OK:
                return None
        except ClaimError as e:
            raise e.for_claim(claims[e.claim]) from None
        return Plan(self, list(claims), search.picks, node)

    def _first_free(self, claims: Sequence[Obj], node: Obj | None) -> tuple[Plan | None] | None:
        """The search's outcome, without searching, for its commonest shape: one claim with
        one ``exactly`` ExactCount request, no constraints, exclusive candidates without
        counters. The search then takes the first ``count`` free candidates in order, or
        fails. None: another shape (the search decides)."""
        devices = ((claims[0].get("spec") or {}).get("devices") or {}) if len(claims) == 1 else {}
        reqs: list[Obj] = devices.get("requests") or []
        if len(reqs) != 1 or devices.get("constraints") or "exactly" not in reqs[0]:
            return None
        spec: Obj = reqs[0]["exactly"]
        if spec.get("allocationMode", "ExactCount") != "ExactCount" or spec.get("adminAccess"):
            return None
        count = int(spec.get("count", 1))
        if count < 1 or spec.get("derivedAttributes") or asks_capacity(spec):
            return None
        try:
            cands, simple, _ = self._cands.entry(spec, node, self._devices)
        except ClaimError as e:
            e.request = e.request or reqs[0]["name"]
            raise e.for_claim(claims[0]) from None
        if count > MAX_RESULTS:
            raise ClaimError(_over_limit(count, 0), True, reqs[0]["name"]).for_claim(claims[0])
        if not simple or len(cands) > MAX_SEARCH_STEPS:
            return None
        return (self.first_free(claims[0], spec, count, cands, node),)

    def first_free(
        self, claim: Obj, spec: Obj, count: int, cands: Sequence[DeviceInfo], node: Obj | None
    ) -> Plan | None:
        """The search's outcome for ``claim``, whose one request ``spec`` asks ``count`` of
        ``cands`` (exclusive, without counters, in search order): the first free ones."""
        free = self._free_first(cands, count)
        if free is None:
            return None
        name = claim["spec"]["devices"]["requests"][0]["name"]
        alt = _Alt(0, name, name, spec, list(cands))
        return Plan(self, [claim], [_Pick(alt, d, None) for d in free], node)

    def first_free_allocation(
        self, claim: Obj, spec: Obj, count: int, cands: Sequence[DeviceInfo], node: Obj | None
    ) -> Obj | None:
        """``first_free(...).results()[0]``, built without the Plan (Reserve on a node the
        fast path vouched for asks this for every pod)."""
        free = self._free_first(cands, count)
        if free is None:
            return None
        name = claim["spec"]["devices"]["requests"][0]["name"]
        picked = [Picked(name, spec, d, False) for d in free]
        return allocation_result(claim, picked, self._classes, node, self._features, self._share_id)

    def _free_first(self, cands: Sequence[DeviceInfo], count: int) -> list[DeviceInfo] | None:
        taken = self._state.devices
        free = [d for d in cands if d.id not in taken][:count]
        return free if len(free) == count else None

    def _slot(self, slots: list[list[_Alt]], k: int, cons: list[tuple[int, Obj]], s: _Search) -> int:
        """Satisfy slots ``k``.. : _OK, _FAIL, or _EXCEEDED when every alternative of slot
        ``k`` (or of a later slot of the same claim) overflows the claim's result limit."""
        if k == len(slots):
            return _OK
        exceeded = True
        for alt in slots[k]:
            if alt.spec.get("allocationMode", "ExactCount") == "All":
                need = len(alt.candidates)
                if need == 0:
                    exceeded = False
                    continue
            else:
                need = int(alt.spec.get("count", 1))
            # allocateOne: an alternative that cannot fit in what is left of the claim's
            # AllocationResultsMaxSize is passed over (errAllocationResultMaxSizeExceeded).
            if need > MAX_RESULTS - sum(1 for p in s.picks if p.alt.claim == alt.claim):
                continue
            got = self._pick(slots, k, alt, need, 0, cons, s)
            if got == _OK:
                return _OK
            exceeded = exceeded and got == _EXCEEDED
        return _EXCEEDED if exceeded and slots[k] else _FAIL

    def _pick(
        self, slots: list[list[_Alt]], k: int, alt: _Alt, need: int, start: int,
        cons: list[tuple[int, Obj]], s: _Search,
    ) -> int:
        if need == 0:
            got = self._slot(slots, k + 1, cons, s)
            # Past the claim's last request the limit starts afresh: no longer "exceeded".
            if got == _EXCEEDED and (k + 1 == len(slots) or slots[k + 1][0].claim != alt.claim):
                return _FAIL
            return got
        for j in range(start, len(alt.candidates)):
            s.steps += 1
            if s.steps > MAX_SEARCH_STEPS:
                return _FAIL
            d = alt.candidates[j]
            consumed = self._take(alt, d, s)
            if consumed is False:
                if alt.spec.get("allocationMode") == "All":
                    return _FAIL  # All needs every matching device
                continue
            pick = _Pick(alt, d, consumed if isinstance(consumed, dict) else None,
                         isinstance(consumed, dict) and s.last_counted, s.last_undo)
            s.picks.append(pick)
            held = self._constraints_hold(cons, s)
            if not held and alt.spec.get("allocationMode") == "All":
                # allocateDevice with must: a constraint that keeps a device out of an
                # All request makes the claim unsatisfiable by construction: an error.
                s.picks.pop()
                self._release(pick, s)
                raise ClaimError(f"cannot add device {'/'.join(d.id)} because a claim constraint "
                                 "would not be satisfied", True, alt.request, alt.claim)
            got = self._pick(slots, k, alt, need - 1, j + 1, cons, s) if held else _FAIL
            if got == _OK:
                return _OK
            s.picks.pop()
            self._release(pick, s)
            if got == _EXCEEDED:
                return _EXCEEDED  # no other device here can make the rest fit: backtrack further
            if alt.spec.get("allocationMode") == "All":
                return _FAIL
        return _FAIL

    def _take(self, alt: _Alt, d: DeviceInfo, s: _Search) -> dict[str, Decimal] | bool:
        """Mark ``d`` used; False when it is not free. Shared devices return consumption
        (allocateDevice with CmpRequestOverCapacity; the share that first takes a shared
        device charges its counters, later ones do not)."""
        admin = bool(alt.spec.get("adminAccess"))
        if not admin and self._state.is_allocated(d.id):
            return False
        if d.skip_node_operations and not s.node_ops:
            return False  # allocateDevice: DRAOptionalNodeOperations off or not declared
        s.last_undo = None
        if d.allow_multiple:
            before = s.shared.get(d.id, {})
            used = {c: self._state.consumed(d.id, c) + before.get(c, Decimal(0)) for c in d.capacity}
            if not self._fits(alt.spec, d, used, alt.request, "/".join(d.id), alt.claim):
                return False
            counted = not self._state.shared_in_use(d.id) and not s.shares.get(d.id)
            # A further share of a device in use checks neither groups nor counters.
            if counted and not self._groups_and_counters(d, s):
                return False
            want = consumption(alt.spec, d, self._features.fractional_capacity_range)
            s.shared[d.id] = {c: before.get(c, Decimal(0)) + want.get(c, Decimal(0))
                              for c in set(before) | set(want)}
            s.shares[d.id] = s.shares.get(d.id, 0) + 1
            s.last_counted = counted
            return s.shared[d.id]
        users = s.used.get(d.id)
        if users and (alt.claim in users if admin else True):
            return False  # allocatingDeviceForClaim / deviceInUse
        if (asks_capacity(alt.spec) or d.id in self._state.shared) and not self._fits(
                alt.spec, d, self._state.shared.get(d.id, {}), alt.request, "/".join(d.id), alt.claim):
            return False  # a dedicated device's capacity (once shared: what is still in use)
        if not self._groups_and_counters(d, s):
            return False
        s.used.setdefault(d.id, []).append(alt.claim)
        return True

    def _release(self, pick: _Pick, s: _Search) -> None:
        d = pick.device
        if d.allow_multiple:
            want = consumption(pick.alt.spec, d, self._features.fractional_capacity_range)
            s.shared[d.id] = {c: v - want.get(c, Decimal(0)) for c, v in s.shared[d.id].items()}
            s.shares[d.id] -= 1
            if pick.counted:
                self._counters_fit(d, s, -1)
        else:
            users = s.used[d.id]
            users.remove(pick.alt.claim)
            if not users:
                del s.used[d.id]
            self._counters_fit(d, s, -1)
        if pick.undo:
            compat_groups.restore(s.groups, pick.undo)

    def _groups_and_counters(self, d: DeviceInfo, s: _Search) -> bool:
        """allocateDevice's compatibility-group check (gated), then its counter check;
        the groups folded in are left in ``s.last_undo``."""
        undo = None
        if self._features.compatibility_groups and d.counters:
            pool = (d.id[0], d.id[1])
            base = s.bases.get(pool)
            if base is None:
                base = s.bases[pool] = compat_groups.baseline(
                    pool, [*self._state.devices, *self._state.shares], self._lookup())
            undo = compat_groups.fold(d, s.groups, base)
            if undo is None:
                return False
        if not self._counters_fit(d, s, +1):
            if undo:
                compat_groups.restore(s.groups, undo)
            return False
        s.last_undo = undo
        return True

    def _lookup(self) -> Callable[[DeviceID], DeviceInfo | None]:
        if self._published is None:
            self._published = {d.id: d for d in self._devices}.get
        return self._published

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
        lists = self._features.list_type_attributes
        for i, con in cons:
            applies = con.get("requests") or None
            name = constraint_attribute(con)
            values = [
                self._attribute(p, name)
                for p in s.picks
                if p.alt.claim == i and (applies is None or p.alt.base in applies
                                         or p.alt.request in applies)
            ]
            ok = match_ok(values, lists) if con.get("matchAttribute") else distinct_ok(values, lists)
            if not ok:
                return False
        return True

    def _attribute(self, p: _Pick, name: str) -> TypedAttribute | None:
        """The device's attribute ``name``, or the request's derived attribute of that name."""
        derived = self._derived.lookup(p.alt.spec, p.device, name)
        return derived if derived is not DerivedAttributes.NONE else p.device.attributes.get(name)

    # -- results ----------------------------------------------------------------------

    def _result(self, i: int, claim: Obj, picks: list[_Pick], node: Obj | None) -> Obj:
        picked = [Picked(p.alt.request, p.alt.spec, p.device, p.consumed is not None)
                  for p in picks if p.alt.claim == i]
        return allocation_result(claim, picked, self._classes, node, self._features, self._share_id)


def _node_ops_ok(features: Features, node: Obj | None) -> bool:
    """Whether devices of slices with skipNodeOperations may be allocated on ``node``:
    upstream's stable and incubating allocators do not look; the experimental one wants
    DRAOptionalNodeOperations on and among the node's declared features."""
    if not features.experimental:
        return True
    declared = ((node or {}).get("status") or {}).get("declaredFeatures") or ()
    return features.optional_node_operations and OPTIONAL_NODE_OPERATIONS in declared


def _reaches(pool: Pool, node: Obj | None) -> bool:
    """Whether GatherPools would have given ``pool`` to the allocator for ``node``."""
    return pool.anywhere or any(node_matches(d, node) for d in pool.reach)


def _over_limit(n: int, already: int) -> str:
    return (f"adding {n} devices exceeds the claim limit of {MAX_RESULTS}, "
            f"with {already} already accounted for")


def _check_claim_limit(claims: Sequence[Obj], slots: list[list[_Alt]]) -> None:
    """The allocator's up-front check: per claim, the fewest devices each request can
    take (its count; All: every candidate; the least over firstAvailable) must stay
    within AllocationResultsMaxSize in all."""
    totals = [0] * len(claims)
    for alts in slots:
        if not alts:
            continue
        least = min(len(a.candidates) if a.spec.get("allocationMode") == "All"
                    else int(a.spec.get("count", 1)) for a in alts)
        i = alts[0].claim
        if least > MAX_RESULTS - totals[i]:
            raise ClaimError(_over_limit(least, totals[i]), True, alts[0].base).for_claim(claims[i])
        totals[i] += least

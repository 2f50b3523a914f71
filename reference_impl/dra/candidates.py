"""Which devices may serve one request (``isSelectable`` of the structured allocator).

A candidate is reachable from the node, matches every class and request CEL selector,
tolerates its NoSchedule/NoExecute taints, and has no binding conditions unless that
feature is on. Verdicts and whole candidate lists are memoised while slices, classes and
taint rules stay the same (the scheduler asks the same question for every pod and node).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference_impl.dra.cel import CELError, Selector, compile_selector
from reference_impl.dra.features import Features
from reference_impl.dra.nodes import node_matches
from reference_impl.dra.pools import DeviceID, DeviceInfo
from reference_impl.dra.state import AllocatedState
from reference_impl.dra.taints import taints_for, untolerated

__all__ = ["AllocationError", "Candidates", "ClaimError"]

Obj = dict[str, Any]
CandidateEntry = tuple[Sequence[DeviceInfo], bool, frozenset[DeviceID]]


class AllocationError(Exception):
    """Allocation could not be attempted: an unknown class or a CEL runtime error."""


class ClaimError(AllocationError):
    """An error upstream reports naming the claim (and for a class problem the request):
    raised without them here, named by the allocator through ``for_claim``."""

    def __init__(self, detail: str, per_request: bool, request: str = "", claim: int = 0, sep: str = ": ") -> None:
        super().__init__(detail)
        self.detail, self.per_request, self.sep = detail, per_request, sep
        self.request, self.claim = request, claim  # ``claim``: its index, for the search

    def for_claim(self, claim: Obj) -> AllocationError:
        meta = claim.get("metadata") or {}
        ns, name = meta.get("namespace"), meta.get("name", "")
        who = f"{ns}/{name}" if ns else name  # klog.KObj
        if self.per_request:
            return AllocationError(f"claim {who}, request {self.request}{self.sep}{self.detail}")
        return AllocationError(f"claim {who}: {self.detail}")


# EnhanceRuntimeError: the hint upstream appends to "no such key" runtime errors.
_NO_SUCH_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) "
                     "or guarding the check with has() for optional fields")


class Candidates:
    """Candidate devices per request spec, against one set of classes and rules."""

    def __init__(
        self,
        devices: Sequence[DeviceInfo],
        classes: Mapping[str, Obj],
        rules: Sequence[Obj],
        features: Features,
        memo: dict[Any, Any] | None,
    ) -> None:
        self._devices, self._classes, self._rules = devices, classes, rules
        self._features, self._memo = features, memo

    def selectors(self, spec: Obj) -> list[str]:
        """The class's and the request's CEL expressions; AllocationError: no such class
        (or a request validateDeviceRequest refuses)."""
        for i, sel in enumerate(spec.get("selectors") or ()):
            if "cel" not in sel:  # a future selector type
                raise ClaimError(f"selector #{i}: CEL expression empty (unsupported selector type?)", True, sep=", ")
        cls_name = spec.get("deviceClassName", "")
        if not cls_name:
            raise ClaimError("missing device class name (unsupported request type?)", True)
        cls = self._classes.get(cls_name)
        if cls is None:  # the lister's NotFound, wrapped as upstream's allocator does
            raise ClaimError(f"could not retrieve device class {cls_name}: "
                             f'deviceclass.resource.k8s.io "{cls_name}" not found', True)
        mode = spec.get("allocationMode") or "ExactCount"
        if mode not in ("ExactCount", "All"):
            raise ClaimError(f"unsupported count mode {mode}", True)
        sels = list((cls.get("spec") or {}).get("selectors") or ())
        sels += spec.get("selectors") or ()
        return [s["cel"]["expression"] for s in sels if "cel" in s]

    def _cel_error(self, spec: Obj, expr_index: int, d: DeviceInfo, err: CELError) -> AllocationError:
        """isSelectable's wrapping: ``class <name>: selector #i ...`` for a class selector,
        a ClaimError (the allocator names the claim) for the request's own."""
        msg = str(err)
        if not msg.startswith("CEL runtime error"):  # not a runtime error: kept as it was
            return AllocationError(f"{'/'.join(d.id)}: {msg}")
        if "no such key:" in msg:
            msg += _NO_SUCH_KEY_HINT
        cls_name = spec.get("deviceClassName", "")
        cls = self._classes.get(cls_name) or {}
        n_class = sum(1 for s in (cls.get("spec") or {}).get("selectors") or () if "cel" in s)
        device = "/".join(d.id)
        if expr_index < n_class:
            return AllocationError(f"class {cls_name}: selector #{expr_index} on device {device}: {msg}")
        return ClaimError(f"selector #{expr_index - n_class} on device {device}: {msg}", False)

    def _eligible(
        self, d: DeviceInfo, exprs: Sequence[str], tolerations: Sequence[Obj], spec: Obj,
        scalars: dict[tuple[int, str, bool], bool | None] | None = None,
    ) -> bool:
        """``scalars``: verdicts of driver-only expressions (by index, driver and
        allowMultipleAllocations) shared by the devices of one ``entry`` call."""
        if d.raw.get("bindingConditions") and not self._features.binding_conditions:
            return False  # the feature is off: such devices are not supported
        cache = d.selector_cache
        for i, e in enumerate(exprs):
            hit = cache.get(e)
            if hit is None:
                bad = d.bad_attribute
                if bad is not None:  # DeviceMatches cannot build the CEL ``device``
                    err = CELError(f"CEL runtime error: attribute {bad}: unsupported attribute value")
                    raise self._cel_error(spec, i, d, err)
                try:
                    sel = compile_selector(e, self._features.list_type_attributes)
                    hit = cache[e] = _matches(d, sel, i, scalars)
                except CELError as err:
                    raise self._cel_error(spec, i, d, err) from None
            if not hit:
                return False
        if not self._features.device_taints or not (d.taints or self._rules):
            return True  # allocateDevice checks taints only with the feature on
        taints = taints_for(d.id, d.taints, self._rules)
        return not (taints and untolerated(taints, tolerations))

    def of(self, spec: Obj, node: Obj | None) -> list[DeviceInfo]:
        """The candidates for ``spec`` on ``node``, in the order of the devices."""
        return list(self.entry(spec, node, self._devices)[0])

    def entry(self, spec: Obj, node: Obj | None, devices: Sequence[DeviceInfo]) -> CandidateEntry:
        """The candidates, whether all are exclusive without shared counters, their ids."""
        exprs = self.selectors(spec)
        tols = spec.get("tolerations") or ()
        memo = self._memo
        if memo is None:
            out = [d for d in devices if node_matches(d, node) and self._eligible(d, exprs, tols, spec)]
            return out, _simple(out), frozenset(d.id for d in out)
        # Selectors and taints do not depend on the node: while classes and rules stay the
        # same, each (selectors, tolerations, device) verdict is computed once (for a
        # device of one node's own, its node's candidate list holds it; CEL verdicts stay
        # in the device's selector_cache whatever happens to that list).
        sel, tol = tuple(exprs), repr(tols) if tols else ""
        # The whole candidate list is memoised too (per node version and device objects).
        ckey, version = _candidates_key(sel, tol, node)
        hit = memo.get(ckey)
        if hit is not None and hit[0] == version and _same(hit[1], devices):
            return hit[2], hit[3], hit[4]
        out = []
        scalars: dict[tuple[int, str, bool], bool | None] = {}  # a node's devices share drivers
        for d in devices:
            if not node_matches(d, node):
                continue
            if d.node_name is not None:  # one node's device: its list below is the memo
                ok: bool | None = self._eligible(d, exprs, tols, spec, scalars)
            else:
                vkey = (sel, tol, d.id)
                ok = memo.get(vkey)
                if ok is None:
                    ok = memo[vkey] = self._eligible(d, exprs, tols, spec, scalars)
            if ok:
                out.append(d)
        simple, ids = _simple(out), frozenset(d.id for d in out)
        if version is not None:
            memo[ckey] = (version, devices, tuple(out), simple, ids)
        return out, simple, ids

    def free_exclusive(
        self, spec: Obj, node: Obj | None, state: AllocatedState, limit: int,
        devices: Sequence[DeviceInfo] | None = None,
    ) -> int | None:
        """How many candidates for ``spec`` are free, when that alone decides feasibility
        (see ``Allocator.free_exclusive``); None otherwise or above ``limit`` candidates."""
        got = self.simple_candidates(spec, node, limit, devices)
        return None if got is None else free_count(got[1], state)

    def simple_candidates(
        self, spec: Obj, node: Obj | None, limit: int, devices: Sequence[DeviceInfo] | None = None
    ) -> tuple[Sequence[DeviceInfo], frozenset[DeviceID]] | None:
        """The candidates, in search order, and their ids, when their free count alone
        decides feasibility (the count is then ``free_count(ids, state)`` for any state);
        None otherwise."""
        if spec.get("allocationMode", "ExactCount") != "ExactCount" or spec.get("adminAccess"):
            return None
        if spec.get("derivedAttributes") or (spec.get("capacity") or {}).get("requests"):
            return None  # capacity requests can rule out free dedicated devices too
        cands, simple, ids = self.entry(spec, node, self._devices if devices is None else devices)
        if not simple or len(cands) > limit:
            return None
        return cands, ids


def free_count(ids: frozenset[DeviceID], state: AllocatedState) -> int:
    """How many of the exclusive, counter-free candidates ``ids`` are free in ``state``."""
    # ``state.devices`` holds only counts above zero (apply_allocation drops the rest).
    return len(ids.difference(state.devices))


def _matches(
    d: DeviceInfo, sel: Selector, i: int, scalars: dict[tuple[int, str, bool], bool | None] | None
) -> bool:
    """``d.matches(sel)``, answering a driver-only expression (``sel`` is ``exprs[i]``) from
    ``scalars`` when another device of the same driver was asked already."""
    if scalars is None:
        return d.matches(sel)
    key = (i, d.id[0], d.allow_multiple)
    hit = scalars.get(key, _UNASKED)
    if hit is _UNASKED:
        hit = scalars[key] = sel.matches_scalars(d.id[0], d.allow_multiple)
    return sel.matches(d.activation) if hit is None else hit


_UNASKED: Any = object()  # a ``scalars`` miss (None there means "not driver-only")


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
    # skipNodeOperations: whether such a device may be taken depends on the node.
    return not any(d.allow_multiple or d.counters or d.skip_node_operations for d in cands)

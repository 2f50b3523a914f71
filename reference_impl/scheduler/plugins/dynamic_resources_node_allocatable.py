"""Models ``nodeallocatabledynamicresources.go`` (DRANodeAllocatableResources, alpha, off).

A device may declare ``nodeAllocatableResources``: per node resource (cpu, memory,
hugepages-*) a ``mapping`` (the device stands for some of the node's own capacity: a
fixed ``deviceMultiplier`` per device, or ``capacityKey`` consumed times
``capacityMultiplier``) and an ``overhead`` (``perPod``, ``perContainer``). Filter adds
what the pod's allocated devices map or cost to its native requests and checks the node
(``nodeFitsResources``); PreBind records the per-claim amounts in the pod's
``status.nodeAllocatableResourceClaimStatuses``; Unreserve clears them. A claim with a
mapped device cannot be shared across pods. Everything here runs only with the gate on.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.quantity import Quantity, format_quantity
from reference_impl.dra.nodes import node_selector_matches
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.framework.pod_resources import (
    node_allocatable_amounts,
    pod_requests,
    to_int,
)
from reference_impl.scheduler.framework.types import NodeInfo

__all__ = [
    "FIELD",
    "GATE",
    "CycleData",
    "NodeAllocatableError",
    "any_node_allocatable",
    "build_statuses",
    "check_node",
    "check_sharing",
    "claim_has_mapped_device",
    "clear_status",
    "device_from_slices",
    "filter_slices_for_node",
    "node_fits_resources",
    "patch_status",
    "pod_demand",
    "prepare",
    "uses_node_allocatable",
    "validate_claim_sharing",
    "validate_pod_level_cover",
]

Obj = dict[str, Any]
GATE: Final = "DRANodeAllocatableResources"
FIELD: Final = "nodeAllocatableResourceClaimStatuses"
_HUGEPAGES: Final = "hugepages-"
_SHARED: Final = "node allocatable resource claim {} has a mapped device and cannot be shared across pods"


class NodeAllocatableError(Exception):
    """A claim's device cannot be found or its mapping cannot be computed (statusError)."""


# -- slices and devices --------------------------------------------------------------------


def filter_slices_for_node(slices: Iterable[Obj], node: Obj | None) -> list[Obj]:
    """``filterSlicesForNode``: slices of the node, for all nodes, selecting it, or with
    per-device node selection (decided per device)."""
    out = list(slices)
    if node is None:
        return out
    name = node["metadata"]["name"]
    keep = []
    for s in out:
        spec = s.get("spec") or {}
        if spec.get("nodeName") is not None:
            hit = spec["nodeName"] == name
        elif spec.get("allNodes"):
            hit = True
        elif spec.get("nodeSelector") is not None:
            hit = node_selector_matches(spec["nodeSelector"], node)
        else:
            hit = bool(spec.get("perDeviceNodeSelection"))
        if hit:
            keep.append(s)
    return keep


def _device_matches_node(device: Obj, node: Obj | None) -> bool:
    if node is None:
        return True
    if device.get("nodeName") is not None and device["nodeName"] == node["metadata"]["name"]:
        return True
    if device.get("allNodes"):
        return True
    sel = device.get("nodeSelector")
    return sel is not None and node_selector_matches(sel, node)


def device_from_slices(slices: Iterable[Obj], result: Obj, node: Obj | None) -> Obj:
    """``getDeviceFromSlices``: the allocated device (NodeAllocatableError: none)."""
    for s in slices:
        spec = s.get("spec") or {}
        if spec.get("driver") != result.get("driver") or (spec.get("pool") or {}).get("name") != result.get("pool"):
            continue
        for d in spec.get("devices") or ():
            if d.get("name") == result.get("device"):
                if spec.get("perDeviceNodeSelection") and not _device_matches_node(d, node):
                    raise NodeAllocatableError(f"device {result.get('device')} does not match node")
                return dict(d)
    raise NodeAllocatableError(f"device {result.get('device')} not found in pool {result.get('pool')} "
                               f"for driver {result.get('driver')}")


def uses_node_allocatable(alloc: Obj | None, slices: Sequence[Obj], node: Obj | None) -> bool:
    """Whether a result of ``alloc`` names a device with ``nodeAllocatableResources``
    (a device that cannot be found counts as none, as upstream logs and skips it)."""
    for r in ((alloc or {}).get("devices") or {}).get("results") or ():
        try:
            if device_from_slices(slices, r, node).get("nodeAllocatableResources"):
                return True
        except NodeAllocatableError:
            continue
    return False


def claim_has_mapped_device(alloc: Obj | None, slices: Sequence[Obj]) -> bool:
    """PreFilter's ``claimHasNodeAllocatableMappedDevice``: a device maps a resource."""
    for r in ((alloc or {}).get("devices") or {}).get("results") or ():
        try:
            d = device_from_slices(slices, r, None)
        except NodeAllocatableError:
            continue
        if any(m.get("mapping") is not None for m in (d.get("nodeAllocatableResources") or {}).values()):
            return True
    return False


# -- the pod's statuses ----------------------------------------------------------------------


def _add(total: dict[str, Quantity], name: str, q: Quantity) -> None:
    # Quantity.Add: a zero receiver takes the addend's format.
    cur = total.get(name)
    total[name] = q if cur is None else Quantity(cur.amount + q.amount, cur.fmt)


def _mapping(name: str, m: Obj, result: Obj, claim: tuple[str, str], total: dict[str, Quantity]) -> None:
    """``addDeviceMapping``."""
    key = m.get("capacityKey")
    if key:
        consumed = result.get("consumedCapacity")
        if consumed is None:
            raise NodeAllocatableError(
                f"claim {claim[0]}/{claim[1]}, device {result.get('device')}: ConsumedCapacity is nil, "
                f"but Capacity key '{key}' is set in NodeAllocatableResources for resource {name}")
        if key in consumed:
            q = Quantity.of(consumed[key])
            mult = m.get("capacityMultiplier")
            if mult is not None and Quantity.of(mult).amount != 1:
                q = Quantity(q.amount * Quantity.of(mult).amount, q.fmt)
            _add(total, name, q)
        return
    if m.get("deviceMultiplier") is not None:
        _add(total, name, Quantity.of(m["deviceMultiplier"]))


def _qstr(q: Quantity) -> str:
    return format_quantity(q.amount, q.fmt)


def build_statuses(pod: Obj, allocations: Mapping[tuple[str, str, str], Obj],
                   claim_uids: Mapping[str, str], slices: Sequence[Obj], node: Obj | None) -> list[Obj]:
    """``buildNodeAllocatableDRAInfo``: per claim (namespace, name, uid) with a mapping or
    overhead, its status entry; containers referencing it by pod claim name."""
    by_uid: dict[str, Obj] = {}
    for (ns, name, uid), alloc in allocations.items():
        mapped: dict[str, Quantity] = {}
        per_pod: dict[str, Quantity] = {}
        per_ctr: dict[str, Quantity] = {}
        overheads: list[str] = []
        for r in (alloc.get("devices") or {}).get("results") or ():
            try:
                d = device_from_slices(slices, r, node)
            except NodeAllocatableError as e:
                raise NodeAllocatableError(
                    f"claim {ns}/{name}, device {r.get('device')}, driver {r.get('driver')}: {e}") from None
            for res, spec in (d.get("nodeAllocatableResources") or {}).items():
                if spec.get("mapping") is not None:
                    _mapping(res, spec["mapping"], r, (ns, name), mapped)
                o = spec.get("overhead") or {}
                if o.get("perPod") is None and o.get("perContainer") is None:
                    continue
                if res not in overheads:
                    overheads.append(res)
                if o.get("perPod") is not None:
                    _add(per_pod, res, Quantity.of(o["perPod"]))
                if o.get("perContainer") is not None:
                    _add(per_ctr, res, Quantity.of(o["perContainer"]))
        if mapped or overheads:
            entry: Obj = {"resourceClaimName": name, "containers": [],
                          "mapping": [{"name": k, "quantity": _qstr(mapped[k])} for k in sorted(mapped)],
                          "overhead": []}
            for res in sorted(overheads):
                oh: Obj = {"name": res}
                if res in per_pod:
                    oh["perPod"] = _qstr(per_pod[res])
                if res in per_ctr:
                    oh["perContainer"] = _qstr(per_ctr[res])
                entry["overhead"].append(oh)
            by_uid[uid] = entry
    spec = pod.get("spec") or {}
    for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        for ref in (c.get("resources") or {}).get("claims") or ():
            entry_ = by_uid.get(claim_uids.get(ref.get("name", ""), "\0"))
            if entry_ is not None:
                entry_["containers"].append(c["name"])
    return sorted(by_uid.values(), key=lambda e: str(e["resourceClaimName"]))


# -- demand and fit ------------------------------------------------------------------------


def _q(raw: object) -> Decimal:
    return Quantity.of(raw).amount


def _pod_level_supported(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith(_HUGEPAGES)


def _container_aggregate(pod: Obj) -> dict[str, int]:
    # AggregateContainerRequests without pod-level requests and overhead.
    spec = {k: v for k, v in (pod.get("spec") or {}).items() if k not in ("resources", "overhead")}
    return pod_requests({**pod, "spec": spec})


def pod_demand(pod: Obj, statuses: Sequence[Obj], pod_level: bool) -> dict[str, int]:
    """``PodRequests`` with UseDRANodeAllocatableResourceClaimStatus: the containers'
    aggregate plus the DRA amounts, then pod-level requests, then the overhead."""
    reqs = _container_aggregate(pod)
    for name, v in node_allocatable_amounts(statuses).items():
        reqs[name] = reqs.get(name, 0) + to_int(name, str(v))
    spec = pod.get("spec") or {}
    if pod_level:
        for name, raw in ((spec.get("resources") or {}).get("requests") or {}).items():
            if _pod_level_supported(name):
                reqs[name] = to_int(name, raw)
    for name, raw in (spec.get("overhead") or {}).items():
        reqs[name] = reqs.get(name, 0) + to_int(name, raw)
    return reqs


def node_fits_resources(ni: NodeInfo, demand: Mapping[str, int]) -> Status | None:
    """``nodeFitsResources``: cpu, memory, ephemeral storage and hugepages against what the
    node has left; UnschedulableAndUnresolvable when even the whole node is too small."""
    alloc, used = ni.allocatable, ni.requested
    rows = [("cpu", demand.get("cpu", 0), used.milli_cpu, alloc.milli_cpu),
            ("memory", demand.get("memory", 0), used.memory, alloc.memory),
            ("ephemeral-storage", demand.get("ephemeral-storage", 0), used.ephemeral_storage,
             alloc.ephemeral_storage)]
    reasons: list[str] = []
    unresolvable = False
    for name, want, have_used, cap in rows:
        if want > 0 and want > cap - have_used:
            reasons.append(f"Insufficient {name}")
            unresolvable |= want > cap
    for name in sorted(demand):
        if name.startswith(_HUGEPAGES):
            cap = alloc.scalar.get(name, 0)
            if demand[name] > cap - used.scalar.get(name, 0):
                reasons.append(f"Insufficient {name}")
                unresolvable |= demand[name] > cap
    if not reasons:
        return None
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE, tuple(reasons))


def _aggregate_limits(pod: Obj) -> dict[str, Decimal]:
    # AggregateContainerLimits (sidecars add, init containers take the max).
    spec = pod.get("spec") or {}
    total: dict[str, Decimal] = {}
    for c in spec.get("containers") or ():
        for k, v in ((c.get("resources") or {}).get("limits") or {}).items():
            total[k] = total.get(k, Decimal(0)) + _q(v)
    sidecars: dict[str, Decimal] = {}
    init_max: dict[str, Decimal] = {}
    for c in spec.get("initContainers") or ():
        one = {k: _q(v) for k, v in ((c.get("resources") or {}).get("limits") or {}).items()}
        if c.get("restartPolicy") == "Always":
            for k, v in one.items():
                total[k] = total.get(k, Decimal(0)) + v
                sidecars[k] = sidecars.get(k, Decimal(0)) + v
            one = dict(sidecars)
        else:
            for k, v in sidecars.items():
                one[k] = one.get(k, Decimal(0)) + v
        for k, v in one.items():
            init_max[k] = max(init_max.get(k, v), v)
    for k, v in init_max.items():
        total[k] = max(total.get(k, v), v)
    return total


def _container_dra(statuses: Sequence[Obj], container: str) -> dict[str, Decimal]:
    """``GetContainerDRAAllocations``: mappings and both overheads of the claims naming it."""
    out: dict[str, Decimal] = {}
    for st in statuses:
        if container not in (st.get("containers") or ()):
            continue
        for m in st.get("mapping") or ():
            if m.get("quantity") is not None:
                out[m["name"]] = out.get(m["name"], Decimal(0)) + _q(m["quantity"])
        for o in st.get("overhead") or ():
            v = sum((_q(o[f]) for f in ("perPod", "perContainer") if o.get(f) is not None), Decimal(0))
            out[o["name"]] = out.get(o["name"], Decimal(0)) + v
    return out


def validate_pod_level_cover(pod: Obj, pod_level: bool) -> Status | None:
    """``validatePodLevelResourcesCoverDRA``: pod-level requests and limits must cover the
    containers plus what the pod's node-allocatable claims add."""
    res = (pod.get("spec") or {}).get("resources")
    statuses = (pod.get("status") or {}).get(FIELD) or []
    if not pod_level or res is None or not statuses:
        return None
    uu = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    if res.get("requests") is not None:
        agg = {k: Decimal(v) for k, v in _container_aggregate(pod).items()}
        for k, v in node_allocatable_amounts(statuses).items():
            agg[k] = agg.get(k, Decimal(0)) + (v * 1000 if k == "cpu" else v)
        for name, raw in res["requests"].items():
            if not _pod_level_supported(name) or name not in agg:
                continue
            want = _q(raw) * 1000 if name == "cpu" else _q(raw)
            if agg[name] > want:
                return Status(uu, (f"pod level request for {name} is insufficient to cover the "
                                   "aggregated container and node-allocatable DRA requests",))
    limits = res.get("limits")
    if limits is not None:
        agg_l = _aggregate_limits(pod)
        dra = node_allocatable_amounts(statuses)
        for name, v in dra.items():  # addDRANodeAllocatableLimits
            if name in agg_l or name.startswith(_HUGEPAGES):
                agg_l[name] = agg_l.get(name, Decimal(0)) + v
        for name in sorted(agg_l):
            if name.startswith(_HUGEPAGES) and name in limits and agg_l[name] > _q(limits[name]):
                return Status(uu, (f"pod level limit for {name} is insufficient to cover the "
                                   "aggregated container and node-allocatable DRA limits",))
        for c in (pod.get("spec") or {}).get("containers") or ():
            extra = _container_dra(statuses, c["name"])
            for name, raw in ((c.get("resources") or {}).get("limits") or {}).items():
                if name.startswith(_HUGEPAGES) or name not in limits:
                    continue
                if _q(raw) + extra.get(name, Decimal(0)) > _q(limits[name]):
                    return Status(uu, (f"pod level limit for {name} is insufficient to cover the "
                                       f"limit and DRA overhead for container {c['name']}",))
    return None


# -- sharing ----------------------------------------------------------------------------


def _reserved_for_pod(pod: Obj, claim: Obj, workload_claims: bool) -> bool:
    """``resourceclaim.IsReservedForPod``: by uid, or (KEP-5729) the pod's PodGroup by name."""
    group = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    for r in (claim.get("status") or {}).get("reservedFor") or ():
        if r.get("uid") and r.get("uid") == pod["metadata"].get("uid"):
            return True
        if (workload_claims and group and r.get("apiGroup") == "scheduling.k8s.io"
                and r.get("resource") == "podgroups" and r.get("name") == group):
            return True
    return False


def validate_claim_sharing(pod: Obj, claim: Obj | None, mapped: bool, pending_pods: Iterable[str] | None,
                           workload_claims: bool) -> Status | None:
    """``validateNodeAllocatableDRAClaimSharing``: a claim with a mapped device is held by one
    pod (``pending_pods``: uids of pods that reserved it earlier in this pod-group cycle)."""
    if claim is None or not mapped:
        return None
    why = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (_SHARED.format(claim["metadata"]["name"]),))
    if (claim.get("status") or {}).get("reservedFor") and not _reserved_for_pod(pod, claim, workload_claims):
        return why
    if any(uid != pod["metadata"].get("uid") for uid in pending_pods or ()):
        return why
    return None


# -- PreBind / Unreserve ---------------------------------------------------------------------


def _same(a: Sequence[Obj], b: Sequence[Obj]) -> bool:
    # apiequality.Semantic.DeepEqual: quantities compare by value.
    def norm(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: (_q(v) if k in ("quantity", "perPod", "perContainer") else norm(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [norm(v) for v in x]
        return x
    return bool(norm(list(a)) == norm(list(b)))


def patch_status(server: Any, pod: Obj, statuses: Sequence[Obj]) -> Status | None:
    """``patchNodeAllocatableResourceClaimStatus``: the assumed pod already carries the
    statuses Filter computed; write them to the stored pod's status."""
    if not statuses:
        return None
    assumed = (pod.get("status") or {}).get(FIELD) or []
    if not _same(assumed, statuses):
        return Status(Code.ERROR, ("assumed pod status does not match calculated status to be patched",))
    ns, name = pod["metadata"].get("namespace", "default"), pod["metadata"]["name"]
    try:
        stored = server.get("v1", "Pod", name, ns)
        status = {**(stored.get("status") or {}), FIELD: copy.deepcopy(list(statuses))}
        server.update_status({**stored, "status": status})
    except ApiError as e:
        return Status(Code.ERROR, (f"updating pod {ns}/{name} NodeAllocatableResourceClaimStatuses: {e}",))
    return None


def clear_status(server: Any, pod: Obj) -> bool:
    """``clearNodeAllocatableResourceClaimStatus`` (Unreserve): empty the statuses of the
    same pod (by uid); False when there was nothing to clear or the write failed."""
    if not (pod.get("status") or {}).get(FIELD):
        return False
    ns, name = pod["metadata"].get("namespace", "default"), pod["metadata"]["name"]
    try:
        stored = server.get("v1", "Pod", name, ns)
        if stored["metadata"].get("uid") != pod["metadata"].get("uid"):
            return False  # the merge patch's uid precondition
        server.update_status({**stored, "status": {**(stored.get("status") or {}), FIELD: []}})
    except ApiError:
        return False  # upstream logs it
    return True


# -- the plugin's hooks ------------------------------------------------------------------------


@dataclass(slots=True)
class CycleData:
    """What the plugin keeps for one pod while the gate is on."""

    claim_uids: dict[str, str]  # pod claim name -> claim uid (foreachPodResourceClaim)
    mapped: dict[str, bool]  # claim key -> an allocated device maps a node resource
    statuses: dict[str, list[Obj]] = field(default_factory=dict)  # node -> statuses for PreBind
    # Whether any published device declares nodeAllocatableResources: when none does,
    # Filter has nothing to add per node (and the plugin's fast path stays usable).
    any_devices: bool = True


def _key(claim: Obj) -> str:
    return f'{claim["metadata"].get("namespace", "default")}/{claim["metadata"]["name"]}'


def any_node_allocatable(slices: Iterable[Obj]) -> bool:
    """Whether a published device declares ``nodeAllocatableResources`` (the plugin keeps
    it per set of slices: it is no per-pod fact)."""
    return any(d.get("nodeAllocatableResources")
               for s in slices for d in (s.get("spec") or {}).get("devices") or ())


def prepare(slices: Callable[[], Sequence[Obj]], claims: Sequence[Obj], refs: Sequence[Obj],
            any_devices: bool) -> CycleData:
    """PreFilter: claim uids by pod claim name; which allocated claims map resources
    (``claimHasNodeAllocatableMappedDevice``: the slices are listed only for those)."""
    uids = {str(r["name"]): str(c["metadata"].get("uid", "")) for c, r in zip(claims, refs, strict=True)}
    allocs = [(c, a) for c in claims if (a := (c.get("status") or {}).get("allocation"))]
    listed = slices() if allocs else ()
    mapped = {_key(c): claim_has_mapped_device(a, listed) for c, a in allocs}
    return CycleData(uids, mapped, any_devices=any_devices)


def check_sharing(data: CycleData, pod: Obj, claim: Obj, reused: bool, workload_claims: bool) -> Status | None:
    """Filter, per allocated claim: ``reused`` (a pending allocation another pod of the
    group reserved in this cycle) counts as that pod's pending allocation."""
    return validate_claim_sharing(pod, claim, data.mapped.get(_key(claim), False),
                                  ("<another pod of the group>",) if reused else None, workload_claims)


def check_node(data: CycleData, slices: Iterable[Obj], pod: Obj, claims: Sequence[Obj],
               new: Mapping[str, Obj], ni: NodeInfo, pod_level: bool) -> Status | None:
    """``calculateAndCheckNodeAllocatableResources``: ``new`` holds the allocations Filter
    found here (by claim key); the statuses are kept for PreBind when the pod fits."""
    data.statuses.pop(ni.name, None)
    if not data.any_devices:
        return None
    node = ni.node
    here = filter_slices_for_node(slices, node)
    allocs: dict[tuple[str, str, str], Obj] = {}
    for c in claims:
        a = new.get(_key(c)) or (c.get("status") or {}).get("allocation")
        if a and (a.get("devices") or {}).get("results") and uses_node_allocatable(a, here, node):
            m = c["metadata"]
            allocs[(m.get("namespace", "default"), m["name"], str(m.get("uid", "")))] = a
    if not allocs:
        return None
    try:
        statuses = build_statuses(pod, allocs, data.claim_uids, here, node)
    except NodeAllocatableError as e:
        return Status(Code.ERROR, (str(e),))
    with_status = {**pod, "status": {**(pod.get("status") or {}), FIELD: statuses}}
    st = validate_pod_level_cover(with_status, pod_level)
    if st is None:
        st = node_fits_resources(ni, pod_demand(with_status, statuses, pod_level))
    if st is None:
        data.statuses[ni.name] = statuses
    return st

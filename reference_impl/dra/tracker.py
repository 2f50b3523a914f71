"""The scheduler's DRA view, after ``dynamicresources`` + ``structured`` resource trackers.

Informer-fed: pools rebuilt when slices change, devices indexed by node, classes, taint
rules, claims (with an index from the owning pod's uid to its generated claims) and the
allocated state kept incrementally: per claim, the allocation it contributes, plus
allocations the scheduler has *assumed* at Reserve but not yet written at PreBind.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Priority
from reference_impl.dra.allocator import Allocator
from reference_impl.dra.features import features_from
from reference_impl.dra.free_index import FreeIndex
from reference_impl.dra.pools import DeviceID, DeviceInfo, ParsedCache, gather_pools
from reference_impl.dra.state import AllocatedState, apply_allocation
from reference_impl.dra.workload_claims import (
    POD_GROUP_VERSION,
    WORKLOAD_CLAIM_GATES,
    group_claim_entry,
    group_claim_name,
    group_consumer,
    pod_group_key,
)

__all__ = ["POD_CLAIM_NAME", "ClaimTracker"]

Obj = dict[str, Any]
API = "resource.k8s.io/v1"
POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"


class ClaimTracker:
    """Slices, classes, rules and claims, with the allocated-device state."""

    def __init__(
        self, ctx: ComponentContext, on_event: Callable[[str, ObjectEvent], None], eager: bool = False
    ) -> None:
        """``eager``: rebuild the device view after each burst of slice changes (on the
        clock), as upstream's scheduler keeps its slice tracker current from informer
        events, rather than in the first cycle that reads it."""
        self._ctx = ctx
        self._eager = eager
        self._on_event = on_event
        inf = ctx.informers
        self.slices = inf.informer(API, "ResourceSlice")
        self.classes = inf.informer(API, "DeviceClass")
        self.claims = inf.informer(API, "ResourceClaim")
        self.rules = inf.informer(API, "DeviceTaintRule")
        # KEP-5729: PodGroups whose claims pods may share (None: gate off).
        wl = all(ctx.gates.get(g, False) for g in WORKLOAD_CLAIM_GATES)
        self.groups = inf.informer(POD_GROUP_VERSION, "PodGroup") if wl else None
        self._dirty = True
        self._by_node: dict[str, list[DeviceInfo]] = {}
        self._global: list[DeviceInfo] = []
        # node name -> its devices in pool order (built on first use after each rebuild)
        self._for_node: dict[str, list[DeviceInfo]] = {}
        self._rank: dict[DeviceID, int] = {}  # a device's place in pool order
        self._by_id: dict[DeviceID, DeviceInfo] = {}
        self._for_pool: dict[tuple[str, str], list[DeviceInfo]] | None = None  # built on use
        self._counter_sets: dict[tuple[str, str], dict[str, dict[str, Decimal]]] = {}
        self.incomplete: list[str] = []
        self.state = AllocatedState()
        self._contrib: dict[str, Obj] = {}  # claim key -> allocation counted in state
        self.assumed: dict[str, Obj] = {}
        self.sharers: dict[str, int] = {}  # claim key -> pods sharing its assumed allocation
        self.generated: dict[str, dict[str, str]] = {}  # pod uid -> pod claim name -> claim key
        self._rng = ctx.rng.child("dra-shareid")
        self.features = features_from(ctx.gates)
        # Eligibility verdicts and the classes/rules snapshot, valid until those change.
        self._memo: dict[tuple[tuple[str, ...], str, DeviceID], bool] = {}
        self._policy: tuple[dict[str, Obj], list[Obj]] | None = None
        self._any: Allocator | None = None  # allocator(()), until any of its inputs change
        self._parsed: ParsedCache = {}
        self.free_index = FreeIndex()  # the scheduler fast path's free counts per node
        for c in self.claims.items():
            self._claim(None, c)
        self.slices.add_handler(lambda ev: self._changed("ResourceSlice", ev))
        self.classes.add_handler(lambda ev: self._policy_changed("DeviceClass", ev))
        self.rules.add_handler(lambda ev: self._policy_changed("DeviceTaintRule", ev))
        self.claims.add_handler(self._claim_event)
        if eager:
            self._refresh_soon()

    # -- events -------------------------------------------------------------------------

    def _policy_changed(self, kind: str, ev: ObjectEvent) -> None:
        self._memo, self._policy, self._any = {}, None, None
        self.free_index.reset()
        self._on_event(kind, ev)

    def _changed(self, kind: str, ev: ObjectEvent) -> None:
        if self._eager and not self._dirty:
            self._refresh_soon()
        self._dirty = True
        self._on_event(kind, ev)

    def _refresh_soon(self) -> None:
        # After the events due now: one rebuild for a whole burst of slice writes.
        self._ctx.clock.call_later(Duration(0), self._refresh, priority=Priority.LATE)

    def _claim_event(self, ev: ObjectEvent) -> None:
        deleted = ev.type == "DELETED"  # a DELETED event carries the object in ``obj``
        self._claim(ev.obj if deleted else ev.old, None if deleted else ev.obj)
        self._on_event("ResourceClaim", ev)

    def _claim(self, old: Obj | None, new: Obj | None) -> None:
        obj = new or old
        assert obj is not None
        key = object_key(obj)
        prev = self._contrib.pop(key, None)
        if prev is not None:
            apply_allocation(self.state, prev, self._by_id, -1)
        alloc = ((new or {}).get("status") or {}).get("allocation")
        if alloc:
            self._contrib[key] = alloc
            apply_allocation(self.state, alloc, self._by_id, +1)
        for ref in (obj["metadata"].get("ownerReferences") or ()):
            name = (obj["metadata"].get("annotations") or {}).get(POD_CLAIM_NAME)
            if ref.get("kind") in ("Pod", "PodGroup") and name:
                m = self.generated.setdefault(ref["uid"], {})
                if new is None:
                    m.pop(name, None)
                else:
                    m[name] = key

    # -- pools --------------------------------------------------------------------------

    def _refresh(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        self._memo, self._any = {}, None  # devices are rebuilt (their taints may have changed)
        pools, self.incomplete = gather_pools(self.slices.items(), self._parsed,
                                              self.features.compatibility_groups)
        self._by_node, self._global, self._by_id = {}, [], {}
        self._for_node, self._rank, self._for_pool = {}, {}, None
        self._counter_sets = {(p.driver, p.name): p.counter_sets for p in pools}
        for p in pools:
            for d in p.devices:
                self._rank[d.id] = len(self._by_id)
                self._by_id[d.id] = d
                if d.node_name is not None:
                    self._by_node.setdefault(d.node_name, []).append(d)
                else:
                    self._global.append(d)
        # Counters depend on the devices: recount every allocation against the new pools.
        self.state = AllocatedState()
        for alloc in [*self._contrib.values(), *self.assumed.values()]:
            apply_allocation(self.state, alloc, self._by_id, +1)

    def refresh(self) -> None:
        """Bring the devices, the state and the free index up to date with the informers."""
        self._refresh()

    def devices_for(self, node_name: str) -> list[DeviceInfo]:
        """Devices usable from ``node_name``, its own and non-local ones, in pool order
        (upstream's allocator tries them so). One list per node and rebuild: callers
        must not change it."""
        self._refresh()
        out = self._for_node.get(node_name)
        if out is None:
            own = self._by_node.get(node_name, [])
            if own and self._global:
                out = list(heapq.merge(own, self._global, key=lambda d: self._rank[d.id]))
            else:
                out = own or self._global
            self._for_node[node_name] = out
        return out

    def pool_devices(self, driver: str, pool: str) -> list[DeviceInfo]:
        """The devices of pool ``(driver, pool)``, wherever usable, in pool order. Callers
        must not change the list."""
        self._refresh()
        if self._for_pool is None:
            self._for_pool = {}
            for d in self._by_id.values():
                self._for_pool.setdefault((d.id[0], d.id[1]), []).append(d)
        return self._for_pool.get((driver, pool), [])

    def device(self, did: DeviceID) -> DeviceInfo | None:
        """A published device by id."""
        self._refresh()
        return self._by_id.get(did)

    def allocator(self, devices: Sequence[DeviceInfo]) -> Allocator:
        """An allocator over ``devices`` with the current classes, rules and state."""
        self._refresh()
        if self._policy is None:
            classes = {str(c["metadata"]["name"]): c for c in self.classes.cache.values()}
            self._policy = (classes, list(self.rules.items()))
        classes, rules = self._policy
        return Allocator(devices, self._counter_sets, classes, rules, self.state, self._share_id,
                         memo=self._memo, features=self.features, published=self._by_id.get)

    def any_allocator(self) -> Allocator:
        """``allocator(())``, kept while the classes, rules, devices and state stay: for
        callers that name the devices of each node they ask about, or only build results."""
        self._refresh()
        if self._any is None:
            self._any = self.allocator(())
        return self._any

    def _share_id(self) -> str:
        return self._rng.uuid4()

    # -- assumed allocations --------------------------------------------------------------

    def assume(self, claim_key: str, alloc: Obj) -> None:
        """Count ``alloc`` as in use until it is written or forgotten
        (``SignalClaimPendingAllocation``): a claim assumed already gains one more sharer
        and keeps its allocation."""
        if claim_key in self.assumed:
            self.sharers[claim_key] += 1
            return
        self._refresh()
        self.assumed[claim_key] = alloc
        self.sharers[claim_key] = 1
        apply_allocation(self.state, alloc, self._by_id, +1)

    def forget(self, claim_key: str, force: bool = True) -> bool:
        """Drop a sharer of an assumed allocation, the allocation with its last sharer or
        with ``force`` (``MaybeRemoveClaimPendingAllocation``); whether it was dropped."""
        if claim_key not in self.assumed:
            return False
        if not force and self.sharers[claim_key] > 1:
            self.sharers[claim_key] -= 1
            return False
        alloc = self.assumed.pop(claim_key)
        del self.sharers[claim_key]
        apply_allocation(self.state, alloc, self._by_id, -1)
        return True

    # -- claims of a pod ----------------------------------------------------------------

    def group_of(self, pod: Obj, ref: Obj) -> tuple[Obj, Obj] | None:
        """(PodGroup, its matching claim entry) when ``ref`` is a shared group claim."""
        key = pod_group_key(pod) if self.groups is not None else None
        pg = self.groups.get(key) if self.groups is not None and key else None
        entry = group_claim_entry(ref, pg)
        return (pg, entry) if pg is not None and entry is not None else None

    @staticmethod
    def consumer_for(pod: Obj, shared: tuple[Obj, Obj] | None) -> Obj:
        """The ``reservedFor`` entry a claim of the pod gets, given what ``group_of``
        answered for its entry: the PodGroup, or the pod."""
        if shared is not None:
            return group_consumer(shared[0])
        return {"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}

    def claim_name(self, pod: Obj, ref: Obj) -> str | None:
        """The claim a pod's ``spec.resourceClaims[]`` entry resolves to (None: not yet)."""
        return self.claim_name_for(pod, ref, self.group_of(pod, ref))

    def claim_name_for(self, pod: Obj, ref: Obj, shared: tuple[Obj, Obj] | None) -> str | None:
        """``claim_name``, given what ``group_of`` answered for ``ref``."""
        if shared is not None:
            pg, entry = shared
            name = group_claim_name(pg, entry)
            if name is None:  # generated, but the PodGroup status may lag the claim
                gkey = self.generated.get(pg["metadata"].get("uid", ""), {}).get(entry["name"])
                name = gkey.split("/", 1)[1] if gkey else None
            return name
        if ref.get("resourceClaimName"):
            return str(ref["resourceClaimName"])
        for st in (pod.get("status") or {}).get("resourceClaimStatuses") or ():
            if st.get("name") == ref["name"] and st.get("resourceClaimName"):
                return str(st["resourceClaimName"])
        key = self.generated.get(pod["metadata"].get("uid", ""), {}).get(ref["name"])
        return key.split("/", 1)[1] if key else None

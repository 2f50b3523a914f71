"""DRA in the autoscaler's simulation (cluster-autoscaler ``simulator/dynamicresources``).

Upstream's snapshot carries each node's ResourceSlices, and for a template node the
slices its DRA driver would publish; the scheduler's DynamicResources plugin then runs
the structured allocator in the simulation. Here:

* ``claims`` resolves a pending pod's claims (a claim not generated yet means the pod
  cannot be judged this loop);
* ``fits_existing`` runs the allocator against a real node's published devices and the
  cluster's allocated state (a pod that fits is left to the scheduler);
* ``TemplateDevices`` holds a planned or template node's devices with the allocations
  planned on it this loop, so two pods never plan the same device;
* ``device_holders`` keeps scale-down away from a node whose devices are in use
  (upstream counts DRA utilization in scale-down; an allocated device pins its node).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import object_key
from reference_impl.autoscaler.config import NodeGroup
from reference_impl.autoscaler.templates import slice_manifests
from reference_impl.dra.allocator import AllocationError, Allocator
from reference_impl.dra.nodes import node_selector_matches
from reference_impl.dra.pools import DeviceID, DeviceInfo, gather_pools
from reference_impl.dra.state import AllocatedState, apply_allocation
from reference_impl.dra.tracker import ClaimTracker

__all__ = ["DraSimulation", "PodClaims", "TemplateDevices"]

Obj = dict[str, Any]


@dataclass(slots=True)
class PodClaims:
    """A pod's claims: those still to allocate and those already allocated."""

    pending: list[Obj] = field(default_factory=list)
    allocated: list[Obj] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.pending or self.allocated)


@dataclass(slots=True)
class TemplateDevices:
    """The devices of a node that does not exist yet, and what this loop planned on it."""

    node: Obj
    devices: list[DeviceInfo]
    counters: dict[tuple[str, str], dict[str, Any]]
    state: AllocatedState = field(default_factory=AllocatedState)


def _node(name: str, labels: dict[str, str]) -> Obj:
    return {"metadata": {"name": name, "labels": labels}}


class DraSimulation:
    """The autoscaler's DRA view; built on first use, so a cluster without claims pays
    nothing."""

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._tracker: ClaimTracker | None = None
        self._share = 0

    @property
    def tracker(self) -> ClaimTracker:
        """The informer-fed claim, slice and class view (the scheduler's own kind)."""
        if self._tracker is None:
            self._tracker = ClaimTracker(self._ctx, lambda _kind, _ev: None)
        return self._tracker

    def claims(self, pod: Obj) -> PodClaims | None:
        """The pod's claims, or None when one does not exist yet."""
        refs = pod["spec"].get("resourceClaims") or ()
        out = PodClaims()
        if not refs:
            return out
        ns = pod["metadata"].get("namespace", "default")
        for ref in refs:
            name = self.tracker.claim_name(pod, ref)
            claim = self.tracker.claims.get(f"{ns}/{name}") if name else None
            if claim is None:
                return None
            if (claim.get("status") or {}).get("allocation"):
                out.allocated.append(claim)
            else:
                out.pending.append(claim)
        return out

    def _allocator(
        self, devices: Sequence[DeviceInfo], counters: Any, state: AllocatedState
    ) -> Allocator:
        classes = {str(c["metadata"]["name"]): c for c in self.tracker.classes.items()}
        # The cluster's DRA gates (list attributes, derived attributes, ...) apply to the
        # simulation as to the scheduler.
        return Allocator(
            devices,
            counters,
            classes,
            list(self.tracker.rules.items()),
            state,
            self._share_id,
            features=self.tracker.features,
        )

    def _share_id(self) -> str:
        self._share += 1
        return f"00000000-0000-4000-8000-{self._share:012d}"

    @staticmethod
    def _allocated_fit(claims: PodClaims, node: Obj) -> bool:
        for c in claims.allocated:
            sel = c["status"]["allocation"].get("nodeSelector")
            if sel and not node_selector_matches(sel, node):
                return False
        return True

    def fits_existing(self, claims: PodClaims, name: str, labels: dict[str, str]) -> bool:
        """Whether the claims can be allocated (or are usable) on existing node ``name``."""
        node = _node(name, labels)
        if not self._allocated_fit(claims, node):
            return False
        if not claims.pending:
            return True
        try:
            alloc = self.tracker.allocator(self.tracker.devices_for(name))
            return alloc.plan(claims.pending, node) is not None
        except AllocationError:
            return False

    def template(self, group: NodeGroup, name: str, labels: dict[str, str]) -> TemplateDevices:
        """The devices a new node ``name`` of ``group`` would publish, none allocated."""
        pools, _ = gather_pools(slice_manifests(group, name), None, self.tracker.features.compatibility_groups)
        devices = [d for p in pools for d in p.devices]
        counters = {(p.driver, p.name): p.counter_sets for p in pools}
        return TemplateDevices(_node(name, labels), devices, counters)

    def plan_on(self, claims: PodClaims, tpl: TemplateDevices) -> list[Obj] | None:
        """Allocations for the claims on a template node (None: they do not fit)."""
        if not self._allocated_fit(claims, tpl.node):
            return None
        if not claims.pending:
            return []
        try:
            return self._allocator(tpl.devices, tpl.counters, tpl.state).allocate(
                claims.pending, tpl.node
            )
        except AllocationError:
            return None

    @staticmethod
    def place(tpl: TemplateDevices, allocations: list[Obj]) -> None:
        """Count planned allocations as taken on the template node."""
        by_id = {d.id: d for d in tpl.devices}
        for alloc in allocations:
            apply_allocation(tpl.state, alloc, by_id, +1)

    def device_holders(self, node: str) -> list[str]:
        """The claims (namespace/name) holding devices of ``node``'s own pools."""
        local: set[DeviceID] = {d.id for d in self.tracker.devices_for(node) if d.node_name == node}
        holders = []
        for claim in self.tracker.claims.items():
            alloc = (claim.get("status") or {}).get("allocation") or {}
            for r in (alloc.get("devices") or {}).get("results") or ():
                if (r.get("driver"), r.get("pool"), r.get("device")) in local:
                    holders.append(object_key(claim))
                    break
        return holders

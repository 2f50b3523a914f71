"""Models pkg/scheduler/framework/plugins/topologyaware/topology_placement.go.

PlacementGenerate for a PodGroup with a topology constraint: one placement per value of
the constraint's node label (nodes without the label take no part). Once members are
scheduled, only the value they run in is offered. No constraint: the parent placement.
"""

from __future__ import annotations

from typing import Any, Final, final

from reference_impl.scheduler.framework.interface import OK, Code, Plugin, Status
from reference_impl.scheduler.framework.placement import (
    Placement,
    PlacementGeneratePlugin,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "TopologyPlacement", "new", "topology_key"]

Obj = dict[str, Any]
NAME: Final = names.TOPOLOGY_PLACEMENT_GENERATOR


def topology_key(group: Obj) -> str | None:
    """The key of the (single, as the API allows) topology constraint, or None."""
    constraints = (group.get("spec") or {}).get("schedulingConstraints") or {}
    topology = constraints.get("topology") or []
    return str(topology[0]["key"]) if topology else None


@final
class TopologyPlacement:
    """One candidate placement per topology domain."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def generate_placements(
        self, group: PodGroupInfo, parent: Placement
    ) -> tuple[list[Placement], Status]:
        """The domains of ``parent``'s nodes, only the scheduled members' one if any."""
        key = topology_key(group.pod_group)
        if key is None:
            return [parent], OK
        if group.walk_error:  # getScheduledPods failed
            return [], Status(Code.ERROR, (group.walk_error,))
        required: str | None = None
        for node_name in group.scheduled_nodes:
            ni = self._handle.snapshot_shared_lister().get(node_name)
            domain = ni.labels.get(key) if ni is not None else None
            if domain is None:
                return [], Status(Code.ERROR, (
                    "cannot determine domain for already scheduled pods: no topology domain "
                    f"found for a pod on node {node_name}",))
            if required is not None and required != domain:
                return [], Status(Code.ERROR, (
                    "cannot determine domain for already scheduled pods: more than 1 domain "
                    f"found for pod group: {required}, {domain}",))
            required = domain
        by_domain: dict[str, list[NodeInfo]] = {}
        for ni in parent.nodes:
            domain = ni.labels.get(key)
            if domain is not None and (required is None or domain == required):
                by_domain.setdefault(domain, []).append(ni)
        # Upstream ranges over a map; sorted here so that ties fall deterministically.
        return [Placement(d, by_domain[d]) for d in sorted(by_domain)], OK


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; the plugin takes no args."""
    return TopologyPlacement(handle)


_: type[PlacementGeneratePlugin] = TopologyPlacement

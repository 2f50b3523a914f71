"""The DaemonSet rolling update (``pkg/controller/daemon/update.go``): ``rollingUpdate``,
``findUpdatedPodsOnNode`` and ``updatedDesiredNodeCounts``.

Go walks the node-to-pods map in random order; here nodes go by name, so which
candidates fit under maxUnavailable or maxSurge is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.clock import Instant
from reference_impl.controllers.controller_utils import is_pod_available
from reference_impl.controllers.daemon.placement import Placement
from reference_impl.controllers.daemon.util import (
    generation_or_none,
    is_pod_updated,
    surge_count,
    unavailable_count,
)

__all__ = ["RollingPlan", "find_updated_pods_on_node", "rolling_update", "updated_desired_node_counts"]

Obj = dict[str, Any]


def find_updated_pods_on_node(
    ds: Mapping[str, Any], pods: list[Obj], hash_: str
) -> tuple[Obj | None, Obj | None, bool]:
    """``findUpdatedPodsOnNode``: (new pod, old pod, ok) over pods not being deleted;
    not ok when there are two new or two old ones."""
    new: Obj | None = None
    old: Obj | None = None
    generation = generation_or_none(ds)
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        if is_pod_updated(pod, hash_, generation):
            if new is not None:
                return None, None, False
            new = pod
        else:
            if old is not None:
                return None, None, False
            old = pod
    return new, old, True


def updated_desired_node_counts(
    ds: Mapping[str, Any],
    nodes: list[Obj],
    node_to_pods: dict[str, list[Obj]],
    placement: Placement,
) -> tuple[int, int, int]:
    """``updatedDesiredNodeCounts``: (maxSurge, maxUnavailable, desiredNumberScheduled);
    every node that should run a pod gets an entry in ``node_to_pods``. Neither surge
    nor unavailability configured falls back to one unavailable (ValueError on bad
    percentages)."""
    desired = 0
    for node in nodes:
        if not placement.should_run(node)[0]:
            continue
        desired += 1
        node_to_pods.setdefault(str(node["metadata"]["name"]), [])
    try:
        max_unavailable = unavailable_count(ds, desired)
    except ValueError as exc:
        raise ValueError(f"invalid value for MaxUnavailable: {exc}") from None
    try:
        max_surge = surge_count(ds, desired)
    except ValueError as exc:
        raise ValueError(f"invalid value for MaxSurge: {exc}") from None
    if desired > 0 and max_unavailable == 0 and max_surge == 0:
        max_unavailable = 1
    return max_surge, max_unavailable, desired


@dataclass(frozen=True, slots=True)
class RollingPlan:
    """What one rolling-update pass asks ``syncNodes`` to do."""

    pods_to_delete: list[str]
    nodes_to_create: list[str]


def rolling_update(
    ds: Mapping[str, Any],
    nodes: list[Obj],
    node_to_pods: dict[str, list[Obj]],
    hash_: str,
    now: Instant,
    placement: Placement,
    get_node: Callable[[str], Obj | None],
) -> RollingPlan:
    """``rollingUpdate``: without surge, delete old pods while the unavailable count
    stays within maxUnavailable (unavailable old pods always); with surge, create new
    pods beside old ones up to maxSurge and delete old pods once their new pod is
    available."""
    max_surge, max_unavailable, desired = updated_desired_node_counts(ds, nodes, node_to_pods, placement)
    min_ready = int(ds["spec"].get("minReadySeconds", 0) or 0)

    def available(pod: Obj) -> bool:
        return is_pod_available(pod, min_ready, now)

    if max_surge == 0:
        num_unavailable = 0
        allowed: list[str] = []
        candidates: list[str] = []
        for node_name in sorted(node_to_pods):
            new, old, ok = find_updated_pods_on_node(ds, node_to_pods[node_name], hash_)
            if not ok or (old is None) == (new is None):
                num_unavailable += 1  # the manage loop creates or prunes here
            elif new is not None:
                if not available(new):
                    num_unavailable += 1
            elif old is not None:
                if not available(old):
                    allowed.append(str(old["metadata"]["name"]))
                    num_unavailable += 1
                elif num_unavailable < max_unavailable:
                    candidates.append(str(old["metadata"]["name"]))
        remaining = min(max(max_unavailable - num_unavailable, 0), len(candidates))
        return RollingPlan(allowed + candidates[:remaining], [])

    old_to_delete: list[str] = []
    should_not_run: list[str] = []
    candidate_nodes: list[str] = []
    allowed_nodes: list[str] = []
    num_surge = 0
    num_available = 0
    for node_name in sorted(node_to_pods):
        new, old, ok = find_updated_pods_on_node(ds, node_to_pods[node_name], hash_)
        if not ok:
            num_surge += 1
            continue
        if old is not None:
            num_available += available(old)
        elif new is not None:
            num_available += available(new)
        if old is None:
            continue
        if new is None:
            node = get_node(node_name)
            if node is None:
                raise LookupError(f'couldn\'t get node for nodeName "{node_name}"')
            should_run = placement.should_run(node)[0]
            if not available(old):
                if not should_run:
                    old_to_delete.append(str(old["metadata"]["name"]))
                    continue
                allowed_nodes.append(node_name)
            else:
                if not should_run:
                    should_not_run.append(str(old["metadata"]["name"]))
                    continue
                if num_surge >= max_surge:
                    continue
                candidate_nodes.append(node_name)
        else:
            if not available(new):
                num_surge += 1
                continue
            old_to_delete.append(str(old["metadata"]["name"]))
    # With surge the owner expects full availability: a pod on a node it should leave
    # goes only once enough pods are available elsewhere.
    deletable = min(num_available - desired, len(should_not_run))
    if deletable > 0:
        old_to_delete.extend(should_not_run[:deletable])
    remaining = min(max(max_surge - num_surge, 0), len(candidate_nodes))
    return RollingPlan(old_to_delete, allowed_nodes + candidate_nodes[:remaining])


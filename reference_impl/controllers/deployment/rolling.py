"""The RollingUpdate strategy (``pkg/controller/deployment/rolling.go``).

Scale the new ReplicaSet up within maxSurge, then scale old ones down while at least
``replicas - maxUnavailable`` pods stay available; unhealthy old pods go first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.controllers.deployment import sync
from reference_impl.controllers.deployment.util import (
    by_creation,
    is_rolling,
    max_surge,
    max_unavailable,
    spec_replicas,
    status_sum,
)

if TYPE_CHECKING:
    from reference_impl.controllers.deployment.controller import DeploymentController

__all__ = [
    "cleanup_unhealthy_replicas",
    "new_rs_new_replicas",
    "reconcile_new_replica_set",
    "reconcile_old_replica_sets",
    "rollout_rolling",
    "scale_down_old_replica_sets",
]

Obj = dict[str, Any]


def _size(rs: Obj) -> int:
    return int(rs["spec"].get("replicas", 0))


def _stale(rss: list[Obj]) -> bool:
    # A set whose status predates its last scale would make availability look better than
    # it is; wait for the ReplicaSet controller (its status write requeues us).
    return any(
        int((rs.get("status") or {}).get("observedGeneration", 0))
        < int(rs["metadata"].get("generation", 1))
        for rs in rss
    )


def new_rs_new_replicas(d: Obj, all_rss: list[Obj], new_rs: Obj | None) -> int:
    """``NewRSNewReplicas``: how big the new set may be now."""
    desired = int(d["spec"].get("replicas", 1))
    if not is_rolling(d):
        return desired
    current = spec_replicas(all_rss)
    new_size = _size(new_rs) if new_rs is not None else 0
    max_total = desired + max_surge(d)
    if current >= max_total:
        return new_size
    return new_size + min(max_total - current, desired - new_size)


def rollout_rolling(dc: DeploymentController, d: Obj, rs_list: list[Obj]) -> None:
    """``rolloutRolling``: one step of a rolling update, then status."""
    new_rs, old = dc.get_all_replica_sets(d, rs_list, create=True)
    assert new_rs is not None
    all_rss = [*old, new_rs]
    if not _stale(all_rss):
        if reconcile_new_replica_set(dc, d, all_rss, new_rs) or reconcile_old_replica_sets(
            dc, d, all_rss, old, new_rs
        ):
            sync.sync_rollout_status(dc, d, all_rss, new_rs)
            return
        if sync.deployment_complete(d, d.get("status") or {}):
            sync.cleanup_deployment(dc, d, old)
    sync.sync_rollout_status(dc, d, all_rss, new_rs)


def reconcile_new_replica_set(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], new_rs: Obj
) -> bool:
    """``reconcileNewReplicaSet``: scale the new set toward spec.replicas within maxSurge."""
    desired = int(d["spec"].get("replicas", 1))
    if _size(new_rs) == desired:
        return False
    if _size(new_rs) > desired:
        return dc.scale_replica_set(new_rs, desired, d)
    return dc.scale_replica_set(new_rs, new_rs_new_replicas(d, all_rss, new_rs), d)


def reconcile_old_replica_sets(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], old: list[Obj], new_rs: Obj
) -> bool:
    """``reconcileOldReplicaSets``: unhealthy old pods first, then old sets down to
    minAvailable, never counting the new set's unavailable pods as removable."""
    if spec_replicas(old) == 0:
        return False
    min_available = int(d["spec"].get("replicas", 1)) - max_unavailable(d)
    new_unavailable = _size(new_rs) - int((new_rs.get("status") or {}).get("availableReplicas", 0))
    max_scaled_down = spec_replicas(all_rss) - min_available - new_unavailable
    if max_scaled_down <= 0:
        return False
    cleaned = cleanup_unhealthy_replicas(dc, d, old, max_scaled_down)
    scaled = scale_down_old_replica_sets(dc, d, [*old, new_rs], old)
    return cleaned + scaled > 0


def cleanup_unhealthy_replicas(dc: DeploymentController, d: Obj, old: list[Obj], limit: int) -> int:
    """``cleanupUnhealthyReplicas``: scale down old sets' unavailable pods first (oldest
    set first, at most ``limit``); they cost no availability."""
    total = 0
    for rs in sorted(old, key=by_creation):
        if total >= limit:
            break
        size = _size(rs)
        available = int((rs.get("status") or {}).get("availableReplicas", 0))
        if size == 0 or size == available:
            continue
        n = min(limit - total, size - available)
        dc.scale_replica_set(rs, size - n, d)
        total += n
    return total


def scale_down_old_replica_sets(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], old: list[Obj]
) -> int:
    """``scaleDownOldReplicaSetsForRollingUpdate``: oldest first, down to minAvailable."""
    min_available = int(d["spec"].get("replicas", 1)) - max_unavailable(d)
    available = status_sum(all_rss, "availableReplicas")
    if available <= min_available:
        return 0
    budget, total = available - min_available, 0
    for rs in sorted(old, key=by_creation):
        if total >= budget:
            break
        if _size(rs) == 0:
            continue
        n = min(_size(rs), budget - total)
        dc.scale_replica_set(rs, _size(rs) - n, d)
        total += n
    return total

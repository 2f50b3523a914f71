"""Scaling, cleanup and status (``pkg/controller/deployment/sync.go``, ``progress.go``)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from reference_impl.apiserver.informers import object_key
from reference_impl.clock import Duration, rfc3339, seconds
from reference_impl.controllers.deployment import progress
from reference_impl.controllers.deployment.progress import calculate_status, deployment_complete
from reference_impl.controllers.deployment.util import (
    DESIRED_REPLICAS,
    by_creation,
    is_rolling,
    max_surge,
    parse_revision,
    replica_set_proportion,
    set_deployment_condition,
    spec_replicas,
)
from reference_impl.errors import Conflict, NotFound

if TYPE_CHECKING:
    from reference_impl.controllers.deployment.controller import DeploymentController

__all__ = [
    "calculate_status",
    "deployment_complete",
    "is_scaling_event",
    "sync",
    "sync_deployment_status",
    "sync_rollout_status",
]

Obj = dict[str, Any]


def _replicas(d: Obj) -> int:
    return int(d["spec"].get("replicas", 1))


def _all(new_rs: Obj | None, old: list[Obj]) -> list[Obj]:
    return old + ([new_rs] if new_rs is not None else [])


def is_scaling_event(dc: DeploymentController, d: Obj, rs_list: list[Obj]) -> bool:
    """An active ReplicaSet's desired-replicas annotation differs from spec.replicas."""
    new_rs, old = dc.get_all_replica_sets(d, rs_list, create=False)
    for rs in _all(new_rs, old):
        if int(rs["spec"].get("replicas", 0)) <= 0:
            continue
        desired = (rs["metadata"].get("annotations") or {}).get(DESIRED_REPLICAS)
        if desired is not None and desired != str(_replicas(d)):
            return True
    return False


def sync(dc: DeploymentController, d: Obj, rs_list: list[Obj]) -> None:
    """Scale without rolling out (``dc.sync``): scaling events and paused Deployments."""
    new_rs, old = dc.get_all_replica_sets(d, rs_list, create=False)
    scale(dc, d, new_rs, old)
    if d["spec"].get("paused"):
        cleanup_deployment(dc, d, old)
    sync_deployment_status(dc, d, _all(new_rs, old), new_rs)


def scale(dc: DeploymentController, d: Obj, new_rs: Obj | None, old: list[Obj]) -> None:
    """Proportional scaling across ReplicaSets (``dc.scale``)."""
    active = [rs for rs in _all(new_rs, old) if int(rs["spec"].get("replicas", 0)) > 0]
    if len(active) <= 1:
        target = active[0] if active else (new_rs or (max(old, key=by_creation) if old else None))
        if target is not None:
            dc.scale_replica_set(target, _replicas(d), d)
        return
    if new_rs is not None and _saturated(d, new_rs):
        for rs in old:
            if int(rs["spec"].get("replicas", 0)) > 0:
                dc.scale_replica_set(rs, 0, d)
        return
    if not is_rolling(d):
        return
    allowed = _replicas(d) + max_surge(d) if _replicas(d) > 0 else 0
    to_add = allowed - spec_replicas(active)
    # Scaling up favours newer sets, scaling down older ones (ReplicaSetsBySize*).
    if to_add > 0:
        active.sort(key=lambda rs: (-int(rs["spec"]["replicas"]), -by_creation(rs)[0]))
    else:
        active.sort(key=lambda rs: (-int(rs["spec"]["replicas"]), by_creation(rs)[0]))
    sizes, added = {}, 0
    for rs in active:
        p = replica_set_proportion(rs, d, to_add, added)
        sizes[rs["metadata"]["name"]] = int(rs["spec"]["replicas"]) + p
        added += p
    first = active[0]["metadata"]["name"]
    sizes[first] += to_add - added  # the leftover goes to the largest set
    for rs in active:
        dc.scale_replica_set(rs, max(0, sizes[rs["metadata"]["name"]]), d, force=True)


def _saturated(d: Obj, rs: Obj) -> bool:
    desired = (rs["metadata"].get("annotations") or {}).get(DESIRED_REPLICAS)
    return (
        int(rs["spec"].get("replicas", 0)) == _replicas(d)
        and desired == str(_replicas(d))
        and int((rs.get("status") or {}).get("availableReplicas", 0)) == _replicas(d)
    )


def cleanup_deployment(dc: DeploymentController, d: Obj, old: list[Obj]) -> None:
    """``cleanupDeployment``: of the live old sets beyond revisionHistoryLimit (lowest
    revision first), delete those that are empty and observed; the rest keep their slot."""
    for rs in sets_to_clean_up(d, old):
        dc.ctx.trace.record(dc.name, "delete-rs", object_key(rs), "revisionHistoryLimit")
        try:
            dc.server.delete(
                "apps/v1",
                "ReplicaSet",
                rs["metadata"]["name"],
                rs["metadata"]["namespace"],
                uid=rs["metadata"]["uid"],
            )
        except (NotFound, Conflict):
            pass


def sets_to_clean_up(d: Obj, old: list[Obj]) -> list[Obj]:
    """The ReplicaSets ``cleanupDeployment`` deletes."""
    limit = d["spec"].get("revisionHistoryLimit")
    if limit is None or int(limit) == 2**31 - 1:
        return []  # HasRevisionHistoryLimit: keep everything
    alive = [rs for rs in old if not rs["metadata"].get("deletionTimestamp")]
    diff = len(alive) - int(limit)
    if diff <= 0:
        return []
    alive.sort(key=functools.cmp_to_key(_by_revision))
    return [
        rs
        for rs in alive[:diff]
        if int((rs.get("status") or {}).get("replicas", 0)) == 0
        and int(rs["spec"].get("replicas", 0)) == 0
        and int(rs["metadata"].get("generation", 0))
        <= int((rs.get("status") or {}).get("observedGeneration", 0))
    ]


def _by_revision(a: Obj, b: Obj) -> int:
    """``ReplicaSetsByRevision``: by revision; unparsable or equal ones by creation."""
    ra, rb = parse_revision(a), parse_revision(b)
    if ra is None or rb is None or ra == rb:
        ca, cb = by_creation(a), by_creation(b)
        return -1 if ca < cb else 1 if cb < ca else 0
    return -1 if ra < rb else 1


def sync_deployment_status(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], new_rs: Obj | None
) -> None:
    """Write the calculated status when it changed (``syncDeploymentStatus``)."""
    status = calculate_status(d, all_rss, new_rs, rfc3339(dc.ctx.clock.now()))
    _write_status(dc, d, status)


def sync_rollout_status(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], new_rs: Obj | None
) -> None:
    """Status plus the Progressing condition (``syncRolloutStatus``)."""
    now = dc.ctx.clock.now()
    status = progress.rollout_status(d, all_rss, new_rs, now)
    if status == (d.get("status") or {}):
        # Nothing new: come back when the progress deadline may have passed.
        after = progress.requeue_after(d, status, now)
        if after == 0:
            dc.queue.add_after(object_key(d), seconds(1))
        elif after > 0:
            dc.queue.add_after(object_key(d), Duration(after + seconds(1)))
    _write_status(dc, d, status)


def set_progressing(
    dc: DeploymentController, d: Obj, reason: str, message: str, status: str = "True"
) -> None:
    """Set the Progressing condition on the in-memory Deployment; the sync's status write
    saves it."""
    now = rfc3339(dc.ctx.clock.now())
    conditions = d.setdefault("status", {})
    set_deployment_condition(conditions, "Progressing", status, reason, message, now)


def _write_status(dc: DeploymentController, d: Obj, status: Obj) -> None:
    if status == (
        dc.server.get(
            "apps/v1", "Deployment", d["metadata"]["name"], d["metadata"]["namespace"]
        ).get("status")
        or {}
    ):
        return
    dc.server.update_status({**d, "status": status})

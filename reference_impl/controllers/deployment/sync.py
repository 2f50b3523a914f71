"""Scaling, cleanup and status (``pkg/controller/deployment/sync.go``, ``progress.go``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.apiserver.informers import object_key
from reference_impl.clock import Duration, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.deployment.util import (
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    by_creation,
    condition_of,
    is_rolling,
    max_surge,
    max_unavailable,
    revision,
    set_deployment_condition,
    spec_replicas,
    status_sum,
)
from reference_impl.errors import Conflict, NotFound

if TYPE_CHECKING:
    from reference_impl.controllers.deployment.controller import DeploymentController

__all__ = ["is_scaling_event", "sync", "sync_deployment_status", "sync_rollout_status"]

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
        p = _proportion(d, rs, to_add, added)
        sizes[rs["metadata"]["name"]] = int(rs["spec"]["replicas"]) + p
        added += p
    first = active[0]["metadata"]["name"]
    sizes[first] += to_add - added  # the leftover goes to the largest set
    for rs in active:
        dc.scale_replica_set(rs, max(0, sizes[rs["metadata"]["name"]]), d)


def _saturated(d: Obj, rs: Obj) -> bool:
    desired = (rs["metadata"].get("annotations") or {}).get(DESIRED_REPLICAS)
    return (
        int(rs["spec"].get("replicas", 0)) == _replicas(d)
        and desired == str(_replicas(d))
        and int((rs.get("status") or {}).get("availableReplicas", 0)) == _replicas(d)
    )


def _proportion(d: Obj, rs: Obj, to_add: int, added: int) -> int:
    size = int(rs["spec"].get("replicas", 0))
    if size == 0 or to_add == 0 or to_add == added:
        return 0
    if _replicas(d) == 0:
        fraction = -size
    else:
        annotated = (rs["metadata"].get("annotations") or {}).get(MAX_REPLICAS)
        base = int(annotated) if annotated else int((d.get("status") or {}).get("replicas", 0))
        target = _replicas(d) + max_surge(d)
        fraction = (round(size * target / base) if base else size) - size
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def cleanup_deployment(dc: DeploymentController, d: Obj, old: list[Obj]) -> None:
    """Delete old, empty ReplicaSets beyond revisionHistoryLimit, oldest revision first."""
    limit = int(d["spec"].get("revisionHistoryLimit", 10))
    cleanable = [
        rs
        for rs in old
        if not rs["metadata"].get("deletionTimestamp")
        and int(rs["spec"].get("replicas", 0)) == 0
        and int((rs.get("status") or {}).get("replicas", 0)) == 0
    ]
    cleanable.sort(key=lambda rs: (revision(rs), by_creation(rs)))
    for rs in cleanable[: max(0, len(cleanable) - limit)]:
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


def calculate_status(d: Obj, all_rss: list[Obj], new_rs: Obj | None, now: str) -> Obj:
    """``calculateStatus``: counters from the ReplicaSets plus the Available condition."""
    available = status_sum(all_rss, "availableReplicas")
    status: Obj = {
        "observedGeneration": int(d["metadata"].get("generation", 1)),
        "replicas": status_sum(all_rss, "replicas"),
        "updatedReplicas": status_sum([new_rs] if new_rs else [], "replicas"),
        "readyReplicas": status_sum(all_rss, "readyReplicas"),
        "availableReplicas": available,
        "unavailableReplicas": max(0, spec_replicas(all_rss) - available),
        "terminatingReplicas": status_sum(all_rss, "terminatingReplicas"),
    }
    old = d.get("status") or {}
    if "collisionCount" in old:
        status["collisionCount"] = old["collisionCount"]
    status["conditions"] = [dict(c) for c in old.get("conditions") or []]
    if available >= _replicas(d) - max_unavailable(d):
        args = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    else:
        args = (
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
        )
    set_deployment_condition(status, "Available", *args, now)
    return status


def sync_deployment_status(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], new_rs: Obj | None
) -> None:
    """Write the calculated status when it changed (``syncDeploymentStatus``)."""
    status = calculate_status(d, all_rss, new_rs, rfc3339(dc.ctx.clock.now()))
    _write_status(dc, d, status)


def deployment_complete(d: Obj, status: Obj) -> bool:
    """Every replica updated and available, for the current generation."""
    n = _replicas(d)
    return (
        status.get("updatedReplicas") == n
        and status.get("replicas") == n
        and status.get("availableReplicas") == n
        and int(status.get("observedGeneration", 0)) >= int(d["metadata"].get("generation", 1))
    )


def _progressing(d: Obj, new: Obj) -> bool:
    old = d.get("status") or {}

    def g(s: Obj, f: str) -> int:
        return int(s.get(f, 0))

    return (
        g(new, "updatedReplicas") > g(old, "updatedReplicas")
        or g(new, "replicas") - g(new, "updatedReplicas")
        < g(old, "replicas") - g(old, "updatedReplicas")
        or g(new, "readyReplicas") > g(old, "readyReplicas")
        or g(new, "availableReplicas") > g(old, "availableReplicas")
    )


def _deadline(d: Obj) -> int | None:
    pds = d["spec"].get("progressDeadlineSeconds")
    return None if pds is None or int(pds) >= 2**31 - 1 else int(pds)


def sync_rollout_status(
    dc: DeploymentController, d: Obj, all_rss: list[Obj], new_rs: Obj | None
) -> None:
    """Status plus the Progressing condition (``syncRolloutStatus``)."""
    now_i = dc.ctx.clock.now()
    now = rfc3339(now_i)
    status = calculate_status(d, all_rss, new_rs, now)
    deadline = _deadline(d)
    name = new_rs["metadata"]["name"] if new_rs else ""
    cur = condition_of(status, "Progressing")
    complete = (
        status["replicas"] == status["updatedReplicas"]
        and (cur or {}).get("reason") == "NewReplicaSetAvailable"
    )
    if deadline is not None and not complete:
        if deployment_complete(d, status):
            set_deployment_condition(
                status,
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                f'ReplicaSet "{name}" has successfully progressed.',
                now,
            )
        elif _progressing(d, status):
            set_deployment_condition(
                status,
                "Progressing",
                "True",
                "ReplicaSetUpdated",
                f'ReplicaSet "{name}" is progressing.',
                now,
                bump=True,
            )
        elif cur is not None and cur.get("reason") != "ProgressDeadlineExceeded":
            since = parse_rfc3339(str(cur.get("lastUpdateTime")))
            if now_i >= since + seconds(deadline):
                set_deployment_condition(
                    status,
                    "Progressing",
                    "False",
                    "ProgressDeadlineExceeded",
                    f'ReplicaSet "{name}" has timed out progressing.',
                    now,
                )
            else:
                dc.queue.add_after(object_key(d), Duration(since + seconds(deadline) - now_i))
    _write_status(dc, d, status)


def set_progressing(dc: DeploymentController, d: Obj, reason: str, message: str) -> None:
    """Set Progressing=True on the in-memory Deployment; the sync's status write saves it."""
    status = d.setdefault("status", {})
    set_deployment_condition(
        status, "Progressing", "True", reason, message, rfc3339(dc.ctx.clock.now())
    )


def _write_status(dc: DeploymentController, d: Obj, status: Obj) -> None:
    if status == (
        dc.server.get(
            "apps/v1", "Deployment", d["metadata"]["name"], d["metadata"]["namespace"]
        ).get("status")
        or {}
    ):
        return
    dc.server.update_status({**d, "status": status})

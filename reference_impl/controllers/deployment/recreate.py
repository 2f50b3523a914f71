"""The Recreate strategy (``pkg/controller/deployment/recreate.go``).

Scale every old ReplicaSet to zero, wait until none of their pods is running, then
create (or scale up) the new ReplicaSet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.controllers.deployment import sync

if TYPE_CHECKING:
    from reference_impl.controllers.deployment.controller import DeploymentController

__all__ = ["old_pods_running", "rollout_recreate"]

Obj = dict[str, Any]


def rollout_recreate(dc: DeploymentController, d: Obj, rs_list: list[Obj]) -> None:
    """``rolloutRecreate``."""
    new_rs, old = dc.get_all_replica_sets(d, rs_list, create=False)
    all_rss = old + ([new_rs] if new_rs else [])
    scaled_down = False
    for rs in old:
        if int(rs["spec"].get("replicas", 0)) > 0:
            scaled_down |= dc.scale_replica_set(rs, 0, d)
    pod_map = {rs["metadata"]["uid"]: dc.owned_pods(rs) for rs in all_rss}
    if scaled_down or old_pods_running(new_rs, old, pod_map):
        sync.sync_rollout_status(dc, d, all_rss, new_rs)
        return
    if new_rs is None:
        new_rs, old = dc.get_all_replica_sets(d, rs_list, create=True)
        all_rss = [*old, new_rs] if new_rs else old
    if new_rs is not None:
        dc.scale_replica_set(new_rs, int(d["spec"].get("replicas", 1)), d)
        if sync.deployment_complete(d, d.get("status") or {}):
            sync.cleanup_deployment(dc, d, old)
    sync.sync_rollout_status(dc, d, all_rss, new_rs)


def old_pods_running(new_rs: Obj | None, old: list[Obj], pod_map: dict[str, list[Obj]]) -> bool:
    """``oldPodsRunning``: old sets report replicas, or a pod of a set other than the new
    one is not terminal. Terminating pods count: Recreate never overlaps old and new."""
    if sum(int((rs.get("status") or {}).get("replicas", 0)) for rs in old) > 0:
        return True
    new_uid = new_rs["metadata"].get("uid") if new_rs is not None else None
    return any(
        (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        for uid, pods in pod_map.items()
        if uid != new_uid
        for pod in pods
    )

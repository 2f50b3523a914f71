"""DaemonSet history (``pkg/controller/daemon/update.go``): ``constructHistory``,
``controlledHistories``, ``dedupCurHistories``, ``cleanupHistory``, ``snapshot``,
``Match`` and ``getPatch``.

A revision's data is ``getPatch``'s strategic-merge patch restoring the template; the
revision is named ``<ds>-<ComputeHash(template, collisionCount)>`` and labelled with that
hash, which the daemon pods carry as ``controller-revision-hash``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reference_impl.controllers.controller_utils import claim_objects
from reference_impl.controllers.daemon.util import HASH_LABEL
from reference_impl.controllers.deployment.util import compute_hash
from reference_impl.controllers.history import History, go_json
from reference_impl.errors import AlreadyExists, ApiError

__all__ = [
    "StaleCollisionCount",
    "construct_history",
    "get_patch",
    "match",
    "snapshot",
]

Obj = dict[str, Any]


class StaleCollisionCount(ApiError):
    """``snapshot`` met a name collision: the collision count was bumped (or was stale);
    the sync fails and is retried."""


def get_patch(ds: Mapping[str, Any]) -> Obj:
    """``getPatch``: ``{"spec": {"template": <template>, "$patch": "replace"}}``, the
    template replaced wholesale when the patch is applied."""
    template = copy.deepcopy(ds["spec"].get("template") or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def match(ds: Mapping[str, Any], history: Mapping[str, Any]) -> bool:
    """``Match``: the revision's raw data is the DaemonSet's patch, byte for byte."""
    data = history.get("data")
    raw = data if isinstance(data, bytes) else go_json(data)
    return go_json(get_patch(ds)) == raw


def _max_revision(histories: Iterable[Obj]) -> int:
    """``maxRevision``: 0 for none."""
    return max((int(h.get("revision", 0)) for h in histories), default=0)


def snapshot(server: Any, ds: Obj, revision: int) -> Obj:
    """``snapshot``: create the revision of the current template. On a name taken by the
    same patch, that revision; taken by another, bump status.collisionCount (unless the
    count read was stale) and fail so the sync retries with the new name."""
    meta = ds["metadata"]
    collision = (ds.get("status") or {}).get("collisionCount")
    hash_ = compute_hash(ds["spec"].get("template") or {}, collision)
    name = f"{meta['name']}-{hash_}"
    labels = dict(((ds["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {})
    labels[HASH_LABEL] = hash_
    cr_meta: Obj = {"name": name, "namespace": meta.get("namespace"), "labels": labels,
                    "ownerReferences": [_controller_ref(ds)]}  # fmt: skip
    if meta.get("annotations"):
        cr_meta["annotations"] = dict(meta["annotations"])
    history = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": cr_meta,
               "data": get_patch(ds), "revision": revision}  # fmt: skip
    try:
        created: Obj = server.create(history)
        return created
    except AlreadyExists as outer:
        existed: Obj = server.get("apps/v1", "ControllerRevision", name, meta.get("namespace"))
        if match(ds, existed):
            return existed
        cur: Obj = server.get("apps/v1", "DaemonSet", meta["name"], meta.get("namespace"))
        cur_count = (cur.get("status") or {}).get("collisionCount")
        if cur_count != collision:
            raise StaleCollisionCount(
                f"found a stale collision count ({collision}, expected {cur_count}) of "
                f'DaemonSet "{meta["name"]}" while processing; will retry until it is updated'
            ) from None
        status = dict(cur.get("status") or {})
        status["collisionCount"] = int(cur_count or 0) + 1
        server.update_status({**cur, "status": status})
        raise StaleCollisionCount(outer.message) from None


def _controller_ref(ds: Mapping[str, Any]) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
            "uid": ds["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}  # fmt: skip


def controlled_histories(server: Any, ds: Obj, histories: Iterable[Obj]) -> list[Obj]:
    """``controlledHistories``: ``ClaimControllerRevisions`` over the namespace's
    revisions, adopting matching orphans and releasing owned ones that no longer match."""
    hist = History(server)
    ns = ds["metadata"].get("namespace")
    candidates = sorted(
        (h for h in histories if h["metadata"].get("namespace") == ns),
        key=lambda h: str(h["metadata"]["name"]),
    )

    def adopt(cr: Obj) -> Obj:
        return hist.adopt_controller_revision(ds, cr)

    def release(cr: Obj) -> object:
        return hist.release_controller_revision(ds, cr)

    return claim_objects(ds, candidates, adopt, release)


def construct_history(
    server: Any,
    ds: Obj,
    histories: Iterable[Obj],
    daemon_pods: Callable[[], list[Obj]],
) -> tuple[Obj, list[Obj]]:
    """``constructHistory``: (current revision, old revisions). Labels revisions missing
    the hash label with their name, dedups equal current revisions (relabelling pods to
    the kept one), and raises the current revision above every old one."""
    current: list[Obj] = []
    old: list[Obj] = []
    for history in controlled_histories(server, ds, histories):
        if HASH_LABEL not in (history["metadata"].get("labels") or {}):
            to_update = copy.deepcopy(history)
            to_update["metadata"].setdefault("labels", {})[HASH_LABEL] = to_update["metadata"]["name"]
            history = server.update(to_update)
        (current if match(ds, history) else old).append(history)
    cur_revision = _max_revision(old) + 1
    if not current:
        return snapshot(server, ds, cur_revision), old
    cur = _dedup(server, ds, current, daemon_pods)
    if int(cur.get("revision", 0)) < cur_revision:
        to_update = copy.deepcopy(cur)
        to_update["revision"] = cur_revision
        server.update(to_update)
    return cur, old


def _dedup(server: Any, ds: Obj, current: list[Obj], daemon_pods: Callable[[], list[Obj]]) -> Obj:
    """``dedupCurHistories``: keep the highest revision (the last of equals), relabel the
    daemon pods to its hash, delete the rest."""
    if len(current) == 1:
        return current[0]
    keep = current[0]
    top = 0
    for cur in current:
        if int(cur.get("revision", 0)) >= top:
            keep, top = cur, int(cur.get("revision", 0))
    keep_hash = (keep["metadata"].get("labels") or {}).get(HASH_LABEL)
    for pod in daemon_pods():
        labels = pod["metadata"].get("labels") or {}
        if labels.get(HASH_LABEL) != keep_hash:
            body = copy.deepcopy(pod)
            body["metadata"].setdefault("labels", {})[HASH_LABEL] = keep_hash
            server.update(body)  # upstream: a merge patch of the one label
    ns = ds["metadata"].get("namespace")
    for cur in current:
        if cur["metadata"]["name"] != keep["metadata"]["name"]:
            server.delete("apps/v1", "ControllerRevision", cur["metadata"]["name"], ns)
    return keep


def cleanup_history(
    server: Any, ds: Obj, old: list[Obj], node_to_pods: Mapping[str, list[Obj]]
) -> None:
    """``cleanupHistory``: delete the oldest revisions beyond revisionHistoryLimit whose
    hash no live daemon pod (terminal and deleted ones included) carries."""
    limit = ds["spec"].get("revisionHistoryLimit")
    to_kill = len(old) - int(limit if limit is not None else 10)
    if to_kill <= 0:
        return
    live = {
        h for pods in node_to_pods.values() for p in pods
        if (h := (p["metadata"].get("labels") or {}).get(HASH_LABEL))
    }  # fmt: skip
    ns = ds["metadata"].get("namespace")
    for history in sorted(old, key=lambda h: int(h.get("revision", 0))):
        if to_kill <= 0:
            break
        if (history["metadata"].get("labels") or {}).get(HASH_LABEL) in live:
            continue
        server.delete("apps/v1", "ControllerRevision", history["metadata"]["name"], ns)
        to_kill -= 1

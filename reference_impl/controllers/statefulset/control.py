"""``defaultStatefulSetControl`` (``stateful_set_control.go``): revisions, one pass over
the pods, the status write and the revision history limit."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Protocol

from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.history import (
    equal_revision,
    find_equal_revisions,
    sort_controller_revisions,
)
from reference_impl.controllers.statefulset.identity import get_pod_revision
from reference_impl.controllers.statefulset.pod_control import StatefulPodControl, SyncError
from reference_impl.controllers.statefulset.replicas import compute_status, update_replicas
from reference_impl.controllers.statefulset.revisions import (
    apply_revision,
    complete_update,
    inconsistent_status,
    new_revision,
    next_revision,
)
from reference_impl.errors import ApiError

__all__ = ["HistoryInterface", "StatefulSetControl", "StatusUpdater", "wire_status"]

Obj = dict[str, Any]


class HistoryInterface(Protocol):
    """``history.Interface`` as ``reference_impl.controllers.history.History`` has it."""

    def list_controller_revisions(self, parent: Mapping[str, Any], selector: Mapping[str, Any] | None
                                  ) -> list[Obj]: ...  # fmt: skip
    def create_controller_revision(self, parent: Mapping[str, Any], revision: Mapping[str, Any],
                                   collision_count: int) -> tuple[Obj, int]: ...  # fmt: skip
    def update_controller_revision(self, revision: Mapping[str, Any], new_revision: int) -> Obj: ...
    def delete_controller_revision(self, revision: Mapping[str, Any]) -> None: ...
    def adopt_controller_revision(self, parent: Mapping[str, Any], revision: Mapping[str, Any]) -> Obj: ...


class StatusUpdater(Protocol):
    """``StatefulSetStatusUpdaterInterface``."""

    def update_stateful_set_status(self, ss: Obj, status: Obj) -> None: ...


# Fields Go writes even when zero: replicas, availableReplicas (no omitempty) and the
# collisionCount pointer the controller always sets.
_ALWAYS = ("replicas", "availableReplicas", "collisionCount")


def wire_status(status: Mapping[str, Any]) -> Obj:
    """The status as the apps/v1 JSON encoding writes it (omitempty zeros dropped)."""
    return {k: v for k, v in status.items() if k in _ALWAYS or v not in (0, "", None, [])}


class StatefulSetControl:
    """``defaultStatefulSetControl``. ``recreate_gate`` is StatefulSetRecreateStrategy
    (alpha, off in 1.37); MaxUnavailableStatefulSet is on (beta, on in 1.37)."""

    def __init__(self, spc: StatefulPodControl, status_updater: StatusUpdater,
                 history: HistoryInterface, recreate_gate: bool = False) -> None:  # fmt: skip
        self.spc = spc
        self.status_updater = status_updater
        self.history = history
        self.recreate_gate = recreate_gate

    def update_stateful_set(self, ss: Mapping[str, Any], pods: list[Obj], now: Instant) -> Obj:
        """``UpdateStatefulSet``: returns the status written; errors are raised (the
        history is still truncated first, its error aggregated)."""
        clone: Obj = copy.deepcopy(dict(ss))
        revisions = sort_controller_revisions(self.list_revisions(clone))
        current, update, status, err = self._perform_update(clone, pods, revisions, now)
        try:
            self.truncate_history(clone, pods, revisions, current, update)
        except ApiError as exc:
            err = exc if err is None else SyncError(f"[{err}, {exc}]", [err, exc])
        if err is not None:
            raise err
        assert status is not None
        return status

    def list_revisions(self, ss: Mapping[str, Any]) -> list[Obj]:
        """``ListRevisions``: revisions the selector matches that the set controls or no
        one does."""
        return self.history.list_controller_revisions(ss, ss["spec"].get("selector"))

    def adopt_orphan_revisions(self, ss: Mapping[str, Any], revisions: list[Obj]) -> None:
        """``AdoptOrphanRevisions``."""
        for i, rev in enumerate(revisions):
            revisions[i] = self.history.adopt_controller_revision(ss, rev)

    def _perform_update(self, ss: Obj, pods: list[Obj], revisions: list[Obj], now: Instant
                        ) -> tuple[Obj | None, Obj | None, Obj | None, ApiError | None]:  # fmt: skip
        """``performUpdate``: the status is written even when the pass failed."""
        try:
            current, update, collisions = self.get_stateful_set_revisions(ss, revisions)
        except ApiError as exc:
            return None, None, None, exc
        status, err = self._update_stateful_set(ss, current, update, collisions, pods, now)
        if status is None:
            return current, update, None, err
        try:
            self.update_stateful_set_status(ss, status, now)
        except ApiError as exc:
            return current, update, status, err or exc
        return current, update, status, err

    def get_stateful_set_revisions(self, ss: Obj, revisions: list[Obj]) -> tuple[Obj, Obj, int]:
        """``getStatefulSetRevisions``: (current, update, collisionCount). An equal
        revision is reused (a rollback renumbers it); otherwise one is created."""
        sort_controller_revisions(revisions)
        collisions = int((ss.get("status") or {}).get("collisionCount") or 0)
        proposed = new_revision(ss, next_revision(revisions), collisions)
        equal = find_equal_revisions(revisions, proposed)
        if equal and equal_revision(revisions[-1], equal[-1]):
            update = revisions[-1]
        elif equal:
            update = self.history.update_controller_revision(equal[-1], int(proposed["revision"]))
        elif revisions and _matches_latest(ss, proposed, revisions[-1]):
            update = revisions[-1]
        else:
            update, collisions = self.history.create_controller_revision(ss, proposed, collisions)
        wanted = (ss.get("status") or {}).get("currentRevision")
        current = next((r for r in revisions if r["metadata"]["name"] == wanted), None)
        return current or update, update, collisions

    def _update_stateful_set(self, ss: Obj, current: Obj, update: Obj, collisions: int,
                             pods: list[Obj], now: Instant) -> tuple[Obj | None, ApiError | None]:  # fmt: skip
        """``updateStatefulSet``: (status, error); a None status means nothing to write."""
        try:
            current_set = apply_revision(ss, current)
            update_set = apply_revision(ss, update)
        except ApiError as exc:
            return None, exc
        strategy = (ss["spec"].get("updateStrategy") or {}).get("type")
        meta = ss["metadata"]
        if strategy == "Recreate" and not self.recreate_gate:
            msg = (f"statefulset {meta.get('namespace')}/{meta['name']} uses Recreate strategy but "
                   "feature gate StatefulSetRecreateStrategy is disabled")  # fmt: skip
            self.spc.recorder(ss, "Warning", "UnknownStrategy", msg)
            return None, SyncError(msg)
        status: Obj = {
            "observedGeneration": int(meta.get("generation") or 0),
            "currentRevision": current["metadata"]["name"],
            "updateRevision": update["metadata"]["name"],
            "collisionCount": collisions,
            "conditions": copy.deepcopy((ss.get("status") or {}).get("conditions") or []),
        }
        min_ready = int(ss["spec"].get("minReadySeconds") or 0)
        current_name, update_name = current["metadata"]["name"], update["metadata"]["name"]
        compute_status(status, min_ready, current_name, update_name, now, pods)
        err = update_replicas(self.spc, ss, current_set, update_set, current_name, update_name,
                              status, pods, now, self.recreate_gate, rfc3339(now))  # fmt: skip
        return status, err

    def update_stateful_set_status(self, ss: Obj, status: Obj, now: Instant) -> None:
        """``updateStatefulSetStatus``: complete a finished update, then write the status
        if it differs."""
        complete_update(ss, status, self.recreate_gate, rfc3339(now))
        if not inconsistent_status(ss, status):
            return
        self.status_updater.update_stateful_set_status(copy.deepcopy(ss), wire_status(status))

    def truncate_history(self, ss: Mapping[str, Any], pods: list[Obj], revisions: list[Obj],
                         current: Obj | None, update: Obj | None) -> None:  # fmt: skip
        """``truncateHistory``: delete the oldest revisions that no pod, nor the current
        or update revision, uses, down to revisionHistoryLimit."""
        live = {r["metadata"]["name"] for r in (current, update) if r is not None}
        live |= {get_pod_revision(p) for p in pods}
        history = [r for r in revisions if r["metadata"]["name"] not in live]
        limit = int(ss["spec"].get("revisionHistoryLimit", 10))
        if limit < 0 or len(history) <= limit:
            return
        for rev in history[: len(history) - limit]:
            self.history.delete_controller_revision(rev)


def _matches_latest(ss: Obj, proposed: Mapping[str, Any], latest: Mapping[str, Any]) -> bool:
    """``setMatchesLatestExistingRevision`` (StatefulSetSemanticRevisionComparison, on):
    the latest revision, re-encoded from the set it restores, equals the proposal. The
    stored templates are already defaulted, so no re-defaulting is needed here."""
    try:
        restored = apply_revision(ss, latest)
    except ApiError:
        return False
    return equal_revision(proposed, new_revision(restored, -1, None))


def orphan_revisions(revisions: list[Obj]) -> list[Obj]:
    """The revisions no controller owns (``adoptOrphanRevisions``' filter)."""
    return [r for r in revisions if controller_ref(r) is None]

"""StatefulSet revisions and status helpers (``stateful_set_utils.go``).

A revision's data is a strategic-merge patch replacing ``spec.template``; applying it
therefore swaps the template wholesale.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from reference_impl.controllers.deployment.util import scaled_value
from reference_impl.controllers.history import new_controller_revision
from reference_impl.controllers.statefulset.pod_control import SyncError

__all__ = [
    "apply_revision",
    "complete_update",
    "get_max_unavailable",
    "get_patch",
    "inconsistent_status",
    "new_revision",
    "next_revision",
    "set_condition",
]

Obj = dict[str, Any]
RECREATE_IN_PROGRESS: Final = "RecreateInProgress"
RECREATE_COMPLETED: Final = "RecreateCompleted"


def get_patch(ss: Mapping[str, Any]) -> Obj:
    """``getPatch``: ``{"spec": {"template": <template>, "$patch": "replace"}}`` with the
    marker inside the template, as upstream writes it."""
    template: Obj = copy.deepcopy(ss["spec"].get("template") or {})
    meta = template.setdefault("metadata", {})  # Go always writes the ObjectMeta struct
    if isinstance(meta, dict) and meta.get("creationTimestamp", "") is None:
        del meta["creationTimestamp"]  # a zero Time is omitzero since 1.34
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def new_revision(ss: Mapping[str, Any], revision: int, collision_count: int | None) -> Obj:
    """``newRevision``: a ControllerRevision of the set's template patch, labelled as the
    template and annotated with the set's annotations."""
    labels = ((ss["spec"].get("template") or {}).get("metadata") or {}).get("labels")
    cr = new_controller_revision(ss, labels, get_patch(ss), revision, collision_count)
    annotations = ss["metadata"].get("annotations")
    if annotations:
        cr["metadata"].setdefault("annotations", {}).update(annotations)
    return cr


def apply_revision(ss: Mapping[str, Any], revision: Mapping[str, Any]) -> Obj:
    """``ApplyRevision``: the set with the revision's data strategic-merged in, of which
    only the spec is kept. Data that is not a JSON object is an error (SyncError)."""
    clone: Obj = copy.deepcopy(dict(ss))
    data = revision.get("data")
    if data is None:
        return clone
    if not isinstance(data, dict):
        raise SyncError(f"json: cannot unmarshal {type(data).__name__} into Go value of type "
                        "map[string]interface {}")  # fmt: skip
    patched = _merge(copy.deepcopy(dict(ss)), data)
    clone["spec"] = patched.get("spec") or {}
    return clone


def _merge(target: Any, patch: Any) -> Any:
    """A strategic merge of JSON maps: ``$patch: replace`` swaps a map whole, null deletes
    a key, other values (lists included) replace. The merge keys of lists are not
    modelled: the patches the controller writes replace the whole template."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def next_revision(revisions: Sequence[Mapping[str, Any]]) -> int:
    """``nextRevision``: one past the last (sorted) revision, or 1."""
    return int(revisions[-1].get("revision", 0)) + 1 if revisions else 1


_COUNTERS: Final = (
    "replicas", "currentReplicas", "readyReplicas", "updatedReplicas", "availableReplicas",
)  # fmt: skip


def inconsistent_status(ss: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """``inconsistentStatus``: whether ``status`` differs from the set's in what is
    written (a newer observedGeneration, a counter, a revision or the conditions)."""
    old = ss.get("status") or {}
    if int(status.get("observedGeneration") or 0) > int(old.get("observedGeneration") or 0):
        return True
    if any(int(status.get(k) or 0) != int(old.get(k) or 0) for k in _COUNTERS):
        return True
    if any((status.get(k) or "") != (old.get(k) or "") for k in ("currentRevision", "updateRevision")):
        return True
    return (status.get("conditions") or []) != (old.get("conditions") or [])


def complete_update(ss: Mapping[str, Any], status: Obj, recreate_gate: bool, now: str) -> None:
    """``completeUpdate``: once every replica is updated and ready, the update revision
    becomes current (and a Recreate rollout's Progressing condition turns False)."""
    replicas = int(ss["spec"].get("replicas", 1))
    if (
        int(status.get("updatedReplicas") or 0) == replicas
        and int(status.get("readyReplicas") or 0) == replicas
        and int(status.get("replicas") or 0) == replicas
    ):
        status["currentReplicas"] = status.get("updatedReplicas", 0)
        status["currentRevision"] = status.get("updateRevision", "")
        strategy = (ss["spec"].get("updateStrategy") or {}).get("type")
        if _condition(status, "Progressing") is not None and strategy == "Recreate" and recreate_gate:
            set_condition(status, "Progressing", "False", RECREATE_COMPLETED,
                          "All pods recreated successfully", now)  # fmt: skip


def get_max_unavailable(value: int | str | None, replicas: int) -> int:
    """``getStatefulSetMaxUnavailable``: an int or a percentage of ``replicas`` rounded
    down (default 1), at least 1. A malformed value raises ValueError."""
    return max(scaled_value(1 if value is None else value, replicas, False), 1)


def _condition(status: Mapping[str, Any], kind: str) -> Obj | None:
    for c in status.get("conditions") or []:
        if c.get("type") == kind:
            out: Obj = c
            return out
    return None


def set_condition(status: Obj, kind: str, cond_status: str, reason: str, message: str, now: str) -> None:
    """``setStatefulSetCondition``: add, or update keeping lastTransitionTime when the
    status is unchanged; an identical condition is left alone."""
    new: Obj = {"type": kind, "status": cond_status, "lastTransitionTime": now,
                "reason": reason, "message": message}  # fmt: skip
    current = _condition(status, kind)
    if current is None:
        status.setdefault("conditions", []).append(new)
        return
    if (current.get("status"), current.get("reason"), current.get("message")) == (
        cond_status, reason, message,
    ):  # fmt: skip
        return
    if current.get("status") != cond_status:
        current["lastTransitionTime"] = now
    current.update(status=cond_status, reason=reason, message=message)

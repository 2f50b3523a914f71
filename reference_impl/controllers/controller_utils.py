"""Helpers shared by the workload controllers (``pkg/controller/controller_utils.go``).

Expectations (re-exported from ``expectations``), pod filters, the ranking used to pick
pods to delete, and building a pod from a template with a controller ownerReference.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from reference_impl.api.meta import condition, selector_from_label_selector
from reference_impl.api.owners import get_controller_of as controller_ref
from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds
from reference_impl.controllers.expectations import (
    ControllerExpectations,
    UIDTrackingControllerExpectations,
)
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = [
    "ControllerExpectations",
    "UIDTrackingControllerExpectations",
    "claim_objects",
    "controller_ref",
    "deletion_rank",
    "find_min_next_pod_availability_check",
    "fresh_owner",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "is_pod_terminating",
    "next_pod_availability_check",
    "owner_reference",
    "pod_from_template",
    "recheck_deletion_timestamp",
]

Obj = dict[str, Any]
# kube-controller-manager's burstReplicas: the most pods one sync creates or deletes.
BURST_REPLICAS: Final = 500


def owner_reference(owner: Mapping[str, Any]) -> Obj:
    """A controller ownerReference to ``owner`` that blocks its foreground deletion."""
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_pod_active(pod: Mapping[str, Any]) -> bool:
    """Not terminal and not being deleted (``controller.IsPodActive``)."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def is_pod_terminating(pod: Mapping[str, Any]) -> bool:
    """Not terminal but being deleted (``controller.IsPodTerminating``)."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and bool(pod["metadata"].get("deletionTimestamp"))


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    """The Ready condition is True."""
    return (condition(pod, "Ready") or {}).get("status") == "True"


def is_pod_available(pod: Mapping[str, Any], min_ready_seconds: int, now: Instant) -> bool:
    """Ready for at least ``min_ready_seconds`` (``podutil.IsPodAvailable``)."""
    cond = condition(pod, "Ready")
    if not cond or cond.get("status") != "True":
        return False
    if min_ready_seconds <= 0:
        return True
    if not cond.get("lastTransitionTime"):
        return False  # a zero lastTransitionTime never counts as available
    since = parse_rfc3339(str(cond["lastTransitionTime"]))
    return now - since >= min_ready_seconds * 1_000_000_000


def next_pod_availability_check(pod: Mapping[str, Any], min_ready_seconds: int,
                                now: Instant) -> Duration | None:
    """``nextPodAvailabilityCheck``: how long until a ready pod turns available."""
    cond = condition(pod, "Ready")
    if min_ready_seconds <= 0 or not cond or cond.get("status") != "True":
        return None
    if not cond.get("lastTransitionTime"):
        return None
    wait = parse_rfc3339(str(cond["lastTransitionTime"])) + seconds(min_ready_seconds) - now
    return Duration(wait) if wait > 0 else None


def find_min_next_pod_availability_check(pods: Iterable[Mapping[str, Any]], min_ready_seconds: int,
                                         now: Instant) -> Duration | None:
    """``FindMinNextPodAvailabilityCheck``: the soonest of the pods' checks (the
    reference's clock stands still within a sync, so re-checking the first pod against a
    newer now, as upstream does, changes nothing)."""
    waits = [w for p in pods if (w := next_pod_availability_check(p, min_ready_seconds, now)) is not None]
    return min(waits, default=None)


def _zero_or_later_first(stamp: object) -> tuple[int, int]:
    """Sort key for ``afterOrZero``: the zero time first, then later times first."""
    return (1, -parse_rfc3339(str(stamp))) if stamp else (0, 0)


def max_container_restarts(pod: Mapping[str, Any]) -> tuple[int, int]:
    """``maxContainerRestarts``: the most restarts of a regular container and of a
    restartable init (sidecar) container."""
    status = pod.get("status") or {}
    regular = max((int(c.get("restartCount", 0)) for c in status.get("containerStatuses") or ()), default=0)
    sidecars = {
        c.get("name")
        for c in (pod.get("spec") or {}).get("initContainers") or ()
        if c.get("restartPolicy") == "Always"
    }
    sidecar = max(
        (int(c.get("restartCount", 0)) for c in status.get("initContainerStatuses") or ()
         if c.get("name") in sidecars),
        default=0,
    )  # fmt: skip
    return regular, sidecar


def deletion_rank(pod: Mapping[str, Any]) -> tuple[Any, ...]:
    """Sort key putting the best pods to delete first (``controller.ActivePods`` Less).

    Unassigned < assigned; Pending < Unknown < Running; not ready < ready; of two ready
    pods, the one ready for no (zero) time, then the one ready for less time; higher
    regular, then sidecar, container restart counts; the zero creationTimestamp, then
    newer pods. The name breaks remaining ties deterministically.
    """
    status = pod.get("status") or {}
    assigned = 1 if pod["spec"].get("nodeName") else 0
    phase = {"Pending": 0, "Unknown": 1, "Running": 2}.get(status.get("phase", "Pending"), 0)
    ready = is_pod_ready(pod)
    since = (condition(pod, "Ready") or {}).get("lastTransitionTime") if ready else None
    regular, sidecar = max_container_restarts(pod)
    return (
        assigned,
        phase,
        int(ready),
        _zero_or_later_first(since) if ready else (0, 0),
        -regular,
        -sidecar,
        _zero_or_later_first(pod["metadata"].get("creationTimestamp")),
        str(pod["metadata"]["name"]),
    )


def pod_from_template(
    template: Mapping[str, Any], owner: Mapping[str, Any], generate_name: str
) -> Obj:
    """A Pod manifest from a pod template, owned by ``owner`` (``GetPodFromTemplate``)."""
    tmeta = template.get("metadata") or {}
    meta: Obj = {
        "generateName": generate_name,
        "namespace": owner["metadata"].get("namespace"),
        "ownerReferences": [owner_reference(owner)],
    }
    for key in ("labels", "annotations", "finalizers"):
        if tmeta.get(key):
            meta[key] = copy.deepcopy(tmeta[key])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": copy.deepcopy(template.get("spec") or {}),
    }


def sorted_by_key(objs: Iterable[Obj]) -> list[Obj]:
    """Objects in ``namespace/name`` order, so iteration never depends on insertion order."""
    return sorted(objs, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))


def claim_objects(
    owner: Obj,
    candidates: Iterable[Obj],
    adopt: Callable[[Obj], Obj],
    release: Callable[[Obj], object],
    *,
    may_adopt: bool = True,
    can_adopt: Callable[[], object] | None = None,
) -> list[Obj]:
    """``BaseControllerRefManager.ClaimObject`` over ``candidates``: those of ``owner``'s
    namespace it controls and its selector matches, plus matching orphans it adopts
    (``adopt`` returns the adopted object); controlled ones that no longer match are
    released. Nothing is adopted or released while ``owner`` is being deleted, or when
    ``may_adopt`` is False. The first adopt/release error other than NotFound is raised
    once every candidate was tried. ``can_adopt`` (``CanAdopt``) runs once, before the
    first adoption; its error fails that and every later adoption."""
    ns, uid = owner["metadata"].get("namespace"), owner["metadata"]["uid"]
    sel = selector_from_label_selector(owner["spec"].get("selector"))
    changes = may_adopt and not owner["metadata"].get("deletionTimestamp")
    out: list[Obj] = []
    errors: list[ApiError] = []
    checked: list[ApiError | None] = []  # canAdoptOnce: the recheck's outcome, once run
    for obj in candidates:
        if obj["metadata"].get("namespace") != ns:
            continue
        ref = controller_ref(obj)
        matches = sel.matches(obj["metadata"].get("labels"))
        try:
            if ref is not None and ref.get("uid") == uid:
                if matches:
                    out.append(obj)
                elif changes:
                    release(obj)
            elif ref is None and matches and changes and not obj["metadata"].get("deletionTimestamp"):
                if can_adopt is not None and not checked:
                    try:
                        can_adopt()
                        checked.append(None)
                    except ApiError as exc:
                        checked.append(exc)
                if checked and checked[0] is not None:
                    errors.append(_cant_adopt(obj, checked[0]))
                    continue
                out.append(adopt(obj))
        except NotFound:
            pass  # the object is gone
        except ApiError as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
    return out


def _cant_adopt(obj: Obj, err: ApiError) -> ApiError:
    """``AdoptPod``/``AdoptReplicaSet``/``AdoptControllerRevision``'s wrap of a failed
    ``CanAdopt``: "can't adopt <Kind> ns/name (uid): <err>"; the class is kept so the
    sync is retried the same way."""
    meta = obj["metadata"]
    msg = (
        f"can't adopt {obj.get('kind', '')} {meta.get('namespace', '')}/{meta.get('name', '')} "
        f"({meta.get('uid', '')}): {err}"
    )
    wrapped = copy.copy(err)
    wrapped.args, wrapped.message = (msg,), msg
    return wrapped


def recheck_deletion_timestamp(get_fresh: Callable[[], Obj]) -> Callable[[], None]:
    """``RecheckDeletionTimestamp``: before adopting, a quorum read of the owner; one being
    deleted (or replaced: ``get_fresh`` checks the uid) must not adopt. Upstream's error is
    untyped; Conflict here, so the sync is retried once the cache catches up."""

    def check() -> None:
        fresh = get_fresh()
        meta = fresh["metadata"]
        if meta.get("deletionTimestamp"):
            raise Conflict(
                f"{meta.get('namespace')}/{meta['name']} has just been deleted at "
                f"{meta['deletionTimestamp']}"
            )

    return check


def fresh_owner(server: Any, owner: Mapping[str, Any]) -> Callable[[], Obj]:
    """The uncached getter upstream's controllers pass to ``RecheckDeletionTimestamp``: a
    GET of ``owner`` that fails when the stored object is another one of that name."""
    meta = owner["metadata"]

    def get() -> Obj:
        fresh: Obj = server.get(owner["apiVersion"], owner["kind"], meta["name"], meta.get("namespace"))
        if fresh["metadata"].get("uid") != meta.get("uid"):
            raise Conflict(
                f"original {owner['kind']} {meta.get('namespace')}/{meta['name']} is gone: got uid "
                f"{fresh['metadata'].get('uid')}, wanted {meta.get('uid')}"
            )
        return fresh

    return get

"""Helpers shared by the workload controllers (``pkg/controller/controller_utils.go``).

Expectations, pod filters, the ranking used to pick pods to delete, and building a pod
from a template with a controller ownerReference.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.meta import condition, selector_from_label_selector
from reference_impl.api.owners import get_controller_of as controller_ref
from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds
from reference_impl.errors import ApiError, NotFound

__all__ = [
    "ControllerExpectations",
    "claim_objects",
    "controller_ref",
    "deletion_rank",
    "find_min_next_pod_availability_check",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "is_pod_terminating",
    "next_pod_availability_check",
    "owner_reference",
    "pod_from_template",
]

Obj = dict[str, Any]
# kube-controller-manager's burstReplicas: the most pods one sync creates or deletes.
BURST_REPLICAS: Final = 500
EXPECTATIONS_TIMEOUT_S: Final = 5 * 60  # ExpectationsTimeout


@dataclass(slots=True)
class ControllerExpectations:
    """Creations and deletions a controller has asked for but not yet observed.

    Informers here are fed synchronously at commit, so expectations are usually met by
    the time a create returns; they still guard a sync that runs between a request and
    its event (e.g. a retried write), exactly as upstream uses them. As upstream's,
    observations lower the counts below zero (``LowerExpectations``), and expectations
    recorded with ``now`` expire after ``ttl`` (``ExpectationsTimeout``, 5 minutes:
    ``ControlleeExpectations.isExpired``). Given ``clock`` (a controller's simulated
    clock), ``expect`` and ``satisfied`` read it when ``now`` is not passed, as upstream
    stamps every ``SetExpectations`` and checks the age in ``SatisfiedExpectations``.
    """

    ttl: Duration = field(default_factory=lambda: seconds(EXPECTATIONS_TIMEOUT_S))
    clock: Callable[[], Instant] | None = None
    _adds: dict[str, int] = field(default_factory=dict)
    _dels: dict[str, int] = field(default_factory=dict)
    _stamps: dict[str, Instant] = field(default_factory=dict)

    def expect(self, key: str, adds: int = 0, dels: int = 0, now: Instant | None = None) -> None:
        """Record that ``adds`` creations and ``dels`` deletions are on their way.

        Counts already met (at or below zero) restart from zero, as ``SetExpectations``
        replaces them; counts still pending add up."""
        self._adds[key] = max(self._adds.get(key, 0), 0) + adds
        self._dels[key] = max(self._dels.get(key, 0), 0) + dels
        if now is None and self.clock is not None:
            now = self.clock()
        if now is not None:
            self._stamps[key] = now

    def get(self, key: str) -> tuple[int, int] | None:
        """``GetExpectations``: the (adds, dels) still expected, None when never set."""
        if key not in self._adds and key not in self._dels:
            return None
        return self._adds.get(key, 0), self._dels.get(key, 0)

    def creation_observed(self, key: str) -> None:
        """An informer saw one of the expected creations (or the create failed)."""
        if key in self._adds:
            self._adds[key] -= 1

    def deletion_observed(self, key: str) -> None:
        """An informer saw one of the expected deletions (or the delete failed)."""
        if key in self._dels:
            self._dels[key] -= 1

    def satisfied(self, key: str, now: Instant | None = None) -> bool:
        """``SatisfiedExpectations``: every expected event was observed, none were set,
        or (given ``now``) they were set more than ``ttl`` ago."""
        if self._adds.get(key, 0) <= 0 and self._dels.get(key, 0) <= 0:
            return True
        if now is None and self.clock is not None:
            now = self.clock()
        stamp = self._stamps.get(key)
        return now is not None and stamp is not None and now - stamp > self.ttl

    def forget(self, key: str) -> None:
        """Drop a controller's expectations (its object was deleted)."""
        self._adds.pop(key, None)
        self._dels.pop(key, None)
        self._stamps.pop(key, None)


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
) -> list[Obj]:
    """``BaseControllerRefManager.ClaimObject`` over ``candidates``: those of ``owner``'s
    namespace it controls and its selector matches, plus matching orphans it adopts
    (``adopt`` returns the adopted object); controlled ones that no longer match are
    released. Nothing is adopted or released while ``owner`` is being deleted, or when
    ``may_adopt`` is False. The first adopt/release error other than NotFound is raised
    once every candidate was tried."""
    ns, uid = owner["metadata"].get("namespace"), owner["metadata"]["uid"]
    sel = selector_from_label_selector(owner["spec"].get("selector"))
    changes = may_adopt and not owner["metadata"].get("deletionTimestamp")
    out: list[Obj] = []
    errors: list[ApiError] = []
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
                out.append(adopt(obj))
        except NotFound:
            pass  # the object is gone
        except ApiError as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
    return out

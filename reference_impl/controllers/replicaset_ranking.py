"""Which pods a ReplicaSet deletes first (``replica_set.go`` getPodsToDelete and
``controller_utils.go`` ``ActivePodsWithRanks``).

The order: unassigned < assigned; Pending < Unknown < Running; not ready < ready; lower
pod-deletion-cost; more co-located related pods; ready more recently (log2 buckets);
more container restarts; created more recently (log2 buckets); then the UID.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.api.meta import condition
from reference_impl.clock import Instant, parse_rfc3339
from reference_impl.controllers.controller_utils import is_pod_active, is_pod_ready

__all__ = ["deletion_cost", "get_pods_to_delete", "pod_keys", "ranks_by_related_pods"]

Obj = dict[str, Any]
DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL: Final = {"Pending": 0, "Unknown": 1, "Running": 2}


def deletion_cost(pod: Mapping[str, Any]) -> int:
    """``GetDeletionCostFromPodAnnotations``: an int32 without '+' or leading zeros, else 0."""
    value = (pod["metadata"].get("annotations") or {}).get(DELETION_COST)
    if not value:
        return 0
    digits = value[1:] if value.startswith("-") else value
    if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
        return 0
    n = int(value)
    return n if -(2**31) <= n < 2**31 else 0


def _time(text: object) -> Instant | None:
    return parse_rfc3339(str(text)) if text else None  # None is Go's zero time


def _ready_time(pod: Mapping[str, Any]) -> Instant | None:
    cond = condition(pod, "Ready")
    if cond is None or cond.get("status") != "True":
        return None
    return _time(cond.get("lastTransitionTime"))


def _max_restarts(pod: Mapping[str, Any]) -> tuple[int, int]:
    """``maxContainerRestarts``: (regular containers, restartable init containers)."""
    status = pod.get("status") or {}
    regular = max(
        (int(c.get("restartCount", 0)) for c in status.get("containerStatuses") or []), default=0
    )
    sidecars = {
        c.get("name")
        for c in (pod.get("spec") or {}).get("initContainers") or []
        if c.get("restartPolicy") == "Always"
    }
    sidecar = max(
        (
            int(c.get("restartCount", 0))
            for c in status.get("initContainerStatuses") or []
            if c.get("name") in sidecars
        ),
        default=0,
    )
    return regular, sidecar


def _log_rank_diff(t1: Instant, t2: Instant, now: Instant) -> int:
    """``logarithmicRankDiff``: compare floor(log2(age in ns)); -1 for non-positive ages."""
    d1, d2 = now - t1, now - t2
    r1 = int(math.log2(float(d1))) if d1 > 0 else -1
    r2 = int(math.log2(float(d2))) if d2 > 0 else -1
    return r1 - r2


def _by_age(t1: Instant | None, t2: Instant | None, uid1: str, uid2: str, now: Instant) -> bool:
    """Less for two distinct times: zero first, else the newer log2 bucket, else the UID."""
    if t1 is None or t2 is None:
        return t1 is None  # afterOrZero
    diff = _log_rank_diff(t1, t2, now)
    return uid1 < uid2 if diff == 0 else diff < 0


def _less(a: Obj, rank_a: int, b: Obj, rank_b: int, now: Instant) -> bool:
    """``ActivePodsWithRanks.Less`` (PodDeletionCost on, its default)."""
    node_a, node_b = a["spec"].get("nodeName") or "", b["spec"].get("nodeName") or ""
    if node_a != node_b and (not node_a or not node_b):
        return not node_a
    phase_a = _PHASE_ORDINAL.get((a.get("status") or {}).get("phase", ""), 0)
    phase_b = _PHASE_ORDINAL.get((b.get("status") or {}).get("phase", ""), 0)
    if phase_a != phase_b:
        return phase_a < phase_b
    ready_a, ready_b = is_pod_ready(a), is_pod_ready(b)
    if ready_a != ready_b:
        return not ready_a
    cost_a, cost_b = deletion_cost(a), deletion_cost(b)
    if cost_a != cost_b:
        return cost_a < cost_b
    if rank_a != rank_b:
        return rank_a > rank_b
    uid_a, uid_b = str(a["metadata"].get("uid", "")), str(b["metadata"].get("uid", ""))
    if ready_a and ready_b:
        t_a, t_b = _ready_time(a), _ready_time(b)
        if t_a != t_b:
            return _by_age(t_a, t_b, uid_a, uid_b, now)
    restarts_a, restarts_b = _max_restarts(a), _max_restarts(b)
    if restarts_a[0] != restarts_b[0]:
        return restarts_a[0] > restarts_b[0]
    if restarts_a[1] != restarts_b[1]:
        return restarts_a[1] > restarts_b[1]
    c_a = _time(a["metadata"].get("creationTimestamp"))
    c_b = _time(b["metadata"].get("creationTimestamp"))
    if c_a != c_b:
        return _by_age(c_a, c_b, uid_a, uid_b, now)
    return False


def ranks_by_related_pods(pods: list[Obj], related: list[Obj]) -> list[int]:
    """``getPodsRankedByRelatedPodsOnSameNode``: active related pods on each pod's node."""
    on_node: dict[str, int] = {}
    for pod in related:
        if is_pod_active(pod):
            node = pod["spec"].get("nodeName") or ""
            on_node[node] = on_node.get(node, 0) + 1
    return [on_node.get(p["spec"].get("nodeName") or "", 0) for p in pods]


def get_pods_to_delete(pods: list[Obj], related: list[Obj], diff: int, now: Instant) -> list[Obj]:
    """``getPodsToDelete``: the first ``diff`` pods by rank; all of them unsorted otherwise.

    Upstream's sort is not stable; a stable sort keeps input order for equal pods so
    the reference stays deterministic.
    """
    if diff >= len(pods):
        return pods[:diff]
    ranked = list(zip(pods, ranks_by_related_pods(pods, related), strict=True))

    def cmp(x: tuple[Obj, int], y: tuple[Obj, int]) -> int:
        if _less(x[0], x[1], y[0], y[1], now):
            return -1
        return 1 if _less(y[0], y[1], x[0], x[1], now) else 0

    ranked.sort(key=functools.cmp_to_key(cmp))
    return [p for p, _ in ranked[:diff]]


def pod_keys(pods: list[Obj]) -> list[str]:
    """``getPodKeys``: ``namespace/name`` of each pod, in order."""
    return [f"{p['metadata'].get('namespace', '')}/{p['metadata']['name']}" for p in pods]

"""Deployment helpers (``pkg/controller/deployment/util/deployment_util.go``).

Template hashing, maxSurge/maxUnavailable resolution, replica counts over ReplicaSets,
the revision annotations and the Deployment condition setter.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable
from typing import Any, Final

from reference_impl.clock import parse_rfc3339

__all__ = [
    "DESIRED_REPLICAS",
    "MAX_REPLICAS",
    "REVISION",
    "TEMPLATE_HASH_LABEL",
    "compute_hash",
    "equal_ignore_hash",
    "max_surge",
    "max_unavailable",
    "resolve_fenceposts",
    "set_deployment_condition",
]

Obj = dict[str, Any]
TEMPLATE_HASH_LABEL: Final = "pod-template-hash"
REVISION: Final = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS: Final = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS: Final = "deployment.kubernetes.io/max-replicas"
_SAFE_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def compute_hash(template: Obj, collision_count: int | None) -> str:
    """``controller.ComputeHash``: fnv32a of the template, safe-encoded.

    Upstream hashes a spew dump of the Go struct; canonical JSON is the stable stand-in,
    so hashes differ from a real cluster's but are equal across runs and machines.
    """
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += str(collision_count).encode()
    digits = str(_fnv32a(data))
    return "".join(_SAFE_ALPHABET[ord(c) % len(_SAFE_ALPHABET)] for c in digits)


def _without_hash(template: Obj) -> Obj:
    t = copy.deepcopy(template)
    (t.get("metadata") or {}).get("labels", {}).pop(TEMPLATE_HASH_LABEL, None)
    return t


def equal_ignore_hash(a: Obj, b: Obj) -> bool:
    """Templates equal apart from the pod-template-hash label (``EqualIgnoreHash``)."""
    return _without_hash(a) == _without_hash(b)


def scaled_value(value: int | str | None, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    pct = int(value.rstrip("%"))
    exact = pct * total / 100
    return math.ceil(exact) if round_up else math.floor(exact)


def resolve_fenceposts(d: Obj) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) for a RollingUpdate Deployment; both 0 can't be, so 1."""
    ru = ((d["spec"].get("strategy") or {}).get("rollingUpdate")) or {}
    desired = int(d["spec"].get("replicas", 1))
    surge = scaled_value(ru.get("maxSurge", "25%"), desired, True)
    unavailable = scaled_value(ru.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def is_rolling(d: Obj) -> bool:
    """The strategy is RollingUpdate (the default)."""
    strategy: Obj = d["spec"].get("strategy") or {}
    return bool(strategy.get("type", "RollingUpdate") == "RollingUpdate")


def max_unavailable(d: Obj) -> int:
    """``MaxUnavailable``: 0 for Recreate or zero replicas, capped at spec.replicas."""
    desired = int(d["spec"].get("replicas", 1))
    if not is_rolling(d) or desired == 0:
        return 0
    return min(resolve_fenceposts(d)[1], desired)


def max_surge(d: Obj) -> int:
    """``MaxSurge``: 0 for Recreate."""
    return resolve_fenceposts(d)[0] if is_rolling(d) else 0


def spec_replicas(rss: Iterable[Obj]) -> int:
    """Sum of spec.replicas (``GetReplicaCountForReplicaSets``)."""
    return sum(int(rs["spec"].get("replicas", 0)) for rs in rss)


def status_sum(rss: Iterable[Obj], field: str) -> int:
    """Sum of one status counter over ReplicaSets."""
    return sum(int((rs.get("status") or {}).get(field, 0)) for rs in rss)


def by_creation(rs: Obj) -> tuple[int, str]:
    """Oldest first, name breaking ties (``ReplicaSetsByCreationTimestamp``)."""
    return (parse_rfc3339(str(rs["metadata"]["creationTimestamp"])), str(rs["metadata"]["name"]))


def revision(rs: Obj) -> int:
    """The revision annotation as an int, 0 when absent."""
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


def set_deployment_condition(
    status: Obj,
    ctype: str,
    cstatus: str,
    reason: str,
    message: str,
    now: str,
    *,
    bump: bool = False,
) -> None:
    """``SetDeploymentCondition``: unchanged status+reason is a no-op unless ``bump``.

    ``bump`` is the ReplicaSetUpdated case, which upstream removes and re-adds so
    lastUpdateTime moves while lastTransitionTime is kept.
    """
    conds: list[Obj] = [dict(c) for c in status.get("conditions") or []]
    cur = next((c for c in conds if c.get("type") == ctype), None)
    if cur and cur.get("status") == cstatus and cur.get("reason") == reason and not bump:
        status["conditions"] = conds
        return
    new = {
        "type": ctype,
        "status": cstatus,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }
    if cur and cur.get("status") == cstatus:
        new["lastTransitionTime"] = cur.get("lastTransitionTime", now)
    status["conditions"] = [c for c in conds if c.get("type") != ctype] + [new]


def condition_of(status: Obj, ctype: str) -> Obj | None:
    """The condition of ``ctype`` in a status dict."""
    for c in status.get("conditions") or []:
        if c.get("type") == ctype:
            out: Obj = c
            return out
    return None

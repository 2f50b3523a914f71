"""Deployment helpers (``pkg/controller/deployment/util/deployment_util.go``).

Template hashing, maxSurge/maxUnavailable resolution, replica counts over ReplicaSets,
the revision annotations and the Deployment condition setter.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from typing import Any, Final

from reference_impl.api.meta import condition
from reference_impl.clock import parse_rfc3339

__all__ = [
    "DESIRED_REPLICAS",
    "MAX_REPLICAS",
    "REVISION",
    "SKIP_COPY_ANNOTATIONS",
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
_ZERO_TIME: Final = -(2**62)
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


def _without_hash(template: Obj) -> Any:
    t = copy.deepcopy(template)
    meta = t.get("metadata") or {}
    (meta.get("labels") or {}).pop(TEMPLATE_HASH_LABEL, None)
    # apiequality.Semantic treats nil and empty maps alike (struct pointers it does not,
    # so only the metadata maps are normalised).
    for key in ("labels", "annotations"):
        if not meta.get(key):
            meta.pop(key, None)
    if "metadata" in t and not t["metadata"]:
        del t["metadata"]
    return t


def equal_ignore_hash(a: Obj, b: Obj) -> bool:
    """Templates equal apart from the pod-template-hash label (``EqualIgnoreHash``)."""
    return bool(_without_hash(a) == _without_hash(b))


def scaled_value(value: int | str | None, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``; a string must be a percentage.

    Raises ValueError for any other string, as upstream returns an error.
    """
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    if not value.endswith("%") or not value[:-1].isdigit():
        raise ValueError("invalid value for IntOrString: invalid type: string is not a percentage")
    pct = int(value[:-1])
    # Exact integer ceil/floor of pct*total/100 (upstream's float math agrees here).
    return -(-pct * total // 100) if round_up else pct * total // 100


def resolve_fenceposts_values(
    surge: int | str | None, unavailable: int | str | None, desired: int
) -> tuple[int, int]:
    """``ResolveFenceposts``: absent values count as 0; both 0 resolves unavailable to 1."""
    s = scaled_value(surge, desired, True)
    u = scaled_value(unavailable, desired, False)
    if s == 0 and u == 0:
        u = 1  # rounding down may reach 0; surge might not work under quota
    return s, u


def resolve_fenceposts(d: Obj) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) of a RollingUpdate Deployment (the apiserver defaults both)."""
    ru = ((d["spec"].get("strategy") or {}).get("rollingUpdate")) or {}
    desired = int(d["spec"].get("replicas", 1))
    return resolve_fenceposts_values(ru.get("maxSurge"), ru.get("maxUnavailable"), desired)


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


def min_available(d: Obj) -> int:
    """``MinAvailable``: 0 for Recreate."""
    if not is_rolling(d):
        return 0
    return int(d["spec"].get("replicas", 1)) - max_unavailable(d)


def max_surge(d: Obj) -> int:
    """``MaxSurge``: 0 for Recreate."""
    return resolve_fenceposts(d)[0] if is_rolling(d) else 0


def spec_replicas(rss: Iterable[Obj]) -> int:
    """Sum of spec.replicas (``GetReplicaCountForReplicaSets``)."""
    return sum(int(rs["spec"].get("replicas", 0)) for rs in rss)


def terminating_count(rss: Iterable[Obj]) -> int | None:
    """``GetTerminatingReplicaCountForReplicaSets``: None when a synced set omits the count."""
    total = 0
    for rs in rss:
        status = rs.get("status") or {}
        if "terminatingReplicas" in status:
            total += int(status["terminatingReplicas"])
        elif int(status.get("observedGeneration", 0)) != 0:
            return None  # synced but not reporting: the sum is unknown
    return total


def find_new_rs(d: Obj, rss: Iterable[Obj]) -> Obj | None:
    """``FindNewReplicaSet``: the oldest set whose template equals the Deployment's."""
    template = d["spec"].get("template") or {}
    for rs in sorted(rss, key=by_creation):
        if equal_ignore_hash(rs["spec"].get("template") or {}, template):
            return rs
    return None


def find_old_rss(d: Obj, rss: Iterable[Obj]) -> tuple[list[Obj], list[Obj]]:
    """``FindOldReplicaSets``: (old sets with spec.replicas != 0, all old sets), oldest first."""
    ordered = sorted(rss, key=by_creation)
    new_rs = find_new_rs(d, ordered)
    old = [rs for rs in ordered if rs is not new_rs]
    return [rs for rs in old if int(rs["spec"].get("replicas", 0)) != 0], old


def replicas_annotations_need_update(rs: Obj, desired: int, max_replicas: int) -> bool:
    """``ReplicasAnnotationsNeedUpdate``."""
    ann: dict[str, str] | None = rs["metadata"].get("annotations")
    if ann is None:
        return True
    return ann.get(DESIRED_REPLICAS) != str(desired) or ann.get(MAX_REPLICAS) != str(max_replicas)


def annotation_int(rs: Obj, key: str) -> int | None:
    """``getNonNegativeInt32FromAnnotation``: a uint32 string at most MaxInt32, else None."""
    value = (rs["metadata"].get("annotations") or {}).get(key)
    if value is None or not value.isdigit() or int(value) > 2**31 - 1:
        return None
    return int(value)


def replica_set_fraction(rs: Obj, d: Obj) -> int:
    """``getReplicaSetFraction``: how many replicas ``rs`` gains (or loses) when scaling."""
    size = int(rs["spec"].get("replicas", 0))
    desired = int(d["spec"].get("replicas", 1))
    if desired == 0:
        return -size
    before = annotation_int(rs, MAX_REPLICAS)
    if not before:
        # Annotation missing, invalid or 0 (tampered with): fall back to the current size.
        before = int((d.get("status") or {}).get("replicas", 0))
        if before == 0:
            return 0
    # integer.RoundToInt32 rounds half away from zero; sizes are non-negative here.
    num, den = size * (desired + max_surge(d)), before
    return (2 * num + den) // (2 * den) - size


def replica_set_proportion(rs: Obj | None, d: Obj, to_add: int, added: int) -> int:
    """``GetReplicaSetProportion``: the fraction capped by what is still left to add."""
    if rs is None or int(rs["spec"].get("replicas", 0)) == 0 or to_add in (0, added):
        return 0
    fraction = replica_set_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def status_sum(rss: Iterable[Obj], field: str) -> int:
    """Sum of one status counter over ReplicaSets."""
    return sum(int((rs.get("status") or {}).get(field, 0)) for rs in rss)


def by_creation(rs: Obj) -> tuple[int, str]:
    """Oldest first, name breaking ties (``ReplicaSetsByCreationTimestamp``)."""
    ts = rs["metadata"].get("creationTimestamp")
    # A missing timestamp is Go's zero time: before every real one.
    return (parse_rfc3339(str(ts)) if ts else _ZERO_TIME, str(rs["metadata"]["name"]))


def revision(rs: Obj) -> int:
    """The revision annotation as an int, 0 when absent or not an integer (``MaxRevision``
    skips a replica set whose revision does not parse)."""
    return parse_revision(rs) or 0


_DECIMAL: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


def parse_int64(value: str) -> int | None:
    """``strconv.ParseInt(value, 10, 64)``, None on its error: ASCII digits with an
    optional sign only (no spaces, underscores or other digits), within int64."""
    if not _DECIMAL.fullmatch(value):
        return None
    n = int(value)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


def parse_revision(rs: Obj) -> int | None:
    """``Revision``: 0 when absent, None when not an integer (upstream's error)."""
    value = (rs["metadata"].get("annotations") or {}).get(REVISION)
    if value is None:
        return 0
    return parse_int64(str(value))


REVISION_HISTORY: Final = "deployment.kubernetes.io/revision-history"
MAX_REV_HISTORY_CHARS: Final = 2000  # maxRevHistoryLengthInChars
SKIP_COPY_ANNOTATIONS: Final = frozenset(  # skipCopyAnnotation's keys
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        REVISION_HISTORY,
        DESIRED_REPLICAS,
        MAX_REPLICAS,
        "deprecated.deployment.rollback.to",
    }
)
RS_NAME_MAX: Final = 253  # validation.DNS1123SubdomainMaxLength


def generate_replica_set_name(deployment: str, template_hash: str) -> str:
    """``generateReplicaSetName``: ``<name>-<hash>``, the name cut to fit 253 chars."""
    room = RS_NAME_MAX - 1 - len(template_hash)
    if len(deployment) > room > 0:
        deployment = deployment[:room]
    return f"{deployment}-{template_hash}"


def set_new_rs_annotations(
    d: Obj, rs: Obj, new_revision: str, exists: bool, limit: int = MAX_REV_HISTORY_CHARS
) -> bool:
    """``SetNewReplicaSetAnnotations``: copy the Deployment's annotations (but the skipped
    ones), raise the revision keeping the old ones in revision-history (at most ``limit``
    chars), and for a set being created record desired/max replicas. True when changed."""
    ann = rs["metadata"].setdefault("annotations", {})
    changed = False
    for k, v in (d["metadata"].get("annotations") or {}).items():
        if k not in SKIP_COPY_ANNOTATIONS and ann.get(k) != v:
            ann[k] = v
            changed = True
    old_rev = ann.get(REVISION)
    try:
        old_int = int(old_rev) if old_rev else 0
        new_int = int(new_revision)
    except ValueError:
        return False  # upstream logs and leaves the set alone
    if old_int < new_int:
        ann[REVISION] = new_revision
        changed = True
        if old_rev is not None:
            _record_revision_history(ann, old_rev, limit)
    if not exists:
        replicas = int(d["spec"].get("replicas", 1))
        desired, most = str(replicas), str(replicas + max_surge(d))
        if ann.get(DESIRED_REPLICAS) != desired or ann.get(MAX_REPLICAS) != most:
            ann[DESIRED_REPLICAS], ann[MAX_REPLICAS] = desired, most
            changed = True
    return changed


def _record_revision_history(ann: dict[str, str], old_rev: str, limit: int) -> None:
    history = ann.get(REVISION_HISTORY, "")
    old = history.split(",")
    if not old[0]:
        ann[REVISION_HISTORY] = old_rev
        return
    total, start = len(history) + len(old_rev) + 1, 0
    while total > limit and start < len(old):
        total -= len(old[start]) + 1  # drop the oldest entries until it fits
        start += 1
    if total <= limit:
        ann[REVISION_HISTORY] = ",".join([*old[start:], old_rev])


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


def remove_deployment_condition(status: Obj, ctype: str) -> None:
    """``RemoveDeploymentCondition``."""
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != ctype]


def condition_of(status: Obj, ctype: str) -> Obj | None:
    """The condition of ``ctype`` in a status dict (``api.meta.condition`` on it)."""
    return condition({"status": status}, ctype)

"""The eviction manager's rules (upstream v1.37.2 pkg/kubelet/eviction/helpers.go):
threshold flags parsed, signals observed from a stats summary, thresholds met (with
min-reclaim and grace periods), node conditions and their transition period, pods
ranked for eviction, and the eviction message.

Maps keyed by threshold or condition upstream (Go's random order) are dicts here, in
insertion order, so results stay deterministic."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.quantity import format_quantity
from reference_impl.apiserver.quota.pod_resources import is_pod_level_resources_set, pod_requests
from reference_impl.kubelet import eviction_api as api
from reference_impl.kubelet.eviction_stats import FsStats, PodStats, Summary

__all__ = [
    "EvictionConfigError",
    "Observation",
    "compare_threshold_value",
    "eviction_message",
    "get_reclaimable_threshold",
    "make_signal_observations",
    "node_conditions",
    "node_conditions_last_observed_at",
    "node_conditions_observed_since",
    "parse_percentage",
    "parse_threshold_config",
    "rank_disk_pressure",
    "rank_memory_pressure",
    "rank_pid_pressure",
    "thresholds_first_observed_at",
    "thresholds_met",
    "thresholds_met_grace_period",
]

Obj = Mapping[str, Any]
StatsFunc = Callable[[Obj], "PodStats | None"]

REASON: Final = "Evicted"
NODE_ALLOCATABLE_ENFORCEMENT_KEY: Final = "pods"
FS_ROOT: Final = "root"
FS_LOGS: Final = "logs"
FS_LOCAL_VOLUME: Final = "localVolumeSource"
FS_IMAGES: Final = "images"


class EvictionConfigError(ValueError):
    """A threshold flag ``ParseThresholdConfig`` refuses."""


@dataclass(frozen=True, slots=True)
class Observation:
    """``signalObservation``: available and capacity now, and when it was taken."""

    available: Decimal
    capacity: Decimal
    time: int | None = None


# -- parsing -------------------------------------------------------------------------------

_DURATION_UNITS: Final = {
    "ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9,
    "m": 60 * 10**9, "h": 3600 * 10**9,
}  # fmt: skip
_DURATION_PART: Final = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")


def parse_go_duration(text: str) -> int:
    """``time.ParseDuration`` in ns."""
    s, sign = text, 1
    if s[:1] in ("+", "-"):
        sign, s = (-1 if s[0] == "-" else 1), s[1:]
    if s == "0":
        return 0
    if not s:
        raise EvictionConfigError(f'time: invalid duration "{text}"')
    total, pos = Decimal(0), 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None or m.group(1) in ("", "."):
            raise EvictionConfigError(f'time: invalid duration "{text}"')
        total += Decimal(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    return sign * int(total)


def parse_percentage(text: str) -> float:
    """``parsePercentage``: ``"10%"`` is 0.1 (float32)."""
    try:
        value = float(text.rstrip("%"))
    except ValueError as err:
        raise EvictionConfigError(f'strconv.ParseFloat: parsing "{text.rstrip("%")}": invalid syntax') from err
    return api.f32(api.f32(value) / 100)


def _quantity(text: str) -> Decimal:
    try:
        return parse_quantity(text)
    except (ValueError, InvalidOperation) as err:
        raise EvictionConfigError(str(err)) from err


def _valid_signal(signal: str) -> None:
    if signal not in api.SIGNAL_TO_RESOURCE:
        raise EvictionConfigError(f"unsupported eviction signal {signal}")


def _threshold_statement(signal: str, val: str) -> api.Threshold | None:
    """``parseThresholdStatement``: None for 0% and 100% (disabled)."""
    _valid_signal(signal)
    if val.endswith("%"):
        if val in ("0%", "100%"):
            return None
        pct = parse_percentage(val)
        if pct < 0:
            raise EvictionConfigError(f"eviction percentage threshold {signal} must be >= 0%: {val}")
        if pct > 1:
            raise EvictionConfigError(f"eviction percentage threshold {signal} must be <= 100%: {val}")
        return api.Threshold(signal, api.OP_LESS_THAN, api.ThresholdValue(percentage=pct))
    q = _quantity(val)
    if q <= 0:
        raise EvictionConfigError(f"eviction threshold {signal} must be positive: {val}")
    return api.Threshold(signal, api.OP_LESS_THAN, api.ThresholdValue(quantity=q))


def _statements(statements: Mapping[str, str]) -> list[api.Threshold]:
    out = []
    for signal, val in statements.items():
        t = _threshold_statement(signal, val)
        if t is not None:
            out.append(t)
    return out


def _grace_periods(statements: Mapping[str, str]) -> dict[str, int]:
    out = {}
    for signal, val in statements.items():
        _valid_signal(signal)
        period = parse_go_duration(val)
        if period < 0:
            raise EvictionConfigError(
                f"invalid eviction grace period specified: {val}, must be a positive value"
            )
        out[signal] = period
    return out


def _min_reclaims(statements: Mapping[str, str]) -> dict[str, api.ThresholdValue]:
    out = {}
    for signal, val in statements.items():
        _valid_signal(signal)
        if val.endswith("%"):
            pct = parse_percentage(val)
            if pct <= 0:
                raise EvictionConfigError(
                    f"eviction percentage minimum reclaim {signal} must be positive: {val}"
                )
            out[signal] = api.ThresholdValue(percentage=pct)
            continue
        q = _quantity(val)
        if q < 0:
            raise EvictionConfigError(f"negative eviction minimum reclaim specified for {signal}")
        out[signal] = api.ThresholdValue(quantity=q)
    return out


def add_allocatable_thresholds(thresholds: Sequence[api.Threshold]) -> list[api.Threshold]:
    """``addAllocatableThresholds``: each hard memory.available copied as
    allocatableMemory.available."""
    extra = [
        api.Threshold(api.ALLOCATABLE_MEMORY_AVAILABLE, t.operator, t.value, 0, t.min_reclaim)
        for t in thresholds
        if t.signal == api.MEMORY_AVAILABLE and is_hard(t)
    ]
    return [*thresholds, *extra]


def parse_threshold_config(
    allocatable_config: Sequence[str],
    hard: Mapping[str, str],
    soft: Mapping[str, str],
    soft_grace: Mapping[str, str],
    min_reclaim: Mapping[str, str],
) -> list[api.Threshold]:
    """``ParseThresholdConfig``: --eviction-hard, --eviction-soft (each needs a grace
    period), --eviction-minimum-reclaim, and the allocatable copies when
    --enforce-node-allocatable has ``pods``."""
    results = _statements(hard)
    softs = _statements(soft)
    periods = _grace_periods(soft_grace)
    reclaims = _min_reclaims(min_reclaim)
    for i, t in enumerate(softs):
        if t.signal not in periods:
            raise EvictionConfigError(
                f"grace period must be specified for the soft eviction threshold {t.signal}"
            )
        softs[i] = api.Threshold(t.signal, t.operator, t.value, periods[t.signal])
    results += softs
    results = [
        api.Threshold(t.signal, t.operator, t.value, t.grace_period, reclaims[t.signal])
        if t.signal in reclaims
        else t
        for t in results
    ]
    if NODE_ALLOCATABLE_ENFORCEMENT_KEY in allocatable_config:
        results = add_allocatable_thresholds(results)
    return results


# -- observations and thresholds -----------------------------------------------------------


def _obs(avail: int | None, cap: int | None, time: int | None) -> Observation | None:
    if avail is None or cap is None:
        return None
    return Observation(Decimal(avail), Decimal(cap), time)


def _fs_observations(
    out: dict[str, Observation], fs: FsStats | None, bytes_signal: str, inodes_signal: str
) -> None:
    if fs is None:
        return
    for signal, ob in (
        (bytes_signal, _obs(fs.available, fs.capacity, fs.time)),
        (inodes_signal, _obs(fs.inodes_free, fs.inodes, fs.time)),
    ):
        if ob is not None:
            out[signal] = ob


def make_signal_observations(summary: Summary) -> tuple[dict[str, Observation], StatsFunc]:
    """``makeSignalObservations``: each signal the summary has the stats for, and the
    pods' stats by UID."""
    by_uid = {p.uid: p for p in summary.pods}

    def stats(pod: Obj) -> PodStats | None:
        return by_uid.get(str((pod.get("metadata") or {}).get("uid") or ""))

    n = summary.node
    out: dict[str, Observation] = {}
    if n.memory_available is not None and n.memory_working_set is not None:
        cap = n.memory_available + n.memory_working_set
        out[api.MEMORY_AVAILABLE] = Observation(Decimal(n.memory_available), Decimal(cap), n.memory_time)
    if n.pods_memory_available is not None and n.pods_memory_working_set is not None:
        cap = n.pods_memory_available + n.pods_memory_working_set
        out[api.ALLOCATABLE_MEMORY_AVAILABLE] = Observation(
            Decimal(n.pods_memory_available), Decimal(cap), n.memory_time
        )
    _fs_observations(out, n.fs, api.NODEFS_AVAILABLE, api.NODEFS_INODES_FREE)
    _fs_observations(out, n.image_fs, api.IMAGEFS_AVAILABLE, api.IMAGEFS_INODES_FREE)
    _fs_observations(out, n.container_fs, api.CONTAINERFS_AVAILABLE, api.CONTAINERFS_INODES_FREE)
    if n.running_processes is not None and n.max_pid is not None:
        out[api.PID_AVAILABLE] = Observation(
            Decimal(n.max_pid - n.running_processes), Decimal(n.max_pid), n.rlimit_time
        )
    return out, stats


def thresholds_met(
    thresholds: Sequence[api.Threshold],
    observations: Mapping[str, Observation],
    enforce_min_reclaim: bool,
) -> list[api.Threshold]:
    """``thresholdsMet``: those whose signal's available is below the threshold (plus
    its min-reclaim when enforced), grace periods aside."""
    out = []
    for t in thresholds:
        ob = observations.get(t.signal)
        if ob is None:
            continue
        q = api.get_threshold_quantity(t.value, ob.capacity)
        if enforce_min_reclaim and t.min_reclaim is not None:
            q += api.get_threshold_quantity(t.min_reclaim, ob.capacity)
        if t.operator == api.OP_LESS_THAN and q > ob.available:
            out.append(t)
    return out


def thresholds_updated_stats(
    thresholds: Sequence[api.Threshold],
    observations: Mapping[str, Observation],
    last: Mapping[str, Observation],
) -> list[api.Threshold]:
    """``thresholdsUpdatedStats``: those whose signal has a newer stat than last time."""
    out = []
    for t in thresholds:
        ob = observations.get(t.signal)
        if ob is None:
            continue
        prev = last.get(t.signal)
        if prev is None or ob.time is None or ob.time > (prev.time or 0):
            out.append(t)
    return out


def thresholds_first_observed_at(
    thresholds: Sequence[api.Threshold], last: Mapping[api.Threshold, int], now: int
) -> dict[api.Threshold, int]:
    """``thresholdsFirstObservedAt``."""
    return {t: last.get(t, now) for t in thresholds}


def thresholds_met_grace_period(observed_at: Mapping[api.Threshold, int], now: int) -> list[api.Threshold]:
    """``thresholdsMetGracePeriod``: those met for at least their grace period."""
    return [t for t, at in observed_at.items() if now - at >= t.grace_period]


def node_conditions(thresholds: Sequence[api.Threshold]) -> list[str]:
    """``nodeConditions``: each threshold's condition, once."""
    out: list[str] = []
    for t in thresholds:
        cond = api.SIGNAL_TO_NODE_CONDITION.get(t.signal)
        if cond is not None and cond not in out:
            out.append(cond)
    return out


def node_conditions_last_observed_at(
    conditions: Sequence[str], last: Mapping[str, int], now: int
) -> dict[str, int]:
    """``nodeConditionsLastObservedAt``: the conditions now, the others as last seen."""
    out = dict.fromkeys(conditions, now)
    for cond, at in last.items():
        out.setdefault(cond, at)
    return out


def node_conditions_observed_since(observed_at: Mapping[str, int], period: int, now: int) -> list[str]:
    """``nodeConditionsObservedSince``: those seen less than ``period`` ago."""
    return [c for c, at in observed_at.items() if now - at < period]


def merge_thresholds(a: Sequence[api.Threshold], b: Sequence[api.Threshold]) -> list[api.Threshold]:
    """``mergeThresholds``: ``a`` then those of ``b`` not in it (``hasThreshold``)."""
    out = list(a)
    for t in b:
        if not any(
            x.grace_period == t.grace_period
            and x.operator == t.operator
            and x.signal == t.signal
            and compare_threshold_value(x.value, t.value)
            for x in out
        ):
            out.append(t)
    return out


def compare_threshold_value(a: api.ThresholdValue, b: api.ThresholdValue) -> bool:
    """``compareThresholdValue``: equal quantities, or both percentages and equal."""
    if a.quantity is not None:
        return b.quantity is not None and a.quantity == b.quantity
    if b.quantity is not None:
        return False
    return a.percentage == b.percentage


def is_hard(t: api.Threshold) -> bool:
    """``isHardEvictionThreshold``."""
    return t.grace_period == 0


def get_reclaimable_threshold(thresholds: Sequence[api.Threshold]) -> tuple[api.Threshold, str] | None:
    """``getReclaimableThreshold``: the first threshold with a resource to reclaim."""
    for t in thresholds:
        if t.signal in api.SIGNAL_TO_RESOURCE:
            return t, api.SIGNAL_TO_RESOURCE[t.signal]
    return None


def by_eviction_priority(thresholds: Sequence[api.Threshold]) -> list[api.Threshold]:
    """``sort.Sort(byEvictionPriority)``: memory signals first, those without a resource
    to reclaim last (an insertion sort, as Go's for short slices)."""
    out = list(thresholds)

    def less(a: api.Threshold, b: api.Threshold) -> bool:
        mem = a.signal in (api.MEMORY_AVAILABLE, api.ALLOCATABLE_MEMORY_AVAILABLE)
        return mem or b.signal not in api.SIGNAL_TO_RESOURCE

    for i in range(1, len(out)):
        j = i
        while j > 0 and less(out[j], out[j - 1]):
            out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


# -- ranking -------------------------------------------------------------------------------

Cmp = Callable[[Obj, Obj], int]


def request_quantity(pod: Obj, resource: str, pod_level: bool = True) -> Decimal:
    """``GetResourceRequestQuantity``: the pod's request (pod-level when set), plus the
    overhead only when that is non-zero."""
    spec = dict(pod.get("spec") or {})
    overhead = spec.pop("overhead", None) or {}
    reqs = pod_requests({**pod, "spec": spec}, use_status=False, pod_level=pod_level)
    q = reqs[resource].amount if resource in reqs else Decimal(0)
    if q != 0 and resource in overhead:
        q += parse_quantity(overhead[resource])
    return q


def priority(p1: Obj, p2: Obj) -> int:
    """``priority``: the lower priority ranks first."""
    a = int((p1.get("spec") or {}).get("priority") or 0)
    b = int((p2.get("spec") or {}).get("priority") or 0)
    return 0 if a == b else (1 if a > b else -1)


def cmp_bool(a: bool, b: bool) -> int:
    """``cmpBool``: true before false."""
    return 0 if a == b else (-1 if not b else 1)


def _memory(stats: PodStats) -> Decimal:
    return Decimal(stats.memory_working_set or 0)


def exceed_memory_requests(stats: StatsFunc, pod_level: bool = True) -> Cmp:
    """``exceedMemoryRequests``: pods without stats, then those above their request."""

    def cmp(p1: Obj, p2: Obj) -> int:
        s1, s2 = stats(p1), stats(p2)
        if s1 is None or s2 is None:
            return cmp_bool(s1 is None, s2 is None)
        e1 = _memory(s1) > request_quantity(p1, "memory", pod_level)
        e2 = _memory(s2) > request_quantity(p2, "memory", pod_level)
        return cmp_bool(e1, e2)

    return cmp


def memory(stats: StatsFunc, pod_level: bool = True) -> Cmp:
    """``memory``: the larger use above the request first."""

    def cmp(p1: Obj, p2: Obj) -> int:
        s1, s2 = stats(p1), stats(p2)
        if s1 is None or s2 is None:
            return cmp_bool(s1 is None, s2 is None)
        u1 = _memory(s1) - request_quantity(p1, "memory", pod_level)
        u2 = _memory(s2) - request_quantity(p2, "memory", pod_level)
        return (u2 > u1) - (u2 < u1)

    return cmp


def process(stats: StatsFunc) -> Cmp:
    """``process``: more processes first."""

    def cmp(p1: Obj, p2: Obj) -> int:
        s1, s2 = stats(p1), stats(p2)
        if s1 is None or s2 is None:
            return cmp_bool(s1 is None, s2 is None)
        return (s2.process_count or 0) - (s1.process_count or 0)

    return cmp


def local_volume_names(pod: Obj) -> list[str]:
    """``localVolumeNames``: hostPath, emptyDir, configMap, gitRepo, downwardAPI,
    secret... upstream's ``IsLocalEphemeralVolume`` (emptyDir not in memory)."""
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or ():
        if "hostPath" in v or "gitRepo" in v or "configMap" in v or "downwardAPI" in v:
            out.append(str(v["name"]))
        elif "emptyDir" in v and (v["emptyDir"] or {}).get("medium") != "Memory":
            out.append(str(v["name"]))
    return out


def pod_disk_usage(stats: PodStats, pod: Obj, measure: Sequence[str]) -> dict[str, Decimal]:
    """``podDiskUsage``: bytes and inodes of the measured container filesystems and, when
    asked, the pod's local volumes."""
    disk, inodes = 0, 0
    for c in stats.containers:
        for kind, fs in ((FS_ROOT, c.rootfs), (FS_LOGS, c.logs)):
            if kind in measure and fs is not None:
                disk += fs.used or 0
                inodes += fs.inodes_used or 0
    if FS_LOCAL_VOLUME in measure:
        for name in local_volume_names(pod):
            fs = stats.volumes.get(name)
            if fs is not None:
                disk += fs.used or 0
                inodes += fs.inodes_used or 0
    return {"ephemeral-storage": Decimal(disk), api.RESOURCE_INODES: Decimal(inodes)}


def exceed_disk_requests(stats: StatsFunc, measure: Sequence[str], resource: str) -> Cmp:
    """``exceedDiskRequests``."""

    def cmp(p1: Obj, p2: Obj) -> int:
        s1, s2 = stats(p1), stats(p2)
        if s1 is None or s2 is None:
            return cmp_bool(s1 is None, s2 is None)
        e1 = pod_disk_usage(s1, p1, measure)[resource] > request_quantity(p1, resource)
        e2 = pod_disk_usage(s2, p2, measure)[resource] > request_quantity(p2, resource)
        return cmp_bool(e1, e2)

    return cmp


def disk(stats: StatsFunc, measure: Sequence[str], resource: str) -> Cmp:
    """``disk``: the larger use above the ephemeral-storage request first."""

    def cmp(p1: Obj, p2: Obj) -> int:
        s1, s2 = stats(p1), stats(p2)
        if s1 is None or s2 is None:
            return cmp_bool(s1 is None, s2 is None)
        u1 = pod_disk_usage(s1, p1, measure)[resource] - request_quantity(p1, "ephemeral-storage")
        u2 = pod_disk_usage(s2, p2, measure)[resource] - request_quantity(p2, "ephemeral-storage")
        return (u2 > u1) - (u2 < u1)

    return cmp


def ordered_by(*cmps: Cmp) -> Callable[[list[Any]], None]:
    """``orderedBy(...).Sort``: the first deciding comparison wins (a stable sort; Go's
    is an insertion sort, also stable, for the short lists ranked here)."""

    def key(p1: Obj, p2: Obj) -> int:
        for c in cmps[:-1]:
            r = c(p1, p2)
            if r != 0:
                return -1 if r < 0 else 1
        r = cmps[-1](p1, p2)
        return (r > 0) - (r < 0)

    def sort(pods: list[Any]) -> None:
        pods.sort(key=functools.cmp_to_key(key))

    return sort


def rank_memory_pressure(pods: list[Any], stats: StatsFunc) -> None:
    """``rankMemoryPressure``: above requests, then priority, then use above requests."""
    ordered_by(exceed_memory_requests(stats), priority, memory(stats))(pods)


def rank_pid_pressure(pods: list[Any], stats: StatsFunc) -> None:
    """``rankPIDPressure``: priority, then processes."""
    ordered_by(priority, process(stats))(pods)


def rank_disk_pressure(measure: Sequence[str], resource: str) -> Callable[[list[Any], StatsFunc], None]:
    """``rankDiskPressureFunc``."""

    def rank(pods: list[Any], stats: StatsFunc) -> None:
        ordered_by(exceed_disk_requests(stats, measure, resource), priority, disk(stats, measure, resource))(pods)

    return rank


def signal_to_rank_func(
    with_image_fs: bool, split_fs: bool
) -> dict[str, Callable[[list[Any], StatsFunc], None]]:
    """``buildSignalToRankFunc``: which filesystems each disk signal measures."""
    out: dict[str, Callable[[list[Any], StatsFunc], None]] = {
        api.MEMORY_AVAILABLE: rank_memory_pressure,
        api.ALLOCATABLE_MEMORY_AVAILABLE: rank_memory_pressure,
        api.PID_AVAILABLE: rank_pid_pressure,
    }
    node: tuple[str, ...]
    image: tuple[str, ...]
    container: tuple[str, ...]
    if with_image_fs and not split_fs:
        node, image = (FS_LOGS, FS_LOCAL_VOLUME), (FS_ROOT, FS_IMAGES)
        container = image
    elif with_image_fs:
        node, image = (FS_LOGS, FS_LOCAL_VOLUME, FS_ROOT), (FS_IMAGES,)
        container = node
    else:
        node = image = container = (FS_IMAGES, FS_ROOT, FS_LOGS, FS_LOCAL_VOLUME)
    for fs, bytes_sig, inodes_sig in (
        (node, api.NODEFS_AVAILABLE, api.NODEFS_INODES_FREE),
        (image, api.IMAGEFS_AVAILABLE, api.IMAGEFS_INODES_FREE),
        (container, api.CONTAINERFS_AVAILABLE, api.CONTAINERFS_INODES_FREE),
    ):
        out[bytes_sig] = rank_disk_pressure(fs, "ephemeral-storage")
        out[inodes_sig] = rank_disk_pressure(fs, api.RESOURCE_INODES)
    return out


# -- messages ------------------------------------------------------------------------------


def _fmt(resource: str, v: Decimal) -> str:
    binary = resource in ("memory", "ephemeral-storage")
    return format_quantity(v, "BinarySI" if binary else "DecimalSI")


def eviction_message(
    resource: str,
    pod: Obj,
    stats: StatsFunc,
    thresholds: Sequence[api.Threshold],
    observations: Mapping[str, Observation],
    pod_level: bool = True,
) -> tuple[str, dict[str, str]]:
    """``evictionMessage``: the starved resource, the threshold met, and each container
    (or the pod, with pod-level requests) using more than its request."""
    ann: dict[str, str] = {}
    msg = f"The node was low on resource: {resource}. "
    for t in thresholds:
        if api.SIGNAL_TO_RESOURCE.get(t.signal) == resource and t.signal in observations:
            ob = observations[t.signal]
            q = api.get_threshold_quantity(t.value, ob.capacity)
            msg += f"Threshold quantity: {_fmt(resource, q)}, available: {_fmt(resource, ob.available)}. "
            break
    ps = stats(pod)
    if ps is None:
        return msg, ann
    spec = pod.get("spec") or {}
    name = str((pod.get("metadata") or {}).get("name") or "")
    if resource == "memory" and pod_level and is_pod_level_resources_set(dict(pod)):
        req = ((spec.get("resources") or {}).get("requests") or {}).get(resource)
        if req is not None and ps.memory_working_set is not None:
            use = _fmt("memory", Decimal(ps.memory_working_set))
            shown = format_quantity(parse_quantity(req), "BinarySI" if str(req).endswith("i") else "DecimalSI")
            msg += f"Pod {name} was using {use}, request is {shown}, has larger consumption of {resource}. "
            ann["offending_pod"], ann["offending_pod_usage"] = name, use
    containers = [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]
    exceeded, usages = [], []
    for cs in ps.containers:
        c = next((c for c in containers if c.get("name") == cs.name), None)
        if c is None:
            continue
        raw = ((c.get("resources") or {}).get("requests") or {}).get(resource)
        req_q = parse_quantity(raw) if raw is not None else Decimal(0)
        usage: Decimal | None = None
        if resource == "ephemeral-storage":
            if cs.rootfs and cs.rootfs.used is not None and cs.logs and cs.logs.used is not None:
                usage = Decimal(cs.rootfs.used + cs.logs.used)
        elif resource == "memory" and cs.memory_working_set is not None:
            usage = Decimal(cs.memory_working_set)
        if usage is not None and usage > req_q:
            shown = "0" if raw is None else format_quantity(req_q, raw_format(str(raw)))
            msg += (
                f"Container {cs.name} was using {_fmt(resource, usage)}, request is {shown}, "
                f"has larger consumption of {resource}. "
            )
            exceeded.append(cs.name)
            usages.append(_fmt(resource, usage))
    ann["offending_containers"] = ",".join(exceeded)
    ann["offending_containers_usage"] = ",".join(usages)
    ann["starved_resource"] = resource
    return msg, ann


def raw_format(raw: str) -> str:
    return "BinarySI" if raw.rstrip().endswith("i") else "DecimalSI"

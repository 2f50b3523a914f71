"""The eviction manager's rules (upstream v1.37.2 pkg/kubelet/eviction helpers_test.go):
TestParseThresholdConfig, TestGetReclaimableThreshold, TestThresholdsMet,
TestThresholdsUpdatedStats, TestPercentageThresholdsMet, TestThresholdsFirstObservedAt,
TestThresholdsMetGracePeriod, TestNodeConditions, TestNodeConditionsLastObservedAt,
TestNodeConditionsObservedSince, TestParsePercentage, TestCompareThresholdValue,
TestOrderedByExceedsRequestMemory, TestOrderedByExceedsRequestDisk,
TestOrderedByPriority, TestOrderedbyDisk, TestOrderedbyInodes, TestOrderedByPriorityDisk,
TestOrderedByPriorityInodes, TestOrderedByMemory, TestOrderedByPriorityMemory,
TestOrderedByPriorityProcess and TestSortByEvictionPriority, against
``reference_impl.kubelet.eviction_helpers``. Thresholds compare as upstream's
``thresholdEqual`` does (order aside, values by ``compareThresholdValue``)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest

from reference_impl.api.meta import parse_quantity
from reference_impl.kubelet import eviction_api as api
from reference_impl.kubelet import eviction_helpers as h
from reference_impl.kubelet.eviction_stats import (
    ContainerStats,
    FsStats,
    NodeStats,
    PodStats,
    Summary,
)

Obj = dict[str, Any]
SEC = 10**9
MIN = 60 * SEC
LOW, DEFAULT, HIGH = -1, 0, 1  # lowPriority, defaultPriority, highPriority


def q(text: str) -> Decimal:
    return parse_quantity(text)


def qv(text: str) -> api.ThresholdValue:
    return api.ThresholdValue(quantity=q(text))


def pv(pct: float) -> api.ThresholdValue:
    return api.ThresholdValue(percentage=api.f32(pct))


def th(signal: str, value: api.ThresholdValue, grace: int = 0, reclaim: api.ThresholdValue | None = None) -> api.Threshold:
    return api.Threshold(signal, api.OP_LESS_THAN, value, grace, reclaim)


def _same(a: api.Threshold, b: api.Threshold) -> bool:
    """``thresholdEqual``."""
    ra = a.min_reclaim or api.ThresholdValue()
    rb = b.min_reclaim or api.ThresholdValue()
    return (
        a.grace_period == b.grace_period
        and a.operator == b.operator
        and a.signal == b.signal
        and h.compare_threshold_value(ra, rb)
        and h.compare_threshold_value(a.value, b.value)
    )


def assert_thresholds(want: Sequence[api.Threshold], got: Sequence[api.Threshold]) -> None:
    """``thresholdsEqual``: the same length, each of either found in the other."""
    assert len(want) == len(got), (want, got)
    assert all(any(_same(a, b) for b in got) for a in want), (want, got)
    assert all(any(_same(a, b) for b in want) for a in got), (want, got)


# -- TestParseThresholdConfig ----------------------------------------------------------------

MEM, ALLOC = api.MEMORY_AVAILABLE, api.ALLOCATABLE_MEMORY_AVAILABLE
NODEFS, IMAGEFS = api.NODEFS_AVAILABLE, api.IMAGEFS_AVAILABLE
NODEFS_I, IMAGEFS_I = api.NODEFS_INODES_FREE, api.IMAGEFS_INODES_FREE
G30 = 30 * SEC

PARSE_ROWS: list[tuple[str, list[str], Obj, Obj, Obj, Obj, bool, list[api.Threshold]]] = [
    ("no values", [], {}, {}, {}, {}, False, []),
    (
        "all memory eviction values", ["pods"],
        {MEM: "150Mi"}, {MEM: "300Mi"}, {MEM: "30s"}, {MEM: "0"}, False,
        [th(ALLOC, qv("150Mi"), 0, qv("0")), th(MEM, qv("150Mi"), 0, qv("0")), th(MEM, qv("300Mi"), G30, qv("0"))],
    ),
    (
        "all memory eviction values in percentages", [],
        {MEM: "10%"}, {MEM: "30%"}, {MEM: "30s"}, {MEM: "5%"}, False,
        [th(MEM, pv(0.1), 0, pv(0.05)), th(MEM, pv(0.3), G30, pv(0.05))],
    ),
    (
        "disk eviction values", [],
        {IMAGEFS: "150Mi", NODEFS: "100Mi"}, {IMAGEFS: "300Mi", NODEFS: "200Mi"},
        {IMAGEFS: "30s", NODEFS: "30s"}, {IMAGEFS: "2Gi", NODEFS: "1Gi"}, False,
        [
            th(IMAGEFS, qv("150Mi"), 0, qv("2Gi")), th(NODEFS, qv("100Mi"), 0, qv("1Gi")),
            th(IMAGEFS, qv("300Mi"), G30, qv("2Gi")), th(NODEFS, qv("200Mi"), G30, qv("1Gi")),
        ],
    ),
    (
        "disk eviction values in percentages", [],
        {IMAGEFS: "15%", NODEFS: "10.5%"}, {IMAGEFS: "30%", NODEFS: "20.5%"},
        {IMAGEFS: "30s", NODEFS: "30s"}, {IMAGEFS: "10%", NODEFS: "5%"}, False,
        [
            th(IMAGEFS, pv(0.15), 0, pv(0.1)), th(NODEFS, pv(0.105), 0, pv(0.05)),
            th(IMAGEFS, pv(0.3), G30, pv(0.1)), th(NODEFS, pv(0.205), G30, pv(0.05)),
        ],
    ),
    (
        "inode eviction values", [],
        {IMAGEFS_I: "150Mi", NODEFS_I: "100Mi"}, {IMAGEFS_I: "300Mi", NODEFS_I: "200Mi"},
        {IMAGEFS_I: "30s", NODEFS_I: "30s"}, {IMAGEFS_I: "2Gi", NODEFS_I: "1Gi"}, False,
        [
            th(IMAGEFS_I, qv("150Mi"), 0, qv("2Gi")), th(NODEFS_I, qv("100Mi"), 0, qv("1Gi")),
            th(IMAGEFS_I, qv("300Mi"), G30, qv("2Gi")), th(NODEFS_I, qv("200Mi"), G30, qv("1Gi")),
        ],
    ),
    ("disable via 0%", [], {MEM: "0%"}, {MEM: "0%"}, {}, {}, False, []),
    ("disable via 100%", [], {MEM: "100%"}, {MEM: "100%"}, {}, {}, False, []),
    ("invalid-signal", [], {"mem.available": "150Mi"}, {}, {}, {}, True, []),
    ("hard-signal-negative", [], {MEM: "-150Mi"}, {}, {}, {}, True, []),
    ("hard-signal-negative-percentage", [], {MEM: "-15%"}, {}, {}, {}, True, []),
    ("hard-signal-percentage-greater-than-100%", [], {MEM: "150%"}, {}, {}, {}, True, []),
    ("soft-signal-negative", [], {}, {MEM: "-150Mi"}, {}, {}, True, []),
    ("valid-and-invalid-signal", [], {MEM: "150Mi", "invalid.foo": "150Mi"}, {}, {}, {}, True, []),
    ("soft-no-grace-period", [], {}, {MEM: "150Mi"}, {}, {}, True, []),
    ("soft-negative-grace-period", [], {}, {MEM: "150Mi"}, {MEM: "-30s"}, {}, True, []),
    ("negative-reclaim", [], {}, {}, {}, {MEM: "-300Mi"}, True, []),
    ("min-reclaim-invalid-signal", [], {}, {}, {}, {"mem.available": "300Mi"}, True, []),
    ("min-reclaim-empty-value", [], {}, {}, {}, {MEM: ""}, True, []),
    ("min-reclaim-negative-percentage", [], {}, {}, {}, {MEM: "-15%"}, True, []),
    ("min-reclaim-invalid-percentage", [], {}, {}, {}, {MEM: "10..5%"}, True, []),
    ("hard-signal-empty-eviction-value", [], {MEM: ""}, {}, {}, {}, True, []),
    ("hard-signal-invalid-float-percentage", [], {MEM: "10..5%"}, {}, {}, {}, True, []),
    ("soft-grace-period-invalid-signal", [], {}, {MEM: "150Mi"}, {"mem.available": "30s"}, {}, True, []),
    ("soft-invalid-grace-period", [], {}, {MEM: "150Mi"}, {MEM: "30mins"}, {}, True, []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("alloc", "hard", "soft", "grace", "reclaim", "err", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in PARSE_ROWS],
)
def test_parse_threshold_config(
    alloc: list[str], hard: Obj, soft: Obj, grace: Obj, reclaim: Obj, err: bool, want: list[api.Threshold]
) -> None:
    if err:
        with pytest.raises(h.EvictionConfigError):
            h.parse_threshold_config(alloc, hard, soft, grace, reclaim)
        return
    assert_thresholds(want, h.parse_threshold_config(alloc, hard, soft, grace, reclaim))


# -- TestGetReclaimableThreshold --------------------------------------------------------------


@pytest.mark.parametrize(
    ("thresholds", "want"),
    [
        pytest.param(
            [
                th(ALLOC, qv("150Mi"), 0, qv("0")), th(MEM, qv("150Mi"), 0, qv("0")),
                th(IMAGEFS, qv("150Mi"), 0, qv("2Gi")), th(NODEFS, qv("100Mi"), 0, qv("1Gi")),
                th(api.CONTAINERFS_AVAILABLE, qv("100Mi"), 0, qv("1Gi")),
            ],
            (MEM, "memory", q("150Mi")),
            id="",
        ),
        pytest.param([], None, id="no thresholds"),
        pytest.param(
            [api.Threshold("mem.available", "", api.ThresholdValue())], None,
            id="threshold was crossed but reclaim not implemented (invalid signal)",
        ),
    ],
)  # fmt: skip
def test_get_reclaimable_threshold(
    thresholds: list[api.Threshold], want: tuple[str, str, Decimal] | None
) -> None:
    found = h.get_reclaimable_threshold(h.by_eviction_priority(thresholds))
    if want is None:
        assert found is None
        return
    assert found is not None
    t, resource = found
    assert (t.signal, resource, t.value.quantity, t.operator, t.grace_period) == (*want, api.OP_LESS_THAN, 0)


# -- TestThresholdsMet and TestPercentageThresholdsMet ----------------------------------------

HARD = th(MEM, qv("1Gi"), 0, qv("500Mi"))
PCT = [th(MEM, pv(0.2), 0, pv(0.05)), th(NODEFS, pv(0.3))]


def obs(avail: str, cap: str = "0", time: int | None = None) -> h.Observation:
    return h.Observation(q(avail), q(cap), time)


@pytest.mark.parametrize(
    ("reclaim", "thresholds", "observations", "want"),
    [
        pytest.param(False, [], {}, [], id="TestThresholdsMet/empty"),
        pytest.param(False, [HARD], {MEM: obs("500Mi")}, [HARD], id="TestThresholdsMet/threshold-met-memory"),
        pytest.param(False, [HARD], {MEM: obs("2Gi")}, [], id="TestThresholdsMet/threshold-not-met"),
        pytest.param(True, [HARD], {MEM: obs("1.05Gi")}, [HARD], id="TestThresholdsMet/threshold-met-with-min-reclaim"),
        pytest.param(True, [HARD], {MEM: obs("2Gi")}, [], id="TestThresholdsMet/threshold-not-met-with-min-reclaim"),
        pytest.param(
            False, PCT, {MEM: obs("100Mi", "1000Mi"), NODEFS: obs("100Gi", "1000Gi")}, PCT,
            id="TestPercentageThresholdsMet/BothMet",
        ),
        pytest.param(
            False, PCT, {MEM: obs("300Mi", "1000Mi"), NODEFS: obs("400Gi", "1000Gi")}, [],
            id="TestPercentageThresholdsMet/NoneMet",
        ),
        pytest.param(
            False, PCT, {MEM: obs("300Mi", "1000Mi"), NODEFS: obs("100Gi", "1000Gi")}, [PCT[1]],
            id="TestPercentageThresholdsMet/DiskMet",
        ),
        pytest.param(
            False, PCT, {MEM: obs("100Mi", "1000Mi"), NODEFS: obs("400Gi", "1000Gi")}, [PCT[0]],
            id="TestPercentageThresholdsMet/MemoryMet",
        ),
        pytest.param(
            True, PCT, {MEM: obs("225Mi", "1000Mi")}, [PCT[0]],
            id="TestPercentageThresholdsMet/MemoryMetWithMinReclaim",
        ),
        pytest.param(
            True, PCT, {MEM: obs("300Mi", "1000Mi")}, [],
            id="TestPercentageThresholdsMet/MemoryNotMetWithMinReclaim",
        ),
    ],
)  # fmt: skip
def test_thresholds_met(
    reclaim: bool, thresholds: list[api.Threshold], observations: dict[str, h.Observation], want: list[api.Threshold]
) -> None:
    assert_thresholds(want, h.thresholds_met(thresholds, observations, reclaim))


# -- TestThresholdsUpdatedStats ---------------------------------------------------------------

UPDATED = api.Threshold(MEM, "", api.ThresholdValue())
T0, T1 = 1_451_606_400 * SEC, 1_451_606_460 * SEC  # 2016-01-01 00:00 and 00:01 UTC


@pytest.mark.parametrize(
    ("thresholds", "observations", "last", "want"),
    [
        pytest.param([], {}, {}, [], id="empty"),
        pytest.param([UPDATED], {MEM: obs("0")}, {}, [UPDATED], id="no-time"),
        pytest.param([UPDATED], {MEM: obs("0", time=T0)}, {}, [UPDATED], id="no-last-observation"),
        pytest.param([UPDATED], {MEM: obs("0", time=T0)}, {MEM: obs("0", time=T1)}, [], id="time-machine"),
        pytest.param([UPDATED], {MEM: obs("0", time=T0)}, {MEM: obs("0", time=T0)}, [], id="same-observation"),
        pytest.param([UPDATED], {MEM: obs("0", time=T1)}, {MEM: obs("0", time=T0)}, [UPDATED], id="new-observation"),
    ],
)  # fmt: skip
def test_thresholds_updated_stats(
    thresholds: list[api.Threshold], observations: dict[str, h.Observation],
    last: dict[str, h.Observation], want: list[api.Threshold],
) -> None:  # fmt: skip
    assert_thresholds(want, h.thresholds_updated_stats(thresholds, observations, last))


# -- TestThresholdsFirstObservedAt and TestThresholdsMetGracePeriod ---------------------------

NOW = 10_000 * SEC
FIRST = th(MEM, qv("1Gi"))
SOFT = th(MEM, qv("2Gi"), MIN)


@pytest.mark.parametrize(
    ("thresholds", "last", "want"),
    [
        pytest.param([], {}, {}, id="empty"),
        pytest.param([FIRST], {}, {FIRST: NOW}, id="no-previous-observation"),
        pytest.param([FIRST], {FIRST: NOW - MIN}, {FIRST: NOW - MIN}, id="previous-observation"),
    ],
)
def test_thresholds_first_observed_at(
    thresholds: list[api.Threshold], last: dict[api.Threshold, int], want: dict[api.Threshold, int]
) -> None:
    assert h.thresholds_first_observed_at(thresholds, last, NOW) == want


@pytest.mark.parametrize(
    ("observed_at", "want"),
    [
        pytest.param({}, [], id="empty"),
        pytest.param({FIRST: NOW}, [FIRST], id="hard-threshold-met"),
        pytest.param({SOFT: NOW}, [], id="soft-threshold-not-met"),
        pytest.param({SOFT: NOW - 2 * MIN}, [SOFT], id="soft-threshold-met"),
    ],
)
def test_thresholds_met_grace_period(observed_at: dict[api.Threshold, int], want: list[api.Threshold]) -> None:
    assert_thresholds(want, h.thresholds_met_grace_period(observed_at, NOW))


# -- node conditions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "want"),
    [
        pytest.param([], [], id="empty-list"),
        pytest.param([api.Threshold(MEM, "", api.ThresholdValue())], ["MemoryPressure"], id="memory.available"),
    ],
)
def test_node_conditions(inputs: list[api.Threshold], want: list[str]) -> None:
    assert sorted(h.node_conditions(inputs)) == sorted(want)


@pytest.mark.parametrize(
    ("conditions", "last", "want"),
    [
        pytest.param(["MemoryPressure"], {}, {"MemoryPressure": NOW}, id="no-previous-observation"),
        pytest.param(["MemoryPressure"], {"MemoryPressure": NOW - MIN}, {"MemoryPressure": NOW}, id="previous-observation"),
        pytest.param([], {"MemoryPressure": NOW - MIN}, {"MemoryPressure": NOW - MIN}, id="old-observation"),
    ],
)  # fmt: skip
def test_node_conditions_last_observed_at(conditions: list[str], last: dict[str, int], want: dict[str, int]) -> None:
    assert h.node_conditions_last_observed_at(conditions, last, NOW) == want


@pytest.mark.parametrize(
    ("period", "want"),
    [pytest.param(2 * MIN, ["MemoryPressure"], id="in-period"), pytest.param(30 * SEC, [], id="out-of-period")],
)
def test_node_conditions_observed_since(period: int, want: list[str]) -> None:
    assert h.node_conditions_observed_since({"MemoryPressure": NOW - MIN}, period, NOW) == want


# -- TestParsePercentage and TestCompareThresholdValue ------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        pytest.param("blah", None, id="blah"),
        pytest.param("25.5%", api.f32(0.255), id="25.5%"),
        pytest.param("foo%", None, id="foo%"),
        pytest.param("12%345", None, id="12%345"),
    ],
)
def test_parse_percentage(text: str, want: float | None) -> None:
    if want is None:
        with pytest.raises(h.EvictionConfigError):
            h.parse_percentage(text)
    else:
        assert h.parse_percentage(text) == want


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        pytest.param(api.ThresholdValue(Decimal(123)), api.ThresholdValue(Decimal(123)), True, id="0"),
        pytest.param(api.ThresholdValue(Decimal(123)), api.ThresholdValue(Decimal(456)), False, id="1"),
        pytest.param(api.ThresholdValue(Decimal(123)), pv(0.1), False, id="2"),
        pytest.param(pv(0.1), pv(0.1), True, id="3"),
        pytest.param(pv(0.2), pv(0.1), False, id="4"),
    ],
)
def test_compare_threshold_value(a: api.ThresholdValue, b: api.ThresholdValue, equal: bool) -> None:
    assert h.compare_threshold_value(a, b) is equal
    assert h.compare_threshold_value(b, a) is equal


# -- ranking -------------------------------------------------------------------------------------


def res(cpu: str = "", memory: str = "", disk: str = "") -> Obj:
    """newResourceList."""
    out: Obj = {}
    for k, v in (("cpu", cpu), ("memory", memory), ("ephemeral-storage", disk)):
        if v:
            out[k] = v
    return out


def pod(name: str, prio: int, requests: Obj | None = None, limits: Obj | None = None, volume: bool = False) -> Obj:
    """newPod with one newContainer named after it (``volume``: an emptyDir local-volume)."""
    c: Obj = {"name": name, "resources": {"requests": requests or {}, "limits": limits or {}}}
    spec: Obj = {"containers": [c], "priority": prio}
    if volume:
        spec["volumes"] = [{"name": "local-volume", "emptyDir": {}}]
    return {"metadata": {"name": name, "uid": name}, "spec": spec}


def memory_stats(p: Obj, ws: str) -> PodStats:
    """newPodMemoryStats."""
    n = int(q(ws))
    fs = FsStats(used=n)
    return PodStats(
        p["metadata"]["uid"], memory_working_set=n,
        containers=[ContainerStats(p["metadata"]["name"], logs=FsStats(used=n), rootfs=FsStats(used=n))],
        volumes={"local-volume": fs}, ephemeral_used=n,
    )  # fmt: skip


def disk_stats(p: Obj, root: str, logs: str, vol: str, inodes: bool = False) -> PodStats:
    """newPodDiskStats (bytes) or newPodInodeStats (``inodes``)."""

    def fs(v: str) -> FsStats:
        return FsStats(inodes_used=int(q(v))) if inodes else FsStats(used=int(q(v)))

    cs = [ContainerStats(c["name"], rootfs=fs(root), logs=fs(logs)) for c in p["spec"]["containers"]]
    vols = {n: fs(vol) for n in h.local_volume_names(p)}
    return PodStats(p["metadata"]["uid"], containers=cs, volumes=vols)


def process_stats(p: Obj, n: int) -> PodStats:
    """newPodProcessStats."""
    return PodStats(p["metadata"]["uid"], process_count=n)


def stats_fn(stats: list[PodStats]) -> h.StatsFunc:
    by = {s.uid: s for s in stats}
    return lambda p: by.get(p["metadata"]["uid"])


def names(pods: list[Obj]) -> list[str]:
    return [p["metadata"]["name"] for p in pods]


FS_ALL = (h.FS_ROOT, h.FS_LOGS, h.FS_LOCAL_VOLUME)
DISK = "ephemeral-storage"


def test_ordered_by_exceeds_request_memory() -> None:
    """TestOrderedByExceedsRequestMemory."""
    below = pod("below-requests", -1, res(memory="200Mi"))
    exceeds = pod("exceeds-requests", 1, res(memory="100Mi"))
    pods = [below, exceeds]
    h.ordered_by(h.exceed_memory_requests(stats_fn([memory_stats(below, "199Mi"), memory_stats(exceeds, "101Mi")])))(pods)
    assert names(pods) == ["exceeds-requests", "below-requests"]


def test_ordered_by_exceeds_request_disk() -> None:
    """TestOrderedByExceedsRequestDisk."""
    below = pod("below-requests", -1, {DISK: "200Mi"})
    exceeds = pod("exceeds-requests", 1, {DISK: "100Mi"})
    stats = stats_fn([disk_stats(below, "100Mi", "99Mi", "0Mi"), disk_stats(exceeds, "90Mi", "11Mi", "0Mi")])
    pods = [below, exceeds]
    h.ordered_by(h.exceed_disk_requests(stats, FS_ALL, DISK))(pods)
    assert names(pods) == ["exceeds-requests", "below-requests"]


def test_ordered_by_priority() -> None:
    """TestOrderedByPriority."""
    low = pod("low-priority", -134)
    medium = pod("medium-priority", 1, res("100m", "100Mi"), res("200m", "200Mi"))
    high = pod("high-priority", 12534, res("200m", "200Mi"), res("200m", "200Mi"))
    pods = [high, medium, low]
    h.ordered_by(h.priority)(pods)
    assert names(pods) == ["low-priority", "medium-priority", "high-priority"]


def _disk_pods() -> list[Obj]:
    return [
        pod("best-effort-high", DEFAULT, volume=True),
        pod("best-effort-low", DEFAULT, volume=True),
        pod("burstable-high", DEFAULT, res(disk="100Mi"), res(disk="400Mi"), volume=True),
        pod("burstable-low", DEFAULT, res(disk="100Mi"), res(disk="400Mi"), volume=True),
        pod("guaranteed-high", DEFAULT, res(disk="400Mi"), res(disk="400Mi"), volume=True),
        pod("guaranteed-low", DEFAULT, res(disk="400Mi"), res(disk="400Mi"), volume=True),
    ]


def test_ordered_by_disk() -> None:
    """TestOrderedbyDisk."""
    p = _disk_pods()
    use = [("50Mi", "100Mi", "150Mi"), ("25Mi", "25Mi", "50Mi"), ("150Mi", "150Mi", "50Mi"),
           ("25Mi", "35Mi", "50Mi"), ("225Mi", "100Mi", "50Mi"), ("25Mi", "45Mi", "50Mi")]  # fmt: skip
    stats = stats_fn([disk_stats(x, *u) for x, u in zip(p, use, strict=True)])
    pods = list(p)
    h.ordered_by(h.disk(stats, FS_ALL, DISK))(pods)
    assert pods == [p[0], p[2], p[1], p[3], p[4], p[5]]


def test_ordered_by_inodes() -> None:
    """TestOrderedbyInodes."""
    low, medium, high = (pod(n, DEFAULT, volume=True) for n in ("low", "medium", "high"))
    stats = stats_fn([
        disk_stats(low, "50000", "100000", "50000", inodes=True),
        disk_stats(medium, "100000", "150000", "50000", inodes=True),
        disk_stats(high, "200000", "150000", "50000", inodes=True),
    ])  # fmt: skip
    pods = [low, medium, high]
    h.ordered_by(h.disk(stats, FS_ALL, api.RESOURCE_INODES))(pods)
    assert names(pods) == ["high", "medium", "low"]


def test_ordered_by_priority_disk() -> None:
    """TestOrderedByPriorityDisk."""
    rows = [
        ("above-requests-low-priority-high-usage", LOW, "", ("200Mi", "100Mi", "200Mi")),
        ("above-requests-low-priority-low-usage", LOW, "", ("10Mi", "10Mi", "30Mi")),
        ("above-requests-high-priority-high-usage", HIGH, "100Mi", ("200Mi", "150Mi", "250Mi")),
        ("above-requests-high-priority-low-usage", HIGH, "100Mi", ("90Mi", "50Mi", "10Mi")),
        ("below-requests-low-priority-high-usage", LOW, "1Gi", ("500Mi", "200Mi", "100Mi")),
        ("below-requests-low-priority-low-usage", LOW, "1Gi", ("50Mi", "100Mi", "50Mi")),
        ("below-requests-high-priority-high-usage", HIGH, "1Gi", ("250Mi", "500Mi", "50Mi")),
        ("below-requests-high-priority-low-usage", HIGH, "1Gi", ("100Mi", "60Mi", "40Mi")),
    ]
    p = [pod(n, prio, res(disk=d), volume=True) for n, prio, d, _ in rows]
    stats = stats_fn([disk_stats(x, *r[3]) for x, r in zip(p, rows, strict=True)])
    pods = list(reversed(p))
    h.ordered_by(h.exceed_disk_requests(stats, FS_ALL, DISK), h.priority, h.disk(stats, FS_ALL, DISK))(pods)
    assert pods == p


def test_ordered_by_priority_inodes() -> None:
    """TestOrderedByPriorityInodes."""
    rows = [
        ("low-priority-high-usage", LOW, ("50000", "100000", "250000")),
        ("low-priority-low-usage", LOW, ("60000", "30000", "10000")),
        ("high-priority-high-usage", HIGH, ("150000", "150000", "50000")),
        ("high-priority-low-usage", HIGH, ("10000", "40000", "100000")),
    ]
    p = [pod(n, prio, volume=True) for n, prio, _ in rows]
    stats = stats_fn([disk_stats(x, *r[2], inodes=True) for x, r in zip(p, rows, strict=True)])
    pods = list(reversed(p))
    h.ordered_by(h.priority, h.disk(stats, FS_ALL, api.RESOURCE_INODES))(pods)
    assert pods == p


def test_ordered_by_memory() -> None:
    """TestOrderedByMemory."""
    p = [
        pod("best-effort-high", DEFAULT),
        pod("best-effort-low", DEFAULT),
        pod("burstable-high", DEFAULT, res(memory="100Mi"), res(memory="1Gi")),
        pod("burstable-low", DEFAULT, res(memory="100Mi"), res(memory="1Gi")),
        pod("guaranteed-high", DEFAULT, res(memory="1Gi"), res(memory="1Gi")),
        pod("guaranteed-low", DEFAULT, res(memory="1Gi"), res(memory="1Gi")),
    ]
    use = ["500Mi", "300Mi", "800Mi", "300Mi", "800Mi", "200Mi"]
    stats = stats_fn([memory_stats(x, u) for x, u in zip(p, use, strict=True)])
    pods = list(p)
    h.ordered_by(h.memory(stats))(pods)
    assert pods == [p[2], p[0], p[1], p[3], p[4], p[5]]


def test_ordered_by_priority_memory() -> None:
    """TestOrderedByPriorityMemory."""
    rows = [
        ("above-requests-low-priority-high-usage", LOW, "", "500Mi"),
        ("above-requests-low-priority-low-usage", LOW, "", "50Mi"),
        ("above-requests-high-priority-high-usage", HIGH, "100Mi", "600Mi"),
        ("above-requests-high-priority-low-usage", HIGH, "100Mi", "150Mi"),
        ("below-requests-low-priority-high-usage", LOW, "1Gi", "800Mi"),
        ("below-requests-low-priority-low-usage", LOW, "1Gi", "200Mi"),
        ("below-requests-high-priority-high-usage", HIGH, "1Gi", "800Mi"),
        ("below-requests-high-priority-low-usage", HIGH, "1Gi", "200Mi"),
    ]
    p = [pod(n, prio, res(memory=m)) for n, prio, m, _ in rows]
    stats = stats_fn([memory_stats(x, r[3]) for x, r in zip(p, rows, strict=True)])
    pods = list(reversed(p))
    h.ordered_by(h.exceed_memory_requests(stats), h.priority, h.memory(stats))(pods)
    assert pods == p


def test_ordered_by_priority_process() -> None:
    """TestOrderedByPriorityProcess."""
    rows = [("low-priority-high-usage", LOW, 20), ("low-priority-low-usage", LOW, 6),
            ("high-priority-high-usage", HIGH, 20), ("high-priority-low-usage", HIGH, 5)]  # fmt: skip
    p = [{"metadata": {"name": n, "uid": n}, "spec": {"priority": prio}} for n, prio, _ in rows]
    stats = stats_fn([process_stats(x, r[2]) for x, r in zip(p, rows, strict=True)])
    pods = list(reversed(p))
    h.ordered_by(h.priority, h.process(stats))(pods)
    assert pods == p


@pytest.mark.parametrize(
    ("signals", "want"),
    [
        pytest.param([], [], id="empty threshold list"),
        pytest.param([NODEFS, api.PID_AVAILABLE, MEM], [MEM, NODEFS, api.PID_AVAILABLE], id="memory first"),
        pytest.param(
            [NODEFS, api.PID_AVAILABLE, ALLOC], [ALLOC, NODEFS, api.PID_AVAILABLE], id="allocatable memory first"
        ),
    ],
)
def test_sort_by_eviction_priority(signals: list[str], want: list[str]) -> None:
    """TestSortByEvictionPriority."""
    thresholds = [api.Threshold(s, "", api.ThresholdValue()) for s in signals]
    assert [t.signal for t in h.by_eviction_priority(thresholds)] == want


# -- TestEvictionMessage --------------------------------------------------------------------------


def _c(name: str, memory: str = "", restartable: bool = False) -> Obj:
    """newContainer / newRestartableInitContainer with a memory request."""
    c: Obj = {"name": name, "resources": {"requests": res(memory=memory), "limits": {}}}
    if restartable:
        c["restartPolicy"] = "Always"
    return c


_R1, _R2, _R3 = "restartable-init1", "restartable-init2", "restartable-init3"
# (name, init containers, containers, ephemeral names, pod requests, pod usage, container
# usage, expected (container, request, usage) in the message)
MESSAGE_ROWS: list[tuple[str, list[Obj], list[Obj], list[str], str, str, list[tuple[str, str]], list[tuple[str, str, str]]]] = [
    ("No container exceeds memory usage",
     [_c("init1", "100Mi"), _c(_R1, "200Mi", True)], [_c("regular1", "200Mi")], [], "", "",
     [(_R1, "150Mi"), ("regular1", "100Mi")], []),
    ("Init container exceeds memory usage",
     [_c("init1", "100Mi"), _c(_R1, "200Mi", True), _c("init2", "150Mi")], [_c("regular1", "200Mi")], [], "", "",
     [("init1", "150Mi")], [("init1", "100Mi", "150Mi")]),
    ("Restartable init container exceeds memory usage",
     [_c("init1", "100Mi"), _c(_R1, "200Mi", True), _c(_R2, "200Mi", True)], [_c("regular1", "200Mi")], [], "", "",
     [(_R1, "250Mi"), (_R2, "150Mi"), ("regular1", "200Mi")], [(_R1, "200Mi", "250Mi")]),
    ("Regular container exceeds memory usage",
     [_c("init1", "100Mi"), _c(_R1, "200Mi", True)], [_c("regular1", "200Mi"), _c("regular2", "300Mi")], [], "", "",
     [(_R1, "200Mi"), ("regular1", "250Mi"), ("regular2", "250Mi")], [("regular1", "200Mi", "250Mi")]),
    ("Ephemeral container exceeds memory usage",
     [_c("init1", "100Mi"), _c(_R1, "200Mi", True)], [_c("regular1", "200Mi")], ["ephemeral1"], "", "",
     [(_R1, "200Mi"), ("regular1", "150Mi"), ("ephemeral1", "250Mi")], []),
    ("Both regular and restartable init containers exceed memory usage due to missing memory requests",
     [_c("init1", "100Mi"), _c(_R1, "", True), _c(_R2, "300Mi", True)], [_c("regular1")], [], "", "",
     [(_R1, "250Mi"), (_R2, "250Mi"), ("regular1", "200Mi")], [(_R1, "0", "250Mi"), ("regular1", "0", "200Mi")]),
    ("Multiple regular and restartable init containers exceed memory usage",
     [_c("init1", "100Mi"), _c("init2", "100Mi"), _c("init3", "100Mi"), _c(_R1, "100Mi", True),
      _c(_R2, "200Mi", True), _c(_R3, "300Mi", True)],
     [_c("regular1", "300Mi"), _c("regular2", "200Mi"), _c("regular3", "100Mi")], [], "", "",
     [(_R1, "150Mi"), (_R2, "250Mi"), (_R3, "250Mi"), ("regular1", "50Mi"), ("regular2", "250Mi"),
      ("regular3", "400Mi")],
     [(_R1, "100Mi", "150Mi"), (_R2, "200Mi", "250Mi"), ("regular2", "200Mi", "250Mi"),
      ("regular3", "100Mi", "400Mi")]),
    ("Regular pod with pod level resources exceeds memory usage",
     [], [_c("regular1"), _c("regular2")], [], "250Mi", "600Mi",
     [("regular1", "250Mi"), ("regular2", "350Mi")], [("regular1", "0", "250Mi"), ("regular2", "0", "350Mi")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("init", "containers", "ephemeral", "pod_request", "pod_usage", "usage", "want"),
    [pytest.param(*row[1:], id=row[0]) for row in MESSAGE_ROWS],
)
def test_eviction_message(
    init: list[Obj], containers: list[Obj], ephemeral: list[str], pod_request: str, pod_usage: str,
    usage: list[tuple[str, str]], want: list[tuple[str, str, str]],
) -> None:  # fmt: skip
    name = "pod-eviction-message"
    spec: Obj = {"initContainers": init, "containers": containers, "priority": 1}
    if ephemeral:
        spec["ephemeralContainers"] = [{"name": e, "targetContainerName": "regular1"} for e in ephemeral]
    if pod_request:
        spec["resources"] = {"requests": res(memory=pod_request), "limits": res(memory="1000Mi")}
    p = {"metadata": {"name": name, "uid": name}, "spec": spec}
    stats = memory_stats(p, pod_usage or "1Mi")
    stats.containers = [ContainerStats(c, memory_working_set=int(q(u))) for c, u in usage]
    msg, ann = h.eviction_message("memory", p, stats_fn([stats]), [], {})
    pod_msg = ""
    if pod_request:
        pod_msg = f"Pod {name} was using {pod_usage}, request is {pod_request}, has larger consumption of memory. "
        assert (ann["offending_pod"], ann["offending_pod_usage"]) == (name, pod_usage)
    want_msg = "The node was low on resource: memory. " + pod_msg + "".join(
        f"Container {c} was using {u}, request is {r}, has larger consumption of memory. " for c, r, u in want
    )
    assert msg == want_msg
    assert ann["offending_containers"] == ",".join(c for c, _, _ in want)
    assert ann["offending_containers_usage"] == ",".join(u for _, _, u in want)


# -- TestMakeSignalObservations -------------------------------------------------------------------


def test_make_signal_observations() -> None:
    """TestMakeSignalObservations: each signal's available and capacity, and the pods'
    stats by UID."""
    gi, mi = 1024**3, 1024**2
    node = NodeStats(
        memory_available=gi, memory_working_set=gi, pods_memory_available=gi, pods_memory_working_set=gi,
        fs=FsStats(available=1024, capacity=2048, inodes_free=1024, inodes=mi),
        image_fs=FsStats(available=mi, capacity=2 * mi, inodes_free=1024, inodes=mi),
        container_fs=FsStats(available=2 * mi, capacity=8 * mi, inodes_free=2048, inodes=2048),
        max_pid=255816, running_processes=1000,
    )  # fmt: skip
    pods: list[Obj] = [{"metadata": {"name": n, "namespace": ns, "uid": u}, "spec": {"containers": [{"name": "ctr0"}]}}
            for n, ns, u in (("pod1", "ns1", "uuid1"), ("pod1", "ns2", "uuid2"), ("pod3", "ns3", "uuid3"))]  # fmt: skip
    summary = Summary(node, [PodStats(p["metadata"]["uid"], memory_working_set=gi) for p in pods])
    obs, stats = h.make_signal_observations(summary)
    want = {
        api.ALLOCATABLE_MEMORY_AVAILABLE: (gi, 2 * gi),
        api.MEMORY_AVAILABLE: (gi, 2 * gi),
        api.NODEFS_AVAILABLE: (1024, 2048),
        api.NODEFS_INODES_FREE: (1024, mi),
        api.IMAGEFS_AVAILABLE: (mi, 2 * mi),
        api.CONTAINERFS_AVAILABLE: (2 * mi, 8 * mi),
        api.IMAGEFS_INODES_FREE: (1024, mi),
        api.CONTAINERFS_INODES_FREE: (2048, 2048),
        api.PID_AVAILABLE: (255816 - 1000, 255816),
    }
    assert {k: (int(v.available), int(v.capacity)) for k, v in obs.items()} == want
    for p in pods:
        found = stats(p)
        assert found is not None and found.memory_working_set == gi

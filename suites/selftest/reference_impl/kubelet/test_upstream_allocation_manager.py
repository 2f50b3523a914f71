"""Upstream pkg/kubelet/allocation/allocation_manager_test.go rows (v1.37.2):
``TestRetryPendingResizes``, ``TestRetryPendingResizesGuanteedQOSPods``,
``TestSortPendingResizes`` and ``TestIsResizeIncreasingRequests`` against
reference_impl/kubelet/allocation.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api.meta import parse_quantity
from reference_impl.kubelet.allocation import DEFAULT_GATES, AllocationManager, NodeConfig

Obj = dict[str, Any]
ALLOCATABLE = {"cpu": "4", "memory": "4Gi", "pods": "40"}
IN_PROGRESS_MSG = "original in-progress"
PENDING_MSG = "original pending"


def _pod(uid: str, name: str, ns: str, reqs: Obj, *, init: bool = False) -> Obj:
    c = {"name": "c1-init" if init else "c1", "image": "i1", "resources": {"requests": reqs}}
    spec: Obj = {"initContainers": [c]} if init else {"containers": [c]}
    meta = {"uid": uid, "name": name, "namespace": ns}
    return {"metadata": meta, "spec": spec, "status": {"phase": "Running"}}


BASE = {"cpu": "1", "memory": "1Gi"}
POD1 = _pod("1111", "pod1", "ns1", BASE)
POD2 = _pod("2222", "pod2", "ns2", BASE, init=True)
POD3 = _pod("3333", "pod3", "ns2", BASE)


def _rl(**kw: str) -> Obj:
    return dict(kw)


def _ip(msg: str = "") -> tuple[str, str, str]:
    return ("PodResizeInProgress", "", msg)


def _deferred(msg: str) -> tuple[str, str, str]:
    return ("PodResizePending", "Deferred", msg)


def _infeasible(msg: str) -> tuple[str, str, str]:
    return ("PodResizePending", "Infeasible", msg)


MEM_DEFERRED = (
    "Node didn't have enough resource: memory, requested: 4718592000, used: 2147483648, "
    "capacity: 4294967296"
)
CPU_DEFERRED = "Node didn't have enough resource: cpu, requested: 5000, used: 2000, capacity: 4000"

# name, orig reqs, new reqs, orig lims, new lims, orig pod reqs, new pod reqs, in-progress,
# pending, newly allocated, expected reqs, expected lims, expected pod reqs, conditions, synced
RETRY_ROWS: list[tuple[Any, ...]] = [
    ("Request CPU and memory decrease - expect InProgress", _rl(cpu="1", memory="1Gi"),
     _rl(cpu="500m", memory="500Mi"), None, None, None, None, False, False, False,
     _rl(cpu="500m", memory="500Mi"), None, None, [_ip()], True),
    ("Request CPU increase, memory decrease - expect InProgress", _rl(cpu="1", memory="1Gi"),
     _rl(cpu="1500m", memory="500Mi"), None, None, None, None, False, False, False,
     _rl(cpu="1500m", memory="500Mi"), None, None, [_ip()], True),
    ("Request CPU decrease, memory increase - expect InProgress", _rl(cpu="1", memory="1Gi"),
     _rl(cpu="500m", memory="1500Mi"), None, None, None, None, False, False, False,
     _rl(cpu="500m", memory="1500Mi"), None, None, [_ip()], True),
    ("Request CPU and memory increase beyond current capacity - expect Deferred",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="2500m", memory="2500Mi"), None, None, None, None,
     False, False, False, _rl(cpu="1", memory="1Gi"), None, None,
     [_deferred("Node didn't have enough resource: cpu")], True),
    ("Request CPU decrease and memory increase beyond current capacity - expect Deferred",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="500m", memory="2500Mi"), None, None, None, None,
     False, False, False, _rl(cpu="1", memory="1Gi"), None, None,
     [_deferred("Node didn't have enough resource: memory")], True),
    ("Request memory increase beyond node capacity - expect Deferred",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1", memory="4500Mi"), None, None, None, None,
     False, False, False, _rl(cpu="1", memory="1Gi"), None, None, [_deferred(MEM_DEFERRED)], True),
    ("Request CPU increase beyond node capacity - expect Deferred",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="5000m", memory="1Gi"), None, None, None, None,
     False, False, False, _rl(cpu="1", memory="1Gi"), None, None, [_deferred(CPU_DEFERRED)], True),
    ("CPU increase in progress, resources unchanged - expect InProgress",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1500m", memory="1Gi"), None, None, None, None,
     True, True, True, _rl(cpu="1500m", memory="1Gi"), None, None, [_ip(IN_PROGRESS_MSG)], True),
    ("CPU increase in progress, new allocation - expect InProgress reset",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1500m", memory="1Gi"), None, None, None, None,
     True, True, False, _rl(cpu="1500m", memory="1Gi"), None, None, [_ip()], True),
    ("Deferred resize doesn't clear in-progress status",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="500m", memory="2500Mi"), None, None, None, None,
     True, True, False, _rl(cpu="1", memory="1Gi"), None, None,
     [_deferred("Node didn't have enough resource: memory"), _ip(IN_PROGRESS_MSG)], True),
    ("No resize", _rl(cpu="1", memory="1Gi"), _rl(cpu="1", memory="1Gi"), None, None, None,
     None, False, False, False, _rl(cpu="1", memory="1Gi"), None, None, [], False),
    ("Increase CPU from min shares", _rl(cpu="2m"), _rl(cpu="1"), None, None, None, None,
     False, False, False, _rl(cpu="1"), None, None, [_ip()], True),
    ("Decrease CPU to min shares", _rl(cpu="1"), _rl(cpu="2m"), None, None, None, None,
     False, False, False, _rl(cpu="2m"), None, None, [_ip()], True),
    ("Increase CPU from min limit", _rl(cpu="10m"), _rl(cpu="10m"), _rl(cpu="10m"),
     _rl(cpu="20m"), None, None, False, False, False, _rl(cpu="10m"), _rl(cpu="20m"), None,
     [_ip()], True),
    ("Decrease CPU to min limit", _rl(cpu="10m"), _rl(cpu="10m"), _rl(cpu="20m"),
     _rl(cpu="10m"), None, None, False, False, False, _rl(cpu="10m"), _rl(cpu="10m"), None,
     [_ip()], True),
    ("pod-level: Request CPU and memory increase - expect InProgress",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1", memory="1Gi"), None, None,
     _rl(cpu="1500m", memory="1500Mi"), _rl(cpu="2", memory="2Gi"), False, False, False,
     _rl(cpu="1", memory="1Gi"), None, _rl(cpu="2", memory="2Gi"), [_ip()], True),
    ("pod-level: Request CPU and memory decrease - expect InProgress",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1", memory="1Gi"), None, None,
     _rl(cpu="1500m", memory="1500Mi"), _rl(cpu="1200m", memory="1200Mi"), False, False, False,
     _rl(cpu="1", memory="1Gi"), None, _rl(cpu="1200m", memory="1200Mi"), [_ip()], True),
    ("pod-level: Request CPU increase beyond current capacity - expect Deferred",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1", memory="1Gi"), None, None,
     _rl(cpu="1500m", memory="1500Mi"), _rl(cpu="2500m", memory="1500Mi"), False, False, False,
     _rl(cpu="1", memory="1Gi"), None, _rl(cpu="1500m", memory="1500Mi"),
     [_deferred("Node didn't have enough resource: cpu")], True),
    ("pod-level: Request memory increase beyond node capacity - expect Deferred",
     _rl(cpu="1", memory="1Gi"), _rl(cpu="1", memory="1Gi"), None, None,
     _rl(cpu="1500m", memory="1500Mi"), _rl(cpu="1500m", memory="4500Mi"), False, False, False,
     _rl(cpu="1", memory="1Gi"), None, _rl(cpu="1500m", memory="1500Mi"),
     [_deferred(MEM_DEFERRED)], True),
]


def _retry_params() -> list[Any]:
    out = []
    for row in RETRY_ROWS:
        for kind in ("regular", "non-sidecar-init", "sidecar"):
            if row[5] is not None and kind != "regular":
                continue  # upstream runs pod-level rows for regular containers only
            out.append(pytest.param(kind, *row[1:], id=f"{row[0]}/containerType={kind}"))
    return out


def _same(got: Obj | None, want: Obj | None) -> bool:
    """assert.Equal on resource lists, by value (nil and empty alike)."""
    got, want = got or {}, want or {}
    return set(got) == set(want) and all(
        parse_quantity(got[k]) == parse_quantity(want[k]) for k in got
    )


def _check_conditions(got: list[Obj], want: list[tuple[str, str, str]]) -> None:
    """``verifyResizeConditions``: messages by substring, times ignored."""
    assert len(got) == len(want), got
    for c, (ctype, reason, msg) in zip(got, want, strict=True):
        assert c["type"] == ctype and c["status"] == "True"
        assert c.get("reason", "") == reason
        assert c.get("observedGeneration") == 0
        if msg:
            assert msg in c.get("message", "")
        else:
            assert not c.get("message")


def _manager(pods: list[Obj], get: Any, gates: frozenset[str] = DEFAULT_GATES,
             node: NodeConfig | None = None) -> AllocationManager:
    ticks = iter(range(1, 10_000))
    return AllocationManager(
        allocatable=ALLOCATABLE,
        active_pods=lambda: pods,
        get_pod=get,
        now=lambda: f"2026-01-01T00:00:{next(ticks):04d}Z",
        gates=gates,
        node=node or NodeConfig(),
    )


@pytest.mark.parametrize(
    "kind,orig_reqs,new_reqs,orig_lims,new_lims,orig_pod,new_pod,in_progress,pending,"
    "new_allocated,want_reqs,want_lims,want_pod,want_conds,synced",
    _retry_params(),
)
def test_retry_pending_resizes(
    kind: str, orig_reqs: Obj, new_reqs: Obj, orig_lims: Obj | None, new_lims: Obj | None,
    orig_pod: Obj | None, new_pod: Obj | None, in_progress: bool, pending: bool,
    new_allocated: bool, want_reqs: Obj, want_lims: Obj | None, want_pod: Obj | None,
    want_conds: list[tuple[str, str, str]], synced: bool,
) -> None:
    """TestRetryPendingResizes."""
    init = kind != "regular"
    original = copy.deepcopy(POD2 if init else POD1)
    part = "initContainers" if init else "containers"
    ctr = original["spec"][part][0]
    if kind == "sidecar":
        ctr["restartPolicy"] = "Always"
    ctr["resources"] = {"requests": dict(orig_reqs)}
    if orig_lims:
        ctr["resources"]["limits"] = dict(orig_lims)
    if orig_pod is not None:
        original["spec"]["resources"] = {"requests": dict(orig_pod)}
    new = copy.deepcopy(original)
    new["spec"][part][0]["resources"] = {"requests": dict(new_reqs)}
    if new_lims:
        new["spec"][part][0]["resources"]["limits"] = dict(new_lims)
    if new_pod is not None:
        new["spec"]["resources"] = {"requests": dict(new_pod)}

    m = _manager([POD1, POD2, POD3], lambda _uid: new)
    for p in (POD1, POD2, POD3):
        m.set_allocated_resources(p)
    m.set_allocated_resources(new if new_allocated else original)
    uid = original["metadata"]["uid"]
    conds = m.conditions_of(uid)
    if in_progress:
        conds.set_in_progress("", IN_PROGRESS_MSG, 0, m.now())
    if pending:
        conds.set_pending("Deferred", PENDING_MSG, 0, m.now())

    m.push_pending_resize(uid)
    m.retry_pending_resizes()

    updated = original if conds.is_infeasible() or conds.is_deferred() else new
    uctr = updated["spec"][part][0]
    assert _same(uctr["resources"].get("requests"), want_reqs)
    assert _same(uctr["resources"].get("limits"), want_lims)
    if orig_pod is not None:
        assert _same((updated["spec"].get("resources") or {}).get("requests"), want_pod)
        assert _same((m.allocated[uid]["pod"] or {}).get("requests"), want_pod)
    stored = m.allocated[uid]["containers"][uctr["name"]]
    assert _same(stored.get("requests"), want_reqs)
    assert _same(stored.get("limits"), want_lims)
    _check_conditions(conds.conditions(), want_conds)
    assert (uid in m.synced) is synced


def _gpod(uid: str, name: str, ns: str, req: Obj, lim: Obj, sidecar: bool) -> Obj:
    c: Obj = {"name": "c1", "image": "test-image", "resources": {"requests": req, "limits": lim}}
    if sidecar:
        c["restartPolicy"] = "Always"
    spec = {"initContainers": [c]} if sidecar else {"containers": [c]}
    return {"metadata": {"uid": uid, "name": name, "namespace": ns}, "spec": spec,
            "status": {"phase": "Running"}}


G1 = _rl(cpu="1", memory="1Gi")
G2 = _rl(cpu="2", memory="2Gi")
B1 = _rl(cpu="500m", memory="500Mi")
CPU_STATIC = 'Resize is infeasible for Guaranteed Pods alongside CPU Manager policy "static"'
MEM_STATIC = 'Resize is infeasible for Guaranteed Pods alongside Memory Manager policy "Static"'
# name, orig reqs, orig lims, pods (uid prefix), exclusive-cpus gate, exclusive-memory gate,
# new reqs, new lims, expected reqs, expected lims, conditions
GUARANTEED_ROWS: list[tuple[Any, ...]] = [
    ("Guaranteed QOS pod - CPU resize with `InPlacePodVerticalScalingExclusiveCPUs`feature gate "
     "off and only CPU resize. Infeasible due to static cpu policy", G1, G1, "guaranteed", False,
     True, _rl(cpu="2", memory="1Gi"), _rl(cpu="2", memory="1Gi"), G1, G1,
     [_infeasible(CPU_STATIC)]),
    ("Guaranteed QOS pod - Memory resize with `InPlacePodVerticalScalingExclusiveMemory` feature "
     "gates off and only memory resize. Infeasible due to static memory policy", G1, G1,
     "guaranteed", True, False, _rl(cpu="1", memory="2Gi"), _rl(cpu="1", memory="2Gi"), G1, G1,
     [_infeasible(MEM_STATIC)]),
    ("Guaranteed QOS pod - CPU and Memory resize with both feature gates off. Infeasible due to "
     "static cpu policy", G1, G1, "guaranteed", False, False, G2, G2, G1, G1,
     [_infeasible(CPU_STATIC)]),
    ("BestEffortPod - CPU and Memory limit resize. Resize in progess. Static CPU and Memory "
     "policy feature gate settings should not affect best effort pods", B1, G1, "besteffort",
     False, False, B1, _rl(cpu="2", memory="1Gi"), B1, _rl(cpu="2", memory="1Gi"), [_ip()]),
]


def _guaranteed_params() -> list[Any]:
    out = []
    for row in GUARANTEED_ROWS:
        for sidecar in (False, True):
            out.append(pytest.param(sidecar, *row[1:], id=f"{row[0]}/sidecar={str(sidecar).lower()}"))
    return out


@pytest.mark.parametrize(
    "sidecar,orig_reqs,orig_lims,kind,excl_cpu,excl_mem,new_reqs,new_lims,want_reqs,want_lims,"
    "want_conds",
    _guaranteed_params(),
)
def test_retry_pending_resizes_guaranteed_qos_pods(
    sidecar: bool, orig_reqs: Obj, orig_lims: Obj, kind: str, excl_cpu: bool, excl_mem: bool,
    new_reqs: Obj, new_lims: Obj, want_reqs: Obj, want_lims: Obj,
    want_conds: list[tuple[str, str, str]],
) -> None:
    """TestRetryPendingResizesGuanteedQOSPods (static CPU and Memory manager policies)."""
    pods = {
        ("guaranteed", False): _gpod("1111", "pod1", "ns1", G1, G1, False),
        ("guaranteed", True): _gpod("2222", "pod2", "ns2", G1, G1, True),
        ("besteffort", False): _gpod("333", "pod3", "ns3", B1, G1, False),
        ("besteffort", True): _gpod("444", "pod4", "ns4", B1, G1, True),
    }
    original = pods[(kind, sidecar)]
    part = "initContainers" if sidecar else "containers"
    original["spec"][part][0]["resources"] = {"requests": dict(orig_reqs), "limits": dict(orig_lims)}
    new = copy.deepcopy(original)
    new["spec"][part][0]["resources"] = {"requests": dict(new_reqs), "limits": dict(new_lims)}
    gates = set(DEFAULT_GATES)
    if excl_cpu:
        gates.add("InPlacePodVerticalScalingExclusiveCPUs")
    if excl_mem:
        gates.add("InPlacePodVerticalScalingExclusiveMemory")
    active = [pods[("guaranteed", False)], pods[("guaranteed", True)], pods[("besteffort", False)]]
    node = NodeConfig(cpu_manager_policy="static", memory_manager_policy="Static")
    m = _manager(active, lambda _uid: new, frozenset(gates), node)
    m.set_allocated_resources(original)
    uid = original["metadata"]["uid"]
    m.push_pending_resize(uid)
    m.retry_pending_resizes()
    conds = m.conditions_of(uid)
    updated = original if conds.is_infeasible() or conds.is_deferred() else new
    uctr = updated["spec"][part][0]
    assert _same(uctr["resources"]["requests"], want_reqs)
    assert _same(uctr["resources"]["limits"], want_lims)
    stored = m.allocated[uid]["containers"]["c1"]
    assert _same(stored["requests"], want_reqs) and _same(stored["limits"], want_lims)
    _check_conditions(conds.conditions(), want_conds)


def _spod(n: int) -> Obj:
    c = {"name": f"c{n}", "image": f"i{n}", "resources": {"requests": _rl(cpu="1", memory="1Gi")}}
    return {"metadata": {"uid": str(n), "name": f"pod{n}", "namespace": f"ns{n}"},
            "spec": {"containers": [c]}, "status": {}}


@pytest.mark.parametrize("reverse", [False, True], ids=["pushed in order", "pushed in reverse"])
def test_sort_pending_resizes(reverse: bool) -> None:
    """TestSortPendingResizes: non-increasing (pod-level, then container-level) first, then
    PriorityClass, then Guaranteed, then the longest Deferred, no condition last."""
    pods = [_spod(i) for i in range(7)]
    m = _manager(pods, lambda uid: next((p for p in pods if p["metadata"]["uid"] == uid), None))
    for p in pods:
        m.set_allocated_resources(p)
    pods[0]["spec"]["resources"] = {"requests": _rl(cpu="500m", memory="500Mi")}
    pods[1]["spec"]["containers"][0]["resources"]["requests"] = _rl(cpu="500m", memory="500Mi")
    for p in pods[2:]:
        p["spec"]["containers"][0]["resources"]["requests"] = _rl(cpu="1500m", memory="1500Mi")
    pods[2]["spec"]["priority"] = 100
    pods[3]["status"]["qosClass"] = "Guaranteed"
    m.conditions_of("4").set_pending("Deferred", "some-message", 1, m.now())
    m.conditions_of("5").set_pending("Deferred", "some-message", 1, m.now())
    for p in reversed(pods) if reverse else pods:
        m.push_pending_resize(p["metadata"]["uid"])
    assert m.pending == [str(i) for i in range(7)]


C1K = _rl(cpu="1", memory="1Gi")
INCREASING_ROWS: list[Any] = [
    pytest.param(None, {0: _rl(cpu="1500m", memory="1500Mi")}, True, False,
                 id="increase requests, one container"),
    pytest.param(None, {0: _rl(cpu="500m", memory="500Mi")}, False, False,
                 id="decrease requests, one container"),
    pytest.param(None, {0: _rl(cpu="1500m", memory="500Mi")}, True, False,
                 id="increase cpu, decrease memory, one container"),
    pytest.param(None, {0: _rl(cpu="500m", memory="1500Mi")}, True, False,
                 id="increase memory, decrease cpu, one container"),
    pytest.param(None, {0: _rl(cpu="1500m", memory="1500Mi"), 1: _rl(cpu="500m", memory="500Mi")},
                 False, False, id="increase one container, decrease another container, net neutral"),
    pytest.param(None, {0: _rl(cpu="500m", memory="500Mi"), 1: _rl(cpu="500m", memory="500Mi")},
                 False, False, id="decrease requests, two containers"),
    pytest.param(None, {0: {}}, False, False, id="remove requests, set as empty struct"),
    pytest.param(None, {0: None}, False, False, id="remove requests, set as nil"),
    pytest.param(None, {2: C1K}, True, False, id="add requests, set as empty struct"),
    pytest.param(None, {3: C1K}, True, False, id="add requests, set as nil"),
    pytest.param(_rl(cpu="3000m", memory="2500Mi"), {}, True, True, id="pod-level: increase cpu"),
    pytest.param(_rl(cpu="2500m", memory="2000Mi"), {}, False, True,
                 id="pod-level: decrease memory"),
    pytest.param(_rl(cpu="3000m", memory="2000Mi"), {}, True, True,
                 id="pod-level: increase cpu, decrease memory"),
    pytest.param(None, {0: _rl(cpu="1500m", memory="1Gi")}, False, True,
                 id="container-level: increase cpu"),
    pytest.param(None, {0: _rl(cpu="500m", memory="1Gi")}, False, True,
                 id="container-level: decrease cpu"),
    pytest.param(_rl(cpu="2600m", memory="2500Mi"), {0: _rl(cpu="1500m", memory="1Gi")}, True, True,
                 id="pod & container: increase container cpu, increase pod cpu, net increase"),
    pytest.param(_rl(cpu="2000m", memory="2500Mi"), {0: _rl(cpu="500m", memory="1Gi")}, False, True,
                 id="pod & container: decrease container cpu, decrease pod cpu, net decrease"),
    pytest.param(_rl(cpu="2500m", memory="2500Mi"), {0: _rl(cpu="1500m", memory="1Gi")}, False, True,
                 id="pod & container: increase container cpu, same pod cpu, net neutral"),
]


@pytest.mark.parametrize("new_pod,new_ctrs,expected,pod_level", INCREASING_ROWS)
def test_is_resize_increasing_requests(
    new_pod: Obj | None, new_ctrs: dict[int, Obj | None], expected: bool, pod_level: bool
) -> None:
    """TestIsResizeIncreasingRequests."""
    reqs: list[Obj | None] = [C1K, C1K, {}, None]
    ctrs = []
    for i, r in enumerate(reqs, start=1):
        res: Obj = {} if r is None else {"requests": dict(r)}
        ctrs.append({"name": f"c{i}", "image": f"i{i}", "resources": res})
    pod: Obj = {"metadata": {"uid": "1111", "name": "pod1", "namespace": "ns1"},
                "spec": {"containers": ctrs}}
    if pod_level:
        pod["spec"]["resources"] = {"requests": _rl(cpu="2500m", memory="2500Mi")}
    m = _manager([pod], lambda _uid: pod)
    m.set_allocated_resources(pod)
    pod = copy.deepcopy(pod)
    if new_pod is not None:
        pod["spec"]["resources"]["requests"] = new_pod
    for k, v in new_ctrs.items():
        pod["spec"]["containers"][k]["resources"] = {} if v is None else {"requests": v}
    assert m.is_resize_increasing_requests(pod) is expected


_MC_DEFERRED = "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000"
# name, cpu, memory, generation, conditions (type, reason, message, generation), event
MULTI_STEPS: list[tuple[str, str, str, int, list[tuple[str, str, str, int]], str]] = [
    ("allocated != actuated, pod resize should be in progress", "1", "1Gi", 1,
     [("PodResizeInProgress", "", "", 1)],
     'Normal ResizeStarted Pod resize started: {"containers":[{"name":"c1","resources":'
     '{"requests":{"cpu":"1","memory":"1Gi"}}}],"generation":1}'),
    ("desired != allocated != actuated, both conditions should be present in the pod status",
     "5000m", "4500Mi", 2,
     [("PodResizePending", "Deferred", _MC_DEFERRED, 2), ("PodResizeInProgress", "", "", 1)],
     'Warning ResizeDeferred Pod resize OutOfcpu: {"containers":[{"name":"c1","resources":'
     '{"requests":{"cpu":"5","memory":"4500Mi"}}}],"generation":2,"error":"' + _MC_DEFERRED
     + '"}'),
    ("same as previous case to ensure no new event is generated", "5000m", "4500Mi", 2,
     [("PodResizePending", "Deferred", _MC_DEFERRED, 2), ("PodResizeInProgress", "", "", 1)], ""),
    ("revert back to the original resize request", "1", "1Gi", 3,
     [("PodResizeInProgress", "", "", 1)], ""),
    ("no changes except generation", "1", "1Gi", 4, [("PodResizeInProgress", "", "", 1)], ""),
    ("allocate a new resize", "500m", "500Mi", 5, [("PodResizeInProgress", "", "", 5)],
     'Normal ResizeStarted Pod resize started: {"containers":[{"name":"c1","resources":'
     '{"requests":{"cpu":"500m","memory":"500Mi"}}}],"generation":5}'),
]


@pytest.mark.parametrize("upto", range(len(MULTI_STEPS)), ids=[s[0] for s in MULTI_STEPS])
def test_retry_pending_resizes_multiple_conditions(upto: int) -> None:
    """TestRetryPendingResizesMultipleConditions (rows share one manager, run in order)."""
    pod = _pod("1111", "pod", "ns", _rl(cpu="500m", memory="500Mi"))
    pod["metadata"]["generation"] = 1
    m = _manager([pod], lambda _uid: pod)
    m.set_allocated_resources(pod)
    for i, (_, cpu, mem, gen, want, event) in enumerate(MULTI_STEPS[: upto + 1]):
        pod["metadata"]["generation"] = gen
        pod["spec"] = {"containers": [{"name": "c1", "image": "i1",
                                       "resources": {"requests": _rl(cpu=cpu, memory=mem)}}]}
        m.events.clear()
        m.push_pending_resize("1111")
        m.retry_pending_resizes()
        if i < upto:
            continue
        got = m.conditions_of("1111").conditions()
        assert [(c["type"], c.get("reason", ""), c.get("message", ""), c["observedGeneration"])
                for c in got] == want
        assert [" ".join(e) for e in m.events] == ([event] if event else [])


@pytest.mark.parametrize(
    "swap,policy,want_reqs,want_conds",
    [
        pytest.param(False, "RestartContainer", _rl(cpu="500m", memory="500Mi"), [_ip()],
                     id="NoSwap Request Memory decrease ResizePolicy RestartContainer - expect "
                        "InProgress"),
        pytest.param(True, "RestartContainer", _rl(cpu="500m", memory="500Mi"), [_ip()],
                     id="LimitedSwap Request Memory increase with ResizePolicy RestartContainer - "
                        "expect InProgress"),
        pytest.param(True, "NotRequired", _rl(cpu="1", memory="1Gi"),
                     [_infeasible("In-place resize of containers with swap is not supported")],
                     id="LimitedSwap Request Memory increase with ResizePolicy NotRequired - "
                        "expect Infeasible"),
    ],
)
def test_retry_pending_resizes_with_swap(
    swap: bool, policy: str, want_reqs: Obj, want_conds: list[tuple[str, str, str]]
) -> None:
    """TestRetryPendingResizesWithSwap (the kubelet_pod_infeasible_resizes_total metric is
    not modelled)."""
    name = "test-container-limitedswap" if swap else "test-container-noswap"
    original = _pod("1111", "pod1", "ns1", _rl(cpu="1", memory="1Gi"))
    ctr = original["spec"]["containers"][0]
    ctr["name"] = name
    ctr["resizePolicy"] = [{"resourceName": "memory", "restartPolicy": policy}]
    new = copy.deepcopy(original)
    new["spec"]["containers"][0]["resources"]["requests"] = _rl(cpu="500m", memory="500Mi")
    m = _manager([POD1], lambda _uid: new)
    m.swap = lambda _pod, c: c["name"] == "test-container-limitedswap"
    m.set_allocated_resources(original)
    m.push_pending_resize("1111")
    m.retry_pending_resizes()
    conds = m.conditions_of("1111")
    updated = original if conds.is_infeasible() else new
    assert _same(updated["spec"]["containers"][0]["resources"]["requests"], want_reqs)
    assert _same(m.allocated["1111"]["containers"][name]["requests"], want_reqs)
    _check_conditions(conds.conditions(), want_conds)
    assert "1111" in m.synced


def _non_allocated_setup() -> tuple[AllocationManager, Obj, Obj, dict[str, Obj]]:
    running = _pod("running-pod", "running-pod", "default", _rl(cpu="1", memory="1Gi"))
    pending = _pod("pending-pod", "pending-pod", "default", _rl(cpu="10", memory="10Gi"))
    pending["status"] = {"phase": "Pending"}
    by_uid = {"running-pod": running, "pending-pod": pending}
    m = _manager([running, pending], by_uid.get)
    m.set_allocated_resources(running)
    return m, running, pending, by_uid


def test_non_allocated_pods_excluded_from_capacity_resize() -> None:
    """TestNonAllocatedPodsExcludedFromCapacity_Resize: a pod with no allocation yet takes
    no room from a running pod's resize."""
    m, running, _pending, by_uid = _non_allocated_setup()
    resized = copy.deepcopy(running)
    resized["spec"]["containers"][0]["resources"]["requests"] = _rl(cpu="1500m", memory="1Gi")
    by_uid["running-pod"] = resized
    m.push_pending_resize("running-pod")
    m.retry_pending_resizes()
    got = m.conditions_of("running-pod").conditions()
    assert [(c["type"], c["status"]) for c in got] == [("PodResizeInProgress", "True")]
    assert _same(m.allocated["running-pod"]["containers"]["c1"]["requests"],
                 _rl(cpu="1500m", memory="1Gi"))
    assert "pending-pod" not in m.allocated


def test_non_allocated_pods_excluded_from_capacity_add_pod() -> None:
    """TestNonAllocatedPodsExcludedFromCapacity_AddPod."""
    m, running, pending, _ = _non_allocated_setup()
    new = _pod("new-pod", "new-pod", "default", _rl(cpu="500m", memory="1Gi"))
    new["spec"]["containers"][0]["image"] = "test-image"
    new["status"] = {"phase": "Pending"}
    ok, reason, message = m.add_pod([running, pending], new)
    assert ok, (reason, message)
    assert _same(m.allocated["new-pod"]["containers"]["c1"]["requests"],
                 _rl(cpu="500m", memory="1Gi"))
    assert "pending-pod" not in m.allocated

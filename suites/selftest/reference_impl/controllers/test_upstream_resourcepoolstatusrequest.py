"""Upstream's ``pkg/controller/resourcepoolstatusrequest/controller_test.go`` (v1.37.2), row
by row, against ``reference_impl.controllers.resourcepoolstatusrequest``.

A real APIServer and informers on a simulated clock; as upstream's rows add objects with
``Informer().GetStore().Add``, slices and claims go straight into the informer caches
(they need not pass validation). Requests that a sync writes live in the apiserver.
Helper names follow the Go file (``makeSlice``, ``makeAllocatedClaim``...).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory, object_key
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, rfc3339, seconds
from reference_impl.controllers.resourcepoolstatusrequest import (
    MAX_RETRIES,
    RequeueError,
    ResourcePoolStatusRequestController,
    is_older_than,
    should_delete_request,
)
from reference_impl.controllers.resourcepoolstatusrequest_views import PREFIX_PARTITION_TYPE_MISSING
from reference_impl.errors import NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
API = "resource.k8s.io/v1"
RPSR_API = "resource.k8s.io/v1alpha3"
RPSR = "ResourcePoolStatusRequest"
DRIVER = "test.example.com"


class Env:
    """One controller (started) with its apiserver, informers and clock."""

    def __init__(self, **gates: bool) -> None:
        self.clock = SimClock()
        g = FeatureGates({"DRAResourcePoolStatus": True, **gates})
        rng = Rng(0)
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), g)
        self.informers = InformerFactory(self.server)
        self.trace = Trace(self.clock)
        ctx = ComponentContext(self.server, self.informers, self.clock, rng, g, self.trace)
        self.ctrl = ResourcePoolStatusRequestController(ctx)
        self.ctrl.start()

    def store(self, kind: str, *objs: Obj) -> None:
        """``Informer().GetStore().Add`` for each object. DeviceTaintRules are not served
        with their gate off: upstream adds them to an informer the controller never reads."""
        if not objs:
            return
        try:
            inf = self.informers.informer(API, kind)
        except NotFound:
            assert kind == "DeviceTaintRule"
            return
        for o in objs:
            inf.cache[object_key(o)] = o

    def calculate(self, request: Obj, slices: list[Obj], claims: list[Obj] | None = None,
                  rules: list[Obj] | None = None) -> Obj:  # fmt: skip
        """``runCalculatePoolStatus``."""
        self.store("ResourceSlice", *slices)
        self.store("ResourceClaim", *(claims or []))
        self.store("DeviceTaintRule", *(rules or []))
        return self.ctrl.calculate_pool_status(request)

    def create_request(self, request: Obj, status: Obj | None = None) -> Obj:
        """A request in the apiserver (and so in the informer); ``status`` written after."""
        out = self.server.create(request)
        if status is not None:
            out = self.server.update_status({**out, "status": status})
        return out

    def stored(self, name: str = "test-request") -> Obj | None:
        return self.server.try_get(RPSR_API, RPSR, name)


def make_request(driver: str = DRIVER, name: str = "test-request", **spec: Any) -> Obj:
    """``makeRequest``."""
    return {"apiVersion": RPSR_API, "kind": RPSR, "metadata": {"name": name},
            "spec": {"driver": driver, **spec}}  # fmt: skip


def make_slice(name: str, driver: str, pool: str, node: str | None, count: int,
               generation: int = 1, slice_count: int = 1) -> Obj:  # fmt: skip
    """``makeSliceWithGenerationAndCount`` (``makeSliceWithoutNode`` with node None)."""
    spec: Obj = {"driver": driver, "pool": {"name": pool, "generation": generation,
                                            "resourceSliceCount": slice_count},
                 "devices": [{"name": f"device-{i}"} for i in range(count)]}  # fmt: skip
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def make_allocated_claim(name: str, ns: str, driver: str, pool: str, device: str,
                         admin_access: bool = False) -> Obj:  # fmt: skip
    """``makeAllocatedClaim`` (``makeAdminAccessClaim`` with ``admin_access``)."""
    result: Obj = {"request": "", "driver": driver, "pool": pool, "device": device}
    if admin_access:
        result["adminAccess"] = True
    return {"apiVersion": API, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns},
            "spec": {}, "status": {"allocation": {"devices": {"results": [result]}}}}  # fmt: skip


def make_slice_with_tainted_devices(effect: str) -> Obj:
    """``makeSliceWithTaintedDevices``: 5 devices, the first 2 tainted with ``effect``."""
    s = make_slice("slice-1", DRIVER, "pool-1", "node-1", 5)
    for d in s["spec"]["devices"][:2]:
        d["taints"] = [{"key": "example.com/maintenance", "effect": effect}]
    return s


def make_device_taint_rule(name: str, driver: str, pool: str, device: str, effect: str) -> Obj:
    """``makeDeviceTaintRule``."""
    return {"apiVersion": API, "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": {"driver": driver, "pool": pool, "device": device},
                     "taint": {"key": "example.com/maintenance", "effect": effect}}}  # fmt: skip


def _s(name: str, pool: str, node: str | None, count: int, gen: int = 1, n: int = 1,
       driver: str = DRIVER) -> Obj:  # fmt: skip
    return make_slice(name, driver, pool, node, count, gen, n)


_UNSET = object()  # checkNodeName false
# name, request spec, slices, claims, pools, total, alloc, poolCount, truncated, nodeName,
# incomplete (None: unchecked), condition message
CALCULATE: list[tuple[Any, ...]] = [
    ("single-pool-no-allocations", {}, [_s("slice-1", "pool-1", "node-1", 4)], [], 1, 4, 0, 0, False,
     _UNSET, None, "Calculated status for 1 pools"),
    ("single-pool-with-allocations", {}, [_s("slice-1", "pool-1", "node-1", 4)],
     [make_allocated_claim("claim-1", "default", DRIVER, "pool-1", "device-0"),
      make_allocated_claim("claim-2", "default", DRIVER, "pool-1", "device-1")],
     1, 4, 2, 0, False, _UNSET, None, "Calculated status for 1 pools"),
    ("multiple-pools", {}, [_s("slice-1", "pool-1", "node-1", 4), _s("slice-2", "pool-2", "node-2", 8)], [],
     2, 12, 0, 0, False, _UNSET, None, "Calculated status for 2 pools"),
    ("filter-by-driver", {}, [_s("slice-1", "pool-1", "node-1", 4),
                              _s("slice-2", "pool-2", "node-2", 8, driver="other.example.com")], [],
     1, 4, 0, 0, False, _UNSET, None, "Calculated status for 1 pools"),
    ("filter-by-pool-name", {"poolName": "pool-1"},
     [_s("slice-1", "pool-1", "node-1", 4), _s("slice-2", "pool-2", "node-2", 8)], [],
     1, 4, 0, 0, False, _UNSET, None, "Calculated status for 1 pools"),
    ("multiple-slices-same-pool", {}, [_s("slice-1", "pool-1", "node-1", 4), _s("slice-2", "pool-1", "node-1", 4)],
     [], 1, 8, 0, 0, False, _UNSET, None, "Calculated status for 1 pools"),
    ("limit-pools", {"limit": 1}, [_s("slice-1", "pool-1", "node-1", 4), _s("slice-2", "pool-2", "node-2", 8)], [],
     1, 0, 0, 2, True, _UNSET, None, "Calculated status for 1 pools"),
    ("no-matching-pools", {"driver": "nonexistent.example.com"}, [_s("slice-1", "pool-1", "node-1", 4)], [],
     0, 0, 0, 0, False, _UNSET, None, "Calculated status for 0 pools"),
    ("older-generation-slices-ignored", {},
     [_s("slice-old", "pool-1", "node-1", 8, 1), _s("slice-new-1", "pool-1", "node-1", 4, 2),
      _s("slice-new-2", "pool-1", "node-1", 4, 2)], [], 1, 8, 0, 0, False, _UNSET, None,
     "Calculated status for 1 pools"),
    ("incomplete-pool-has-validation-error", {},
     [_s(f"slice-{i}", "pool-1", "node-1", 4, 1, 5) for i in (1, 2, 3)], [], 1, 0, 0, 0, False, _UNSET, 1,
     "Calculated status for 1 pools (1 incomplete)"),
    ("mix-of-complete-and-incomplete-pools", {},
     [_s("slice-1", "pool-1", "node-1", 4, 1, 1), _s("slice-2a", "pool-2", "node-2", 4, 1, 3),
      _s("slice-2b", "pool-2", "node-2", 4, 1, 3)], [], 2, 4, 0, 0, False, _UNSET, 1,
     "Calculated status for 2 pools (1 incomplete)"),
    ("same-node-pool-sets-nodename", {}, [_s("slice-1", "pool-1", "node-1", 4), _s("slice-2", "pool-1", "node-1", 4)],
     [], 1, 8, 0, 0, False, "node-1", None, "Calculated status for 1 pools"),
    ("mixed-node-pool-clears-nodename", {},
     [_s("slice-1", "pool-1", "node-1", 4), _s("slice-2", "pool-1", "node-2", 4)], [], 1, 8, 0, 0, False, None, None,
     "Calculated status for 1 pools"),
    ("nil-nodename-slices-no-nodename", {}, [_s("slice-1", "pool-1", None, 4), _s("slice-2", "pool-1", None, 4)],
     [], 1, 8, 0, 0, False, None, None, "Calculated status for 1 pools"),
    ("all-pools-complete-no-validation-errors", {},
     [_s("slice-1a", "pool-1", "node-1", 4, 1, 2), _s("slice-1b", "pool-1", "node-1", 4, 1, 2)], [],
     1, 8, 0, 0, False, _UNSET, 0, "Calculated status for 1 pools"),
]  # fmt: skip


@pytest.mark.parametrize("row", [pytest.param(r[1:], id=r[0]) for r in CALCULATE])
def test_calculate_pool_status(row: tuple[Any, ...]) -> None:
    """``TestCalculatePoolStatus``."""
    spec, slices, claims, pools, total, alloc, pool_count, truncated, node, incomplete, message = row
    status = Env().calculate(make_request(**spec), slices, claims)
    got = status.get("pools", [])
    assert len(got) == pools
    if pool_count > 0:
        assert status["poolCount"] == pool_count
    if truncated:
        assert len(got) < status["poolCount"]
    if pools > 0 and not truncated:
        assert sum(p.get("totalDevices", 0) for p in got) == total
        assert sum(p.get("allocatedDevices", 0) for p in got) == alloc
    if node is not _UNSET and len(got) == 1:
        assert got[0].get("nodeName") == node
    if incomplete is not None:
        flagged = [p for p in got if "validationError" in p]
        for p in flagged:
            assert not {"totalDevices", "allocatedDevices", "resourceSliceCount"} & set(p)
        assert len(flagged) == incomplete
    assert status["conditions"], "Expected Conditions to be set"
    (cond,) = status["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        "Complete", "True", "CalculationComplete", message)


def test_incomplete_pool_message() -> None:
    """The incomplete row's validationError, as ``calculatePoolStatus`` words it."""
    slices = [_s(f"slice-{i}", "pool-1", "node-1", 4, 1, 5) for i in (1, 2, 3)]
    (pool,) = Env().calculate(make_request(), slices)["pools"]
    assert pool == {"driver": DRIVER, "poolName": "pool-1", "generation": 1, "nodeName": "node-1",
                    "validationError": "PoolIncomplete: pool test.example.com/pool-1 is incomplete: "
                                       "observed 3/5 slices at generation 1"}  # fmt: skip


def test_sync_request() -> None:
    """``TestSyncRequest``: the status is written through /status."""
    env = Env()
    env.create_request(make_request())
    env.store("ResourceSlice", make_slice("slice-1", DRIVER, "pool-1", "node-1", 4))
    env.ctrl.sync_request("test-request")
    stored = env.stored()
    assert stored is not None and stored["status"]["poolCount"] == 1
    assert stored["status"]["pools"][0]["totalDevices"] == 4


def test_sync_request_requeues_incomplete_pool() -> None:
    """``TestSyncRequestRequeuesIncompletePool``: an error and no write, also once the
    queue has given up on the key (here driven through the queue: 5 retries, dropped)."""
    env = Env()
    env.store("ResourceSlice", make_slice("slice-1", DRIVER, "pool-1", "node-1", 4, 1, 3))
    env.create_request(make_request())
    with pytest.raises(RequeueError, match="incomplete pools detected, requeueing"):
        env.ctrl.sync_request("test-request")
    env.clock.run_until(Instant(env.clock.now() + seconds(1)))
    stored = env.stored()
    assert stored is not None and "status" not in stored
    drops = [r for r in env.trace.records if r.event == "Dropped"]
    assert [(r.object, r.detail) for r in drops] == [("test-request", f"after {MAX_RETRIES} retries")]
    with pytest.raises(RequeueError):
        env.ctrl.sync_request("test-request")


def test_sync_request_writes_structural_view_error() -> None:
    """``TestSyncRequestWritesStructuralViewError``: permanent errors are answered."""
    env = Env()
    env.create_request(make_request())
    s = make_slice("slice-1", DRIVER, "pool-1", "node-1", 2)
    s["spec"]["partitionTypeAttribute"] = "test.example.com/profile"
    env.store("ResourceSlice", s)
    env.ctrl.sync_request("test-request")
    stored = env.stored()
    assert stored is not None and "status" in stored
    (pool,) = stored["status"]["pools"]
    assert pool["validationError"].startswith(PREFIX_PARTITION_TYPE_MISSING)
    assert pool["validationError"] == ("PartitionTypeMissing: pool test.example.com/pool-1 declares "
                                       "partitionTypeAttribute but publishes no sharedCounters")


def _complete(when: str) -> Obj:
    return {"poolCount": 0, "conditions": [{
        "type": "Complete", "status": "True", "lastTransitionTime": when,
        "reason": "CalculationComplete", "message": "Calculated status for 0 pools"}]}  # fmt: skip


def test_skip_processed_request() -> None:
    """``TestSkipProcessedRequest``: a request with a status is not written again."""
    env = Env()
    before = env.create_request(make_request(), _complete(rfc3339(env.clock.now())))
    env.clock.run_until(Instant(env.clock.now() + seconds(1)))  # a recomputation would differ
    env.ctrl.sync_request("test-request")
    after = env.stored()
    assert after is not None and after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


TAINT_RULE = make_device_taint_rule("rule-1", DRIVER, "pool-1", "device-0", "NoSchedule")
PLAIN = [make_slice("slice-1", DRIVER, "pool-1", "node-1", 4)]


@pytest.mark.parametrize(("slices", "claims", "rules", "enable_rules", "want"), [
    pytest.param(PLAIN, [make_allocated_claim(f"claim-{i}", "default", DRIVER, "pool-1", "device-0")
                         for i in (1, 2, 3)], [], False, (4, 1, 3, 0),
                 id="repeated claims on one device count once"),
    pytest.param(PLAIN, [make_allocated_claim("claim-1", "default", DRIVER, "pool-1", "device-0"),
                         make_allocated_claim("admin-1", "default", DRIVER, "pool-1", "device-1", True)],
                 [], False, (4, 1, 3, 0), id="adminAccess claim is not an allocation"),
    pytest.param([make_slice_with_tainted_devices("NoSchedule")], [], [], False, (5, 0, 3, 2),
                 id="noSchedule taint is unavailable"),
    pytest.param([make_slice_with_tainted_devices("NoExecute")], [], [], False, (5, 0, 3, 2),
                 id="noExecute taint is unavailable"),
    pytest.param([make_slice_with_tainted_devices("None")], [], [], False, (5, 0, 5, 0),
                 id="none taint is available"),
    pytest.param(PLAIN, [], [TAINT_RULE], True, (4, 0, 3, 1), id="taint rule applies when gate is enabled"),
    pytest.param(PLAIN, [], [TAINT_RULE], False, (4, 0, 4, 0), id="taint rule ignored when gate is disabled"),
])  # fmt: skip
def test_calculate_pool_status_device_counts(
    slices: list[Obj], claims: list[Obj], rules: list[Obj], enable_rules: bool, want: tuple[int, ...]
) -> None:
    """``TestCalculatePoolStatus_DeviceCounts``: total, allocated, available, unavailable."""
    env = Env(DRADeviceTaintRules=enable_rules)
    (pool,) = env.calculate(make_request(), slices, claims, rules)["pools"]
    keys = ("totalDevices", "allocatedDevices", "availableDevices", "unavailableDevices")
    assert tuple(pool.get(k, -1) for k in keys) == want


NOW = Instant(seconds(48 * 3600))


@pytest.mark.parametrize(("offset_s", "want"), [
    pytest.param(None, False, id="zero-time-is-not-older"),
    pytest.param(-30 * 60, False, id="recent-time-is-not-older"),
    pytest.param(-2 * 3600, True, id="old-time-is-older"),
    pytest.param(-3600 + 60, False, id="just-under-boundary-is-not-older"),
])  # fmt: skip
def test_is_older_than(offset_s: int | None, want: bool) -> None:
    """``TestIsOlderThan`` (one hour)."""
    when = "" if offset_s is None else rfc3339(Instant(NOW + seconds(offset_s)))
    assert is_older_than(when, 3600, NOW) is want


def _ago(secs: int) -> str:
    return rfc3339(Instant(NOW - seconds(secs)))


@pytest.mark.parametrize(("created", "status", "want"), [
    pytest.param(0, _complete(_ago(0)), False, id="completed-request-not-expired"),
    pytest.param(2 * 3600, _complete(_ago(2 * 3600)), True, id="completed-request-expired"),
    pytest.param(0, None, False, id="pending-request-not-expired"),
    pytest.param(25 * 3600, None, True, id="pending-request-expired"),
])  # fmt: skip
def test_should_delete_request(created: int, status: Obj | None, want: bool) -> None:
    """``TestShouldDeleteRequest``."""
    request = make_request()
    request["metadata"]["creationTimestamp"] = _ago(created)
    if status is not None:
        request["status"] = status
    assert should_delete_request(request, NOW) is want


def test_cleanup_expired_requests() -> None:
    """``TestCleanupExpiredRequests``: only the request answered 2 hours ago is deleted
    (the apiserver stamps creation now, so the answer's time carries the age)."""
    env = Env()
    env.clock.run_until(Instant(seconds(3 * 3600)))
    now = env.clock.now()
    env.create_request(make_request(name="expired-request"), _complete(rfc3339(Instant(now - seconds(2 * 3600)))))
    env.create_request(make_request(name="active-request"), _complete(rfc3339(now)))
    assert env.ctrl.cleanup_expired_requests() == ["expired-request"]
    assert env.stored("expired-request") is None and env.stored("active-request") is not None


def _partition_slices(driver: str, declare: bool, mixed: bool) -> list[Obj]:
    """``makePartitionCounterSlice``, ``makePartitionDeviceSlice`` and, when ``mixed``,
    ``makePartitionClassSlice``."""
    n = 3 if mixed else 2

    def dev(name: str, attr: str, value: str, cost: str) -> Obj:
        return {"name": name, "attributes": {attr: {"string": value}},
                "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": cost}}}]}  # fmt: skip

    counters = make_slice("counters", driver, "pool-0", "node-0", 0, 1, n)
    counters["spec"]["sharedCounters"] = [{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}]
    devices = make_slice("devices", driver, "pool-0", "node-0", 0, 1, n)
    devices["spec"]["devices"] = [dev("full-0", "profile", "Full", "80Gi"), dev("half-0", "profile", "Half", "40Gi"),
                                  dev("half-1", "profile", "Half", "40Gi")]  # fmt: skip
    out = [counters, devices]
    if declare:
        for s in out:
            s["spec"]["partitionTypeAttribute"] = f"{driver}/profile"
    if mixed:
        cls = make_slice("class-devices", driver, "pool-0", "node-0", 0, 1, n)
        cls["spec"]["partitionTypeAttribute"] = f"{driver}/class"
        cls["spec"]["devices"] = [dev("a-0", "class", "A", "40Gi")]
        out.append(cls)
    return out


GPU = "gpu.example.com"
FULL_HALF = {(f"{GPU}/profile", "Full"): (1, 1), (f"{GPU}/profile", "Half"): (2, 2)}


@pytest.mark.parametrize(("declare", "request_attr", "mixed", "want"), [
    pytest.param(True, None, False, FULL_HALF, id="pool declares the attribute"),
    pytest.param(True, f"{GPU}/other", False, FULL_HALF, id="pool declaration beats the request default"),
    pytest.param(False, f"{GPU}/profile", False, FULL_HALF, id="request default applies when the pool declares none"),
    pytest.param(True, None, True, {**FULL_HALF, (f"{GPU}/class", "A"): (1, 1)},
                 id="pool mixes two grouping attributes"),
])  # fmt: skip
def test_calculate_pool_status_partition_summary(
    declare: bool, request_attr: str | None, mixed: bool, want: dict[tuple[str, str], tuple[int, int]]
) -> None:
    """``TestCalculatePoolStatus_PartitionSummary``: {total, allocatable} per (attribute, type)."""
    request = make_request(GPU)
    if request_attr is not None:
        request["spec"]["defaultPartitionTypeAttribute"] = request_attr
    (pool,) = Env().calculate(request, _partition_slices(GPU, declare, mixed))["pools"]
    assert "validationError" not in pool
    got = {(p["attribute"], p["type"]): (p["total"], p["allocatable"]) for p in pool["partitionSummary"]}
    assert got == want


@pytest.mark.parametrize(("capacity", "consumed", "full", "partial", "want"), [
    pytest.param({"memory": "40Gi"}, {"memory": "10Gi"}, 0, 1, {"memory": ("40Gi", "10Gi", "30Gi")},
                 id="single capacity"),
    pytest.param({"memory": "40Gi", "cores": "8"}, {"memory": "10Gi", "cores": "2"}, 0, 1,
                 {"memory": ("40Gi", "10Gi", "30Gi"), "cores": ("8", "2", "6")}, id="multiple capacities"),
])  # fmt: skip
def test_calculate_pool_status_shareable_summary(
    capacity: dict[str, str], consumed: dict[str, str], full: int, partial: int,
    want: dict[str, tuple[str, str, str]],
) -> None:
    """``TestCalculatePoolStatus_ShareableSummary``: consumed capacity from the claim."""
    s = make_slice("shareable", GPU, "pool-0", "node-0", 1)
    s["spec"]["devices"][0].update(allowMultipleAllocations=True,
                                   capacity={k: {"value": v} for k, v in capacity.items()})  # fmt: skip
    claim = make_allocated_claim("c0", "ns", GPU, "pool-0", "device-0")
    claim["status"]["allocation"]["devices"]["results"][0]["consumedCapacity"] = consumed
    (pool,) = Env().calculate(make_request(GPU), [s], [claim])["pools"]
    sh = pool["shareableSummary"]
    assert (sh["fullyAvailableDevices"], sh["partiallyAvailableDevices"]) == (full, partial)
    assert {c["name"]: (c["total"], c["consumed"], c["available"]) for c in sh["capacity"]} == want
    assert [c["name"] for c in sh["capacity"]] == sorted(want)


# -- beyond upstream's tables: the gate, the queue and the cleanup loop on the clock ----


def test_gate_off_no_answer() -> None:
    """requiredFeatureGates: with DRAResourcePoolStatus off the controller does not run."""
    env = Env(DRAResourcePoolStatus=False)
    env.create_request(make_request())
    env.clock.run_until(Instant(seconds(3600)))
    stored = env.stored()
    assert stored is not None and "status" not in stored


def test_cleanup_loop_ttls() -> None:
    """Polls every 10 minutes from start: an answer goes at the first poll more than an
    hour after it, a request stuck on an incomplete pool at the first poll past 24 hours."""
    env = Env()
    env.store("ResourceSlice", make_slice("slice-1", DRIVER, "pool-1", "node-1", 4, 1, 2))
    env.create_request(make_request(name="stuck", poolName="pool-1"))
    env.create_request(make_request(name="answered", poolName="pool-2"))
    env.clock.settle()
    answered = env.stored("answered")
    assert answered is not None and answered["status"]["poolCount"] == 0

    def alive_at(secs: int) -> tuple[bool, bool]:
        env.clock.run_until(Instant(seconds(secs)))
        return env.stored("answered") is not None, env.stored("stuck") is not None

    assert alive_at(3600) == (True, True)  # not more than an hour yet
    assert alive_at(4200) == (False, True)
    assert alive_at(86400) == (False, True)
    assert alive_at(87000) == (False, False)

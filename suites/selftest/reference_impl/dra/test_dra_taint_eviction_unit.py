"""Selftests of the device taint eviction controller (timing, cancellation, slice taints)."""

from __future__ import annotations

from typing import Any

from reference_impl.api import (
    DRA_API,
    make_device,
    make_device_class,
    make_device_taint_rule,
    make_pod,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.clock import Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.cluster import Cluster
from reference_impl.controllers.device_taint_eviction_time import taint_eviction as _taint_eviction
from reference_impl.errors import NotFound

Obj = dict[str, Any]
DRIVER = "gpu.selftest"
GATES = {"DRADeviceTaints": True, "DRADeviceTaintRules": True}
BROKEN: Obj = {"key": "broken", "effect": "NoExecute", "timeAdded": "2026-09-01T00:00:10Z"}
T10 = parse_rfc3339("2026-09-01T00:00:10Z")


def test_untolerated_taint_evicts_at_time_added() -> None:
    assert _taint_eviction(BROKEN, []) == T10


def test_toleration_without_seconds_tolerates_forever() -> None:
    assert _taint_eviction(BROKEN, [{"key": "broken", "operator": "Exists", "effect": "NoExecute"}]) is None


def test_smallest_toleration_seconds_wins_and_negative_means_now() -> None:
    tols = [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": s} for s in (30, 5)]
    assert _taint_eviction(BROKEN, tols) == Instant(T10 + seconds(5))
    neg = [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -3}]
    assert _taint_eviction(BROKEN, neg) == T10


def test_only_explicit_no_execute_tolerations_count_for_eviction() -> None:
    # As upstream: a toleration with an empty effect does not stop eviction.
    assert _taint_eviction(BROKEN, [{"key": "broken", "operator": "Exists"}]) == T10


def _slice(taints: list[Obj]) -> Obj:
    b = make_resource_slice("s", DRIVER, "kwok-node-0", "kwok-node-0")
    b.device(make_device("gpu-0", taints=taints))
    return b.build()


def _setup(c: Cluster, tolerations: list[Obj]) -> None:
    c.apply(make_device_class("gpu").selector(f'device.driver == "{DRIVER}"').build())
    c.apply(_slice([]))
    c.apply(make_resource_claim("c", "default").request("gpu", "gpu", tolerations=tolerations).build())
    c.apply(make_pod("p", "default").claim("gpu", claim="c").build())
    assert c.run_until(lambda: bool(c.get("v1", "Pod", "p", "default")["spec"].get("nodeName")), 30)


def _present(c: Cluster) -> bool:
    try:
        c.get("v1", "Pod", "p", "default")
    except NotFound:
        return False
    return True


def test_slice_taint_with_toleration_seconds_evicts_exactly_then_deallocates() -> None:
    c = Cluster(GATES)
    _setup(c, [{"key": "broken", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 20}])
    c.apply(_slice([{"key": "broken", "effect": "NoExecute", "timeAdded": rfc3339(c.now)}]))
    c.advance(19)
    assert _present(c)
    c.advance(1.5)
    assert not _present(c)
    claim = c.get(DRA_API, "ResourceClaim", "c", "default")
    assert not (claim.get("status") or {}).get("allocation")


def test_removing_the_rule_cancels_a_pending_eviction() -> None:
    c = Cluster(GATES)
    _setup(c, [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}])
    c.apply(make_device_taint_rule("r", "broken", "NoExecute").selector(driver=DRIVER).build())
    c.advance(30)
    c.delete(DRA_API, "DeviceTaintRule", "r")
    c.advance(60)
    assert _present(c)


def test_no_schedule_taint_on_an_allocated_device_evicts_nothing() -> None:
    c = Cluster(GATES)
    _setup(c, [])
    c.apply(_slice([{"key": "broken", "effect": "NoSchedule"}]))
    c.advance(30)
    assert _present(c)

"""The /status prepare hooks (``Strategy.status_preparers``): registration, order before
status validation, the old-object-in-use exception, stale device statuses, and the empty
status a create stores."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from reference_impl.api import make_namespace, make_pod_group
from reference_impl.apiserver import registry
from reference_impl.apiserver.registry import Context, preparer, strategy_for
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
RC = "resource.k8s.io/v1"
PG = "scheduling.k8s.io/v1beta1"


def _server(**gates: bool) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates().with_overrides(gates))
    s.create(make_namespace("default").build())
    return s


def _claim(**request: Any) -> Obj:
    return {
        "apiVersion": RC,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x", **request}}]}
        },
    }


def _result(device: str = "d0", **extra: Any) -> Obj:
    return {"request": "r", "driver": "drv.dev", "pool": "p", "device": device, **extra}


def _allocate(s: APIServer, claim: Obj, *results: Obj, devices: list[Obj] | None = None) -> Obj:
    status: Obj = {"allocation": {"devices": {"results": list(results)}}}
    if devices is not None:
        status["devices"] = devices
    return s.update_status({**claim, "status": status})


@pytest.fixture
def scratch_kind() -> Iterator[str]:
    yield "StatusPreparerScratch"
    registry._STRATEGIES.pop("StatusPreparerScratch", None)


def test_status_flag_registers_a_status_preparer_only(scratch_kind: str) -> None:
    def hook(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
        return None

    preparer(scratch_kind, status=True)(hook)
    strat = strategy_for(scratch_kind)
    assert strat.status_preparers == [hook] and strat.preparers == []


def test_create_stores_an_empty_status_whatever_the_client_sent() -> None:
    s = _server()
    body = {**_claim(), "status": {"reservedFor": [{"resource": "pods", "name": "x", "uid": "1"}]}}
    assert s.create(body)["status"] == {}
    assert s.get(RC, "ResourceClaim", "c", "default")["status"] == {}
    assert "status" not in s.create(
        {**_claim(), "kind": "ResourceClaimTemplate", "spec": {"spec": _claim()["spec"]}}
    )


def test_claim_binding_fields_dropped_before_validation_when_gate_off() -> None:
    s = _server(DRADeviceBindingConditions=False)
    claim = s.create(_claim())
    out = _allocate(s, claim, _result(bindingConditions=["A"], bindingFailureConditions=["F"]))
    assert out["status"]["allocation"]["devices"]["results"] == [_result()]


def test_claim_binding_fields_kept_when_gate_on() -> None:
    s = _server()
    claim = s.create(_claim())
    out = _allocate(s, claim, _result(bindingConditions=["A"], bindingFailureConditions=["F"]))
    assert out["status"]["allocation"]["devices"]["results"][0]["bindingConditions"] == ["A"]


def test_binding_fields_in_use_survive_the_gate_going_off() -> None:
    s = _server()
    binding = {"bindingConditions": ["A"], "bindingFailureConditions": ["F"]}
    claim = _allocate(s, s.create(_claim()), _result(**binding))
    s.gates = s.gates.with_overrides({"DRADeviceBindingConditions": False})
    # The allocation is immutable once set (upstream), so the next write keeps it and
    # reserves the claim; dropping the fields now would be a forbidden modification.
    status = {**claim["status"], "reservedFor": [
        {"resource": "pods", "name": "p", "uid": "6a0a2b3c-1111-2222-3333-444455556666"}]}
    out = s.update_status({**claim, "status": status})
    assert out["status"]["allocation"]["devices"]["results"][0]["bindingConditions"] == ["A"]


def test_share_id_dropped_when_consumable_capacity_off() -> None:
    s = _server(DRAConsumableCapacity=False)
    claim = s.create(_claim())
    share = "7b3c9a3e-0000-4000-8000-000000000001"
    out = _allocate(
        s,
        claim,
        _result(shareID=share),
        devices=[{"driver": "drv.dev", "pool": "p", "device": "d0", "shareID": share}],
    )
    assert out["status"]["allocation"]["devices"]["results"] == [_result()]
    assert out["status"]["devices"] == [{"driver": "drv.dev", "pool": "p", "device": "d0"}]


def test_deallocated_device_statuses_are_removed() -> None:
    s = _server()
    dev0 = {"driver": "drv.dev", "pool": "p", "device": "d0"}
    dev1 = {**dev0, "device": "d1"}
    claim = _allocate(
        s,
        s.create(_claim(count=2, allocationMode="ExactCount")),
        _result("d0"),
        _result("d1"),
        devices=[dev0, dev1],
    )
    assert claim["status"]["devices"] == [dev0, dev1]
    # An allocation cannot be modified, only removed: then every device status is stale.
    gone = s.update_status({**claim, "status": {"devices": [dev1]}})
    assert "devices" not in gone["status"]
    # Only devices of the old allocation are dropped: a status for a device that was
    # never allocated is an error, as upstream.
    with pytest.raises(Invalid, match=r"status\.devices\[0\]"):
        _allocate(s, gone, _result("d1"), devices=[dev0, dev1])


def test_pod_group_claim_statuses_dropped_when_gate_off() -> None:
    s = _server(GenericWorkload=True, DRAWorkloadResourceClaims=False)
    pg = s.create(make_pod_group("pg", "default"))
    assert pg["status"] == {}
    out = s.update_status({**pg, "status": {"resourceClaimStatuses": [{"name": "gpu"}]}})
    assert "resourceClaimStatuses" not in out["status"]


def test_pod_group_claim_statuses_kept_when_the_old_spec_used_claims() -> None:
    s = _server(GenericWorkload=True, DRAWorkloadResourceClaims=True)
    body = make_pod_group("pg", "default")
    body["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "a"}]
    pg = s.create(body)
    s.gates = s.gates.with_overrides({"DRAWorkloadResourceClaims": False})
    entry = {"name": "gpu", "resourceClaimName": "a"}
    out = s.update_status({**pg, "status": {"resourceClaimStatuses": [entry]}})
    assert out["status"]["resourceClaimStatuses"] == [entry]

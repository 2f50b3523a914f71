"""DRA-STATUS and API limits: device status validation, reservedFor cap, taint limit."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import FakeDriver, Target
from reference_impl.api import DRA_API, make_pod, make_resource_claim
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4817")]
NODE = "kwok-node-0"


def _allocated(target: Target, ns: str, drv: FakeDriver) -> dict[str, Any]:
    drv.install_class("dra-status-gpu")
    drv.publish([NODE], gpus=1)
    target.apply(make_resource_claim("c", ns).request("gpu", "dra-status-gpu").build())
    target.apply(make_pod("p", ns).claim("gpu", claim="c").build())
    target.wait_until(
        lambda: bool((target.get(DRA_API, "ResourceClaim", "c", ns).get("status") or {}).get("allocation")),
        timeout=60, what="claim allocated")
    return target.get(DRA_API, "ResourceClaim", "c", ns)


def _entry(drv: FakeDriver, **extra: Any) -> dict[str, Any]:
    return {"driver": drv.driver, "pool": NODE, "device": "gpu-0", **extra}


def test_network_data_is_written_through_status(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-STATUS, networkData.

    A driver MUST be able to write status.devices[] with networkData (interfaceName, CIDR
    ips, hardwareAddress) for an allocated device through the status subresource.
    """
    claim = _allocated(target, namespace, dra_driver)
    net = {"interfaceName": "net1", "ips": ["192.0.2.5/24", "2001:db8::5/64"], "hardwareAddress": "aa:bb:cc:dd:ee:ff"}
    claim["status"]["devices"] = [_entry(dra_driver, networkData=net)]
    out = target.patch_status(claim)
    assert out["status"]["devices"][0]["networkData"]["ips"] == net["ips"]


def test_bad_cidr_is_rejected(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-STATUS, CIDR validation.

    An ip that is not in CIDR form MUST be rejected as Invalid at
    status.devices[0].networkData.ips[0].
    """
    claim = _allocated(target, namespace, dra_driver)
    claim["status"]["devices"] = [_entry(dra_driver, networkData={"ips": ["192.0.2.5"]})]
    with pytest.raises(Invalid) as e:
        target.patch_status(claim)
    assert "status.devices[0].networkData.ips[0]" in e.value.fields


def test_status_for_unallocated_device_is_rejected(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-STATUS, result keys.

    A status.devices entry with no allocation result behind it MUST be rejected as
    Invalid at status.devices[0].
    """
    claim = _allocated(target, namespace, dra_driver)
    claim["status"]["devices"] = [{"driver": dra_driver.driver, "pool": NODE, "device": "gpu-7"}]
    with pytest.raises(Invalid) as e:
        target.patch_status(claim)
    assert "status.devices[0]" in e.value.fields


def test_more_than_eight_conditions_are_rejected(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-STATUS, condition limit.

    Nine conditions on one device status MUST be rejected at status.devices[0].conditions.
    """
    claim = _allocated(target, namespace, dra_driver)
    conds = [{"type": f"T{i}", "status": "True", "reason": "R", "message": "",
              "lastTransitionTime": "2026-01-01T00:00:00Z"} for i in range(9)]
    claim["status"]["devices"] = [_entry(dra_driver, conditions=conds)]
    with pytest.raises(Invalid) as e:
        target.patch_status(claim)
    assert "status.devices[0].conditions" in e.value.fields


def test_257th_consumer_is_rejected(target: Target, namespace: str, dra_driver: FakeDriver) -> None:
    """DRA-CORE, reservedFor limit.

    Writing 257 entries to status.reservedFor MUST be rejected as Invalid at
    status.reservedFor.
    """
    claim = _allocated(target, namespace, dra_driver)
    claim["status"]["reservedFor"] = [
        {"resource": "pods", "name": f"p{i}", "uid": f"00000000-0000-0000-0000-{i:012d}"} for i in range(257)]
    with pytest.raises(Invalid) as e:
        target.patch_status(claim)
    assert "status.reservedFor" in e.value.fields


def test_more_than_sixteen_taints_are_rejected(target: Target, dra_driver: FakeDriver) -> None:
    """DRA-TAINT, taint limit.

    A slice device with 17 taints MUST be rejected as Invalid at spec.devices[0].taints.
    """
    taints = [{"key": f"dra.example.com/t{i}", "effect": "NoSchedule"} for i in range(17)]
    with pytest.raises(Invalid) as e:
        dra_driver.publish([NODE], gpus=1, taints=taints)
    assert "spec.devices[0].taints" in e.value.fields

"""DRA-CORE: ``version`` device attributes are CEL semver values (Kubernetes semver library).

A DeviceClass or request selector compares driver versions with ``semver()``,
``isGreaterThan``/``isLessThan``/``compareTo`` and ``==`` (SemVer 2.0.0 precedence, build
metadata ignored); an invalid ``semver("...")`` literal compiles and fails at allocation,
and a ResourceSlice version that is no SemVer 2.0.0 string is rejected on write.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target
from reference_impl.api import make_resource_claim
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
Obj = dict[str, Any]
DRIVER = "semver.garhwal.dev"
FW_DRIVER = "fw.semver.garhwal.dev"
DV = f'device.attributes["{DRIVER}"].driverVersion'
DEVICES = {  # device -> driverVersion
    "gpu-old": "535.104.5",
    "gpu-rc": "550.54.15-rc.2",
    "gpu-mid": "550.54.15",
    "gpu-new": "560.28.3+cuda.12.6",
}


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[DraEnv]:
    """The env's node and a slice of versioned GPUs; classes are made per test."""
    with DraEnv(target, namespace, "dra-semver", DRIVER) as e:
        e.node()
        e.slice({"name": dev, "attributes": {"driverVersion": {"version": v}}} for dev, v in DEVICES.items())
        yield e


def test_is_greater_than_selects_only_newer_drivers(target: Target, env: DraEnv) -> None:
    """DRA-CORE, semver isGreaterThan.

    A ``version`` attribute MUST be a semver value in CEL, so a DeviceClass selector
    ``driverVersion.isGreaterThan(semver("550.0.0"))`` MUST select exactly the devices
    whose version has higher SemVer precedence (not string order: "535.104.5" is older),
    including a pre-release of a newer version.
    """
    cls = env.device_class("gt", f'{DV}.isGreaterThan(semver("550.0.0"))')
    env.run_class("newer", cls, all_devices=True)
    target.wait_until(lambda: env.devices("newer") is not None, timeout=60, what="claim allocated")
    assert env.devices("newer") == ["gpu-mid", "gpu-new", "gpu-rc"]


def test_precedence_orders_prereleases_and_ignores_build(target: Target, env: DraEnv) -> None:
    """DRA-CORE, semver precedence in selectors.

    A pre-release MUST rank below its release (``isLessThan``), ``compareTo`` MUST
    return -1/0/1, ``major()`` MUST be the major number, and build metadata MUST be
    ignored, so ``semver("560.28.3").compareTo(v) == 0`` holds for "560.28.3+cuda.12.6".
    """
    cls = env.device_class("prec", f'{DV}.isLessThan(semver("550.54.15")) && {DV}.major() == 550')
    env.run_class("rc", cls, count=1)
    same = env.device_class("build", f'semver("560.28.3").compareTo({DV}) == 0')
    env.run_class("build", same, count=1)
    target.wait_until(lambda: env.devices("rc") is not None and env.devices("build") is not None,
                      timeout=60, what="claims allocated")
    assert (env.devices("rc"), env.devices("build")) == (["gpu-rc"], ["gpu-new"])


def test_equality_with_semver_literal(target: Target, env: DraEnv) -> None:
    """DRA-CORE, semver equality.

    ``driverVersion == semver("550.54.15")`` MUST match exactly the device with that
    version, neither its pre-release nor other versions; normalization
    ``semver("v550.54.15", true)`` MUST give the same value.
    """
    cls = env.device_class("eq", f'{DV} == semver("550.54.15") && {DV} == semver("v550.54.15", true)')
    env.run_class("eq", cls, all_devices=True)
    target.wait_until(lambda: env.devices("eq") is not None, timeout=60, what="claim allocated")
    assert env.devices("eq") == ["gpu-mid"]


@pytest.mark.parametrize(("selector", "message"), [
    (f'{DV}.isGreaterThan(semver("550.54"))', "No Major.Minor.Patch elements found"),
    (f'{DV} == "550.54.15"', "no such overload"),
])
def test_invalid_semver_literal_fails_allocation(target: Target, env: DraEnv, selector: str, message: str) -> None:
    """DRA-CORE, invalid semver at runtime.

    A selector with an invalid ``semver("550.54")`` literal (no patch number) MUST be
    accepted on write, since it type-checks, and MUST fail allocation at runtime: the
    claim stays unallocated and the pod's PodScheduled=False condition MUST carry the
    CEL runtime error. Comparing a version attribute with a plain string likewise MUST
    be a runtime error ("no such overload"), since the attribute is no string.
    """
    cls = env.device_class("bad", selector)
    env.run_class("bad", cls, count=1)

    def failed() -> bool:
        cond = env.scheduled("bad")
        return bool(cond and cond["status"] == "False" and message in (cond.get("message") or ""))

    target.wait_until(failed, timeout=60, what="scheduling failed with the CEL error")
    cond = env.scheduled("bad")
    assert cond is not None and cond.get("reason") == "SchedulerError"
    assert "CEL runtime error" in cond["message"]
    assert env.devices("bad") is None


@pytest.mark.feature_gates(DRAListTypeAttributes=True)
def test_version_lists_hold_semver_values(target: Target, env: DraEnv) -> None:
    """DRA-CORE, list-type ``versions`` attributes (DRAListTypeAttributes).

    Each element of a ``versions`` attribute MUST be a semver value: ``in`` and
    ``includes`` MUST compare by precedence (build metadata ignored) and
    ``exists(v, v.isGreaterThan(...))`` MUST work on the elements.
    """
    firmware = (("fw-a", ["1.0.0", "2.1.0-beta.1"]), ("fw-b", ["1.0.0+old", "1.4.2"]), ("fw-c", ["0.9.0"]))
    env.slice(({"name": dev, "attributes": {"kind": {"string": "fw"}, "fw": {"versions": fw}}}
               for dev, fw in firmware), "fw", driver=FW_DRIVER)
    fw = f'device.attributes["{FW_DRIVER}"].fw'
    has_one = env.device_class("in", f'semver("1.0.0") in {fw} && {fw}.includes(semver("1.4.2+new"))',
                               driver=FW_DRIVER)
    env.run_class("in", has_one, all_devices=True)
    newer = env.device_class("exists", f'{fw}.exists(v, v.isGreaterThan(semver("2.0.0")))', driver=FW_DRIVER)
    env.run_class("exists", newer, all_devices=True)
    target.wait_until(lambda: env.devices("in") is not None and env.devices("exists") is not None,
                      timeout=60, what="claims allocated")
    assert (env.devices("in"), env.devices("exists")) == (["fw-b"], ["fw-a"])


@pytest.mark.feature_gates(DRADerivedAttributes=True)
def test_derived_attribute_may_be_a_semver(target: Target, env: DraEnv) -> None:
    """DRA-CORE, semver-valued derived attributes (DRADerivedAttributes).

    A derived attribute MAY evaluate to a semver; upstream stores its String() form as
    a version value, so matchAttribute on it MUST pair the GPU whose driverVersion is
    550.54.15 with the NIC whose normalized ``semver("v550.54.15", true)`` is the same,
    and not the 550.54.15-rc.2 pre-release.
    """
    env.slice([{"name": "nic-0", "attributes": {"fw": {"string": "v550.54.15"}}}], "nic", driver=FW_DRIVER)
    gpu = env.device_class("dgpu", f'{DV}.major() == 550')
    nic = env.device_class("dnic", driver=FW_DRIVER)
    ver = "derived/driverVersion"
    claim = make_resource_claim("d", env.ns).request("gpu", gpu).request("nic", nic).build()
    gpu_req, nic_req = (r["exactly"] for r in claim["spec"]["devices"]["requests"])
    gpu_req["derivedAttributes"] = [{"name": ver, "expression": DV}]
    nic_req["derivedAttributes"] = [{"name": ver, "expression": f'semver(device.attributes["{FW_DRIVER}"].fw, true)'}]
    claim["spec"]["devices"]["constraints"] = [{"matchAttribute": ver}]
    env.run("d", claim)
    target.wait_until(lambda: env.devices("d") is not None, timeout=60, what="claim allocated")
    assert env.devices("d") == ["gpu-mid", "nic-0"]


def test_non_semver_version_values_are_rejected(target: Target, env: DraEnv) -> None:
    """DRA-CORE, version attribute validation.

    A ResourceSlice whose ``version`` attribute is no SemVer 2.0.0 string ("550.54",
    "v1.0.0", leading zeros) MUST be rejected at spec.devices[i].attributes[name].version,
    and a valid one with pre-release and build metadata MUST be accepted.
    """
    versions = ["550.54", "v1.0.0", "01.2.3", "1.2.3-rc.1+b.7"]
    with pytest.raises(Invalid) as e:
        env.slice(({"name": f"d{i}", "attributes": {"driverVersion": {"version": v}}}
                   for i, v in enumerate(versions)), "bad")
    assert set(e.value.fields) == {f"spec.devices[{i}].attributes[driverVersion].version" for i in range(3)}
    assert "must be a string compatible with semver.org spec 2.0.0" in str(e.value)

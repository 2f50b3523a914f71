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

from fixtures import Target
from reference_impl.api import (
    DRA_API,
    make_device_class,
    make_pool_node,
    make_pool_pod,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.errors import Invalid, NotFound

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


class Env:
    """A private node with one slice of versioned GPUs; classes are made per test."""

    def __init__(self, target: Target, ns: str) -> None:
        self.target, self.ns = target, ns
        self.name = f"dra-semver-{ns}"[:63]
        self.classes: list[str] = []
        self.slices: list[str] = [self.name]

    def setup(self) -> None:
        self.target.apply(make_pool_node(self.name, self.ns).build())
        sl = make_resource_slice(self.name, DRIVER, self.name, self.name)
        for dev, version in DEVICES.items():
            sl.device({"name": dev, "attributes": {"driverVersion": {"version": version}}})
        self.target.apply(sl.build())

    def device_class(self, suffix: str, selector: str, driver: str = DRIVER) -> str:
        name = f"{self.name}-{suffix}"[:63]
        self.target.apply(make_device_class(name).selector(f'device.driver == "{driver}"')
                          .selector(selector).build())
        self.classes.append(name)
        return name

    def run(self, name: str, device_class: str, **request: Any) -> None:
        self.target.apply(make_resource_claim(name, self.ns).request("gpu", device_class, **request).build())
        self.target.apply(make_pool_pod(name, self.ns, cpu="100m").claim("c", claim=name).build())

    def devices(self, name: str) -> list[str] | None:
        alloc = (self.target.get(DRA_API, "ResourceClaim", name, self.ns).get("status") or {}).get("allocation")
        return None if not alloc else sorted(r["device"] for r in alloc["devices"]["results"])

    def scheduled(self, name: str) -> Obj | None:
        """The pod's PodScheduled condition, once it has one."""
        pod = self.target.get("v1", "Pod", name, self.ns)
        conds = (pod.get("status") or {}).get("conditions") or ()
        return next((c for c in conds if c["type"] == "PodScheduled"), None)

    def cleanup(self) -> None:
        gone = [(DRA_API, "DeviceClass", c) for c in self.classes]
        slices = [(DRA_API, "ResourceSlice", s) for s in self.slices]
        for api, kind, name in [*slices, *gone, ("v1", "Node", self.name)]:
            try:
                self.target.delete(api, kind, name)
            except NotFound:
                pass


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[Env]:
    e = Env(target, namespace)
    try:
        e.setup()
        yield e
    finally:
        e.cleanup()


def test_is_greater_than_selects_only_newer_drivers(target: Target, env: Env) -> None:
    """DRA-CORE, semver isGreaterThan.

    A ``version`` attribute MUST be a semver value in CEL, so a DeviceClass selector
    ``driverVersion.isGreaterThan(semver("550.0.0"))`` MUST select exactly the devices
    whose version has higher SemVer precedence (not string order: "535.104.5" is older),
    including a pre-release of a newer version.
    """
    cls = env.device_class("gt", f'{DV}.isGreaterThan(semver("550.0.0"))')
    env.run("newer", cls, all_devices=True)
    target.wait_until(lambda: env.devices("newer") is not None, timeout=60, what="claim allocated")
    assert env.devices("newer") == ["gpu-mid", "gpu-new", "gpu-rc"]


def test_precedence_orders_prereleases_and_ignores_build(target: Target, env: Env) -> None:
    """DRA-CORE, semver precedence in selectors.

    A pre-release MUST rank below its release (``isLessThan``), ``compareTo`` MUST
    return -1/0/1, ``major()`` MUST be the major number, and build metadata MUST be
    ignored, so ``semver("560.28.3").compareTo(v) == 0`` holds for "560.28.3+cuda.12.6".
    """
    cls = env.device_class("prec", f'{DV}.isLessThan(semver("550.54.15")) && {DV}.major() == 550')
    env.run("rc", cls, count=1)
    same = env.device_class("build", f'semver("560.28.3").compareTo({DV}) == 0')
    env.run("build", same, count=1)
    target.wait_until(lambda: env.devices("rc") is not None and env.devices("build") is not None,
                      timeout=60, what="claims allocated")
    assert (env.devices("rc"), env.devices("build")) == (["gpu-rc"], ["gpu-new"])


def test_equality_with_semver_literal(target: Target, env: Env) -> None:
    """DRA-CORE, semver equality.

    ``driverVersion == semver("550.54.15")`` MUST match exactly the device with that
    version, neither its pre-release nor other versions; normalization
    ``semver("v550.54.15", true)`` MUST give the same value.
    """
    cls = env.device_class("eq", f'{DV} == semver("550.54.15") && {DV} == semver("v550.54.15", true)')
    env.run("eq", cls, all_devices=True)
    target.wait_until(lambda: env.devices("eq") is not None, timeout=60, what="claim allocated")
    assert env.devices("eq") == ["gpu-mid"]


@pytest.mark.parametrize(("selector", "message"), [
    (f'{DV}.isGreaterThan(semver("550.54"))', "No Major.Minor.Patch elements found"),
    (f'{DV} == "550.54.15"', "no such overload"),
])
def test_invalid_semver_literal_fails_allocation(target: Target, env: Env, selector: str, message: str) -> None:
    """DRA-CORE, invalid semver at runtime.

    A selector with an invalid ``semver("550.54")`` literal (no patch number) MUST be
    accepted on write, since it type-checks, and MUST fail allocation at runtime: the
    claim stays unallocated and the pod's PodScheduled=False condition MUST carry the
    CEL runtime error. Comparing a version attribute with a plain string likewise MUST
    be a runtime error ("no such overload"), since the attribute is no string.
    """
    cls = env.device_class("bad", selector)
    env.run("bad", cls, count=1)

    def failed() -> bool:
        cond = env.scheduled("bad")
        return bool(cond and cond["status"] == "False" and message in (cond.get("message") or ""))

    target.wait_until(failed, timeout=60, what="scheduling failed with the CEL error")
    cond = env.scheduled("bad")
    assert cond is not None and cond.get("reason") == "SchedulerError"
    assert "CEL runtime error" in cond["message"]
    assert env.devices("bad") is None


@pytest.mark.feature_gates(DRAListTypeAttributes=True)
def test_version_lists_hold_semver_values(target: Target, env: Env) -> None:
    """DRA-CORE, list-type ``versions`` attributes (DRAListTypeAttributes).

    Each element of a ``versions`` attribute MUST be a semver value: ``in`` and
    ``includes`` MUST compare by precedence (build metadata ignored) and
    ``exists(v, v.isGreaterThan(...))`` MUST work on the elements.
    """
    sl = make_resource_slice(f"{env.name}-fw", FW_DRIVER, f"{env.name}-fw", env.name)
    for dev, fw in (("fw-a", ["1.0.0", "2.1.0-beta.1"]), ("fw-b", ["1.0.0+old", "1.4.2"]), ("fw-c", ["0.9.0"])):
        sl.device({"name": dev, "attributes": {"kind": {"string": "fw"}, "fw": {"versions": fw}}})
    target.apply(sl.build())
    env.slices.append(f"{env.name}-fw")
    fw = f'device.attributes["{FW_DRIVER}"].fw'
    has_one = env.device_class("in", f'semver("1.0.0") in {fw} && {fw}.includes(semver("1.4.2+new"))', FW_DRIVER)
    env.run("in", has_one, all_devices=True)
    newer = env.device_class("exists", f'{fw}.exists(v, v.isGreaterThan(semver("2.0.0")))', FW_DRIVER)
    env.run("exists", newer, all_devices=True)
    target.wait_until(lambda: env.devices("in") is not None and env.devices("exists") is not None,
                      timeout=60, what="claims allocated")
    assert (env.devices("in"), env.devices("exists")) == (["fw-b"], ["fw-a"])


@pytest.mark.feature_gates(DRADerivedAttributes=True)
def test_derived_attribute_may_be_a_semver(target: Target, env: Env) -> None:
    """DRA-CORE, semver-valued derived attributes (DRADerivedAttributes).

    A derived attribute MAY evaluate to a semver; upstream stores its String() form as
    a version value, so matchAttribute on it MUST pair the GPU whose driverVersion is
    550.54.15 with the NIC whose normalized ``semver("v550.54.15", true)`` is the same,
    and not the 550.54.15-rc.2 pre-release.
    """
    sl = make_resource_slice(f"{env.name}-nic", FW_DRIVER, f"{env.name}-nic", env.name)
    sl.device({"name": "nic-0", "attributes": {"fw": {"string": "v550.54.15"}}})
    target.apply(sl.build())
    env.slices.append(f"{env.name}-nic")
    gpu = env.device_class("dgpu", f'{DV}.major() == 550')
    nic = env.device_class("dnic", "true", FW_DRIVER)
    ver = "derived/driverVersion"
    claim = make_resource_claim("d", env.ns).request("gpu", gpu).request("nic", nic).build()
    gpu_req, nic_req = (r["exactly"] for r in claim["spec"]["devices"]["requests"])
    gpu_req["derivedAttributes"] = [{"name": ver, "expression": DV}]
    nic_req["derivedAttributes"] = [{"name": ver, "expression": f'semver(device.attributes["{FW_DRIVER}"].fw, true)'}]
    claim["spec"]["devices"]["constraints"] = [{"matchAttribute": ver}]
    target.apply(claim)
    target.apply(make_pool_pod("d", env.ns, cpu="100m").claim("c", claim="d").build())
    target.wait_until(lambda: env.devices("d") is not None, timeout=60, what="claim allocated")
    assert env.devices("d") == ["gpu-mid", "nic-0"]


def test_non_semver_version_values_are_rejected(target: Target, env: Env) -> None:
    """DRA-CORE, version attribute validation.

    A ResourceSlice whose ``version`` attribute is no SemVer 2.0.0 string ("550.54",
    "v1.0.0", leading zeros) MUST be rejected at spec.devices[i].attributes[name].version,
    and a valid one with pre-release and build metadata MUST be accepted.
    """
    sl = make_resource_slice(f"{env.name}-bad", DRIVER, f"{env.name}-bad", env.name)
    for i, v in enumerate(["550.54", "v1.0.0", "01.2.3", "1.2.3-rc.1+b.7"]):
        sl.device({"name": f"d{i}", "attributes": {"driverVersion": {"version": v}}})
    env.slices.append(f"{env.name}-bad")  # removed should it be wrongly accepted
    with pytest.raises(Invalid) as e:
        target.apply(sl.build())
    assert set(e.value.fields) == {f"spec.devices[{i}].attributes[driverVersion].version" for i in range(3)}
    assert "must be a string compatible with semver.org spec 2.0.0" in str(e.value)

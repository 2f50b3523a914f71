"""Selftests of the gated allocator features: binding fields, derived attributes, includes."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_resource_claim, make_resource_slice
from reference_impl.dra import (
    AllocatedState,
    AllocationError,
    Allocator,
    Features,
    device_activation,
    for_pools,
    gather_pools,
)
from reference_impl.dra.cel import CELError, compile_selector

Obj = dict[str, Any]
DRIVER = "gpu.test"
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
NODE = {"metadata": {"name": "n0", "labels": {}}}
BOUND: Obj = {"name": "d0", "bindingConditions": ["Attached"], "bindingFailureConditions": ["Failed"],
              "bindsToNode": True}


def _allocate(devices: list[Obj], claim: Obj, features: Features, all_nodes: bool = True) -> Obj | None:
    b = make_resource_slice("s", DRIVER, "p", None if all_nodes else "n0")
    if all_nodes:
        b.all_nodes()
    for d in devices:
        b.device(d)
    devs, counters = for_pools(gather_pools([b.build()])[0])
    res = Allocator(devs, counters, {"gpu": CLASS}, [], AllocatedState(), lambda: "x",
                    features=features).allocate([claim], NODE)
    return None if res is None else res[0]


def _claim(**exact: Any) -> Obj:
    c = make_resource_claim("c", "ns").request("r", "gpu").build()
    c["spec"]["devices"]["requests"][0]["exactly"].update(exact)
    return c


def test_binding_fields_are_copied_and_binds_to_node_pins_the_node() -> None:
    alloc = _allocate([dict(BOUND)], _claim(), Features())
    assert alloc is not None
    (r,) = alloc["devices"]["results"]
    assert (r["bindingConditions"], r["bindingFailureConditions"]) == (["Attached"], ["Failed"])
    assert alloc["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["n0"]
    plain = _allocate([{"name": "d0"}], _claim(), Features())
    assert plain is not None and "nodeSelector" not in plain  # allNodes, no pin


def test_feature_off_devices_with_binding_conditions_are_skipped() -> None:
    off = Features(binding_conditions=False)
    assert _allocate([dict(BOUND)], _claim(), off) is None
    alloc = _allocate([dict(BOUND), {"name": "d1"}], _claim(), off)
    assert alloc is not None and alloc["devices"]["results"][0]["device"] == "d1"


def _derived_claim(expr: str) -> Obj:
    c = make_resource_claim("c", "ns").request("a", "gpu").request("b", "gpu").build()
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["derivedAttributes"] = [{"name": "derived/x", "expression": expr}]
    c["spec"]["devices"]["constraints"] = [{"matchAttribute": "derived/x"}]
    return c


def _dev(name: str, **attrs: Obj) -> Obj:
    return {"name": name, "attributes": attrs}


def test_derived_attributes_shadow_and_errors_abort() -> None:
    on = Features(derived_attributes=True)
    devs = [_dev("d0", a={"int": 1}), _dev("d1", a={"int": 2}), _dev("d2", b={"int": 1})]
    expr = f'"a" in device.attributes["{DRIVER}"] ? device.attributes["{DRIVER}"].a : device.attributes["{DRIVER}"].b'
    alloc = _allocate(devs, _derived_claim(expr), on)
    assert alloc is not None
    assert sorted(r["device"] for r in alloc["devices"]["results"]) == ["d0", "d2"]
    # The feature off: the derived attribute is unknown, so the constraint cannot hold.
    assert _allocate(devs, _derived_claim(expr), Features()) is None
    with pytest.raises(AllocationError, match="derived attribute derived/x"):
        _allocate(devs, _derived_claim(f'device.attributes["{DRIVER}"].missing'), on)
    with pytest.raises(AllocationError, match="must be a bool, int, string"):
        _allocate(devs, _derived_claim("1.5"), on)


def test_includes_is_declared_only_with_list_type_attributes() -> None:
    with pytest.raises(CELError, match="undeclared reference to 'includes'"):
        compile_selector('device.attributes["x"].m.includes("a")')
    sel = compile_selector('device.attributes["x"].m.includes(1)', True)
    assert sel.matches(device_activation("x", _dev("d", m={"ints": [0, 1]})))
    assert sel.matches(device_activation("x", _dev("d", m={"int": 1})))
    assert not sel.matches(device_activation("x", _dev("d", m={"bools": [True]})))  # true != 1

"""DRA-CORE: list-type device attributes and CEL ``includes`` (DRAListTypeAttributes, alpha)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target
from reference_impl.api import make_resource_claim
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
Obj = dict[str, Any]
DRIVER = "list.garhwal.dev"
LISTS_ON = pytest.mark.feature_gates(DRAListTypeAttributes=True)


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[DraEnv]:
    with DraEnv(target, namespace, "dra-list", DRIVER) as e:
        yield e


def _dev(name: str, **attrs: Obj) -> Obj:
    return {"name": name, "attributes": attrs}


def _setup(env: DraEnv, *devices: Obj) -> None:
    env.node()
    env.device_class()
    env.slice(devices)


def _pair(env: DraEnv, name: str, constraint: Obj) -> Obj:
    b = make_resource_claim(name, env.ns).request("a", env.name, selectors=(
        f'device.attributes["{DRIVER}"].kind == "gpu"',)).request("b", env.name, selectors=(
            f'device.attributes["{DRIVER}"].kind == "nic"',))
    claim = b.build()
    claim["spec"]["devices"]["constraints"] = [constraint]
    return claim


@LISTS_ON
def test_match_attribute_needs_a_common_list_value(target: Target, env: DraEnv) -> None:
    """DRA-CORE, list attributes in matchAttribute.

    With DRAListTypeAttributes a list attribute is a set: matchAttribute MUST accept
    devices whose values share an element (ints [0, 1] with int 1) and MUST NOT pair
    devices with no common element, nor an int with a string of the same digits.
    """
    _setup(env, _dev("gpu-0", kind={"string": "gpu"}, numa={"ints": [0, 1]}),
              _dev("nic-0", kind={"string": "nic"}, numa={"int": 1}),
              _dev("nic-1", kind={"string": "nic"}, numa={"string": "0"}))
    env.run("c", _pair(env, "c", {"matchAttribute": f"{DRIVER}/numa"}))
    target.wait_until(lambda: env.devices("c") is not None, timeout=30, what="claim allocated")
    assert env.devices("c") == ["gpu-0", "nic-0"]


@LISTS_ON
def test_distinct_attribute_needs_disjoint_lists(target: Target, env: DraEnv) -> None:
    """DRA-CORE, list attributes in distinctAttribute.

    distinctAttribute MUST reject devices whose list values overlap and MUST accept
    devices whose lists are disjoint.
    """
    _setup(env, _dev("gpu-0", kind={"string": "gpu"}, links={"strings": ["x", "y"]}),
              _dev("nic-0", kind={"string": "nic"}, links={"strings": ["y"]}),
              _dev("nic-1", kind={"string": "nic"}, links={"strings": ["z"]}))
    env.run("c", _pair(env, "c", {"distinctAttribute": f"{DRIVER}/links"}))
    target.wait_until(lambda: env.devices("c") is not None, timeout=30, what="claim allocated")
    assert env.devices("c") == ["gpu-0", "nic-1"]


@LISTS_ON
def test_includes_selects_on_list_and_scalar_attributes(target: Target, env: DraEnv) -> None:
    """DRA-CORE, CEL includes.

    With DRAListTypeAttributes, ``x.includes(v)`` MUST be true when list x holds v, or
    when scalar x equals v, so a selector picks exactly such devices.
    """
    _setup(env, _dev("d0", models={"strings": ["a100", "h100"]}),
              _dev("d1", models={"strings": ["l4"]}),
              _dev("d2", models={"string": "h100"}))
    sel = f'device.attributes["{DRIVER}"].models.includes("h100")'
    env.run("c", make_resource_claim("c", env.ns).request("c", env.name, count=2, selectors=(sel,)).build())
    target.wait_until(lambda: env.devices("c") is not None, timeout=30, what="claim allocated")
    assert env.devices("c") == ["d0", "d2"]


@pytest.mark.feature_gates(DRAListTypeAttributes=False)
def test_gate_off_list_values_and_includes_are_rejected(target: Target, env: DraEnv) -> None:
    """DRA-CORE, list attributes gate off.

    With DRAListTypeAttributes disabled the apiserver MUST drop list values from a new
    ResourceSlice, so an attribute with only a list value MUST be rejected at
    spec.devices[i].attributes[name]; and a claim selector calling ``includes`` MUST be
    rejected at its cel.expression, since the function is not declared.
    """
    with pytest.raises(Invalid) as e:
        _setup(env, _dev("d0", numa={"ints": [0, 1]}))
    assert "spec.devices[0].attributes[numa]" in {c.field for c in e.value.causes}
    claim = make_resource_claim("c", env.ns).request("c", "any", selectors=(
        f'device.attributes["{DRIVER}"].numa.includes(1)',)).build()
    with pytest.raises(Invalid) as e:
        target.apply(claim)
    assert e.value.fields == ("spec.devices.requests[0].exactly.selectors[0].cel.expression",)
    assert "includes" in str(e.value)

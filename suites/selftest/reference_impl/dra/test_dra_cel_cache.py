"""The content-keyed CEL verdict cache gives exactly the uncached answers, stays bounded,
and re-evaluates a device whose content changed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.dra import cel
from reference_impl.dra.cel import CELError, Selector, compile_selector, device_activation
from reference_impl.dra.cel_cache import LRU, content_key

DRIVER = "gpu.test"

_attr = st.one_of(
    st.builds(lambda v: {"int": v}, st.integers(-3, 3)),
    st.builds(lambda v: {"bool": v}, st.booleans()),
    st.builds(lambda v: {"string": v}, st.sampled_from(["a", "b", "1.0.0"])),
    st.builds(lambda v: {"version": v}, st.sampled_from(["1.0.0", "2.1.0"])),
    st.builds(lambda v: {"ints": v}, st.lists(st.integers(0, 3), max_size=3)),
)
_names = st.sampled_from(["model", "numa", f"{DRIVER}/mem", "other.io/kind", "flag"])
_devices = st.fixed_dictionaries(
    {},
    optional={
        "attributes": st.dictionaries(_names, _attr, max_size=4),
        "capacity": st.dictionaries(
            st.sampled_from(["memory", "other.io/slots"]),
            st.builds(lambda v: {"value": v}, st.sampled_from(["1", "40Gi", "80Gi", "1500m"])),
            max_size=2,
        ),
        "allowMultipleAllocations": st.booleans(),
    },
)
EXPRESSIONS = [
    f'device.driver == "{DRIVER}"',
    'device.attributes["gpu.test"].model == "a"',  # a runtime error when model is unset
    'device.attributes["gpu.test"].numa > 0',
    '"model" in device.attributes["gpu.test"]',
    'device.attributes["other.io"].kind == "b"',
    'device.capacity["gpu.test"].memory.compareTo(quantity("40Gi")) >= 0',
    '"memory" in device.capacity["gpu.test"] && '
    'device.capacity["gpu.test"].memory.isGreaterThan(quantity("1"))',
    "device.allowMultipleAllocations",
    'device.attributes["gpu.test"].numa',  # not a bool when set
    'has(device.attributes["gpu.test"].flag) && device.attributes["gpu.test"].flag == true',
    'device.attributes["gpu.test"].ints.includes(2)',
]


_PLAIN: dict[tuple[str, bool], Selector] = {}


def _uncached(expression: str, device: dict[str, Any], lists: bool) -> bool | str:
    # Its own Selector and a plain-dict activation: neither cache is involved.
    try:
        sel = _PLAIN.get((expression, lists))
        if sel is None:
            sel = _PLAIN[expression, lists] = Selector(expression, lists)
        return sel.matches({"device": cel._device_value(DRIVER, device)})
    except CELError as e:
        return str(e)


def _cached(expression: str, device: dict[str, Any], lists: bool) -> bool | str:
    try:
        return compile_selector(expression, lists).matches(device_activation(DRIVER, device))
    except CELError as e:
        return str(e)


@settings(max_examples=100, deadline=None)
@given(st.lists(_devices, min_size=1, max_size=6), st.booleans())
def test_cached_verdicts_equal_uncached(devices: list[dict[str, Any]], lists: bool) -> None:
    for _ in range(2):  # the second pass answers from the cache
        for d in devices:
            for e in EXPRESSIONS:
                assert _cached(e, d, lists) == _uncached(e, d, lists), (e, d)


def test_a_changed_device_is_evaluated_again() -> None:
    cel.clear_caches()
    dev = {"attributes": {"model": {"string": "a"}}}
    sel = compile_selector('device.attributes["gpu.test"].model == "a"')
    assert sel.matches(device_activation(DRIVER, dev))
    misses = cel._RESULTS.misses
    assert sel.matches(device_activation(DRIVER, copy.deepcopy(dev)))  # same content: a hit
    assert cel._RESULTS.misses == misses
    dev["attributes"]["model"] = {"string": "b"}
    assert not sel.matches(device_activation(DRIVER, dev))
    assert cel._RESULTS.misses == misses + 1
    # The driver is part of the content too (it names the unqualified attributes' domain).
    assert content_key("other.test", dev) != content_key(DRIVER, dev)


def test_errors_are_cached_with_their_message() -> None:
    cel.clear_caches()
    sel = compile_selector('device.attributes["gpu.test"].numa')
    for _ in range(2):
        with pytest.raises(CELError, match="must evaluate to bool"):
            sel.matches(device_activation(DRIVER, {"attributes": {"numa": {"int": 1}}}))


def test_caches_are_bounded() -> None:
    lru: LRU[int, int] = LRU(3)
    for i in range(10):
        lru.put(i, i)
        assert lru.get(0 if i < 3 else 7) in (0, 7, None)  # touch an entry
    assert len(lru) == 3
    assert lru.get(9) == 9 and lru.get(1) is None  # the least recently used went first
    with pytest.raises(ValueError):
        LRU(0)
    cel.clear_caches()
    sel = compile_selector("device.allowMultipleAllocations")
    for i in range(cel._DEVICES.maxsize + 10):
        sel.matches(device_activation(DRIVER, {"attributes": {"n": {"int": i}}}))
    assert len(cel._DEVICES) == cel._DEVICES.maxsize
    assert len(cel._RESULTS) <= cel._RESULTS.maxsize


def test_equal_devices_share_a_read_only_value() -> None:
    cel.clear_caches()
    dev = {
        "attributes": {"model": {"string": "a"}, "ints": {"ints": [1, 2]}},
        "capacity": {"memory": {"value": "40Gi"}},
    }
    a, b = device_activation(DRIVER, dev), device_activation(DRIVER, copy.deepcopy(dev))
    assert a is not b and a["device"] is b["device"]  # one value per content
    before = repr(a["device"])
    for e in EXPRESSIONS:
        try:
            compile_selector(e, True).evaluate(a)
        except CELError:
            pass
    assert repr(a["device"]) == before == repr(cel._device_value(DRIVER, dev))
    # The manifest is not referenced: changing it later changes nothing cached.
    dev["attributes"]["model"]["string"] = "z"
    assert repr(device_activation(DRIVER, copy.deepcopy(dev))["device"]) != before
    assert repr(a["device"]) == before


def test_non_json_content_is_not_cached() -> None:
    assert content_key(DRIVER, {"attributes": {"model": {"string": object()}}}) is None
    assert content_key(DRIVER, {"capacity": {"memory": "oops"}}) is None

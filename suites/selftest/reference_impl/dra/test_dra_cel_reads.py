"""Selectors that read only ``device.driver`` (or ``allowMultipleAllocations``) are
answered per driver, with no device activation built, and give exactly the verdicts and
errors a full evaluation gives."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.dra import cel
from reference_impl.dra.cel import CELError, Selector
from reference_impl.dra.cel_reads import device_fields
from reference_impl.dra.pools import DeviceInfo, _device

READS = [
    ('device.driver == "a.io"', {"driver"}),
    ("true", set()),
    ('has(device.driver) && device.driver.startsWith("a")', {"driver"}),
    ('"device" == device.driver', {"driver"}),
    ("device.allowMultipleAllocations || device.driver == 'b.io'", {"allowMultipleAllocations", "driver"}),
    ('device.attributes["a.io"].model == "x"', {"attributes"}),
    ('device.driver == "a.io" && device.capacity["a.io"].mem.isGreaterThan(quantity("1"))', {"driver", "capacity"}),
    ('device["driver"] == "a.io"', None),  # indexed: not a field read
    ("[1].exists(device, device == 1)", None),  # a macro variable of that name
    ('device.attributes["a.io"].device == 1', None),  # a field named device
    ("size(device) > 0", None),  # the whole variable
]


@pytest.mark.parametrize(("expression", "fields"), READS, ids=[r[0] for r in READS])
def test_device_fields(expression: str, fields: set[str] | None) -> None:
    got = device_fields(cel._ENV.compile(expression))
    assert (None if got is None else set(got)) == fields


EXPRESSIONS = [
    'device.driver == "a.io"',
    'device.driver != "b.io"',
    "device.driver.startsWith('a')",
    "device.allowMultipleAllocations",
    "device.allowMultipleAllocations && device.driver == 'a.io'",
    "true",
    "device.driver",  # not a bool: an error either way
    "device.driver > 1",  # no such overload: a runtime error either way
    'device.attributes["a.io"].model == "x"',  # reads more: the full activation
]

_devices = st.fixed_dictionaries(
    {"name": st.sampled_from(["d0", "d1"])},
    optional={
        "attributes": st.dictionaries(
            st.sampled_from(["model", "numa"]), st.builds(lambda v: {"string": v}, st.sampled_from(["x", "y"])),
            max_size=2,
        ),
        "allowMultipleAllocations": st.booleans(),
    },
)


def _info(driver: str, dev: dict[str, Any]) -> DeviceInfo:
    return _device({"spec": {"driver": driver, "pool": {"name": "p"}, "nodeName": "n"}}, dev)


def _verdict(fn: Any) -> bool | str:
    try:
        return bool(fn())
    except CELError as e:
        return str(e)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.io", "b.io"]), _devices), min_size=1, max_size=5))
def test_scalar_verdicts_equal_full_evaluation(devices: list[tuple[str, dict[str, Any]]]) -> None:
    cel.clear_caches()
    for _ in range(2):  # the second pass answers from the cache
        for driver, dev in devices:
            info = _info(driver, dev)
            for e in EXPRESSIONS:
                full = Selector(e)  # its own serial: shares no cached verdict
                want = _verdict(lambda f=full, d=dev, r=driver: f.matches({"device": cel._device_value(r, d)}))
                got = _verdict(lambda d=info, e=e: d.matches(cel.compile_selector(e)))
                assert got == want, (e, driver, dev)


def test_a_driver_selector_builds_no_activation() -> None:
    cel.clear_caches()
    sel = cel.compile_selector('device.driver == "a.io"')
    devices = [_info("a.io", {"name": f"d{i}", "attributes": {"i": {"int": i}}}) for i in range(50)]
    assert all(d.matches(sel) for d in devices)
    assert not _info("b.io", {"name": "x"}).matches(sel)
    assert all(d._activation is None for d in devices)  # noqa: SLF001 - what is under test
    assert len(cel._DEVICES) == 0  # noqa: SLF001
    # One verdict per (driver, allowMultipleAllocations), not one per device.
    assert len(cel._RESULTS) == 2  # noqa: SLF001
    attr = cel.compile_selector('device.attributes["a.io"].i >= 0')
    assert devices[0].matches(attr) and devices[0]._activation is not None  # noqa: SLF001

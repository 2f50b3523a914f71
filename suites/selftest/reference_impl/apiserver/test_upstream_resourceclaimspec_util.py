"""Rows of pkg/api/resourceclaimspec/util_test.go (v1.37.2) on
``strategies.resourceclaimspec``: TestDRAConsumableCapacityFeatureInUse,
TestDRADerivedAttributesFeatureInUse and TestDropDisabledDRADerivedAttributesFields, plus
the same drop through the APIServer's ResourceClaim strategy."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.strategies import resourceclaimspec
from reference_impl.features import FeatureGates

Obj = dict[str, Any]
_CAPACITY: Obj = {"requests": {"test-capacity": "1"}}
_DERIVED: list[Obj] = [
    {"name": "sharedNumaNode", "expression": 'device.attributes["dra.example.com"]["numa"]'}
]


def _spec() -> Obj:
    exactly = {"deviceClassName": "class", "allocationMode": "All"}
    return {"devices": {"requests": [{"name": "req-0", "exactly": exactly}]}}


def _prioritized() -> Obj:
    sub = {"name": "subreq-0", "deviceClassName": "class", "allocationMode": "ExactCount", "count": 1}  # noqa: E501
    return {"devices": {"requests": [{"name": "req-0", "firstAvailable": [sub]}]}}


def _with_capacity(spec: Obj, sub: bool) -> Obj:
    req = spec["devices"]["requests"][0]
    (req["firstAvailable"][0] if sub else req["exactly"])["capacity"] = copy.deepcopy(_CAPACITY)
    return spec


def _with_distinct(spec: Obj) -> Obj:
    spec["devices"].setdefault("constraints", []).append(
        {"requests": ["req-0"], "distinctAttribute": "driver-a/attr"}
    )
    return spec


def _with_derived(spec: Obj, sub: bool) -> Obj:
    req = spec["devices"]["requests"][0]
    (req["firstAvailable"][0] if sub else req["exactly"])["derivedAttributes"] = copy.deepcopy(_DERIVED)  # noqa: E501
    return spec


@pytest.mark.parametrize(
    ("spec", "expect"),
    [
        pytest.param(None, False, id="consumable-capacity-empty"),
        pytest.param(_spec(), False, id="consumable-capacity-no-inuse"),
        pytest.param(_with_capacity(_spec(), False), True, id="consumable-capacity-with-inuse-fields"),  # noqa: E501
        pytest.param(
            _with_distinct(_with_capacity(_spec(), False)),
            True,
            id="consumable-capacity--with-inuse-fields-with-distinct-attribute",
        ),
        pytest.param(
            _with_capacity(_prioritized(), True),
            True,
            id="consumable-capacity--with-inuse-fields-in-subrequests",
        ),
    ],
)
def test_dra_consumable_capacity_feature_in_use(spec: Obj | None, expect: bool) -> None:
    assert resourceclaimspec.consumable_capacity_in_use(spec) is expect


@pytest.mark.parametrize(
    ("spec", "expect"),
    [
        pytest.param(None, False, id="derived-attributes-empty"),
        pytest.param(_spec(), False, id="derived-attributes-no-inuse"),
        pytest.param(_with_derived(_spec(), False), True, id="derived-attributes-with-inuse-fields-exactly"),  # noqa: E501
        pytest.param(
            _with_derived(_prioritized(), True),
            True,
            id="derived-attributes-with-inuse-fields-first-available",
        ),
    ],
)
def test_dra_derived_attributes_feature_in_use(spec: Obj | None, expect: bool) -> None:
    assert resourceclaimspec.derived_attributes_in_use(spec) is expect


# TestDropDisabledDRADerivedAttributesFields: (gate, old spec in use, kept)
@pytest.mark.parametrize(
    ("enabled", "with_old", "kept"),
    [
        pytest.param(False, False, False, id="drop-on-create-when-feature-gate-disabled"),
        pytest.param(True, False, True, id="keep-on-create-when-feature-gate-enabled"),
        pytest.param(False, True, True, id="keep-on-update-when-feature-gate-disabled-but-in-use"),
    ],
)
def test_drop_disabled_dra_derived_attributes_fields(
    enabled: bool, with_old: bool, kept: bool
) -> None:
    claim = _with_derived(_spec(), False)
    new, old = copy.deepcopy(claim), copy.deepcopy(claim) if with_old else None
    gates = FeatureGates({"DRADerivedAttributes": enabled})
    resourceclaimspec.drop_disabled_fields(new, old, gates)
    got = new["devices"]["requests"][0]["exactly"].get("derivedAttributes")
    assert (got is not None) is kept


# DropDisabledFields' other steps (no upstream rows): the consumable capacity ones.
@pytest.mark.parametrize("enabled", [True, False], ids=["gate on", "gate off"])
def test_drop_disabled_consumable_capacity(enabled: bool) -> None:
    new = _with_distinct(_with_capacity(_spec(), False))
    gates = FeatureGates({"DRAConsumableCapacity": enabled})
    resourceclaimspec.drop_disabled_fields(new, None, gates)
    assert ("capacity" in new["devices"]["requests"][0]["exactly"]) is enabled
    assert ("distinctAttribute" in new["devices"]["constraints"][0]) is enabled
    kept = _with_distinct(_with_capacity(_spec(), False))
    resourceclaimspec.drop_disabled_fields(kept, copy.deepcopy(kept), gates)
    assert "capacity" in kept["devices"]["requests"][0]["exactly"]

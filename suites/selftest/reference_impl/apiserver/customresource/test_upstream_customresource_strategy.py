"""Ports of apiextensions-apiserver v0.37.2 ``pkg/registry/customresource``:
status_strategy_test.go (TestPrepareForUpdate, TestStatusStrategyValidateUpdate) and
strategy_test.go (TestStrategyPrepareForUpdate). TestPrepareForUpdate's rows have no
names upstream; their ids are their indexes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.customresource import strategy

Obj = dict[str, Any]

# (old, obj, expected)
STATUS_PREPARE: list[tuple[Obj, Obj, Obj]] = [
    ({"spec": "old"}, {"spec": "new"}, {"spec": "old"}),
    ({"spec": "old"}, {"new": "new"}, {"spec": "old"}),
    ({"spec": "old", "status": "old"}, {"spec": "old"}, {"spec": "old"}),
    ({"spec": "old", "status": "old"}, {"status": "new"}, {"spec": "old", "status": "new"}),
    ({"spec": "old", "status": "old"}, {"spec": "new", "new": "new", "status": "new"},
     {"spec": "old", "status": "new"}),
]  # fmt: skip


@pytest.mark.parametrize(("old", "obj", "expected"), STATUS_PREPARE, ids=[str(i) for i in range(5)])
def test_prepare_for_update(old: Obj, obj: Obj, expected: Obj) -> None:
    obj = copy.deepcopy(obj)
    strategy.status_prepare_for_update(obj, old)
    assert obj == expected


G1: Obj = {"generation": 1}
G2: Obj = {"generation": 2}
# name -> (statusEnabled, old, obj, expected)
STRATEGY_PREPARE: dict[str, tuple[bool, Obj, Obj, Obj]] = {
    "/status is enabled, spec changes increment generation": (
        True, {"metadata": G1, "spec": "old", "status": "old"},
        {"metadata": G1, "spec": "new", "status": "old"},
        {"metadata": G2, "spec": "new", "status": "old"}),
    "/status is enabled, status changes do not increment generation, status changes removed": (
        True, {"metadata": G1, "spec": "old", "status": "old"},
        {"metadata": G1, "spec": "old", "status": "new"},
        {"metadata": G1, "spec": "old", "status": "old"}),
    "/status is enabled, metadata changes do not increment generation": (
        True, {"metadata": {"generation": 1, "other": "old"}, "spec": "old", "status": "old"},
        {"metadata": {"generation": 1, "other": "new"}, "spec": "old", "status": "old"},
        {"metadata": {"generation": 1, "other": "new"}, "spec": "old", "status": "old"}),
    "/status is disabled, spec changes increment generation": (
        False, {"metadata": G1, "spec": "old", "status": "old"},
        {"metadata": G1, "spec": "new", "status": "old"},
        {"metadata": G2, "spec": "new", "status": "old"}),
    "/status is disabled, status changes increment generation": (
        False, {"metadata": G1, "spec": "old", "status": "old"},
        {"metadata": G1, "spec": "old", "status": "new"},
        {"metadata": G2, "spec": "old", "status": "new"}),
    "/status is disabled, other top-level field changes increment generation": (
        False, {"metadata": G1, "spec": "old", "image": "old", "status": "old"},
        {"metadata": G1, "spec": "old", "image": "new", "status": "old"},
        {"metadata": G2, "spec": "old", "image": "new", "status": "old"}),
    "/status is disabled, metadata changes do not increment generation": (
        False, {"metadata": {"generation": 1, "other": "old"}, "spec": "old", "status": "old"},
        {"metadata": {"generation": 1, "other": "new"}, "spec": "old", "status": "old"},
        {"metadata": {"generation": 1, "other": "new"}, "spec": "old", "status": "old"}),
}  # fmt: skip


@pytest.mark.parametrize("name", list(STRATEGY_PREPARE), ids=list(STRATEGY_PREPARE))
def test_strategy_prepare_for_update(name: str) -> None:
    enabled, old, obj, expected = copy.deepcopy(STRATEGY_PREPARE[name])
    strategy.prepare_for_update(obj, old, enabled)
    assert obj == expected


# listTypeResourceSchema's v1 schema.
LIST_TYPE_SCHEMA: Obj = {"type": "object", "properties": {
    "numArray": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}}}  # fmt: skip
FOO: Obj = {"apiVersion": "test/v1", "kind": "Foo"}
RV: Obj = {"metadata": {"resourceVersion": "1"}}
# name -> (old, obj, isValid)
STATUS_VALIDATE: dict[str, tuple[Obj, Obj, bool]] = {
    "bothValid": ({**FOO, "numArray": [1, 2]}, {**FOO, "numArray": [1, 3], **RV}, True),
    "change to invalid": ({**FOO, "spec": "old", "numArray": [1, 2]},
                          {**FOO, "spec": "new", "numArray": [1, 1], **RV}, False),
    "change to valid": ({**FOO, "spec": "new", "numArray": [1, 1]},
                        {**FOO, "spec": "old", "numArray": [1, 2], **RV}, True),
    "keeps invalid": ({**FOO, "spec": "new", "numArray": [1, 1]},
                      {**FOO, "spec": "old", "numArray": [1, 1], **RV}, True),
}  # fmt: skip


@pytest.mark.parametrize("name", list(STATUS_VALIDATE), ids=list(STATUS_VALIDATE))
def test_status_strategy_validate_update(name: str) -> None:
    old, obj, valid = STATUS_VALIDATE[name]
    causes = strategy.validate_status_update(LIST_TYPE_SCHEMA, None, obj, old)
    assert (causes == []) is valid, causes

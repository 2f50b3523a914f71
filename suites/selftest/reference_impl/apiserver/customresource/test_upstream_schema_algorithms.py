"""Ports of apiextensions-apiserver v0.37.2 ``pkg/apiserver/schema/pruning/algorithm_test.go``
(TestPrune) and ``schema/defaulting`` (TestDefault in algorithm_test.go,
TestPruneNonNullableNullsWithoutDefaults in prunenulls_test.go). The rows are upstream's,
their structural schemas written as the OpenAPI they stand for, in
``upstream_schema_algorithms.json``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reference_impl.apiserver.customresource.schema import apply_defaults, prune_nulls, prune_value

_ROWS: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parent / "upstream_schema_algorithms.json").read_text()
)


def _params(test: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("row", _ROWS[test], ids=[r["name"] for r in _ROWS[test]])


@_params("TestPrune")
def test_prune(row: dict[str, Any]) -> None:
    obj = copy.deepcopy(row["json"])
    pruned = prune_value(obj, row["schema"], is_resource_root=row["isResourceRoot"])
    assert obj == row["expectedObject"]
    assert pruned == row["expectedPruned"]


@_params("TestDefault")
def test_default(row: dict[str, Any]) -> None:
    obj = copy.deepcopy(row["json"])
    apply_defaults(obj, row["schema"])
    assert obj == row["expected"]


@_params("TestPruneNonNullableNullsWithoutDefaults")
def test_prune_non_nullable_nulls_without_defaults(row: dict[str, Any]) -> None:
    obj = copy.deepcopy(row["json"])
    prune_nulls(obj, row["schema"])
    assert obj == row["expected"]

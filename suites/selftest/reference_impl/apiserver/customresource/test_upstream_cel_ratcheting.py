"""Port of apiextensions-apiserver v0.37.2 ``pkg/apiserver/schema/cel/validation_test.go``
TestRatcheting: an unchanged value's (or an unchanged correlatable ancestor's) rule errors
become warnings; transition rules, typemeta and uncorrelatable changes are not ratcheted.
The rows (schemas and objects decoded from upstream's YAML) are in
``upstream_cel_ratcheting.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference_impl.apiserver.customresource.cel import rule_causes

_ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "upstream_cel_ratcheting.json").read_text()
)["TestRatcheting"]
_SKIP: dict[str, str] = {
    "cost budget errors are not ratcheted": "needs cel-go's runtime cost budget",
    "compile errors are not ratcheted": "cel-python gives no verdict for a rule cel-go fails to compile",
}


@pytest.mark.parametrize("row", _ROWS, ids=[r["name"] for r in _ROWS])
def test_ratcheting(row: dict[str, Any]) -> None:
    if row["name"] in _SKIP:
        pytest.skip(_SKIP[row["name"]])
    warnings: list[str] = []
    errs = rule_causes(
        row["schema"], row["newObj"], row["oldObj"], has_old=True, path="root", warnings=warnings
    )
    texts = [f"{c.field}: {c.message}" for c in errs]
    assert len(texts) == len(row["errors"]), texts
    for want in row["errors"]:
        assert any(want in t for t in texts), (want, texts)
    assert sorted(warnings) == sorted(row["warnings"])

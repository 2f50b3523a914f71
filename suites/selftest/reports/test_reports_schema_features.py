"""The results schema accepts every maturity the feature table can produce."""

from __future__ import annotations

import json
from pathlib import Path

from reference_impl.features import FEATURES, Stage

SCHEMA = Path(__file__).resolve().parents[3] / "reports" / "schema" / "results.schema.json"


def _maturity_enum(node: object) -> list[str] | None:
    if isinstance(node, dict):
        if "maturity" in node and isinstance(node["maturity"], dict) and "enum" in node["maturity"]:
            return list(node["maturity"]["enum"])
        for v in node.values():
            found = _maturity_enum(v)
            if found is not None:
                return found
    return None


def test_every_feature_stage_is_a_valid_maturity() -> None:
    allowed = _maturity_enum(json.loads(SCHEMA.read_text()))
    assert allowed is not None
    stages = {f.stage.value for f in FEATURES} | {s.value for s in Stage}
    assert stages <= set(allowed), f"schema lacks {stages - set(allowed)}"

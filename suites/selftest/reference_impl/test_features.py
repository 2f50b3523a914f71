"""Unit tests of the frozen 1.37 feature table and the gate map."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reference_impl.features import FEATURES, GATES, FeatureGates, Stage, UnknownFeature

FEATURES_MD = Path(__file__).resolve().parents[3].parent / "shared" / "FEATURES.md"


def test_every_catalogue_row_is_in_the_table() -> None:
    if not FEATURES_MD.exists():
        pytest.skip("../shared/FEATURES.md is not beside this checkout")
    ids = set(re.findall(r"^\| ([A-Z][A-Z0-9-]+) \|", FEATURES_MD.read_text(), re.M)) - {"id"}
    assert ids and ids <= {f.id for f in FEATURES}


def test_lookup_by_kep_and_by_id() -> None:
    assert FEATURES.lookup("KEP-5055").id == "DRA-TAINT"
    assert FEATURES.lookup("GANG").kep == "KEP-4671"
    with pytest.raises(UnknownFeature, match="KEP-9999"):
        FEATURES.lookup("KEP-9999")


def test_gates_named_by_features_exist_and_defaults_agree() -> None:
    for f in FEATURES:
        for g in f.gates:
            assert g in GATES, g
        if f.gates and f.stage is not Stage.NONE:
            assert GATES[f.gates[0]].default is f.default, f.id


def test_gate_overrides_are_validated() -> None:
    assert FeatureGates()["GenericWorkload"] is False
    assert FeatureGates({"GenericWorkload": True})["GenericWorkload"] is True
    with pytest.raises(UnknownFeature, match="unrecognized feature gate"):
        FeatureGates({"GangScheduling": True})
    with pytest.raises(ValueError, match="locked"):
        FeatureGates({"DRAExtendedResource": False})

"""Unit tests of the frozen 1.37 feature table and the gate map."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reference_impl.features import FEATURES, GATES, FeatureGates, Stage, UnknownFeature

CATALOGUE = Path(__file__).resolve().parents[3] / "docs" / "FEATURES.md"
_STAGE = {
    "GA": Stage.GA,
    "beta-on": Stage.BETA,
    "beta-off": Stage.BETA,
    "beta": Stage.BETA,
    "alpha": Stage.ALPHA,
}


def _catalogue_rows() -> dict[str, tuple[str, str]]:
    rows = re.findall(
        r"^\| ([A-Z][A-Z0-9-]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \|$", CATALOGUE.read_text(), re.M
    )
    return {fid: (kep.strip(), stage.split("/")[0].strip()) for fid, kep, stage in rows}


def test_the_table_and_the_catalogue_have_the_same_features() -> None:
    rows = _catalogue_rows()
    assert len(rows) >= 20
    assert set(rows) == {f.id for f in FEATURES}


def test_the_table_has_the_catalogue_keps_and_stages() -> None:
    by_id = {f.id: f for f in FEATURES}
    for fid, (kep, stage) in _catalogue_rows().items():
        feature = by_id[fid]
        numbers = set(re.findall(r"\d{4}", kep))
        assert numbers == {k.removeprefix("KEP-") for k in feature.keps}, fid
        assert _STAGE.get(stage, Stage.NONE) == feature.stage, fid


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

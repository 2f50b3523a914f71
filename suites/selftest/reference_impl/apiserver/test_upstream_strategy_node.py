"""Rows of pkg/registry/core/node/strategy_test.go (v1.37.2)
TestDropNodeDeclaredFeaturesFieldDuringUpdate, through the APIServer: a Node's main
update (``nodeStrategy.PrepareForUpdate``) takes the status, declaredFeatures included,
from the stored node.

The gate-off rows are skipped: NodeDeclaredFeatures is GA and locked on in 1.37 (upstream
turns it off through an emulation version, 1.36, which the reference does not model).
"""

from __future__ import annotations

import pytest

from reference_impl.api import make_node
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

_LOCKED = (
    "NodeDeclaredFeatures is GA and locked on in 1.37; upstream turns it off through an "
    "emulation version (1.36), which the reference's FeatureGates does not model"
)


# (old declaredFeatures, new declaredFeatures, expected).
@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(["TestFeature"], ["TestFeature"], ["TestFeature"],
                     id="feature gate disabled, field not removed if in-use",
                     marks=pytest.mark.skip(reason=_LOCKED)),
        pytest.param(None, ["TestFeature"], None,
                     id="feature gate disabled, field reset if not in-use",
                     marks=pytest.mark.skip(reason=_LOCKED)),
        pytest.param(["TestFeature"], ["TestFeature"], ["TestFeature"],
                     id="feature gate enabled, field not removed"),
        pytest.param(["TestFeature"], None, ["TestFeature"],
                     id="feature gate enabled, status copied from old node"),
    ],
)  # fmt: skip
def test_drop_node_declared_features_field_during_update(
    old: list[str] | None, new: list[str] | None, want: list[str] | None
) -> None:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    node = s.create(make_node("n").build())
    if old is not None:
        node = s.update_status({**node, "status": {**node.get("status", {}), "declaredFeatures": old}})
    status = {k: v for k, v in (node.get("status") or {}).items() if k != "declaredFeatures"}
    if new is not None:
        status["declaredFeatures"] = new
    got = s.update({**node, "metadata": {**node["metadata"], "labels": {"x": "y"}}, "status": status})
    assert got["metadata"]["labels"] == {"x": "y"}
    assert (got.get("status") or {}).get("declaredFeatures") == want

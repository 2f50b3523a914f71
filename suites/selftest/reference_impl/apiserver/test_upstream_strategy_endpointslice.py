"""Rows of pkg/registry/discovery/endpointslice/strategy_test.go (v1.37.2):
TestPrepareForUpdate (the generation, through the APIServer) and
Test_getDeprecatedTopologyNodeNames (through the ``drop_topology_on_v1`` preparer, as the
helper is private: a node name the old slice lists fills an unset nodeName of the new one).

Test_dropDisabledFieldsOnCreate / Test_dropDisabledFieldsOnUpdate (their gate-on rows) and
Test_dropTopologyOnV1 (its v1 rows) are fixture cases already (fixtures/fuzz
cases_strategy_net_storage.py ``strat/eps/*``, cases_val_gaps_c2.py
``vgc2/drop-topology-on-v1/*``); their gate-off and v1beta1 rows cannot be posed here:
PreferSameTrafficDistribution is GA and locked on, and discovery.k8s.io/v1beta1 is not
served.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.discovery import drop_topology_on_v1
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
HOSTNAME = "kubernetes.io/hostname"


def _eps(addresses: list[str], labels: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"name": "eps", "namespace": "default"}
    if labels:
        meta["labels"] = labels
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": meta,
        "addressType": "IPv4",
        "endpoints": [{"addresses": addresses}],
    }


# TestPrepareForUpdate: (old slice, new slice, expected generation).
@pytest.mark.parametrize(
    ("old", "new", "want_generation"),
    [
        pytest.param(
            _eps(["1.2.3.4"]), _eps(["1.2.3.4"]), 1,
            id="unchanged EPS should not increment generation",
        ),
        pytest.param(
            _eps(["1.2.3.4"]), _eps(["1.2.3.5"]), 2,
            id="changed endpoints should increment generation",
        ),
        pytest.param(
            _eps(["1.2.3.4"], {"example": "one"}), _eps(["1.2.3.4"], {"example": "two"}), 2,
            id="changed labels should increment generation",
        ),
    ],
)  # fmt: skip
def test_prepare_for_update(old: Obj, new: Obj, want_generation: int) -> None:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    stored = s.create(old)
    assert stored["metadata"]["generation"] == 1
    got = s.update(new)
    assert got["metadata"]["generation"] == want_generation


def _topology(*labels: dict[str, str] | None) -> Obj:
    eps: list[Obj] = []
    for label in labels:
        ep: Obj = {"addresses": ["10.0.0.1"]}
        if label is not None:
            ep["deprecatedTopology"] = label
        eps.append(ep)
    return {"endpoints": eps}


_CANDIDATES = ("node-1", "node-2", "node-3")


# Test_getDeprecatedTopologyNodeNames: (slice, expected node names).
@pytest.mark.parametrize(
    ("eps", "want"),
    [
        pytest.param(
            _topology({HOSTNAME: "node-1"}, {HOSTNAME: "node-2"}), {"node-1", "node-2"},
            id="2 nodes",
        ),
        pytest.param(
            _topology({HOSTNAME: "node-1"}, {HOSTNAME: "node-3"}, {HOSTNAME: "node-3"}),
            {"node-1", "node-3"},
            id="duplicate values",
        ),
        pytest.param(_topology({"other": "value"}, {"foo": "bar"}, None), set(), id="unset"),
    ],
)  # fmt: skip
def test_get_deprecated_topology_node_names(eps: Obj, want: set[str]) -> None:
    new = _topology(*({HOSTNAME: n} for n in _CANDIDATES))
    ctx = Context(gates=FeatureGates(), get=lambda *_: None, list=lambda *_: [])
    drop_topology_on_v1(new, eps, "2026-01-01T00:00:00Z", ctx)
    got = {ep["nodeName"] for ep in new["endpoints"] if "nodeName" in ep}
    assert got == want
    assert all("deprecatedTopology" not in ep for ep in new["endpoints"])

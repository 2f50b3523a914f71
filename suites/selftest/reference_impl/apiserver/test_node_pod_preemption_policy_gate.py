"""Node spec.podPreemptionPolicy without its gate: upstream's dropDisabledFields drops it
unless the stored node already used it (the gate-on rules are a conformance test)."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_node
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

GATE = "InPlacePodVerticalScalingSchedulerPreemption"
POLICY = {"disableResizePreemption": ["ops"]}


def _server(on: bool) -> APIServer:
    return APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates().with_overrides({GATE: on}))


def _with_policy(node: dict[str, Any]) -> dict[str, Any]:
    return {**node, "spec": {**(node.get("spec") or {}), "podPreemptionPolicy": POLICY}}


def test_without_the_gate_the_policy_is_dropped_on_create_and_update() -> None:
    s = _server(False)
    created = s.create(_with_policy(make_node("n").build()))
    assert "podPreemptionPolicy" not in created["spec"]
    updated = s.update(_with_policy(created))
    assert "podPreemptionPolicy" not in updated["spec"]


def test_a_policy_in_use_survives_the_gate_going_off() -> None:
    s = _server(True)
    created = s.create(_with_policy(make_node("n").build()))
    assert created["spec"]["podPreemptionPolicy"] == POLICY
    s.gates = s.gates.with_overrides({GATE: False})
    updated = s.update({**created, "spec": {**created["spec"], "unschedulable": True}})
    assert updated["spec"]["podPreemptionPolicy"] == POLICY

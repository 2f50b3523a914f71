"""The spot-reclaim experiment file's setup and fault, through the Injector contract on
the reference (the engine's runner drives the same file with journal and envelope)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from fixtures.chaos import Scope
from fixtures.chaos.faults import SpotReclaim, inject
from fixtures.targets.reference import ReferenceTarget

EXPERIMENT = Path(__file__).resolve().parents[2] / "chaos" / "experiments" / "spot-reclaim.yaml"


def _ready(t: ReferenceTarget, ns: str, node: str | None = None) -> int:
    return sum(
        1 for p in t.list("v1", "Pod", ns, label_selector="app=train")
        if (p.get("status") or {}).get("phase") == "Running"
        and not p["metadata"].get("deletionTimestamp")
        and (node is None or p["spec"].get("nodeName") == node)
    )  # fmt: skip


def test_the_spot_experiment_drains_its_gang_and_it_comes_back_on_the_other_node() -> None:
    exp: dict[str, Any] = yaml.safe_load(EXPERIMENT.read_text())
    cfg = exp["configuration"]
    ns, victim = cfg["namespace"], cfg["victim"]
    t = ReferenceTarget(
        feature_gates={"GenericWorkload": True},
        runtime_config={"scheduling.k8s.io/v1beta1": "true"},
    )
    for obj in exp["extensions"][0]["setup"]:
        t.apply(obj)
    t.wait_until(lambda: _ready(t, ns) == 8, timeout=120, what="8 trainers ready")
    (action,) = [a for a in exp["method"] if a["type"] == "action"]
    args = action["provider"]["arguments"]
    assert args["fault"] == SpotReclaim.name
    sub = {"${namespace}": ns, "${victim}": victim}
    scope = Scope(tuple(sub[n] for n in args["namespaces"]), tuple(sub[n] for n in args["nodes"]),
                  args["params"])  # fmt: skip
    injector = SpotReclaim()
    with inject(t, injector, scope):
        assert injector.report["drained_at"] is not None
        assert injector.report["drained_at"] <= injector.report["deadline"]
        t.wait_until(lambda: _ready(t, ns) == 8, timeout=120, what="the gang back")
        assert _ready(t, ns, "garhwal-chaos-spot-b") == 8
    assert not t.get("v1", "Node", victim)["spec"].get("unschedulable")

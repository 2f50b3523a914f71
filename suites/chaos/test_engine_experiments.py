"""The chaos engine end to end on the target under test (reference, and live in CI's chaos
stage): an experiment file through the ``chaos`` fixture, ``--dry-run`` that changes no
resourceVersion, and a real ``kill -9`` of the runner mid-experiment, then ``garhwal chaos
revert``, with every touched node compared against a snapshot taken before.

They need ``--allow-chaos`` (and on a live cluster its opt-in ConfigMap
kube-system/garhwal-chaos allowing namespace garhwal-chaos-demo and nodes labelled
garhwal.dev/chaos=allowed); without them they skip with the refusal's line.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from fixtures.chaos.envelope import ChaosRefused
from fixtures.chaos.experiment import validate
from fixtures.chaos.journal import Locator
from fixtures.chaos.killtest import EXPERIMENTS, RunnerProcess
from fixtures.chaos.runner import run_experiment
from fixtures.helpers.nodes import wait_schedulable
from reference_impl.api import make_pool_node
from reference_impl.errors import NotFound

ALLOWED = {"garhwal.dev/chaos": "allowed"}


def _allow_chaos(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("garhwal_allow_chaos"))


@pytest.fixture
def chaos_nodes(target: Target, namespace: str) -> Any:
    """Two private nodes the opt-in's nodeSelector allows; deleted after the test."""
    names = [f"{namespace}-c{i}"[:63] for i in range(2)]
    for name in names:
        node = make_pool_node(name, namespace).build()
        node["metadata"]["labels"].update(ALLOWED)
        node["metadata"].setdefault("annotations", {})["kwok.x-k8s.io/node"] = "fake"
        target.apply(node)
    # Live, the node lifecycle controller and KWOK still write a new node (not-ready
    # taint, labels, status): snapshots are taken once it has settled.
    wait_schedulable(target, names, ready=True)
    yield names
    for name in names:
        try:
            target.delete("v1", "Node", name)
        except NotFound:
            pass


def _node_snapshot(target: Target, names: list[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        n = target.get("v1", "Node", name)
        spec = n.get("spec") or {}
        out[name] = {
            "labels": n["metadata"].get("labels"), "taints": spec.get("taints"),
            "unschedulable": spec.get("unschedulable"), "podCIDR": spec.get("podCIDR"),
        }
    return out


def test_cordon_and_kill_the_replicaset_replaces_the_pods_elsewhere(chaos: Any) -> None:
    record = chaos.run(EXPERIMENTS / "cordon-and-kill.yaml")
    if record.verdict == "dry-run":
        pytest.skip("--dry-run: planned only")
    assert record.verdict == "passed", record.reason
    runs = {r["activity"]["name"]: r for r in record.ctk_journal["run"]}
    assert runs["kill-its-pods"]["output"]["touched"], "no pod ran on the victim to kill"
    assert runs["none-left-on-the-victim"]["output"] == 0
    after = record.ctk_journal["steady_states"]["after"]
    assert after["steady_state_met"] and after["probes"][0]["output"] == 2
    kinds = [e.kind for e in record.events]
    assert kinds.count("fault") == kinds.count("revert") == 4  # setup + cordon, taint, kill
    assert not record.failed_reverts


def _experiment(nodes: list[str], pause: float) -> dict[str, Any]:
    def act(name: str, func: str, **args: Any) -> dict[str, Any]:
        return {"type": "action", "name": name, "provider": {
            "type": "python", "module": "fixtures.chaos.extension", "func": func, "arguments": args}}

    return {
        "title": "cordon and taint, then wait",
        "description": "two node faults held while the runner waits (to be killed)",
        "extensions": [{"name": "garhwal", "max_duration": pause + 60}],
        "method": [
            act("cordon", "cordon_node", node=nodes[0]),
            act("taint", "taint_node", node=nodes[1], key="garhwal.dev/drill", effect="NoExecute"),
            act("wait", "pause", seconds=pause),
        ],
    }


def _written_by_faults(target: Target, names: list[str]) -> dict[str, Any]:
    # What a node fault writes (spec, labels, annotations), not the resourceVersion: live,
    # KWOK's heartbeat keeps writing node status, so the version moves on its own.
    out = {}
    for name in names:
        n = target.get("v1", "Node", name)
        meta = n["metadata"]
        out[name] = {"spec": n.get("spec"), "labels": meta.get("labels"), "annotations": meta.get("annotations")}
    return out


def test_dry_run_touches_nothing(request: pytest.FixtureRequest, target: Target, chaos_nodes: list[str]) -> None:
    before = _written_by_faults(target, chaos_nodes)
    lines: list[str] = []
    exp = validate(_experiment(chaos_nodes, 1))
    try:
        record = run_experiment(exp, target, Locator(target.name), allow_chaos=_allow_chaos(request),
                                dry_run=True, out=lines.append)
    except ChaosRefused as exc:
        pytest.skip(str(exc))
    assert record.verdict == "dry-run"
    assert record.touched == [f"Node {chaos_nodes[0]}", f"Node {chaos_nodes[1]}"]
    assert all("resourceVersion" in ln and "unschedulable=False" in ln for ln in lines)
    assert _written_by_faults(target, chaos_nodes) == before


def test_kill_9_mid_experiment_then_revert_restores_every_node(
    request: pytest.FixtureRequest, target: Target, chaos_nodes: list[str], tmp_path: Any
) -> None:
    if target.name != "live":
        pytest.skip("the reference cluster lives in the runner's process: a kill -9 ends it too")
    kubeconfig = request.config.getoption("garhwal_kubeconfig")
    before = _node_snapshot(target, chaos_nodes)
    runner = RunnerProcess(tmp_path, _experiment(chaos_nodes, 300), kubeconfig)
    try:
        target.wait_until(lambda: len(runner.journal_lines()) >= 2 or runner.ended(),
                          timeout=120, what="the runner to journal both faults")
        if runner.ended():
            out = runner.output()
            if "chaos refused" in out:
                pytest.skip(out.strip().splitlines()[-1])
            pytest.fail(f"the runner ended early: {out}")
        target.wait_until(lambda: _node_snapshot(target, chaos_nodes) != before, timeout=30,
                          what="the faults to be applied")
        assert runner.kill9() == -9
    finally:
        runner.stop()
    held = _node_snapshot(target, chaos_nodes)
    assert held[chaos_nodes[0]]["unschedulable"] is True  # left behind by the killed runner
    assert any(t["key"] == "garhwal.dev/drill" for t in held[chaos_nodes[1]]["taints"])
    lines = runner.journal_lines()
    assert [x["op"] for x in lines] == ["inject", "inject"]
    assert lines[0]["target"]["kubeconfig"] == runner.kubeconfig
    code, out = runner.revert()
    assert code == 0, out
    assert "2 reverted, 0 moot, 0 failed" in out
    assert _node_snapshot(target, chaos_nodes) == before

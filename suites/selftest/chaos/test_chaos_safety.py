"""The safety envelope: every refusal is one line, exit 2, and touches nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from chaos_helpers import node_state

from fixtures.chaos.envelope import ChaosRefused
from fixtures.chaos.experiment import validate
from fixtures.chaos.journal import Locator, outstanding, read_lines, state_journal_path
from fixtures.chaos.rbac import clusterrole, granted_by, required
from fixtures.chaos.runner import run_experiment
from fixtures.targets.reference import ReferenceTarget
from reference_impl.api import make_pod

EXT = "fixtures.chaos.extension"


def act(func: str, kind: str = "action", **arguments: Any) -> dict[str, Any]:
    return {"type": kind, "name": f"{func}-{len(arguments)}",
            "provider": {"type": "python", "module": EXT, "func": func, "arguments": arguments}}


def experiment(method: list[dict[str, Any]], **garhwal: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"title": "t", "description": "d", "method": method}
    if garhwal:
        doc["extensions"] = [{"name": "garhwal", **garhwal}]
    return doc


def rvs(target: ReferenceTarget) -> dict[str, str]:
    out = {}
    for kind in ("Node", "Pod", "ConfigMap", "Namespace"):
        for o in target.list("v1", kind):
            m = o["metadata"]
            out[f"{kind}/{m.get('namespace')}/{m['name']}"] = m["resourceVersion"]
    return out


def run(target: ReferenceTarget, doc: dict[str, Any], **kw: Any) -> Any:
    kw.setdefault("allow_chaos", True)
    return run_experiment(validate(doc), target, Locator("reference"), **kw)


CORDON_N0 = [act("cordon_node", node="n0")]


def refused(target: ReferenceTarget, doc: dict[str, Any], match: str, **kw: Any) -> None:
    before, state = rvs(target), node_state(target)
    with pytest.raises(ChaosRefused, match=match) as info:
        run(target, doc, **kw)
    line = str(info.value)
    assert line.startswith("chaos refused: ") and "\n" not in line
    assert rvs(target) == before and node_state(target) == state
    path = state_journal_path()
    assert not path.exists() or read_lines(path) == []


def test_no_allow_chaos(ref: ReferenceTarget) -> None:
    refused(ref, experiment(CORDON_N0), "--allow-chaos was not given", allow_chaos=False)


def test_a_live_cluster_without_its_opt_in(ref: ReferenceTarget) -> None:
    ref.name = "live"  # the reference posing as a cluster that has not opted in
    refused(ref, experiment(CORDON_N0), "the cluster has not opted in: no ConfigMap kube-system/garhwal-chaos")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"expires": "2001-01-01T00:00:00Z"}, "data.expires: the opt-in expired"),
        ({"expires": ""}, "data.expires: required"),
        ({"expires": "soon"}, "data.expires: 'soon' is not an RFC 3339 time"),
        ({"maxNodeShare": "2"}, r"data.maxNodeShare: '2' is not a share in \(0, 1\]"),
        ({"allowedNamespaces": ""}, "data.allowedNamespaces: required"),
    ],
)
def test_a_bad_or_expired_opt_in(ref: ReferenceTarget, opt_in: Callable[..., Any], data: dict[str, str], match: str) -> None:
    opt_in(**data)
    refused(ref, experiment(CORDON_N0), match)


def test_a_namespace_outside_the_allow_list(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    opt_in()
    refused(ref, experiment([act("kill_pods", namespace="default")]), "scope.namespaces: 'default' is not in")


def test_a_node_outside_the_node_selector(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    opt_in()
    refused(ref, experiment([act("cordon_node", node="n2")]), "node 'n2' does not match data.nodeSelector")


def test_no_node_selector_means_no_node(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    opt_in(nodeSelector="")
    refused(ref, experiment(CORDON_N0), "the opt-in has no data.nodeSelector")


def test_missing_rbac_is_named(ref: ReferenceTarget, opt_in: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    opt_in()
    monkeypatch.setattr(ref, "can_i", lambda check: not (check.verb == "update" and check.resource == "nodes"))
    refused(ref, experiment(CORDON_N0), "missing RBAC permissions: update nodes; grant the ClusterRole")


def test_setup_outside_the_envelope(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    opt_in()
    setup = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}}]
    refused(ref, experiment(CORDON_N0, setup=setup), "setup\\[0\\] ConfigMap x: namespace 'default'")


NODE_X = {"apiVersion": "v1", "kind": "Node",
          "metadata": {"name": "x", "labels": {"garhwal.dev/chaos": "allowed"}}}


@pytest.mark.parametrize(
    ("obj", "match"),
    [
        ({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "x"}},
         "setup\\[1\\] ClusterRole x: cluster-scoped setup objects other than"),
        ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
          "spec": {"nodeName": "n0", "driver": "d", "pool": {"name": "p", "resourceSliceCount": 1, "generation": 1}}},
         "setup\\[1\\] ResourceSlice s: a ResourceSlice must name one of the experiment's own setup Nodes"),
        ({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
          "spec": {"allNodes": True, "driver": "d", "pool": {"name": "p", "resourceSliceCount": 1, "generation": 1}}},
         "ResourceSlice s: a ResourceSlice must name"),
        ({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "p"},
          "value": 5, "globalDefault": True},
         "PriorityClass p: a globalDefault PriorityClass changes every new pod"),
    ],
)
def test_cluster_scoped_setup_that_could_touch_other_workloads(
    ref: ReferenceTarget, opt_in: Callable[..., Any], obj: dict[str, Any], match: str,
) -> None:
    opt_in()
    refused(ref, experiment(CORDON_N0, setup=[NODE_X, obj]), match)


def test_cluster_scoped_setup_of_its_own_is_admitted(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    from fixtures.chaos.envelope import Envelope
    from fixtures.chaos.setup import check_setup

    opt_in()
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"nodeName": "x"}}
    dc = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}
    check_setup(Envelope.load(ref, allow_chaos=True), [NODE_X, dc, slice_])


def test_the_budget_is_checked_before_every_injection(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    opt_in(maxNodeShare="0.2")  # of the 6 nodes (3 the reference starts with): one at a time
    state = node_state(ref)
    record = run(ref, experiment([act("cordon_node", node="n0"), act("taint_node", node="n1")]))
    assert record.verdict == "refused"
    assert "blast radius: 2 of 6 nodes (33%) would be touched; maxNodeShare is 0.2" in record.reason
    assert [e.name for e in record.events if e.kind == "fault"] == ["node-cordon"]
    assert node_state(ref) == state  # the first fault was rolled back
    assert outstanding(read_lines(state_journal_path())) == []


def test_the_clusterrole_grants_every_shipped_experiments_checks() -> None:
    from pathlib import Path

    from fixtures.chaos.experiment import load_experiment

    role = clusterrole()
    shipped = Path(__file__).resolve().parents[2] / "chaos" / "experiments"
    for path in sorted(shipped.glob("*.yaml")):
        exp = load_experiment(path)
        checks = required(exp.faults, exp.setup)
        assert any(c.resource == "deviceclasses" for c in checks) or "spot" not in path.name
        for check in checks:
            assert granted_by(role, check), f"{path.name}: {check}"


def test_the_clusterrole_grants_everything_the_precheck_asks() -> None:
    role = clusterrole()
    assert role["kind"] == "ClusterRole"
    setup = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}},
             {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "x"}},
             {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "x", "namespace": "x"}}]
    for check in required({"node-taint", "node-cordon", "node-delete", "pod-kill"}, setup):
        assert granted_by(role, check), str(check)


def test_dry_run_prints_every_touch_and_changes_nothing(ref: ReferenceTarget, opt_in: Callable[..., Any]) -> None:
    opt_in(maxNodeShare="1")
    ref.apply(make_pod("p0", "shop").build())
    ref.cluster.settle()
    before = rvs(ref)
    lines: list[str] = []
    record = run(ref, experiment([act("cordon_node", node="n0"), act("taint_node", node="n1"),
                                  act("kill_pods", namespace="shop")]), dry_run=True, out=lines.append)
    assert record.verdict == "dry-run"
    assert record.touched == ["Node n0", "Node n1", "Pod shop/p0"]
    assert any("would touch Node n0 (resourceVersion" in ln and "unschedulable=False" in ln for ln in lines)
    assert any("would touch Pod shop/p0" in ln and "phase=" in ln for ln in lines)
    assert rvs(ref) == before
    assert not state_journal_path().exists()


def test_a_broken_stop_condition_aborts_and_rolls_back(ref: ReferenceTarget) -> None:
    state = node_state(ref)
    stop = act("node_is_schedulable", "probe", node="n0")
    stop["tolerance"] = True
    record = run(ref, experiment([*CORDON_N0, act("taint_node", node="n1")], stop_conditions=[stop]))
    assert record.verdict == "aborted" and "stop condition" in record.reason
    assert [e.name for e in record.events if e.kind == "fault"] == ["node-cordon"]  # taint never ran
    assert node_state(ref) == state


def test_the_maximum_duration_aborts(ref: ReferenceTarget) -> None:
    state = node_state(ref)
    record = run(ref, experiment([*CORDON_N0, act("pause", seconds=50), act("taint_node", node="n1")], max_duration=30))
    assert record.verdict == "aborted" and "maximum duration of 30s" in record.reason
    assert record.duration_s == pytest.approx(30, abs=1)  # simulated seconds
    assert node_state(ref) == state


def test_the_verdict_records_a_deviation_with_its_time(ref: ReferenceTarget) -> None:
    probe = act("node_is_schedulable", "probe", node="n0")
    probe["tolerance"] = True
    doc = experiment([*CORDON_N0, act("pause", seconds=5)])
    doc["steady-state-hypothesis"] = {"title": "n0 schedulable", "probes": [probe]}
    record = run(ref, doc)
    assert record.verdict == "deviated"
    (dev,) = [e for e in record.events if e.kind == "deviation"]
    assert dev.t_s == pytest.approx(5.0, abs=1) and "hypothesis-after" in dev.detail
    assert node_state(ref)["n0"][2] is None  # reverted at the end all the same

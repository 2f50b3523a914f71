"""Table-driven Filter and Score tests for each in-tree plugin, after upstream's *_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, NodeScore, Status
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import (
    node_affinity,
    node_name,
    node_resources_fit,
    node_unschedulable,
    scheduling_gates,
    taint_toleration,
)

Obj = dict[str, Any]


def node_info(node: Obj, *pods: Obj) -> NodeInfo:
    ni = NodeInfo(node["metadata"]["name"], node)
    for p in pods:
        p["metadata"].setdefault("namespace", "default")
        ni.add_pod(PodInfo(p))
    return ni


def run_filter(plugin: Any, pod: Obj, ni: NodeInfo) -> Status:
    state = CycleState()
    pod["metadata"].setdefault("namespace", "default")
    if hasattr(plugin, "pre_filter"):
        _, s = plugin.pre_filter(state, pod, [ni])
        if s.code is Code.SKIP:
            return OK
        assert s.is_success()
    status: Status = plugin.filter(state, pod, ni)
    return status


FIT = node_resources_fit.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pod", "node", "existing", "want"),
    [
        pytest.param(make_pod("p").build(), make_node("n").capacity(cpu="1").build(), [], OK,
                     id="best-effort pod fits anywhere"),
        pytest.param(make_pod("p").req(cpu="1").build(), make_node("n").capacity(cpu="1").build(),
                     [], OK, id="exact fit"),
        pytest.param(
            make_pod("p").req(cpu="600m").build(), make_node("n").capacity(cpu="1").build(),
            [make_pod("e").req(cpu="500m").build()],
            Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"),
            id="not enough cpu left",
        ),
        pytest.param(
            make_pod("p").req(cpu="2", memory="1Gi").build(),
            make_node("n").capacity(cpu="1", memory="512Mi").build(), [],
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu", "Insufficient memory"),
                   "NodeResourcesFit"),
            id="more than the node has at all is unresolvable",
        ),
        pytest.param(
            make_pod("p").build(), make_node("n").capacity(pods="1").build(),
            [make_pod("e").build()],
            Status(Code.UNSCHEDULABLE, ("Too many pods",), "NodeResourcesFit"),
            id="pod slots exhausted",
        ),
        pytest.param(
            make_pod("p").request("example.com/gpu", "1").build(),
            make_node("n").build(), [],
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient example.com/gpu",),
                   "NodeResourcesFit"),
            id="extended resource missing",
        ),
        pytest.param(
            make_pod("p").request("example.com/gpu", "1").build(),
            make_node("n").resource("example.com/gpu", "2").build(),
            [make_pod("e").request("example.com/gpu", "1").build()], OK,
            id="extended resource left",
        ),
        pytest.param(
            make_pod("p").req(cpu="1").set("spec.initContainers", [
                {"name": "init", "image": "i", "resources": {"requests": {"cpu": "3"}}}]).build(),
            make_node("n").capacity(cpu="2").build(), [],
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu",), "NodeResourcesFit"),
            id="init container larger than the app containers",
        ),
        pytest.param(
            make_pod("p").req(cpu="1").set("spec.overhead", {"cpu": "1500m"}).build(),
            make_node("n").capacity(cpu="2").build(), [],
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu",), "NodeResourcesFit"),
            id="pod overhead counts",
        ),
    ],
)
def test_node_resources_fit_filter(pod: Obj, node: Obj, existing: list[Obj], want: Status) -> None:
    assert run_filter(FIT, pod, node_info(node, *existing)) == want


def test_sidecar_init_containers_add_to_the_sum() -> None:
    pod = make_pod("p", "default").req(cpu="1").set("spec.initContainers", [
        {"name": "side", "image": "i", "restartPolicy": "Always",
         "resources": {"requests": {"cpu": "1"}}},
        {"name": "init", "image": "i", "resources": {"requests": {"cpu": "1500m"}}},
    ]).build()
    # max(app 1 + sidecar 1, init 1.5 + sidecar 1) = 2.5 CPU
    assert PodInfo(pod).requests.milli_cpu == 2500


@pytest.mark.parametrize(
    ("used_cpu", "want"),
    [
        # cpu (4000-100)*100//4000 = 97, memory (4Gi-200Mi)*100//4Gi = 95 -> (97+95)//2
        pytest.param(None, 96, id="empty node scores near max"),
        # cpu (4000-2100)*100//4000 = 47, memory still 95 -> (47+95)//2
        pytest.param("2", 71, id="half-used cpu lowers the score"),
    ],
)
def test_node_resources_fit_least_allocated_score(used_cpu: str | None, want: int) -> None:
    node = make_node("n").capacity(cpu="4", memory="4Gi").build()
    existing = [make_pod("e").req(cpu=used_cpu, memory="1").build()] if used_cpu else []
    ni = node_info(node, *existing)
    pod = make_pod("p", "default").req(cpu="100m", memory="200Mi").build()
    state = CycleState()
    FIT.pre_filter(state, pod, [ni])  # type: ignore[attr-defined]
    score, status = FIT.score(state, pod, ni)  # type: ignore[attr-defined]
    assert status == OK and score == want


TT = taint_toleration.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [
        pytest.param(make_pod("p").build(), make_node("n").build(), OK, id="no taints"),
        pytest.param(
            make_pod("p").build(), make_node("n").taint("key", "NoSchedule", "value").build(),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                   ("node(s) had untolerated taint(s)",), "TaintToleration"),
            id="untolerated NoSchedule taint",
        ),
        pytest.param(
            make_pod("p").toleration("key", "Equal", "value", "NoSchedule").build(),
            make_node("n").taint("key", "NoSchedule", "value").build(), OK,
            id="tolerated by key and value",
        ),
        pytest.param(
            make_pod("p").toleration("key", "Exists").build(),
            make_node("n").taint("key", "NoExecute", "v").build(), OK,
            id="Exists tolerates any value and effect",
        ),
        pytest.param(
            make_pod("p").toleration("key", "Equal", "other", "NoSchedule").build(),
            make_node("n").taint("key", "NoSchedule", "value").build(),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                   ("node(s) had untolerated taint(s)",), "TaintToleration"),
            id="value mismatch",
        ),
        pytest.param(
            make_pod("p").build(), make_node("n").taint("soft", "PreferNoSchedule").build(), OK,
            id="PreferNoSchedule never filters",
        ),
    ],
)
def test_taint_toleration_filter(pod: Obj, node: Obj, want: Status) -> None:
    status = run_filter(TT, pod, node_info(node))
    assert status == (want.with_plugin("") if want.plugin == "" else want)


def test_taint_toleration_prefers_fewer_intolerable_prefer_no_schedule_taints() -> None:
    nodes = [
        node_info(make_node("clean").build()),
        node_info(make_node("one").taint("a", "PreferNoSchedule").build()),
        node_info(make_node("two").taint("a", "PreferNoSchedule").taint("b", "PreferNoSchedule").build()),
    ]
    pod = make_pod("p", "default").build()
    state = CycleState()
    assert TT.pre_score(state, pod, nodes) == OK  # type: ignore[attr-defined]
    scores = [NodeScore(ni.name, TT.score(state, pod, ni)[0]) for ni in nodes]  # type: ignore[attr-defined]
    TT.normalize_score(state, pod, scores)  # type: ignore[attr-defined]
    assert [s.score for s in scores] == [100, 50, 0]


NA = node_affinity.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]


def affinity(*terms: Obj) -> Obj:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}


def expr(key: str, op: str, *values: str) -> Obj:
    e: Obj = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return {"matchExpressions": [e]}


MISMATCH = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  ("node(s) didn't match Pod's node affinity/selector",), "NodeAffinity")


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(make_pod("p").build(), OK, id="no selector"),
        pytest.param(make_pod("p").node_selector(zone="a").build(), OK, id="nodeSelector matches"),
        pytest.param(make_pod("p").node_selector(zone="b").build(), MISMATCH,
                     id="nodeSelector mismatch"),
        pytest.param(make_pod("p").set("spec.affinity", affinity(expr("zone", "In", "a", "b"))).build(),
                     OK, id="In"),
        pytest.param(make_pod("p").set("spec.affinity", affinity(expr("zone", "NotIn", "a"))).build(),
                     MISMATCH, id="NotIn"),
        pytest.param(make_pod("p").set("spec.affinity", affinity(expr("gpu", "Exists"))).build(),
                     MISMATCH, id="Exists on a missing label"),
        pytest.param(make_pod("p").set("spec.affinity", affinity(expr("gpu", "DoesNotExist"))).build(),
                     OK, id="DoesNotExist"),
        pytest.param(make_pod("p").set("spec.affinity", affinity(expr("cores", "Gt", "8"))).build(),
                     OK, id="Gt"),
        pytest.param(make_pod("p").set("spec.affinity", affinity(expr("cores", "Lt", "8"))).build(),
                     MISMATCH, id="Lt"),
        pytest.param(
            make_pod("p").set("spec.affinity", affinity(expr("zone", "In", "x"), expr("cores", "Gt", "1"))).build(),
            OK, id="terms are ORed",
        ),
        pytest.param(
            make_pod("p").set("spec.affinity", affinity({"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]},
                {"key": "cores", "operator": "Lt", "values": ["2"]}]})).build(),
            MISMATCH, id="expressions within a term are ANDed",
        ),
        pytest.param(
            make_pod("p").set("spec.affinity", affinity({"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["n"]}]})).build(),
            OK, id="matchFields on the node name",
        ),
    ],
)
def test_node_affinity_filter(pod: Obj, want: Status) -> None:
    node = make_node("n").build()
    node["metadata"]["labels"].update({"zone": "a", "cores": "16"})
    assert run_filter(NA, pod, node_info(node)) == want


def test_node_affinity_scores_preferred_terms_by_weight() -> None:
    pref = [{"weight": 10, "preference": expr("zone", "In", "a")},
            {"weight": 30, "preference": expr("disk", "In", "ssd")}]
    pod = make_pod("p", "default").set(
        "spec.affinity", {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": pref}}
    ).build()
    nodes = []
    for name, labels in (("a", {"zone": "a"}), ("b", {"disk": "ssd"}), ("c", {})):
        n = make_node(name).build()
        n["metadata"]["labels"].update(labels)
        nodes.append(node_info(n))
    state = CycleState()
    assert NA.pre_score(state, pod, nodes) == OK  # type: ignore[attr-defined]
    scores = [NodeScore(ni.name, NA.score(state, pod, ni)[0]) for ni in nodes]  # type: ignore[attr-defined]
    NA.normalize_score(state, pod, scores)  # type: ignore[attr-defined]
    assert [s.score for s in scores] == [33, 100, 0]


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [
        pytest.param(make_pod("p").build(), make_node("n").build(), OK, id="schedulable node"),
        pytest.param(
            make_pod("p").build(), make_node("n").unschedulable().build(),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",),
                   "NodeUnschedulable"),
            id="cordoned node",
        ),
        pytest.param(
            make_pod("p").toleration("node.kubernetes.io/unschedulable", "Exists", effect="NoSchedule").build(),
            make_node("n").unschedulable().build(), OK, id="cordon tolerated",
        ),
    ],
)
def test_node_unschedulable_filter(pod: Obj, node: Obj, want: Status) -> None:
    plugin = node_unschedulable.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]
    assert run_filter(plugin, pod, node_info(node)) == want


@pytest.mark.parametrize(
    ("wanted", "want"),
    [
        pytest.param(None, OK, id="no node name"),
        pytest.param("n", OK, id="host matches"),
        pytest.param("other", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                     ("node(s) didn't match the requested node name",), "NodeName"),
                     id="host doesn't match"),
    ],
)
def test_node_name_filter(wanted: str | None, want: Status) -> None:
    pod = make_pod("p").node(wanted).build() if wanted else make_pod("p").build()
    plugin = node_name.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]
    assert run_filter(plugin, pod, node_info(make_node("n").build())) == want


@pytest.mark.parametrize(
    ("gates", "want"),
    [
        pytest.param([], OK, id="no gates"),
        pytest.param(["a", "b"], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                         ("waiting for scheduling gates: [a b]",), "SchedulingGates"),
                     id="two gates"),
    ],
)
def test_scheduling_gates_pre_enqueue(gates: list[str], want: Status) -> None:
    b = make_pod("p", "default")
    for g in gates:
        b.scheduling_gate(g)
    plugin = scheduling_gates.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]
    assert plugin.pre_enqueue(b.build()) == want  # type: ignore[attr-defined]

"""OpportunisticBatching (KEP-5598): signatures and the batch inside scheduling cycles.

Ports pkg/scheduler/schedule_one_test.go TestSignatures; the SignPod tables
noderesources TestFitSignPod and TestBalancedAllocationSignPod, interpodaffinity
TestPodAffinitySignature, podtopologyspread TestPodTopoSignatures, imagelocality
TestImageSignature; and backend/queue TestPriorityQueue_signPod,
TestPriorityQueue_AddComputesSignature, TestPriorityQueue_UpdateRecomputesSignature.
The cycle rows at the end check the hint path end to end (schedule_one.go with
batch.go): placements, hints used and the default profile signing nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
from upstream_core_fakes import cache_of, framework

from reference_impl.api import make_node, make_pod
from reference_impl.clock import SimClock
from reference_impl.scheduler import Profile
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    OK,
    Code,
    PreFilterResult,
    ScoreExtensions,
    Status,
)
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.framework.signature import (
    IMAGE_NAMES_SIGNER,
    LABELS_SIGNER,
    RESOURCES_SIGNER,
    SignFragment,
)
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.inter_pod_affinity import InterPodAffinityArgs
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from reference_impl.scheduler.profile import DEFAULT_PLUGINS

Obj = dict[str, Any]
Harness = Any  # conftest's Harness (conftest modules are not importable across suites)
Factory = Callable[..., Any]  # the harness_factory fixture
TEST_SCHEDULER = "test-scheduler"
EXT_RESOURCE = "extended.resource.dra.io/something"


@dataclass
class _ConstSig:
    plugin_name: str
    fragments: Sequence[SignFragment]
    status: Status

    def name(self) -> str:
        return self.plugin_name

    def sign_pod(self, pod: Obj) -> tuple[Sequence[SignFragment], Status]:
        return self.fragments, self.status


class _Filter(_ConstSig):
    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        return OK


class _PreFilter(_ConstSig):
    def pre_filter(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        return None, OK


class _PreScore(_ConstSig):
    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        return OK


class _Score(_ConstSig):
    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        return 1, OK

    def score_extensions(self) -> ScoreExtensions | None:
        return None


_KINDS = {"filter": _Filter, "prefilter": _PreFilter, "score": _Score, "prescore": _PreScore}
T16, T17 = ("test", 16), ("test2", 17)
SIG16 = '{"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"}'
SIG1617 = '{"test":16,"test2":17,"v1.Pod.Spec.SchedulerName":"test-scheduler"}'


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param([], '{"v1.Pod.Spec.SchedulerName":"test-scheduler"}', id="no plugins"),
        pytest.param([("ConstSig", [T16], OK, "filter")], SIG16, id="single filter"),
        pytest.param([("ConstSig", [T16], OK, "prefilter")], SIG16, id="single prefilter"),
        pytest.param([("ConstSig", [T16], OK, "score")], SIG16, id="single score"),
        pytest.param([("ConstSig", [T16], OK, "prescore")], SIG16, id="single prescore"),
        pytest.param([("ConstSig", [T16], OK, "filter"), ("ConstSig2", [T17], OK, "score")],
                     SIG1617, id="two plugins"),
        pytest.param([("ConstSig", [T16, T17], OK, "filter")], SIG1617,
                     id="plugin with multiple fragments"),
        pytest.param([("ConstSig", [T16], OK, "filter"), ("ConstSig2", [T16], OK, "score")],
                     SIG16, id="overlapping fragments"),
        pytest.param([("ConstSig", [], Status(Code.UNSCHEDULABLE), "filter")], None,
                     id="unsignable plugin"),
        pytest.param([("ConstSig", [], Status(Code.ERROR), "filter")], None, id="error plugin"),
    ],
)
def test_signatures(plugins: list[tuple[str, list[SignFragment], Status, str]], want: str | None) -> None:
    fw = framework([_KINDS[kind](name, frags, st) for name, frags, st, kind in plugins], cache_of([]))
    pod = make_pod("foo", "default").set("spec.schedulerName", TEST_SCHEDULER).build()
    assert fw.sign_pod(pod) == want


def _plugin(h: Harness, name: str) -> Any:
    return next(p for p in h.scheduler.framework.plugins if p.name() == name)


def _dra_harness(harness_factory: Factory, dra_extended: bool) -> Harness:
    h = harness_factory()
    if dra_extended:  # deviceClassWithExtendResourceName
        h.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                  "metadata": {"name": "device-class-name"},
                  "spec": {"extendedResourceName": EXT_RESOURCE}})
    return h


def _req_pod(*containers: dict[str, str]) -> Obj:
    pod = make_pod("p", "default").build()
    pod["spec"]["containers"] = [
        {"name": f"container{i + 1}", "image": "i", "resources": {"requests": r}}
        for i, r in enumerate(containers)
    ]
    return pod


CPU_MEM = {"cpu": "1000m", "memory": "2000"}
WITH_EXT = {**CPU_MEM, EXT_RESOURCE: "1"}
RESOURCE_ROWS = [
    pytest.param([CPU_MEM], False, [1000, 2000, 0, 0, []], id="pod with CPU and memory requests"),
    pytest.param([], False, [0, 0, 0, 0, []], id="best-effort pod with no requests"),
    pytest.param([{"cpu": "500m", "memory": "1000"}, {"cpu": "1500m", "memory": "3000"}], False,
                 [2000, 4000, 0, 0, []], id="pod with multiple containers"),
    pytest.param([WITH_EXT], True, None, id="DRA extended resource enabled - returns unschedulable"),
    pytest.param([WITH_EXT], False, [1000, 2000, 0, 0, [(EXT_RESOURCE, 1)]],
                 id="DRA extended resource disabled"),
]


@pytest.mark.parametrize("plugin", [names.NODE_RESOURCES_FIT, names.NODE_RESOURCES_BALANCED_ALLOCATION])
@pytest.mark.parametrize(("containers", "dra", "want"), RESOURCE_ROWS)
def test_resources_sign_pod(harness_factory: Factory, plugin: str, containers: list[dict[str, str]], dra: bool, want: list[Any] | None) -> None:
    """TestFitSignPod and TestBalancedAllocationSignPod ("disabled": no class serves the
    resource, which the reference's DRAExtendedResource gate, locked on, comes to)."""
    h = _dra_harness(harness_factory, dra)
    fragments, status = _plugin(h, plugin).sign_pod(_req_pod(*containers))
    if want is None:
        assert status.code is Code.UNSCHEDULABLE
        return
    assert status.is_success()
    assert list(fragments) == [(RESOURCES_SIGNER, want)]


@pytest.mark.parametrize(
    ("affinity", "ignore", "want", "ok"),
    [
        pytest.param(None, False, [(LABELS_SIGNER, {"foo": "bar"})], True, id="no affinity, default settings"),
        pytest.param(None, True, [], True, id="no affinity, ignore setting set"),
        pytest.param({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{}]}},
                     False, [], False, id="affinity set"),
    ],
)
def test_pod_affinity_signature(harness_factory: Factory, affinity: Obj | None, ignore: bool, want: list[SignFragment], ok: bool) -> None:
    args = InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=ignore)
    profile = _with_args(Profile(), names.INTER_POD_AFFINITY, args)
    h = harness_factory(profile=profile)
    pod = make_pod("p", "default").label("foo", "bar").build()
    if affinity is not None:
        pod["spec"]["affinity"] = affinity
    fragments, status = _plugin(h, names.INTER_POD_AFFINITY).sign_pod(pod)
    assert status.is_success() is ok
    assert list(fragments) == want


@pytest.mark.parametrize(
    ("constraints", "args", "ok"),
    [
        pytest.param([{"topologyKey": "test"}], PodTopologySpreadArgs(), False, id="pod w constraints"),
        pytest.param([], PodTopologySpreadArgs(), False, id="pod no constraints but default"),
        pytest.param([], PodTopologySpreadArgs((), "List"), True, id="pod no constraints no default"),
    ],
)
def test_pod_topo_signatures(harness_factory: Factory, constraints: list[Obj], args: PodTopologySpreadArgs, ok: bool) -> None:
    h = harness_factory(profile=_with_args(Profile(), names.POD_TOPOLOGY_SPREAD, args))
    pod = make_pod("p", "default").build()
    if constraints:
        pod["spec"]["topologySpreadConstraints"] = constraints
    pl = _plugin(h, names.POD_TOPOLOGY_SPREAD)
    fragments, status = pl.sign_pod(pod)
    assert status.is_success() is ok
    assert list(fragments) == []
    assert pl.signs_no_pod is not ok  # the signer's short-circuit agrees with SignPod


@pytest.mark.parametrize(
    ("images", "want"),
    [
        pytest.param([], [], id="no images"),
        pytest.param(["myimage"], ["myimage:latest"], id="one image"),
        pytest.param(["zmyimage", "myimage"], ["myimage:latest", "zmyimage:latest"], id="two images unsorted"),
    ],
)
def test_image_signature(harness_factory: Factory, images: list[str], want: list[str]) -> None:
    pod = make_pod("p", "default").build()
    pod["spec"]["containers"] = [{"name": f"c{i}", "image": img} for i, img in enumerate(images)]
    fragments, status = _plugin(harness_factory(), names.IMAGE_LOCALITY).sign_pod(pod)
    assert status.is_success()
    assert list(fragments) == [(IMAGE_NAMES_SIGNER, want)]


def _with_args(profile: Profile, plugin: str, args: object) -> Profile:
    return replace(profile, plugins=tuple(
        replace(p, args=args) if p.name == plugin else p for p in profile.plugins))


# -- the queue computes signatures (TestPriorityQueue_*) ------------------------------------


def _labelled(value: str) -> Obj:
    return make_pod("pod1", "default").set("spec.schedulerName", "default-scheduler").label("key", value).build()


def _label_signer(pod: Obj) -> str | None:
    value = (pod["metadata"].get("labels") or {}).get("key")
    return f"sig-{value}" if value is not None else "sig-default"


def _fake_queue(signer: Any) -> SchedulingQueue:
    fw = framework([], cache_of([]))
    return SchedulingQueue(SimClock(), fw, lambda: None, signer=signer)


@pytest.mark.parametrize(
    ("gate", "signer", "want"),
    [
        pytest.param(False, lambda pod: "sig-1", None, id="Feature gate disabled"),
        pytest.param(True, None, None, id="No signers configured"),
        pytest.param(True, None, None, id="Signer not found for scheduler", marks=pytest.mark.skip(
            reason="the reference runs one profile per Scheduler: no per-schedulerName signer map")),
        pytest.param(True, lambda pod: "sig-1", "sig-1", id="Successful signature computation"),
        pytest.param(True, lambda pod: None, None, id="Signer returns nil (unsignable pod)"),
    ],
)
def test_priority_queue_sign_pod(gate: bool, signer: Any, want: str | None) -> None:
    # The gate off: the Scheduler hands the queue no signer (and the framework no batch).
    q = _fake_queue(signer if gate else None)
    q.add(_labelled("v"))
    pinfo = q.pop()
    assert pinfo is not None and pinfo.signature == want


def test_priority_queue_add_computes_signature() -> None:
    q = _fake_queue(_label_signer)
    q.add(_labelled("value1"))
    pinfo = q.pop()
    assert pinfo is not None and pinfo.signature == "sig-value1"


@pytest.mark.parametrize("where", [
    pytest.param("active", id="pod in activeQ"),
    pytest.param("backoff", id="pod in backoffQ"),
    pytest.param("unschedulable", id="pod in unschedulableEntities"),
    pytest.param("", id="pod not in any queue"),
])
def test_priority_queue_update_recomputes_signature(where: str) -> None:
    q = _fake_queue(_label_signer)
    pod1, pod2 = _labelled("value1"), _labelled("value2")
    if where:
        q.add(pod1)
    if where in ("backoff", "unschedulable"):
        pinfo = q.pop()
        assert pinfo is not None
        if where == "unschedulable":
            pinfo.unschedulable_plugins.add("fakePlugin")  # no rejector counts as an error
        q.add_unschedulable_if_not_present(pinfo, error=where == "backoff")
        assert q.where(pinfo.key) == where
    q.update(pod1, pod2, [])
    found = q._find("default/pod1")  # noqa: SLF001 - upstream's GetPod
    assert found is not None and found.signature == "sig-value2"


# -- the batch inside scheduling cycles -------------------------------------------------------


def _signable_profile() -> Profile:
    """The default plugins with PodTopologySpread's defaulting off: every plugin signs."""
    return _with_args(Profile(plugins=DEFAULT_PLUGINS), names.POD_TOPOLOGY_SPREAD, PodTopologySpreadArgs((), "List"))


def _one_cpu_pods(n: int) -> list[Obj]:
    return [make_pod(f"p{i}", "default").req(cpu="1").label("app", "x").build() for i in range(n)]


def test_default_profile_signs_no_pod(harness_factory: Factory) -> None:
    h = harness_factory()
    assert h.scheduler.framework.signer.signs_nothing
    assert h.scheduler.framework.sign_pod(_one_cpu_pods(1)[0]) is None


def test_signable_profile_signs_identical_pods_alike(harness_factory: Factory) -> None:
    h = harness_factory(profile=_signable_profile())
    a, b = _one_cpu_pods(2)
    sig = h.scheduler.framework.sign_pod(a)
    assert sig is not None and sig == h.scheduler.framework.sign_pod(b)
    assert json.loads(sig)[LABELS_SIGNER] == {"app": "x"}
    claimed = make_pod("c", "default").req(cpu="1").label("app", "x").claim("gpu", template="t").build()
    assert h.scheduler.framework.sign_pod(claimed) is None  # DynamicResources refuses claims


def _cluster(harness_factory: Factory, profile: Profile | None, gates: dict[str, bool] | None = None) -> Harness:
    h = harness_factory(profile=profile, gates=gates)
    h.create(*[make_node(f"n{i}").capacity(cpu="1", memory="4Gi", pods="10").build() for i in range(4)])
    return h


def test_identical_pods_are_batched_one_per_node(harness_factory: Factory) -> None:
    """Each pod fills its node: the next identical pod in the next cycle gets the best
    remaining node as a hint (the last chosen node now fails Filter), which it takes."""
    h = _cluster(harness_factory, _signable_profile())
    h.create(*_one_cpu_pods(3))
    placed = h.bindings()
    assert sorted(placed) == ["p0", "p1", "p2"] and len(set(placed.values())) == 3
    batch = h.scheduler.framework.batch
    assert batch is not None
    assert batch.batched_pods == 2
    assert batch.attempts["hint_used"] == 2 and batch.attempts["no_hint"] == 1


def test_default_profile_and_disabled_gate_batch_nothing(harness_factory: Factory) -> None:
    h = _cluster(harness_factory, None)
    h.create(*_one_cpu_pods(3))
    assert len(set(h.bindings().values())) == 3
    batch = h.scheduler.framework.batch
    assert batch is not None and batch.batched_pods == 0
    assert batch.flushes["pod_not_batchable"] == 3  # stored, unsignable, never kept
    off = _cluster(harness_factory, _signable_profile(), {"OpportunisticBatching": False})
    assert off.scheduler.framework.batch is None
    off.create(*_one_cpu_pods(3))
    assert len(set(off.bindings().values())) == 3


def test_last_chosen_node_is_rescored_against_the_kept_nodes(harness_factory: Factory) -> None:
    """Pods that leave room: the last chosen node still fits, so it is rescored (real
    plugins' PreScore, Score and NormalizeScore) and competes with the kept nodes; with
    LeastAllocated the pods spread evenly, every pod after the first on a hint."""
    h = harness_factory(profile=_signable_profile())
    h.create(*[make_node(f"n{i}").capacity(cpu="4", memory="4Gi", pods="10").build() for i in range(3)])
    h.create(*_one_cpu_pods(6))
    per_node: dict[str, int] = {}
    for node in h.bindings().values():
        per_node[node] = per_node.get(node, 0) + 1
    assert per_node == {"n0": 2, "n1": 2, "n2": 2}
    batch = h.scheduler.framework.batch
    assert batch is not None and batch.batched_pods == 5
    assert dict(batch.flushes) == {}

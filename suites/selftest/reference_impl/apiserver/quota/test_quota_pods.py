"""The pod evaluator, after upstream's ``pkg/quota/v1/evaluator/core/pods_test.go``:
TestPodConstraintsFunc, TestPodEvaluatorUsage, TestPodEvaluatorUsageStats,
TestPodEvaluatorMatchingScopes, TestPodEvaluatorUsageResourceResize and
TestPodEvaluatorHandles, plus the Matches/priority-class selector paths."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import MakeEnv
from reference_impl.apiserver.quota import resources as r
from reference_impl.apiserver.quota.pods import PodEvaluator
from reference_impl.apiserver.registry import Operation
from reference_impl.clock import Instant, rfc3339, seconds

Obj = dict[str, Any]
NOW = seconds(3600)
COUNT = {"count/pods": "1"}


def ctr(
    requests: Obj | None = None, limits: Obj | None = None, name: str = "", **extra: Any
) -> Obj:
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v is not None}
    return {"name": name, "resources": res, **extra}


def pod(containers: list[Obj] | None = None, init: list[Obj] | None = None, **spec: Any) -> Obj:
    return {"spec": {"containers": containers or [], "initContainers": init or [], **spec}}


@pytest.mark.parametrize(("p", "required", "err", "pod_level"), [
    (pod(init=[ctr({"cpu": "1m"}, {"cpu": "2m"}, "dummy")]), ["memory"],
     "must specify memory for: dummy", False),
    (pod(init=[ctr({"cpu": "1m"}, {"cpu": "2m"}, "foo"), ctr({"cpu": "1m"}, {"cpu": "2m"}, "bar")]),
     ["memory"], "must specify memory for: bar,foo", False),
    (pod([ctr({"cpu": "1m"}, {"cpu": "2m"}, "dummy")]), ["memory"], "must specify memory for: dummy", False),
    (pod([ctr({"cpu": "1m"}, {"cpu": "2m"}, "foo"), ctr({"cpu": "1m"}, {"cpu": "2m"}, "bar")]),
     ["memory"], "must specify memory for: bar,foo", False),
    (pod([ctr(name="foo"), ctr(name="bar")]), ["memory", "cpu"],
     "must specify cpu for: bar,foo; memory for: bar,foo", False),
    (pod([ctr(name="foo"), ctr(name="bar")], resources={"requests": {"cpu": "1m"}}),
     ["memory", "cpu"], None, True),
])  # fmt: skip
def test_constraints(
    make_env: MakeEnv, p: Obj, required: list[str], err: str | None, pod_level: bool
) -> None:
    """``pod_level``: the case wants PodLevelResources on (it is, by default, in 1.37)."""
    assert PodEvaluator(make_env()).constraints(required, p) == err


def _big() -> Obj:
    def c(cpu: str, mem: str, dongle: str, lcpu: str, lmem: str) -> Obj:
        return ctr({"cpu": cpu, "memory": mem, "example.com/dongle": dongle},
                   {"cpu": lcpu, "memory": lmem, "example.com/dongle": dongle})  # fmt: skip

    return pod([c("1", "50M", "1", "2", "100M"), c("2", "25M", "2", "5", "50M")],
               [c("4", "100M", "4", "8", "200M"), c("1", "50M", "2", "2", "100M")])  # fmt: skip


CPU_1M = {"requests.cpu": "1m", "limits.cpu": "2m", "pods": "1", "cpu": "1m", **COUNT}
MEM_1M = {"requests.memory": "1m", "limits.memory": "2m", "pods": "1", "memory": "1m", **COUNT}
EPH = {"ephemeral-storage": "32Mi", "requests.ephemeral-storage": "32Mi",
       "limits.ephemeral-storage": "64Mi", "pods": "1", **COUNT}  # fmt: skip
HUGE = {"hugepages-2Mi": "100Mi", "requests.hugepages-2Mi": "100Mi", "pods": "1", **COUNT}
DONGLE = {"requests.example.com/dongle": "3", "pods": "1", **COUNT}
IMPLICIT = {"requests.deviceclass.resource.kubernetes.io/dongle": "3", "pods": "1", **COUNT}
DEL_PAST = rfc3339(Instant(NOW - seconds(60)))
DEL_NOW = rfc3339(Instant(NOW))


@pytest.mark.parametrize(("p", "usage"), [
    pytest.param(pod(init=[ctr({"cpu": "1m"}, {"cpu": "2m"})]), CPU_1M, id="init container CPU"),
    pytest.param(pod(init=[ctr({"memory": "1m"}, {"memory": "2m"})]), MEM_1M, id="init container MEM"),
    pytest.param(pod(init=[ctr({"ephemeral-storage": "32Mi"}, {"ephemeral-storage": "64Mi"})]), EPH,
                 id="init container local ephemeral storage"),
    pytest.param(pod(init=[ctr({"hugepages-2Mi": "100Mi"})]), HUGE, id="init container hugepages"),
    pytest.param(pod(init=[ctr({"example.com/dongle": "3"}, {"example.com/dongle": "3"})]), DONGLE,
                 id="init container extended resources"),
    pytest.param(pod(init=[ctr({"deviceclass.resource.kubernetes.io/dongle": "3"},
                               {"deviceclass.resource.kubernetes.io/dongle": "3"})]), IMPLICIT,
                 id="init container implicit extended resources"),
    pytest.param(pod([ctr({"cpu": "1m"}, {"cpu": "2m"})]), CPU_1M, id="container CPU"),
    pytest.param(pod([ctr({"memory": "1m"}, {"memory": "2m"})]), MEM_1M, id="container MEM"),
    pytest.param(pod([ctr({"ephemeral-storage": "32Mi"}, {"ephemeral-storage": "64Mi"})]), EPH,
                 id="container local ephemeral storage"),
    pytest.param(pod([ctr({"hugepages-2Mi": "100Mi"})]), HUGE, id="container hugepages"),
    pytest.param(pod([ctr({"example.com/dongle": "3"}, {"example.com/dongle": "3"})]), DONGLE,
                 id="container extended resources"),
    pytest.param(pod([ctr({"deviceclass.resource.kubernetes.io/dongle": "3"},
                          {"deviceclass.resource.kubernetes.io/dongle": "3"})]), IMPLICIT,
                 id="container implicit extended resources"),
    pytest.param({**pod([ctr({"example.com/dongle": "3"}, {"example.com/dongle": "3"})]),
                  "status": {"phase": "Succeeded"}}, COUNT, id="terminated generic count still appears"),
    pytest.param(_big(), {"requests.cpu": "4", "requests.memory": "100M", "limits.cpu": "8",
                          "limits.memory": "200M", "pods": "1", "cpu": "4", "memory": "100M",
                          "requests.example.com/dongle": "4", **COUNT},
                 id="init container maximums override sum of containers"),
    pytest.param({"metadata": {"deletionTimestamp": DEL_PAST, "deletionGracePeriodSeconds": 30},
                  "status": {"reason": "NodeLost"},
                  **pod([ctr({"cpu": "1", "memory": "50M"}, {"cpu": "2", "memory": "100M"})],
                        terminationGracePeriodSeconds=30)}, COUNT,
                 id="pod deletion timestamp exceeded"),
    pytest.param({"metadata": {"deletionTimestamp": DEL_NOW, "deletionGracePeriodSeconds": 30},
                  "status": {"reason": "NodeLost"}, **pod([ctr({"cpu": "1"}, {"cpu": "2"})])},
                 {"requests.cpu": "1", "limits.cpu": "2", "pods": "1", "cpu": "1", **COUNT},
                 id="pod deletion timestamp not exceeded"),
    pytest.param(pod([ctr({"cpu": "1"}, {"cpu": "2"})], overhead={"cpu": "1"}),
                 {"requests.cpu": "2", "limits.cpu": "3", "pods": "1", "cpu": "2", **COUNT},
                 id="count pod overhead as usage"),
    pytest.param(pod(resources={"requests": {"cpu": "1m"}, "limits": {"cpu": "2m"}}), CPU_1M,
                 id="pod-level CPU"),
    pytest.param(pod(resources={"requests": {"memory": "1Mi"}, "limits": {"memory": "2Mi"}}),
                 {"requests.memory": "1Mi", "limits.memory": "2Mi", "pods": "1", "memory": "1Mi",
                  **COUNT}, id="pod-level Memory"),
    pytest.param(pod([ctr({"ephemeral-storage": "32Mi"}, {"ephemeral-storage": "64Mi"})],
                     resources={"requests": {"memory": "1Mi"}, "limits": {"memory": "2Mi"}}),
                 {**EPH, "requests.memory": "1Mi", "limits.memory": "2Mi", "memory": "1Mi"},
                 id="pod-level memory with container-level ephemeral storage"),
])  # fmt: skip
def test_usage(make_env: MakeEnv, p: Obj, usage: dict[str, str]) -> None:
    got = PodEvaluator(make_env(now=NOW)).usage(p)
    assert r.to_wire(got) == r.to_wire(r.from_wire(usage))


def _status_resources(requests: Obj | None) -> Obj:
    return {
        "status": {"containerStatuses": [{"resources": {"requests": requests}} if requests else {}]}
    }


@pytest.mark.parametrize(("spec_req", "spec_lim", "status_req", "usage"), [
    ({"memory": "200Mi"}, {"memory": "400Mi"}, {"memory": "150Mi"},
     {"requests.memory": "200Mi", "limits.memory": "400Mi", "memory": "200Mi"}),
    ({"cpu": "100m"}, {"cpu": "200m"}, {"cpu": "150m"},
     {"requests.cpu": "150m", "limits.cpu": "200m", "cpu": "150m"}),
    ({"cpu": "100m", "memory": "200Mi"}, {"cpu": "200m", "memory": "400Mi"},
     {"cpu": "150m", "memory": "250Mi"},
     {"requests.cpu": "150m", "limits.cpu": "200m", "requests.memory": "250Mi",
      "limits.memory": "400Mi", "cpu": "150m", "memory": "250Mi"}),
    ({"cpu": "100m", "memory": "200Mi"}, {"cpu": "200m", "memory": "400Mi"}, None,
     {"requests.cpu": "100m", "limits.cpu": "200m", "requests.memory": "200Mi",
      "limits.memory": "400Mi", "cpu": "100m", "memory": "200Mi"}),
])  # fmt: skip
def test_usage_resource_resize(make_env: MakeEnv, spec_req: Obj, spec_lim: Obj,
                               status_req: Obj | None, usage: dict[str, str]) -> None:  # fmt: skip
    """Max(container spec requests, container status resources)."""
    p = {**pod([ctr(spec_req, spec_lim)]), **_status_resources(status_req)}
    want = r.from_wire({**usage, "pods": "1", **COUNT})
    assert r.to_wire(PodEvaluator(make_env()).usage(p)) == r.to_wire(want)


def test_usage_resize_infeasible_and_allocated(make_env: MakeEnv) -> None:
    """An Infeasible resize counts only what is allocated/actuated, not the spec."""
    p = {**pod([ctr({"cpu": "2"}, {"cpu": "4"}, "c")]), "status": {
        "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
        "containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "1"},
                               "resources": {"limits": {"cpu": "3"}}}]}}  # fmt: skip
    got = r.to_wire(PodEvaluator(make_env()).usage(p))
    assert (got["requests.cpu"], got["limits.cpu"]) == ("1", "3")


def make_pod(name: str, pc: str, cpu: str | None, phase: str) -> Obj:
    """``makePod``: requests and limits both ``cpu``."""
    res = {"cpu": cpu} if cpu else None
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"priorityClassName": pc, "containers": [ctr(res, res)]},
            "status": {"phase": phase}}  # fmt: skip


HIGH = {
    "matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high-priority"]}
    ]
}
ONE_RUNNING = {"pods": "1", "count/pods": "2", "cpu": "1", "requests.cpu": "1", "limits.cpu": "1"}


@pytest.mark.parametrize(("objs", "scopes", "selector", "want"), [
    pytest.param([], [], None, {}, id="nil case"),
    pytest.param([make_pod("p1", "", "1", "Running"), make_pod("p2", "", "1", "Running")], [], None,
                 {"pods": "2", "count/pods": "2", "cpu": "2", "requests.cpu": "2", "limits.cpu": "2"},
                 id="all pods in running state"),
    pytest.param([make_pod("p1", "", "1", "Running"), make_pod("p2", "", "1", "Succeeded")], [], None,
                 ONE_RUNNING, id="one pods in terminal state"),
    pytest.param([make_pod("p1", "high-priority", "1", "Running"),
                  make_pod("p2", "high-priority", "1", "Succeeded"),
                  make_pod("p3", "low-priority", "1", "Running")], [], HIGH, ONE_RUNNING,
                 id="partial pods matching quotaScopeSelector"),
    pytest.param([make_pod("p1", "high-priority", "1", "Running"),
                  make_pod("p2", "high-priority", "1", "Succeeded"),
                  make_pod("p3", "low-priority", "1", "Running")], ["PriorityClass"], HIGH,
                 ONE_RUNNING, id="w/ scopeName specified"),
    pytest.param([make_pod("p1", "high-priority", "1", "Running"),
                  make_pod("p2", "high-priority", "1", "Succeeded"),
                  make_pod("p3", "low-priority", "1", "Running"),
                  make_pod("p4", "high-priority", None, "Failed")], ["PriorityClass", "BestEffort"],
                 HIGH, {"count/pods": "1"}, id="w/ multiple scopeNames specified"),
])  # fmt: skip
def test_usage_stats(make_env: MakeEnv, objs: list[Obj], scopes: list[str], selector: Obj | None,
                     want: dict[str, str]) -> None:  # fmt: skip
    """Upstream asks for no resources, so only what some pod uses appears; asked-for
    resources start at zero."""
    from reference_impl.apiserver.quota.types import UsageStatsOptions

    ev = PodEvaluator(make_env(objs))
    got = ev.usage_stats(UsageStatsOptions("ns", scopes, [], selector))
    assert r.equals(got, r.from_wire(want))
    asked = ev.usage_stats(UsageStatsOptions("ns", scopes, ["pods", "requests.memory"], selector))
    assert r.to_wire(asked)["requests.memory"] == "0"


ADS = 30
ALL: list[Obj] = [{"scopeName": "Terminating"}, {"scopeName": "NotTerminating"}, {"scopeName": "BestEffort"},
       {"scopeName": "NotBestEffort"},
       {"scopeName": "PriorityClass", "operator": "In", "values": ["class1"]},
       {"scopeName": "CrossNamespacePodAffinity"}]  # fmt: skip
T, NT, BE, NBE, PC, XNS = ALL


def _aff(kind: str, mode: str, term: Obj) -> Obj:
    terms = [{"podAffinityTerm": term, "weight": 1}] if mode.startswith("preferred") else [term]
    return pod(activeDeadlineSeconds=ADS, affinity={kind: {mode: terms}})


REQ, PREF = (
    "requiredDuringSchedulingIgnoredDuringExecution",
    "preferredDuringSchedulingIgnoredDuringExecution",
)


@pytest.mark.parametrize(("p", "selectors", "want"), [
    pytest.param({}, None, [NT, BE], id="EmptyPod"),
    pytest.param(pod(priorityClassName="class1"), None, [NT, BE, PC], id="PriorityClass"),
    pytest.param(pod([ctr({"cpu": "1", "memory": "50M", "example.com/dongle": "1"},
                          {"cpu": "2", "memory": "100M", "example.com/dongle": "1"})]), None,
                 [NT, NBE], id="NotBestEffort"),
    pytest.param(pod(activeDeadlineSeconds=ADS), None, [T, BE], id="Terminating"),
    pytest.param(pod(activeDeadlineSeconds=ADS), [T], [T], id="OnlyTerminating"),
    pytest.param(_aff("podAffinity", REQ, {"labelSelector": {}, "namespaces": ["ns1"],
                                           "namespaceSelector": {}}), None, [T, BE, XNS],
                 id="CrossNamespaceRequiredAffinity"),
    pytest.param(_aff("podAffinity", REQ, {"labelSelector": {}, "namespaces": ["ns1"]}), None,
                 [T, BE, XNS], id="CrossNamespaceRequiredAffinityWithSlice"),
    pytest.param(_aff("podAffinity", PREF, {"labelSelector": {}, "namespaces": ["ns2"],
                                            "namespaceSelector": {}}), None, [T, BE, XNS],
                 id="CrossNamespacePreferredAffinity"),
    pytest.param(_aff("podAffinity", PREF, {"labelSelector": {}, "namespaceSelector": {}}), None,
                 [T, BE, XNS], id="CrossNamespacePreferredAffinityWithSelector"),
    pytest.param(_aff("podAntiAffinity", PREF, {"labelSelector": {}, "namespaceSelector": {}}),
                 None, [T, BE, XNS], id="CrossNamespacePreferredAntiAffinity"),
    pytest.param(_aff("podAntiAffinity", REQ, {"labelSelector": {}, "namespaces": ["ns3"]}), None,
                 [T, BE, XNS], id="CrossNamespaceRequiredAntiAffinity"),
    pytest.param(_aff("podAffinity", REQ, {"labelSelector": {}}), None, [T, BE],
                 id="same-namespace affinity is not cross-namespace"),
])  # fmt: skip
def test_matching_scopes(
    make_env: MakeEnv, p: Obj, selectors: list[Obj] | None, want: list[Obj]
) -> None:
    assert PodEvaluator(make_env()).matching_scopes(p, selectors or ALL) == want


@pytest.mark.parametrize(("pc", "op", "values", "want"), [
    ("a", "In", ["a", "b"], True), ("c", "In", ["a"], False), ("", "In", ["a"], False),
    ("a", "NotIn", ["a"], False), ("c", "NotIn", ["a"], True), ("", "NotIn", ["a"], True),
    ("a", "Exists", [], True), ("", "Exists", [], False),
    ("a", "DoesNotExist", [], False), ("", "DoesNotExist", [], True),
])  # fmt: skip
def test_priority_class_operators(
    make_env: MakeEnv, pc: str, op: str, values: list[str], want: bool
) -> None:
    sel = {"scopeName": "PriorityClass", "operator": op, "values": values}
    assert PodEvaluator(make_env()).scope_matches(sel, pod(priorityClassName=pc)) is want


def test_priority_class_bad_selector(make_env: MakeEnv) -> None:
    ev = PodEvaluator(make_env())
    with pytest.raises(ValueError, match="error on matching scope {PriorityClass In \\[\\]}"):
        ev.matching_scopes(pod(), [{"scopeName": "PriorityClass", "operator": "In", "values": []}])
    with pytest.raises(ValueError, match='"" is not a valid scope selector operator'):
        ev.scope_matches({"scopeName": "PriorityClass"}, pod())


def test_best_effort_reads_stored_qos_class(make_env: MakeEnv) -> None:
    """``GetPodQOS`` prefers ``status.qosClass``; zero requests are BestEffort."""
    ev = PodEvaluator(make_env())
    assert ev.scope_matches(BE, {**pod([ctr({"cpu": "0"})]), "status": {}})
    assert not ev.scope_matches(BE, {**pod(), "status": {"qosClass": "Burstable"}})
    assert not ev.scope_matches(BE, pod(resources={"requests": {"cpu": "1"}}))


def test_matches(make_env: MakeEnv) -> None:
    ev = PodEvaluator(make_env())
    quota = {"spec": {"scopes": ["Terminating"]}, "status": {"hard": {"pods": "1"}}}
    assert ev.matches(quota, pod(activeDeadlineSeconds=1))
    assert not ev.matches(quota, pod())
    assert not ev.matches({"status": {"hard": {"services": "1"}}}, pod())
    assert ev.matches({"status": {"hard": {"requests.example.com/gpu": "1"}}}, pod())
    assert ev.matching_resources(["requests.example.com/gpu", "pods", "cpu", "hugepages-2Mi",
                                  "services", "requests.deviceclass.resource.kubernetes.io/a",
                                  "requests.kubernetes.io/x"]) == [
        "cpu", "pods", "requests.example.com/gpu", "hugepages-2Mi",
        "requests.deviceclass.resource.kubernetes.io/a"]  # fmt: skip


def test_uncovered_quota_scopes(make_env: MakeEnv) -> None:
    ev = PodEvaluator(make_env())
    limited = [PC, XNS]
    assert ev.uncovered_quota_scopes(
        limited, [{"scopeName": "PriorityClass", "operator": "Exists"}]
    ) == [XNS]


AD1, AD2 = pod(activeDeadlineSeconds=1), pod(activeDeadlineSeconds=2)


@pytest.mark.parametrize(("op", "sub", "obj", "old", "want"), [
    (Operation.CREATE, "", pod(), None, True),
    (Operation.UPDATE, "", pod(), AD1, True),  # update-activeDeadlineSeconds-to-nil
    (Operation.UPDATE, "", AD1, pod(), True),  # update-activeDeadlineSeconds-from-nil
    (Operation.UPDATE, "", AD1, AD2, False),  # with-different-values
    (Operation.UPDATE, "", pod(), None, False),  # update (no objects)
    (Operation.DELETE, "", pod(), None, False),
    (Operation.CREATE, "subresource", pod(), None, False),
    (Operation.UPDATE, "subresource", pod(), pod(), False),
    (Operation.UPDATE, "resize", pod(), pod(), True),
])  # fmt: skip
def test_handles(
    make_env: MakeEnv, op: Operation, sub: str, obj: Obj, old: Obj | None, want: bool
) -> None:
    assert PodEvaluator(make_env()).handles(op, sub, obj, old) is want

"""The object-count evaluator and ``Matches`` (upstream's ``generic/evaluator_test.go``
TestObjectCountEvaluatorHandles), and the registry: NewEvaluators, the install package's
ignored resources, and the evaluators the quota monitor adds for ``count/...`` names."""

from __future__ import annotations

import pytest

from conftest import MakeEnv
from reference_impl.apiserver.quota import generic, registry
from reference_impl.apiserver.quota import resources as r
from reference_impl.apiserver.quota.types import UsageStatsOptions
from reference_impl.apiserver.registry import Operation


@pytest.mark.parametrize(("op", "sub", "want"), [
    (Operation.CREATE, "", True), (Operation.UPDATE, "", False), (Operation.DELETE, "", False),
    (Operation.CREATE, "subresource", False), (Operation.UPDATE, "subresource", False),
])  # fmt: skip
def test_object_count_handles(make_env: MakeEnv, op: Operation, sub: str, want: bool) -> None:
    ev = generic.ObjectCountEvaluator("pods", make_env())
    assert ev.handles(op, sub, {}, None) is want


def test_object_count_names_and_usage(make_env: MakeEnv) -> None:
    assert generic.object_count_resource_name("pods") == "count/pods"
    assert generic.object_count_resource_name("deployments.apps") == "count/deployments.apps"
    ev = generic.ObjectCountEvaluator("secrets", make_env(), "secrets")
    assert r.to_wire(ev.usage({})) == {"count/secrets": "1", "secrets": "1"}
    assert ev.matching_resources(["secrets", "pods", "count/secrets"]) == [
        "count/secrets",
        "secrets",
    ]
    assert ev.matching_scopes({}, [{"scopeName": "BestEffort"}]) == []


def test_matches_needs_a_resource_and_every_scope(make_env: MakeEnv) -> None:
    ev = generic.ObjectCountEvaluator("configmaps", make_env(), "configmaps")
    assert ev.matches({"status": {"hard": {"configmaps": "3"}}}, {})
    assert not ev.matches({"status": {"hard": {"pods": "3"}}}, {})
    assert not ev.matches(
        {"spec": {"scopes": ["BestEffort"]}, "status": {"hard": {"configmaps": "3"}}}, {}
    )
    selector = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "Exists"}]}
    assert generic.scope_selectors({"spec": {"scopes": ["Terminating"], "scopeSelector": selector}}) == [
        {"scopeName": "Terminating", "operator": "Exists"}, selector["matchExpressions"][0]]  # fmt: skip


def test_object_count_usage_stats(make_env: MakeEnv) -> None:
    objs = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": n, "namespace": ns}}
            for n, ns in (("a", "ns"), ("b", "ns"), ("c", "other"))]  # fmt: skip
    ev = generic.ObjectCountEvaluator("deployments.apps", make_env(objs))
    got = ev.usage_stats(UsageStatsOptions("ns", [], ["count/deployments.apps"]))
    assert r.to_wire(got) == {"count/deployments.apps": "2"}
    scoped = ev.usage_stats(UsageStatsOptions("ns", ["BestEffort"], ["count/deployments.apps"]))
    assert r.to_wire(scoped) == {"count/deployments.apps": "0"}


def test_core_evaluators(make_env: MakeEnv) -> None:
    names = [e.group_resource for e in registry.evaluators(make_env())]
    assert names == ["pods", "services", "persistentvolumeclaims", "resourceclaims.resource.k8s.io",
                     "configmaps", "replicationcontrollers", "resourcequotas", "secrets"]  # fmt: skip


def test_evaluator_for(make_env: MakeEnv) -> None:
    env = make_env()
    assert type(registry.evaluator_for("pods", env)).__name__ == "PodEvaluator"
    other = registry.evaluator_for("deployments.apps", env)
    assert isinstance(other, generic.ObjectCountEvaluator)
    assert other.resource_names == ("count/deployments.apps",)
    assert registry.evaluator_for("secrets", env).matching_resources(["secrets"]) == ["secrets"]


def test_evaluators_for_hard(make_env: MakeEnv) -> None:
    hard = ["count/deployments.apps", "count/pods", "count/widgets.example.com", "count/events",
            "count/nodes", "count/jobs.batch", "count/bindings", "cpu", "count/"]  # fmt: skip
    extra = [e.group_resource for e in registry.evaluators_for_hard(hard, make_env())][8:]
    assert extra == ["deployments.apps", "jobs.batch"]  # not core, served, namespaced, not ignored
    assert "events.events.k8s.io" in registry.IGNORED_RESOURCES
    assert registry.group_resource_of_count("count/jobs.batch") == "jobs.batch"
    assert registry.group_resource_of_count("jobs") is None

"""The admission policy plugins' per-request caches: the bindings grouped by policy
(``policy_source.PolicyBindings``, rebuilt only when a binding changes) and compiled CEL
programs kept with their compile errors (``policy_cel._compiled``). Each must see a
change at the very next write and report an error the same way every time."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.admission import policy_cel, policy_mutation, policy_source
from reference_impl.apiserver.admission.policy_cel import (
    Activation,
    compile_error,
    evaluate,
)
from reference_impl.apiserver.admission.policy_mutation import evaluate_mutation
from reference_impl.apiserver.admission.policy_source import PolicyBindings, group_bindings
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"
CM_RULES = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]}  # fmt: skip
# Optional-field syntax passes the policy's create-time check (not judged there) but does
# not parse in cel-python: the write-time compile error path.
UNPARSED = "object.?data.orValue({}).size() == 0"


def _cm(name: str, data: Obj | None = None) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}, "data": data or {}}  # fmt: skip


def _vap(c: Cluster, name: str, expression: str, **spec: Any) -> None:
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                  "spec": {"matchConstraints": CM_RULES, "validations": [
                      {"expression": expression, "message": f"{name} says no"}], **spec}})  # fmt: skip


def _vap_binding(c: Cluster, name: str, policy: str) -> None:
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding",
                  "metadata": {"name": name},
                  "spec": {"policyName": policy, "validationActions": ["Deny"]}})  # fmt: skip


def _denial(c: Cluster, name: str) -> list[str] | None:
    """The causes refusing a ConfigMap create, or None when it is admitted."""
    try:
        c.api.create(_cm(name))
    except ApiError as e:
        return [x.message for x in e.causes]
    return None


def _denied(policy: str, binding: str) -> list[str]:
    return [f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: "
            f"{policy} says no"]  # fmt: skip


@pytest.fixture
def groupings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many bindings each rebuild of a grouped view grouped."""
    seen: list[int] = []
    real = policy_source.group_bindings

    def counting(bindings: list[Obj]) -> policy_source.Grouped:
        seen.append(len(bindings))
        return real(bindings)

    monkeypatch.setattr(policy_source, "group_bindings", counting)
    return seen


def test_vap_binding_added_and_removed_between_writes(groupings: list[int]) -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    _vap(c, "deny-a", "false")
    _vap(c, "deny-b", "false")
    assert _denial(c, "unbound") is None
    _vap_binding(c, "bind-b", "deny-b")
    assert _denial(c, "one") == _denied("deny-b", "bind-b")
    assert _denial(c, "one-again") == _denied("deny-b", "bind-b")
    # One rebuild for the unchanged bindings across both writes.
    assert groupings == [1]
    _vap_binding(c, "bind-a", "deny-a")  # sorts first: its policy's denial comes first
    assert _denial(c, "two") == _denied("deny-a", "bind-a")
    assert groupings == [1, 2]
    c.api.delete(V1, "ValidatingAdmissionPolicyBinding", "bind-a")
    assert _denial(c, "three") == _denied("deny-b", "bind-b")
    c.api.delete(V1, "ValidatingAdmissionPolicyBinding", "bind-b")
    assert _denial(c, "four") is None


def test_vap_binding_and_policy_updates_between_writes() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    _vap(c, "deny-a", "false")
    _vap(c, "deny-b", "false")
    _vap_binding(c, "bind", "deny-a")
    assert _denial(c, "a") == _denied("deny-a", "bind")
    # The binding now names the other policy.
    b = c.api.get(V1, "ValidatingAdmissionPolicyBinding", "bind")
    b["spec"]["policyName"] = "deny-b"
    c.api.update(b)
    assert _denial(c, "b") == _denied("deny-b", "bind")
    # The bound policy itself changes: it now admits.
    p = c.api.get(V1, "ValidatingAdmissionPolicy", "deny-b")
    p["spec"]["validations"][0]["expression"] = "true"
    c.api.update(p)
    assert _denial(c, "c") is None


def test_map_binding_added_and_removed_between_writes() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    mutation = {"patchType": "ApplyConfiguration",
                "applyConfiguration": {"expression": 'Object{data: {"m": "1"}}'}}  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"},
                  "spec": {"matchConstraints": CM_RULES, "mutations": [mutation],
                           "reinvocationPolicy": "Never"}})  # fmt: skip
    assert c.api.create(_cm("before", {"x": "1"}))["data"] == {"x": "1"}
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding",
                  "metadata": {"name": "m"}, "spec": {"policyName": "m"}})  # fmt: skip
    assert c.api.create(_cm("bound", {"x": "1"}))["data"] == {"x": "1", "m": "1"}
    assert c.api.create(_cm("bound-again", {"x": "1"}))["data"] == {"x": "1", "m": "1"}
    c.api.delete(V1, "MutatingAdmissionPolicyBinding", "m")
    assert c.api.create(_cm("after", {"x": "1"}))["data"] == {"x": "1"}


def test_grouped_view_reused_only_for_the_same_objects() -> None:
    a = {"metadata": {"name": "b"}, "spec": {"policyName": "p2"}}
    b = {"metadata": {"name": "a"}, "spec": {"policyName": "p2"}}
    c = {"metadata": {"name": "c"}, "spec": {"policyName": "p1"}}
    memo = PolicyBindings()
    first = memo.grouped([a, b, c])
    assert first == [("p1", [c]), ("p2", [b, a])] == group_bindings([a, b, c])
    assert memo.grouped([a, b, c]) is first
    # An equal but distinct object (a lister without sharing, or a rewritten binding).
    changed = {"metadata": {"name": "a"}, "spec": {"policyName": "p3"}}
    assert memo.grouped([a, changed, c]) == [("p1", [c]), ("p2", [a]), ("p3", [changed])]
    assert memo.grouped([a, c]) == [("p1", [c]), ("p2", [a])]
    assert memo.grouped([]) == []


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The expressions the admission CEL environments parse, in order."""
    seen: list[str] = []
    for env in (policy_cel._ENV, policy_mutation._ENV):
        real = env.compile

        def counting(text: str, real: Any = real) -> Any:
            seen.append(text)
            return real(text)

        monkeypatch.setattr(env, "compile", counting)
    return seen


def test_compile_error_parsed_once_and_reported_identically(parses: list[str]) -> None:
    expr = "object.metadata.name === 'pf-once'"
    first = compile_error(expr)
    assert first.startswith("compilation error: compilation failed: ERROR: <input>: Syntax error: ")
    assert compile_error(expr) == first
    act = Activation({"metadata": {"name": "x"}}, None, {}, None, None)
    got = [evaluate(expr, act).error for _ in range(2)]
    assert got[0] == got[1] and got[0].startswith(f"expression '{expr}' resulted in error: ")
    assert parses == [expr]


def test_variable_compile_error_reported_identically(parses: list[str]) -> None:
    bad = "object.metadata.name === 'pf-var'"
    errors = []
    for _ in range(2):
        act = Activation({"metadata": {"name": "x"}}, None, {}, None, None)
        act.with_variables([("v", bad)])
        errors.append(evaluate("variables.v == 'x'", act).error)
    assert errors[0] == errors[1] and errors[0].startswith(
        "expression 'variables.v == 'x'' resulted in error: "
    )
    assert parses.count(bad) == 1


def test_mutation_compile_error_reported_identically(parses: list[str]) -> None:
    bad = "Object{data: {'pf': 'x'}"
    act = Activation({"metadata": {"name": "x"}}, None, {}, None, None)
    got = [evaluate_mutation(bad, act).error for _ in range(2)]
    assert got[0] == got[1] and got[0].startswith("compilation error: ")
    assert parses.count(bad) == 1


def test_unparsed_validation_denies_identically_every_write() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    _vap(c, "opt", UNPARSED)
    _vap_binding(c, "opt", "opt")
    first = _denial(c, "one")
    assert first is not None and len(first) == 1
    assert first[0].startswith(
        "ValidatingAdmissionPolicy 'opt' with binding 'opt' denied request: compilation error: "
    )
    assert _denial(c, "two") == first

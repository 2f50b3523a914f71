"""The admission policies' per-write CEL inputs (``policy_cel.CelInputs``): the object,
old object, request, params and namespace are converted once per write and shared by
every policy, binding and param, with the verdicts, messages and mutations as before."""

from __future__ import annotations

from typing import Any

import pytest
from celpy.adapter import json_to_cel

from reference_impl.apiserver.admission import mutating_admission_policy, policy_cel
from reference_impl.apiserver.admission.policy_cel import Activation, CelInputs, evaluate
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"
CM_RULES = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]}  # fmt: skip


def _cm(name: str, data: Obj | None = None, labels: Obj | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": "default", "labels": labels or {}}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {}}


@pytest.fixture
def converted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every value ``policy_cel`` and the mutating plugin convert to CEL."""
    seen: list[Any] = []

    def counting(value: Any) -> Any:
        seen.append(value)
        return json_to_cel(value)

    monkeypatch.setattr(policy_cel, "json_to_cel", counting)
    monkeypatch.setattr(mutating_admission_policy, "json_to_cel", counting)
    return seen


def test_inputs_convert_each_source_once(converted: list[Any]) -> None:
    inputs = CelInputs()
    obj, request = {"metadata": {"name": "x"}}, {"operation": "CREATE"}
    ns = {"metadata": {"name": "default", "uid": "u"}, "spec": {}}
    acts = [Activation(obj, None, request, None, ns, inputs=inputs) for _ in range(3)]
    assert [evaluate("object.metadata.name", a).value for a in acts] == ["x"] * 3
    assert (
        evaluate("request.operation + namespaceObject.metadata.name", acts[2]).value
        == "CREATEdefault"
    )
    # The object, None (oldObject and params), the request and the namespace's subset.
    assert len(converted) == 4
    Activation(obj, None, dict(request), None, ns, inputs=inputs)  # another request: converted
    assert len(converted) == 5


def test_inputs_versioned_copy_made_once() -> None:
    inputs = CelInputs()
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": "h"}, "spec": {"maxReplicas": 3}}  # fmt: skip
    gvk = ("autoscaling", "v1", "HorizontalPodAutoscaler")
    first = inputs.versioned(hpa, gvk)
    assert first is not None and first["apiVersion"] == "autoscaling/v1"
    assert inputs.versioned(hpa, gvk) is first
    assert hpa["apiVersion"] == "autoscaling/v2"  # the source is left as it was
    assert inputs.versioned(hpa, ("autoscaling", "v2", "HorizontalPodAutoscaler")) is hpa


def _policy(c: Cluster, name: str, expression: str, message_expression: str = "") -> None:
    v: Obj = {"expression": expression}
    if message_expression:
        v["messageExpression"] = message_expression
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                  "spec": {"failurePolicy": "Fail", "matchConstraints": CM_RULES,
                           "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                           "validations": [v]}})  # fmt: skip


def _binding(c: Cluster, name: str, policy: str) -> None:
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
                  "spec": {"policyName": policy, "validationActions": ["Deny"],
                           "paramRef": {"selector": {"matchLabels": {"p": "y"}}, "namespace": "default",
                                        "parameterNotFoundAction": "Allow"}}})  # fmt: skip


def test_vap_shares_the_write_object_across_bindings_and_params(converted: list[Any]) -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    for i in range(3):
        c.api.create(_cm(f"s{i}", {"bad": f"bad{i}"}, {"p": "y"}))
    for i in range(2):
        _policy(
            c,
            f"p{i}",
            "object.metadata.name != params.data.bad",
            "'denied by ' + params.metadata.name",
        )
        for j in range(2):
            _binding(c, f"p{i}-b{j}", f"p{i}")
    converted.clear()
    c.api.create(_cm("fine"))
    # 2 policies x 2 bindings x 3 params = 12 evaluations; the object and each param are
    # converted once.
    names = [
        v["metadata"]["name"]
        for v in converted
        if isinstance(v, dict) and v.get("kind") == "ConfigMap"
    ]
    assert sorted(names) == ["fine", "s0", "s1", "s2"]
    with pytest.raises(ApiError) as e:
        c.api.create(_cm("bad1"))
    assert [x.message for x in e.value.causes] == [
        "ValidatingAdmissionPolicy 'p0' with binding 'p0-b0' denied request: denied by s1"
    ]


def test_map_mutations_see_each_patched_object() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"},
                  "spec": {"failurePolicy": "Fail", "reinvocationPolicy": "Never",
                           "matchConstraints": CM_RULES, "mutations": [
                               {"patchType": "JSONPatch", "jsonPatch": {"expression":
                                   "[JSONPatch{op: 'add', path: '/data/a', value: string(size(object.data))}]"}},
                               {"patchType": "JSONPatch", "jsonPatch": {"expression":
                                   "[JSONPatch{op: 'add', path: '/data/b', value: string(size(object.data))}]"}},
                               {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
                                   "Object{data: {'c': string(size(object.data)) + (oldObject == null ? '-new' : '-old')}}"}},
                           ]}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "mb"},
                  "spec": {"policyName": "m"}})  # fmt: skip
    out = c.api.create(_cm("x", {"z": "1"}))
    assert out["data"] == {"z": "1", "a": "1", "b": "2", "c": "3-new"}

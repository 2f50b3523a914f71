"""The ValidatingAdmissionPolicy admission plugin through the reference apiserver, after
apiserver pkg/admission/plugin/policy/validating admission_test.go (the Test* scenarios) and
validator_test.go ``TestValidate`` rows. Upstream's fake compilers and matchers become real
CEL expressions and match rules with the same outcome; row ids are upstream's names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.apiserver.admission import policy_matching as pm
from reference_impl.apiserver.admission.validating_admission_policy import policy_error
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"
POLICY = "denypolicy.example.com"
BINDING = "denybinding.example.com"
DENY = [{"expression": "false", "message": "Denied"}]
CM_RULES = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]}  # fmt: skip
SORRY = "Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com': "  # fmt: skip


def _denied(msg: str) -> str:
    return f"ValidatingAdmissionPolicy '{POLICY}' with binding '{BINDING}' denied request: {msg}"


@dataclass(frozen=True)
class Row:
    policy: Obj
    binding: Obj = field(default_factory=lambda: {"validationActions": ["Deny"]})
    # The denial's (code, reason, cause message), or None: admitted.
    want: tuple[int, str, str] | None = None
    warnings: tuple[str, ...] = ()
    name: str = "cm"
    namespace: str = "default"
    labels: Obj = field(default_factory=dict)
    extra: tuple[Obj, ...] = ()
    kind: str = "ConfigMap"


def _policy(validations: list[Obj], **spec: Any) -> Obj:
    return {"matchConstraints": CM_RULES, "validations": validations, **spec}


def _cm(name: str, ns: str = "default", labels: Obj | None = None, data: Obj | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": ns, "labels": labels or {}}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {}}


PARAM_KIND = {"apiVersion": "v1", "kind": "ConfigMap"}
ROWS: dict[str, Row] = {
    # admission_test.go
    "TestBasicPolicyDefinitionFailure": Row(_policy(DENY), want=(422, "Invalid", _denied("Denied"))),
    "TestDefinitionDoesntMatch/nomatch": Row(
        _policy(DENY, matchConstraints={"resourceRules": [{**CM_RULES["resourceRules"][0], "resourceNames": ["should-match"]}]}),
        name="nomatch",
    ),
    "TestDefinitionDoesntMatch/match": Row(
        _policy(DENY, matchConstraints={"resourceRules": [{**CM_RULES["resourceRules"][0], "resourceNames": ["should-match"]}]}),
        name="should-match", want=(422, "Invalid", _denied("Denied")),
    ),
    "TestInvalidParamSourceGVK": Row(
        _policy(DENY, paramKind={"apiVersion": "example.com/v1", "kind": "BadParamKind"}),
        binding={"validationActions": ["Deny"], "paramRef": {"name": "replicas-test.example.com", "parameterNotFoundAction": "Deny"}},
        want=(422, "Invalid", f"ValidatingAdmissionPolicy '{POLICY}' denied request: failed to configure policy: "
              "failed to find resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'"),
    ),
    "TestInvalidParamSourceInstanceName": Row(
        _policy(DENY, paramKind=PARAM_KIND),
        binding={"validationActions": ["Deny"], "paramRef": {"name": "replicas-test1.example.com", "parameterNotFoundAction": "Deny"}},
        want=(422, "Invalid", _denied("failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")),
    ),
    "TestInvalidParamSourceInstanceName/allow": Row(
        _policy(DENY, paramKind=PARAM_KIND),
        binding={"validationActions": ["Deny"], "paramRef": {"name": "replicas-test1.example.com", "parameterNotFoundAction": "Allow"}},
    ),
    "TestEmptyParamRef": Row(_policy(DENY, paramKind=PARAM_KIND), want=(422, "Invalid", _denied("Denied"))),
    "TestEmptyParamSource": Row(_policy(DENY), want=(422, "Invalid", _denied("Denied"))),
    "TestNativeTypeParam": Row(
        _policy([{"expression": "params.data.deny != 'yes'", "message": "Denied"}], paramKind=PARAM_KIND),
        binding={"validationActions": ["Deny"], "paramRef": {"name": "params", "namespace": "default", "parameterNotFoundAction": "Deny"}},
        extra=(_cm("params", data={"deny": "yes"}),), want=(422, "Invalid", _denied("Denied")),
    ),
    "TestAuditValidationAction": Row(_policy(DENY), binding={"validationActions": ["Audit"]}),
    "TestWarnValidationAction": Row(
        _policy([{"expression": "false", "message": "I'm sorry Dave"}]), binding={"validationActions": ["Warn"]},
        warnings=(SORRY + "I'm sorry Dave",),
    ),
    # Upstream's row binds Deny, Warn and Audit at once, which the API refuses (Deny with Warn).
    "TestAllValidationActions": Row(
        _policy([{"expression": "false", "message": "I'm sorry Dave"}]),
        binding={"validationActions": ["Deny", "Audit"]}, want=(422, "Invalid", _denied("I'm sorry Dave")),
    ),
    "TestNamespaceParamRefName": Row(
        _policy([{"expression": "params.metadata.namespace == object.metadata.namespace", "message": "wrong ns"}], paramKind=PARAM_KIND),
        binding={"validationActions": ["Deny"], "paramRef": {"name": "params", "parameterNotFoundAction": "Deny"}},
        extra=(_cm("params"),),
    ),
    "TestParamRef/selector-none-allow": Row(
        _policy(DENY, paramKind=PARAM_KIND),
        binding={"validationActions": ["Deny"], "paramRef": {"selector": {"matchLabels": {"param": "x"}}, "parameterNotFoundAction": "Allow"}},
    ),
    "TestParamRef/selector-match": Row(
        _policy([{"expression": "params.data.v == 'ok'", "message": "bad param"}], paramKind=PARAM_KIND),
        binding={"validationActions": ["Deny"], "paramRef": {"selector": {"matchLabels": {"param": "x"}}, "parameterNotFoundAction": "Allow"}},
        extra=(_cm("p1", labels={"param": "x"}, data={"v": "ok"}), _cm("p2", labels={"param": "x"}, data={"v": "no"})),
        want=(422, "Invalid", _denied("bad param")),
    ),
    "TestNamespaceParamRefClusterScopedParamError": Row(
        {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["namespaces"]}]},
         "validations": DENY, "paramKind": PARAM_KIND},
        binding={"validationActions": ["Deny"], "paramRef": {"name": "params", "parameterNotFoundAction": "Allow"}},
        kind="Namespace", name="newns",
        want=(422, "Invalid", _denied("failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")),
    ),
    # validator_test.go TestValidate
    "test pass": Row(_policy([{"expression": "true"}])),
    "test error with failurepolicy ignore": Row(_policy([{"expression": "object.spec.missing == 1"}], failurePolicy="Ignore")),
    "test error with failurepolicy nil": Row(
        _policy([{"expression": "object.nosuch == 1"}]),
        want=(422, "Invalid", _denied("expression 'object.nosuch == 1' resulted in error: no such key: nosuch")),
    ),
    "test fail with failurepolicy ignore with multiple validations": Row(
        _policy([{"expression": "true"}, {"expression": "false", "message": "Denied"}], failurePolicy="Ignore"),
        want=(422, "Invalid", _denied("Denied")),
    ),
    "test reason for fail no reason set": Row(_policy([{"expression": "false"}]), want=(422, "Invalid", _denied("failed expression: false"))),
    "test reason for fail reason set": Row(
        _policy([{"expression": "false", "reason": "Forbidden"}]), want=(403, "Forbidden", _denied("failed expression: false")),
    ),
    "test reason for failed validations multiple validations": Row(
        _policy([{"expression": "false", "reason": "Forbidden"}, {"expression": "false", "reason": "RequestEntityTooLarge"}]),
        want=(403, "Forbidden", _denied("failed expression: false")),
    ),
    "test reason RequestEntityTooLarge": Row(
        _policy([{"expression": "false", "reason": "RequestEntityTooLarge"}]), want=(413, "RequestEntityTooLarge", _denied("failed expression: false")),
    ),
    "test message for failed validations": Row(
        _policy([{"expression": " 1 == 2 ", "message": " test1 "}]), want=(422, "Invalid", _denied("test1")),
    ),
    "messageExpression successful, empty message": Row(
        _policy([{"expression": "false", "messageExpression": "'evaluated message'"}]), want=(422, "Invalid", _denied("evaluated message")),
    ),
    "messageExpression successful, overwritten message": Row(
        _policy([{"expression": "false", "message": "no", "messageExpression": "'name: ' + object.metadata.name"}]),
        want=(422, "Invalid", _denied("name: cm")),
    ),
    "messageExpression user failure": Row(
        _policy([{"expression": "false", "message": "test1", "messageExpression": "object.nosuch"}]), want=(422, "Invalid", _denied("test1")),
    ),
    "messageExpression eval to empty": Row(
        _policy([{"expression": "false", "message": "test1", "messageExpression": "'   '"}]), want=(422, "Invalid", _denied("test1")),
    ),
    "messageExpression eval to multi-line": Row(
        _policy([{"expression": "false", "message": "test1", "messageExpression": "'hello\\nthere'"}]), want=(422, "Invalid", _denied("test1")),
    ),
    "messageExpression eval result too long": Row(
        _policy([{"expression": "false", "message": "test1", "messageExpression": "'" + "a" * 5121 + "'"}]),
        want=(422, "Invalid", _denied("test1")),
    ),
    "messageExpression eval to null": Row(
        _policy([{"expression": "false", "message": "test1", "messageExpression": "null"}]), want=(422, "Invalid", _denied("test1")),
    ),
    "non-bool expression is a compile error": Row(
        _policy([{"expression": "1"}]),
        want=(422, "Invalid", _denied("compilation error: must evaluate to bool but got int")),
    ),
    "non-bool expression ignored with failurepolicy ignore": Row(
        _policy([{"expression": "'s'"}], failurePolicy="Ignore"),
    ),
    "messageExpression eval just within limit": Row(
        _policy([{"expression": "false", "message": "test1", "messageExpression": "'" + "a" * 5120 + "'"}]),
        want=(422, "Invalid", _denied("a" * 5120)),
    ),
    "no match surpresses failure": Row(
        _policy([{"expression": "object.nosuch == 1"}], matchConditions=[{"name": "m", "expression": "false"}]),
    ),
    "match error => presumed match": Row(
        _policy([{"expression": "true"}], matchConditions=[{"name": "m", "expression": "object.nosuch == 1"}]),
        want=(422, "Invalid", _denied("expression 'object.nosuch == 1' resulted in error: no such key: nosuch")),
    ),
    "match error ignored with failurepolicy ignore": Row(
        _policy(DENY, failurePolicy="Ignore", matchConditions=[{"name": "m", "expression": "object.nosuch == 1"}]),
    ),
    # policy/matching matching_test.go: selectors and exclusions through the plugin
    "namespace selector does not match": Row(
        _policy(DENY), binding={"validationActions": ["Deny"], "matchResources": {"namespaceSelector": {"matchLabels": {"a": "b"}}}},
    ),
    "object selector matches": Row(
        _policy(DENY, matchConstraints={**CM_RULES, "objectSelector": {"matchLabels": {"deny": "1"}}}),
        labels={"deny": "1"}, want=(422, "Invalid", _denied("Denied")),
    ),
    "object selector does not match": Row(
        _policy(DENY, matchConstraints={**CM_RULES, "objectSelector": {"matchLabels": {"deny": "1"}}}),
    ),
    "excluded resource": Row(
        _policy(DENY, matchConstraints={**CM_RULES, "excludeResourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["configmaps"], "resourceNames": ["cm"]}]}),
    ),
    "operation does not match": Row(
        _policy(DENY, matchConstraints={"resourceRules": [{**CM_RULES["resourceRules"][0], "operations": ["UPDATE"]}]}),
    ),
    "scope Cluster does not match namespaced": Row(
        _policy(DENY, matchConstraints={"resourceRules": [{**CM_RULES["resourceRules"][0], "scope": "Cluster"}]}),
    ),
    "binding without policy": Row(_policy(DENY), binding={"validationActions": ["Deny"], "policyName": "other"}),
    "variables": Row(
        _policy([{"expression": "variables.n == 'cm'", "messageExpression": "'got ' + variables.n"}],
                variables=[{"name": "n", "expression": "object.metadata.name + 'x'"}]),
        want=(422, "Invalid", _denied("got cmx")),
    ),
    "request and namespaceObject": Row(
        _policy([{"expression": "request.operation == 'CREATE' && request.resource.resource == 'configmaps' "
                                "&& namespaceObject.metadata.name == 'default' && oldObject == null"}]),
    ),
}  # fmt: skip


def _apply(c: Cluster, row: Row) -> tuple[ApiError | None, tuple[str, ...]]:
    api = c.api
    for extra in row.extra:
        api.create(extra)
    api.create(
        {
            "apiVersion": V1,
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": POLICY},
            "spec": row.policy,
        }
    )
    api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": BINDING},
                "spec": {"policyName": POLICY, **row.binding}})  # fmt: skip
    if row.kind == "Namespace":
        obj: Obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": row.name}}
    else:
        obj = _cm(row.name, row.namespace, row.labels)
    try:
        api.create(obj)
    except ApiError as e:
        return e, ()
    return None, tuple(api.warnings)


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_validating_admission_policy(row: Row) -> None:
    err, warnings = _apply(Cluster(config=ClusterConfig(nodes=0)), row)
    if row.want is None:
        assert err is None, err
        assert warnings == row.warnings
        return
    assert err is not None, "expected a denial"
    code, reason, message = row.want
    assert (err.code, err.reason, [c.message for c in err.causes]) == (code, reason, [message])


def test_denial_message_is_upstream_forbidden_text() -> None:
    """dispatcher.go: ``admission.NewForbidden``'s text, whatever the reason."""
    row = ROWS["test reason for fail reason set"]
    err, _ = _apply(Cluster(config=ClusterConfig(nodes=0)), row)
    assert err is not None
    assert err.message == f'configmaps "cm" is forbidden: {_denied("failed expression: false")}'


def test_removed_binding_and_definition_admit() -> None:
    """TestRemoveBinding / TestRemoveDefinition: once either is gone the policy no longer applies."""
    c = Cluster(config=ClusterConfig(nodes=0))
    err, _ = _apply(c, ROWS["TestBasicPolicyDefinitionFailure"])
    assert err is not None
    c.api.delete(V1, "ValidatingAdmissionPolicyBinding", BINDING)
    c.api.create(_cm("after-binding"))
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": BINDING},
                  "spec": {"policyName": POLICY, "validationActions": ["Deny"]}})  # fmt: skip
    with pytest.raises(ApiError):
        c.api.create(_cm("denied-again"))
    c.api.delete(V1, "ValidatingAdmissionPolicy", POLICY)
    c.api.create(_cm("after-definition"))


def test_update_sees_old_object() -> None:
    """An UPDATE binds oldObject (a transition rule)."""
    c = Cluster(config=ClusterConfig(nodes=0))
    c.api.create(_cm("cm", data={"v": "1"}))
    rule = {
        "expression": "oldObject == null || object.data.v == oldObject.data.v",
        "message": "immutable",
    }
    _apply(c, Row(_policy([rule]), name="other"))
    cm = c.api.get("v1", "ConfigMap", "cm", "default")
    cm["data"] = {"v": "2"}
    with pytest.raises(ApiError) as exc:
        c.api.update(cm)
    assert [x.message for x in exc.value.causes] == [_denied("immutable")]


@pytest.mark.parametrize(
    ("reason", "code"),
    [("Forbidden", 403), ("Unauthorized", 401), ("RequestEntityTooLarge", 413), ("Invalid", 422), ("", 422), ("Other", 422)],
)  # fmt: skip
def test_reason_to_code(reason: str, code: int) -> None:
    """policy_decision.go ``reasonToCode`` (an empty reason is Invalid)."""
    err = policy_error("deployments.apps", "d", "m", reason)
    assert (err.code, err.reason) == (code, reason or "Invalid")
    assert [c.message for c in err.causes] == ["m"]


def _attrs(
    resource: str = "pods", sub: str = "", ns: str = "default", name: str = "p"
) -> pm.Attributes:
    return pm.Attributes(
        "CREATE", ("", "v1", resource), ("", "v1", "Pod"), sub, name, ns, {}, None, {}
    )


@pytest.mark.parametrize(
    ("resources", "scope", "attrs", "want"),
    [
        (["*"], None, _attrs(), True),
        (["*"], None, _attrs(sub="status"), False),
        (["*/*"], None, _attrs(sub="status"), True),
        (["pods/*"], None, _attrs(sub="status"), True),
        (["*/status"], None, _attrs(sub="status"), True),
        (["pods/status"], None, _attrs(), False),
        (["pods"], "Namespaced", _attrs(), True),
        (["pods"], "Cluster", _attrs(), False),
        (["namespaces"], "Cluster", _attrs("namespaces", ns="x"), True),
        (["namespaces"], "Namespaced", _attrs("namespaces", ns="x"), False),
    ],
)  # fmt: skip
def test_rule_matching(
    resources: list[str], scope: str | None, attrs: pm.Attributes, want: bool
) -> None:
    """predicates/rules rules_test.go: resource/subresource wildcards and scope."""
    rule: dict[str, Any] = {
        "apiGroups": ["*"],
        "apiVersions": ["*"],
        "operations": ["*"],
        "resources": resources,
    }
    if scope:
        rule["scope"] = scope
    assert pm.matches({"resourceRules": [rule]}, attrs)[0] is want


@pytest.mark.parametrize(
    ("policy", "want"), [("Equivalent", True), ("Exact", False), (None, False)]
)
def test_match_policy_equivalent(policy: str | None, want: bool) -> None:
    """matching_test.go: a v1 rule matches a v2 request only under matchPolicy Equivalent
    (the API default; unset here means Exact), naming the rule's version as the matched resource and kind."""
    a = pm.Attributes(
        "CREATE", ("autoscaling", "v2", "horizontalpodautoscalers"),
        ("autoscaling", "v2", "HorizontalPodAutoscaler"), "", "h", "default", {}, None, {},
    )  # fmt: skip
    rule = {"apiGroups": ["autoscaling"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["horizontalpodautoscalers"]}  # fmt: skip
    criteria: dict[str, Any] = {"resourceRules": [rule]}
    if policy:
        criteria["matchPolicy"] = policy
    ok, gvr, gvk = pm.matches(criteria, a)
    assert ok is want
    if want:
        assert (gvr, gvk) == (
            ("autoscaling", "v1", "horizontalpodautoscalers"),
            ("autoscaling", "v1", "HorizontalPodAutoscaler"),
        )

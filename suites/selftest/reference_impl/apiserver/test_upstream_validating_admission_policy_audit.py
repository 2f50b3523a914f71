"""ValidatingAdmissionPolicy's audit annotations, ``request.userInfo`` and ``authorizer``
through the reference apiserver, after apiserver pkg/admission/plugin/policy/validating
admission_test.go (TestBasicPolicyDefinitionFailure, TestAuditValidationAction,
TestWarnValidationAction, TestAllValidationActions, TestAuditAnnotations) and
validator_test.go ``TestValidate``'s audit annotation rows. Upstream's fake compilers
become real CEL expressions with the same outcome; the recorded annotations are
``APIServer.audit_annotations``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reference_impl.apiserver.admission.policy_audit import (
    ERROR,
    EXCLUDE,
    FAILURE_KEY,
    PUBLISH,
    evaluate_audit_annotations,
)
from reference_impl.apiserver.admission.policy_cel import Activation, request_of
from reference_impl.apiserver.admission.validating_admission_policy import validate_policy
from reference_impl.apiserver.user_info import UserInfo
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
V1 = "admissionregistration.k8s.io/v1"
CM_RULES = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]}  # fmt: skip
DAVE = [{"expression": "false", "message": "I'm sorry Dave"}]
PARAM_KIND = {"apiVersion": "v1", "kind": "ConfigMap"}


def _cluster() -> Cluster:
    return Cluster(config=ClusterConfig(nodes=0))


def _policy(c: Cluster, name: str, **spec: Any) -> None:
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                  "spec": {"matchConstraints": CM_RULES, **spec}})  # fmt: skip


def _binding(c: Cluster, name: str, policy: str, actions: list[str], **spec: Any) -> None:
    c.api.create({"apiVersion": V1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
                  "spec": {"policyName": policy, "validationActions": actions, **spec}})  # fmt: skip


def _cm(name: str, data: Obj | None = None) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": data or {}}  # fmt: skip


def _create(c: Cluster, obj: Obj) -> ApiError | None:
    try:
        c.api.create(obj)
    except ApiError as e:
        return e
    return None


def test_basic_policy_definition_failure() -> None:
    """TestBasicPolicyDefinitionFailure: a Deny binding refuses and records nothing."""
    c = _cluster()
    _policy(c, "denypolicy.example.com", validations=[{"expression": "false", "message": "Denied"}])
    _binding(c, "denybinding.example.com", "denypolicy.example.com", ["Deny"])
    err = _create(c, _cm("cm"))
    assert err is not None and "Denied" in err.message
    assert c.api.audit_annotations == {}


def test_audit_validation_action() -> None:
    """TestAuditValidationAction: two Audit bindings admit, warn nothing and record both
    failures in one validation_failure annotation."""
    c = _cluster()
    _policy(c, "denypolicy1.example.com", validations=DAVE)
    _policy(c, "denypolicy2.example.com", validations=[{"expression": "false", "message": "I can't do that"}])
    _binding(c, "denybinding1.example.com", "denypolicy1.example.com", ["Audit"])
    _binding(c, "denybinding2.example.com", "denypolicy2.example.com", ["Audit"])
    assert _create(c, _cm("cm")) is None
    assert c.api.warnings == []
    annotations = c.api.audit_annotations
    assert list(annotations) == [FAILURE_KEY]
    value = json.loads(annotations[FAILURE_KEY])
    expected = [
        {"expressionIndex": 0, "message": "I'm sorry Dave", "validationActions": ["Audit"],
         "binding": "denybinding1.example.com", "policy": "denypolicy1.example.com"},
        {"expressionIndex": 0, "message": "I can't do that", "validationActions": ["Audit"],
         "binding": "denybinding2.example.com", "policy": "denypolicy2.example.com"},
    ]  # fmt: skip
    assert sorted(value, key=str) == sorted(expected, key=str)


def test_warn_validation_action() -> None:
    """TestWarnValidationAction: one warning, no annotation."""
    c = _cluster()
    _policy(c, "denypolicy.example.com", validations=DAVE)
    _binding(c, "denybinding.example.com", "denypolicy.example.com", ["Warn"])
    assert _create(c, _cm("cm")) is None
    assert c.api.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with binding "
        "'denybinding.example.com': I'm sorry Dave"
    ]
    assert c.api.audit_annotations == {}


def test_all_validation_actions() -> None:
    """TestAllValidationActions: upstream binds Deny, Warn and Audit, which the API refuses
    (Deny with Warn); with Deny and Audit the request is refused and the failure recorded,
    in the struct's field order, actions as bound."""
    c = _cluster()
    _policy(c, "denypolicy.example.com", validations=DAVE)
    _binding(c, "denybinding.example.com", "denypolicy.example.com", ["Deny", "Audit"])
    err = _create(c, _cm("cm"))
    assert err is not None and "I'm sorry Dave" in err.message
    assert c.api.audit_annotations == {
        FAILURE_KEY: '[{"message":"I\'m sorry Dave","policy":"denypolicy.example.com",'
        '"binding":"denybinding.example.com","expressionIndex":0,"validationActions":["Deny","Audit"]}]'
    }


def test_audit_annotations() -> None:
    """TestAuditAnnotations: three bindings with three params; the published key joins its
    distinct values, the excluded one is left out, the failing one refuses the request."""
    c = _cluster()
    for name in ("replicas-test.example.com", "replicas-test2.example.com", "replicas-test3.example.com"):
        c.api.create(_cm(name))
    special = "params.metadata.name == 'replicas-test2.example.com' ? 'special-value' : 'normal-value'"
    _policy(c, "denypolicy.example.com", paramKind=PARAM_KIND, auditAnnotations=[
        {"key": "example-key", "valueExpression": special},
        {"key": "excluded-key", "valueExpression": "null"},
        {"key": "error-key", "valueExpression": "object.metadata.nosuch"},
    ])  # fmt: skip
    for b, p in (("denybinding.example.com", "replicas-test.example.com"),
                 ("denybinding2.example.com", "replicas-test2.example.com"),
                 ("denybinding3.example.com", "replicas-test3.example.com")):  # fmt: skip
        _binding(c, b, "denypolicy.example.com", ["Deny"],
                 paramRef={"name": p, "namespace": "default", "parameterNotFoundAction": "Deny"})  # fmt: skip
    err = _create(c, _cm("cm"))
    assert err is not None
    assert "expression 'object.metadata.nosuch' resulted in error: no such key: nosuch" in err.message
    annotations = c.api.audit_annotations
    assert list(annotations) == ["denypolicy.example.com/example-key"]
    assert sorted(annotations["denypolicy.example.com/example-key"].split(", ")) == ["normal-value", "special-value"]


def test_audit_annotations_of_last_request_only() -> None:
    """Each write starts with no annotations; a later admitted write without failures has none."""
    c = _cluster()
    _policy(c, "p.example.com", validations=[{"expression": "object.metadata.name != 'bad'"}])
    _binding(c, "b.example.com", "p.example.com", ["Audit"])
    assert _create(c, _cm("bad")) is None
    assert FAILURE_KEY in c.api.audit_annotations
    assert _create(c, _cm("good")) is None
    assert c.api.audit_annotations == {}


def _validator_act() -> Activation:
    request = request_of(op="CREATE", kind=("", "v1", "ConfigMap"), resource=("", "v1", "configmaps"),
                         request_kind=("", "v1", "ConfigMap"), request_resource=("", "v1", "configmaps"),
                         subresource="", name="cm", namespace="default")  # fmt: skip
    return Activation(_cm("cm"), None, request, None, None)


# validator_test.go TestValidate: (validations, audit annotations, failure policy, want
# decisions' deny flags, want annotations as (action, value, error prefix)).
AUDIT_ROWS: dict[str, tuple[list[Obj], list[Obj], str, list[bool], list[tuple[str, str, str]]]] = {
    "test empty validations with non-empty audit annotations": (
        [], [{"key": "k", "valueExpression": "'string value'"}], "Fail", [], [(PUBLISH, "string value", "")]),
    "test non-empty validations with non-empty audit annotations": (
        [{"expression": "true", "reason": "Forbidden", "message": "test1"}],
        [{"key": "k", "valueExpression": "'string value'"}], "Fail", [False], [(PUBLISH, "string value", "")]),
    "test audit annotations with null return": (
        [], [{"key": "a", "valueExpression": "null"}, {"key": "b", "valueExpression": "'string value'"}], "Fail",
        [], [(EXCLUDE, "", ""), (PUBLISH, "string value", "")]),
    "test audit annotations with failPolicy=fail": (
        [], [{"key": "k", "valueExpression": "'this is not valid CEL"}], "Fail", [], [(ERROR, "", "compilation error: ")]),
    "test audit annotations with failPolicy=ignore": (
        [], [{"key": "k", "valueExpression": "'this is not valid CEL"}], "Ignore", [], [(EXCLUDE, "", "compilation error: ")]),
    # validator.go: a blank string is excluded; a non-string is an unsupported return type.
    "blank value excluded": ([], [{"key": "k", "valueExpression": "'   '"}], "Fail", [], [(EXCLUDE, "", "")]),
    "unsupported return type": (
        [], [{"key": "k", "valueExpression": "object.data.size()"}], "Fail", [],
        [(ERROR, "", "valueExpression 'object.data.size()' resulted in unsupported return type: int. "
                     "Return type must be either string or null.")]),
}  # fmt: skip


@pytest.mark.parametrize("row", AUDIT_ROWS.values(), ids=AUDIT_ROWS.keys())
def test_validate_audit_annotations(
    row: tuple[list[Obj], list[Obj], str, list[bool], list[tuple[str, str, str]]],
) -> None:
    validations, audits, fail, want_deny, want = row
    policy = {"metadata": {"name": "p"}, "spec": {"validations": validations, "auditAnnotations": audits,
                                                  "failurePolicy": fail}}  # fmt: skip
    decisions, annotations = validate_policy(policy, _validator_act())
    assert [d.deny for d in decisions] == want_deny
    got = [(a.action, a.value) for a in annotations]
    assert got == [(w[0], w[1]) for w in want]
    for a, w in zip(annotations, want, strict=True):
        assert a.error.startswith(w[2]) and bool(a.error) == bool(w[2])
    assert annotations == evaluate_audit_annotations(policy, _validator_act())


def test_match_condition_false_skips_audit_annotations() -> None:
    """validator.go: unmatched match conditions return an empty result, annotations too."""
    policy = {"metadata": {"name": "p"}, "spec": {
        "matchConditions": [{"name": "m", "expression": "false"}],
        "auditAnnotations": [{"key": "k", "valueExpression": "'v'"}]}}  # fmt: skip
    assert validate_policy(policy, _validator_act()) == ([], [])


# request.userInfo and authorizer through the apiserver (condition.go
# CreateAdmissionRequest, activation.go's authorizer bindings).
ALICE = UserInfo("alice", uid="u-1", groups=("devs", "system:authenticated"), extra={"scopes": ("a", "b")})


def test_user_info_from_request_user() -> None:
    c = _cluster()
    rule = ("request.userInfo.username == 'alice' && request.userInfo.uid == 'u-1' && "
            "request.userInfo.groups == ['devs', 'system:authenticated'] && "
            "request.userInfo.extra.scopes == ['a', 'b']")  # fmt: skip
    _policy(c, "p.example.com", validations=[{"expression": rule}])
    _binding(c, "b.example.com", "p.example.com", ["Deny"])
    c.api.user = ALICE
    assert _create(c, _cm("by-alice")) is None
    c.api.user = UserInfo("bob")
    err = _create(c, _cm("by-bob"))
    assert err is not None


def test_user_info_empty_without_user() -> None:
    """No user: ``userInfo`` is ``{}`` (every field omitempty)."""
    c = _cluster()
    _policy(c, "p.example.com", validations=[{"expression": "request.userInfo == {}"}])
    _binding(c, "b.example.com", "p.example.com", ["Deny"])
    assert _create(c, _cm("cm")) is None


def _rbac(c: Cluster) -> None:
    c.api.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                  "metadata": {"name": "cm-writer", "namespace": "default"},
                  "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"],
                             "resourceNames": ["special"]}]})  # fmt: skip
    c.api.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                  "metadata": {"name": "cm-writer", "namespace": "default"},
                  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-writer"},
                  "subjects": [{"kind": "User", "name": "alice"}]})  # fmt: skip


@pytest.mark.parametrize(
    ("user", "name", "admitted"),
    [(ALICE, "special", True), (ALICE, "other", False), (UserInfo("bob"), "special", False),
     (UserInfo("root", groups=("system:masters",)), "other", True), (None, "special", False)],
)  # fmt: skip
def test_authorizer_request_resource_against_rbac(user: UserInfo | None, name: str, admitted: bool) -> None:
    """``authorizer.requestResource`` checks the request's own resource and name for the
    request's user against the stored RBAC (the privileged group allowed outright)."""
    c = _cluster()
    _rbac(c)
    _policy(c, "p.example.com", matchConditions=[{"name": "m", "expression": "authorizer.requestResource.check('create').allowed() == false"}],
            validations=[{"expression": "false", "message": "not allowed"}])  # fmt: skip
    _binding(c, "b.example.com", "p.example.com", ["Deny"])
    c.api.user = user
    err = _create(c, _cm(name))
    assert (err is None) is admitted


def test_authorizer_reason_and_message_expression() -> None:
    """A validation reads the decision; a messageExpression has no ``authorizer``: the API
    refuses one naming it, and a variable reading it fails there (each expression kind
    composes the variables anew), so the message falls back to ``message``."""
    c = _cluster()
    _rbac(c)
    check = "authorizer.group('').resource('configmaps').namespace('default').name('special').check('create')"
    with pytest.raises(ApiError, match="undeclared reference to 'authorizer'"):
        _policy(c, "bad.example.com", validations=[{"expression": "true", "messageExpression": f"{check}.reason()"}])
    _policy(c, "p.example.com", variables=[{"name": "why", "expression": f"{check}.reason()"}], validations=[
        {"expression": "variables.why == 'no'", "message": "static", "messageExpression": "variables.why"},
        {"expression": "variables.why == 'no'", "messageExpression": "'why: ' + variables.why"},
    ])  # fmt: skip
    _binding(c, "b.example.com", "p.example.com", ["Warn"])
    c.api.user = ALICE
    assert _create(c, _cm("cm")) is None
    prefix = "Validation failed for ValidatingAdmissionPolicy 'p.example.com' with binding 'b.example.com': "
    assert c.api.warnings == [prefix + "static", prefix + "failed expression: variables.why == 'no'"]


def test_audit_annotation_and_user_on_delete() -> None:
    """On DELETE the policy sees the deleting user and records its annotations."""
    c = _cluster()
    rules = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["configmaps"]}]}  # fmt: skip
    _policy(c, "p.example.com", matchConstraints=rules,
            auditAnnotations=[{"key": "who", "valueExpression": "request.userInfo.username"}])  # fmt: skip
    _binding(c, "b.example.com", "p.example.com", ["Deny"])
    c.api.create(_cm("cm"))
    assert c.api.audit_annotations == {}
    c.api.user = ALICE
    assert c.api.delete("v1", "ConfigMap", "cm", "default") is None
    assert c.api.audit_annotations == {"p.example.com/who": "alice"}


def test_mutating_policy_not_run_on_delete() -> None:
    """mutating/plugin.go handles CREATE, UPDATE and CONNECT only, and delete.go runs only
    validating admission: a DELETE-matching mutation that would fail leaves DELETE alone."""
    c = _cluster()
    rules = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]}  # fmt: skip
    bad = {"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'remove', path: '/data/missing'}]"}}
    c.api.create(_cm("cm"))
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"},
                  "spec": {"matchConstraints": rules, "mutations": [bad], "reinvocationPolicy": "Never"}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "m"},
                  "spec": {"policyName": "m"}})  # fmt: skip
    with pytest.raises(ApiError):
        c.api.create(_cm("refused"))  # the mutation does fail where it runs
    assert c.api.delete("v1", "ConfigMap", "cm", "default") is None


def test_mutating_policy_sees_user_and_authorizer() -> None:
    """MutatingAdmissionPolicy binds ``authorizer`` and ``request.userInfo`` too
    (mutating compilation.go ``HasAuthorizer``)."""
    c = _cluster()
    patch = ("Object{metadata: Object.metadata{labels: {'by': request.userInfo.username, "
             "'master': string(authorizer.group('x').resource('y').check('z').allowed())}}}")  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"},
                  "spec": {"matchConstraints": CM_RULES, "reinvocationPolicy": "Never",
                           "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": patch}}]}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "m"},
                  "spec": {"policyName": "m"}})  # fmt: skip
    c.api.user = UserInfo("root", groups=("system:masters",))
    c.api.create(_cm("cm"))
    assert c.api.get("v1", "ConfigMap", "cm", "default")["metadata"]["labels"] == {"by": "root", "master": "true"}


def test_mutating_policy_sees_the_dry_run() -> None:
    """MutatingAdmissionPolicy's ``request.dryRun`` is the write's (``Attributes.IsDryRun``
    in the request its compilation reads)."""
    c = _cluster()
    patch = "Object{metadata: Object.metadata{labels: {'dry': string(request.dryRun)}}}"
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"},
                  "spec": {"matchConstraints": CM_RULES, "reinvocationPolicy": "Never",
                           "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": patch}}]}})  # fmt: skip
    c.api.create({"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "m"},
                  "spec": {"policyName": "m"}})  # fmt: skip
    dry = c.api.create(_cm("cm"), dry_run=True)
    assert dry is not None and dry["metadata"]["labels"] == {"dry": "true"}
    c.api.create(_cm("cm"))
    assert c.api.get("v1", "ConfigMap", "cm", "default")["metadata"]["labels"] == {"dry": "false"}

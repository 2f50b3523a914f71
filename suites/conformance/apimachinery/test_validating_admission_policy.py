"""API machinery conformance: ValidatingAdmissionPolicy enforcement (GA, on by default).

A policy bound with ``Deny`` refuses a matching write with upstream's text
(k8s.io/apiserver pkg/admission/plugin/policy/validating dispatcher.go): ``<resource>
"<name>" is forbidden: ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied
request: <message>``, with the validation's reason and its code (policy_decision.go
``reasonToCode``; no reason: 422 Invalid, the text as its one cause). A ``Warn`` binding
admits the write with ``Validation failed for ValidatingAdmissionPolicy '<policy>' with
binding '<binding>': <message>``.

Policies and bindings are cluster-scoped: the names carry the test's namespace, and every
policy matches only ConfigMaps labelled ``garhwal-vap`` in that namespace. Upstream applies
a new binding once its policy informer has it, so the first refusal is polled for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest

from fixtures import Target
from fixtures.helpers.eventually import eventually
from fixtures.targets.extensions import write_warnings_of
from reference_impl.errors import ApiError, Forbidden, Invalid, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
V1: Final = "admissionregistration.k8s.io/v1"
LABEL: Final = "garhwal-vap"
REFUSED: Final = "configmaps labelled garhwal-vap=deny are refused"


def _match(namespace: str) -> Obj:
    return {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        "objectSelector": {"matchExpressions": [{"key": LABEL, "operator": "Exists"}]},
        "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]}],
    }  # fmt: skip


def _policy(name: str, namespace: str, validations: list[Obj]) -> Obj:
    spec = {
        "failurePolicy": "Fail",
        "matchConstraints": _match(namespace),
        "validations": validations,
    }
    return {
        "apiVersion": V1,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def _binding(name: str, policy: str, namespace: str, action: str) -> Obj:
    spec = {
        "policyName": policy,
        "validationActions": [action],
        "matchResources": _match(namespace),
    }
    return {
        "apiVersion": V1,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": spec,
    }


def _cm(name: str, namespace: str, value: str) -> Obj:
    meta = {"name": name, "namespace": namespace, "labels": {LABEL: value}}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


@pytest.fixture
def policies(target: Target, namespace: str) -> Iterator[tuple[str, str]]:
    """A Deny policy+binding and a Warn policy+binding for this test's namespace; deleted after."""
    deny, warn = f"garhwal-vap-deny-{namespace}", f"garhwal-vap-warn-{namespace}"
    objs = [
        _policy(deny, namespace, [
            {"expression": f"object.metadata.labels['{LABEL}'] != 'deny'", "message": REFUSED, "reason": "Forbidden"},
            {"expression": f"object.metadata.labels['{LABEL}'] != 'invalid'"},
        ]),
        _binding(deny, deny, namespace, "Deny"),
        _policy(warn, namespace, [
            {"expression": f"object.metadata.labels['{LABEL}'] != 'warn'", "messageExpression": "'warned: ' + object.metadata.name"},
        ]),
        _binding(warn, warn, namespace, "Warn"),
    ]  # fmt: skip
    try:
        for obj in objs:
            target.apply(obj)
        yield deny, warn
    finally:
        for obj in reversed(objs):
            try:
                target.delete(V1, obj["kind"], obj["metadata"]["name"])
            except NotFound:
                pass


def _refusal(target: Target, obj: Obj) -> ApiError:
    """The error of writing ``obj`` once the binding applies (polled: informer delay)."""
    seen: list[ApiError] = []

    def check() -> str:
        try:
            target.apply(obj)
        except (Forbidden, Invalid) as e:
            seen.append(e)
            return ""
        return "admitted"

    eventually(target, check, 30, f"refusal of {obj['metadata']['name']}")
    return seen[-1]


def test_a_deny_binding_refuses_with_the_validations_reason(
    target: Target, namespace: str, policies: tuple[str, str]
) -> None:
    """ValidatingAdmissionPolicy, Deny.

    A ConfigMap failing a validation with reason Forbidden MUST be refused 403 Forbidden
    with ``configmaps "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding
    '<b>' denied request: <message>``; one failing a validation without a reason MUST be
    refused 422 Invalid whose one cause is that denial, naming ``failed expression: <expr>``;
    a ConfigMap passing every validation MUST be admitted.
    """
    deny, _ = policies
    err = _refusal(target, _cm("denied", namespace, "deny"))
    assert isinstance(err, Forbidden), err
    prefix = f"ValidatingAdmissionPolicy '{deny}' with binding '{deny}' denied request: "
    assert (err.code, err.message) == (403, f'configmaps "denied" is forbidden: {prefix}{REFUSED}')
    with pytest.raises(Invalid) as exc:
        target.apply(_cm("invalid", namespace, "invalid"))
    expr = f"object.metadata.labels['{LABEL}'] != 'invalid'"
    assert exc.value.code == 422
    assert [c.message for c in exc.value.causes] == [f"{prefix}failed expression: {expr}"]
    target.apply(_cm("fine", namespace, "fine"))
    assert target.get("v1", "ConfigMap", "fine", namespace)["metadata"]["labels"] == {LABEL: "fine"}


def test_a_warn_binding_admits_with_a_warning(
    target: Target, namespace: str, policies: tuple[str, str]
) -> None:
    """ValidatingAdmissionPolicy, Warn.

    A ConfigMap failing a validation bound with Warn MUST be admitted with the warning
    ``Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>``,
    the message from the validation's messageExpression.
    """
    reader = write_warnings_of(target)
    if reader is None:
        pytest.skip(f"target {target.name!r} does not read its writes' Warning headers")
    _, warn = policies
    want = f"Validation failed for ValidatingAdmissionPolicy '{warn}' with binding '{warn}': warned: warned"

    def check() -> str:
        target.apply(_cm("warned", namespace, "warn"))
        got = reader.last_write_warnings()
        return "" if want in got else f"warnings {got}"

    eventually(target, check, 30, "the Warn binding's warning")
    assert target.get("v1", "ConfigMap", "warned", namespace)["metadata"]["labels"] == {
        LABEL: "warn"
    }

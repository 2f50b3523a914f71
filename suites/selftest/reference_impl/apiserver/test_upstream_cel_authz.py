"""The CEL authz library (apiserver pkg/cel/library/authz.go) through the admission CEL
evaluation, after apiserver pkg/admission/plugin/cel condition_test.go ``TestFilter``'s
authorizer rows (their fakeAuthorizer: allow one exact AttributesRecord, else a default)
and authz.go's documented errors. Row ids are upstream's names."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest

from reference_impl.api.meta import Requirement
from reference_impl.apiserver.admission.policy_cel import Activation, evaluate, request_of
from reference_impl.apiserver.cel_authz import (
    ALLOW,
    DENY,
    NO_OPINION,
    Authorizer,
    AuthzDecision,
    Record,
    authorizer_value,
    rbac,
)
from reference_impl.apiserver.user_info import UserInfo

Obj = dict[str, Any]


def _allow_match(match: Record) -> Authorizer:
    """``newAuthzAllowMatch``: Allow for exactly ``match``, else Deny."""
    return lambda r: AuthzDecision(ALLOW) if r == match else AuthzDecision(DENY)


DENY_ALL: Authorizer = lambda r: AuthzDecision(DENY, "fake reason")  # noqa: E731
ERROR_ALL: Authorizer = lambda r: AuthzDecision(NO_OPINION, "", "fake authz error")  # noqa: E731
# endpointCreateAttributes / endpointStatusUpdateAttributes: (group, resource, sub, ns, name).
ENDPOINT_CREATE = ("", "endpoints", "", "default", "endpoints1")
ENDPOINT_STATUS = ("", "endpoints", "status", "default", "endpoints1")


@dataclass(frozen=True)
class Row:
    expressions: tuple[str, ...]
    want: tuple[Any, ...]
    authorizer: Authorizer
    request: tuple[str, str, str, str, str] | None = None
    user: UserInfo | None = None
    skip: str = ""


_RES = Record(resource_request=True, resource="endpoints", verb="create", api_version="*")
_DEPLOY = Record(resource_request=True, api_group="apps", resource="deployments", subresource="status",
                 namespace="test", name="backend", verb="create", api_version="*")  # fmt: skip
ROWS: dict[str, Row] = {
    "test authorizer allow resource check": Row(
        ("authorizer.group('').resource('endpoints').check('create').allowed()",
         "authorizer.group('').resource('endpoints').check('create').errored()"),
        (True, False), _allow_match(_RES),
    ),
    "test authorizer allow resource check with all fields": Row(
        ("authorizer.group('apps').resource('deployments').fieldSelector('foo=bar').labelSelector('apple=banana')"
         ".subresource('status').namespace('test').name('backend').check('create').allowed()",),
        (True,),
        _allow_match(replace(_DEPLOY, field_requirements=(("=", "foo", "bar"),),
                             label_requirements=(Requirement("apple", "=", ("banana",)),))),
    ),
    "test authorizer allow resource check with parse failures": Row(
        ("authorizer.group('apps').resource('deployments').fieldSelector('foo badoperator bar')"
         ".labelSelector('apple badoperator banana').subresource('status').namespace('test').name('backend')"
         ".check('create').allowed()",),
        (True,), DENY_ALL,
        skip="labels.ParseToRequirements' lexer error text is not modelled (the reference's label "
             "parser words its errors otherwise; RBAC ignores selectors)",
    ),
    "test authorizer not allowed resource check one incorrect field": Row(
        ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test')"
         ".name('backend').check('create').allowed()",),
        (False,),
        _allow_match(Record(resource_request=True, api_group="apps", resource="deployments-xxxx",
                            subresource="status", namespace="test", name="backend", verb="create",
                            api_version="*")),
    ),
    "test authorizer reason": Row(
        ("authorizer.group('').resource('endpoints').check('create').reason() == 'fake reason'",), (True,), DENY_ALL,
    ),
    "test authorizer error": Row(
        ("authorizer.group('').resource('endpoints').check('create').errored()",
         "authorizer.group('').resource('endpoints').check('create').error() == 'fake authz error'",
         "authorizer.group('').resource('endpoints').check('create').allowed()"),
        (True, True, False), ERROR_ALL,
    ),
    "test authorizer allow path check": Row(
        ("authorizer.path('/healthz').check('get').allowed()",), (True,),
        _allow_match(Record(path="/healthz", verb="get")),
    ),
    "test authorizer decision is denied path check": Row(
        ("authorizer.path('/healthz').check('get').allowed() == false",), (True,), DENY_ALL,
    ),
    "test request resource authorizer allow check": Row(
        ("authorizer.requestResource.check('custom-verb').allowed()",), (True,),
        _allow_match(Record(resource_request=True, resource="endpoints", namespace="default",
                            name="endpoints1", verb="custom-verb", api_version="*")),
        request=ENDPOINT_CREATE,
    ),
    "test subresource request resource authorizer allow check": Row(
        ("authorizer.requestResource.check('custom-verb').allowed()",), (True,),
        _allow_match(Record(resource_request=True, resource="endpoints", subresource="status",
                            namespace="default", name="endpoints1", verb="custom-verb", api_version="*")),
        request=ENDPOINT_STATUS,
    ),
    "test serviceAccount authorizer allow check": Row(
        ("authorizer.serviceAccount('default', 'test-serviceaccount').group('').resource('endpoints')"
         ".namespace('default').name('endpoints1').check('custom-verb').allowed()",),
        (True,),
        _allow_match(Record(
            user=UserInfo("system:serviceaccount:default:test-serviceaccount",
                          groups=("system:serviceaccounts", "system:serviceaccounts:default")),
            resource_request=True, resource="endpoints", namespace="default", name="endpoints1",
            verb="custom-verb", api_version="*")),
        request=ENDPOINT_CREATE,
    ),
    # authz.go's documented errors ("results in ... error").
    "authz.go path: empty path": Row(
        ("authorizer.path('').check('get').allowed()", "authorizer.path('  ').check('get').allowed()"),
        ("path must not be empty", "path must not be empty"), DENY_ALL,
    ),
    "authz.go resource: empty resource": Row(
        ("authorizer.group('apps').resource('').check('get').allowed()",
         "authorizer.group('apps').resource('  ').check('get').allowed()"),
        ("resource must not be empty", "resource must not be empty"), DENY_ALL,
    ),
    "authz.go serviceAccount: invalid names": Row(
        ("authorizer.serviceAccount('not@a#valid!namespace', 'validname').path('/x').check('get').allowed()",
         "authorizer.serviceAccount('valid.example.com', 'invalid@*name').path('/x').check('get').allowed()"),
        ("Invalid service account namespace", "Invalid service account name"), DENY_ALL,
    ),
    "authz.go subresource/name: empty means unset": Row(
        ("authorizer.group('').resource('pods').subresource('').name('').check('list').allowed()",),
        (True,), _allow_match(Record(resource_request=True, resource="pods", verb="list", api_version="*")),
    ),
}  # fmt: skip


def _activation(row: Row) -> Activation:
    request = request_of(
        op="CREATE", kind=("", "v1", "Endpoints"), resource=("", "v1", "endpoints"),
        request_kind=("", "v1", "Endpoints"), request_resource=("", "v1", "endpoints"),
        subresource="", name="endpoints1", namespace="default", user=row.user,
    )  # fmt: skip
    obj = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "endpoints1"}}
    authz = authorizer_value(row.user, row.authorizer, row.request)
    return Activation(obj, None, request, None, None, authz)


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_authz_library(row: Row) -> None:
    if row.skip:
        pytest.skip(row.skip)
    act = _activation(row)
    for expr, want in zip(row.expressions, row.want, strict=True):
        res = evaluate(expr, act)
        if isinstance(want, str):
            assert res.error == f"expression '{expr}' resulted in error: {want}"
        else:
            assert (res.error, res.value) == ("", want), expr


def test_no_authorizer_bound() -> None:
    """Where no authorizer is bound (messageExpression, auditAnnotations) reading it fails."""
    request = request_of(op="CREATE", kind=("", "v1", "Pod"), resource=("", "v1", "pods"),
                         request_kind=("", "v1", "Pod"), request_resource=("", "v1", "pods"),
                         subresource="", name="p", namespace="default")  # fmt: skip
    res = evaluate("authorizer.path('/healthz').check('get').allowed()", Activation({}, None, request, None, None))
    assert res.error


def _rbac_store(objs: list[Obj]) -> Authorizer:
    def get(api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
        return next((o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name
                     and o["metadata"].get("namespace") == ns), None)  # fmt: skip

    def list_(api_version: str, kind: str, ns: str | None) -> list[Obj]:
        return [o for o in objs if o["kind"] == kind and (ns is None or o["metadata"].get("namespace") == ns)]

    return rbac(get, list_)


@pytest.mark.parametrize(
    ("user", "expr", "want"),
    [
        (UserInfo("alice"), "authorizer.group('').resource('pods').namespace('ns1').check('get').allowed()", True),
        (UserInfo("alice"), "authorizer.group('').resource('pods').namespace('ns2').check('get').allowed()", False),
        (UserInfo("alice"), "authorizer.group('').resource('pods').namespace('ns1').check('delete').allowed()", False),
        (UserInfo("bob", groups=("readers",)), "authorizer.group('').resource('pods').namespace('ns1').check('list').allowed()", True),
        (UserInfo("root", groups=("system:masters",)), "authorizer.group('x').resource('y').check('z').allowed()", True),
        (UserInfo("alice"), "authorizer.group('').resource('pods').namespace('ns1').check('get').reason()",
         'RBAC: allowed by RoleBinding "read/ns1" of Role "reader" to User "alice"'),
        (None, "authorizer.serviceAccount('ns1', 'sa').group('').resource('pods').namespace('ns1').check('get').allowed()", True),
        (UserInfo("alice"), "authorizer.requestResource.check('get').allowed()", True),
    ],
)  # fmt: skip
def test_rbac_backed_checks(user: UserInfo | None, expr: str, want: Any) -> None:
    """``rbac``: the checks go to the reference's RBAC chain with the request's user (or the
    serviceAccount's)."""
    role = {"kind": "Role", "metadata": {"name": "reader", "namespace": "ns1"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}
    binding = {"kind": "RoleBinding", "metadata": {"name": "read", "namespace": "ns1"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
               "subjects": [{"kind": "User", "name": "alice"}, {"kind": "Group", "name": "readers"},
                            {"kind": "ServiceAccount", "name": "sa", "namespace": "ns1"}]}  # fmt: skip
    row = Row((expr,), (want,), _rbac_store([role, binding]), ("", "pods", "", "ns1", "p"), user)
    res = evaluate(expr, _activation(row))
    assert (res.error, res.value) == ("", want)

"""The RBAC authorizer behind access reviews, after upstream v1.37.2's tables:
``plugin/pkg/auth/authorizer/rbac/rbac_test.go`` (``TestAuthorizer``, ``TestRuleMatches``),
``pkg/registry/rbac/validation/rule_test.go`` (``TestDefaultRuleResolver``,
``TestAppliesTo``) and the ``pkg/apis/rbac/v1`` evaluation helpers; plus the union
chain (system:masters, reasons, missing roles) and the review's status."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.rbac_authorizer import (
    Attributes,
    aggregate_error,
    applies_to,
    authorize,
    non_resource_url_matches,
    resource_matches,
    rule_allows,
    rules_for,
)
from reference_impl.apiserver.rbac_bootstrap import bootstrap_objects
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
RBAC = "rbac.authorization.k8s.io"


def _rule(verbs: str, groups: str = "", resources: str = "", urls: str = "", names: str = "") -> Obj:
    if urls:
        return {"verbs": verbs.split(","), "nonResourceURLs": urls.split(",")}
    rule: Obj = {"verbs": verbs.split(","), "apiGroups": groups.split(","), "resources": resources.split(",")}
    if names:
        rule["resourceNames"] = names.split(",")
    return rule


def _subjects(*specs: str) -> list[Obj]:
    out = []
    for s in specs:
        kind, _, name = s.partition(":")
        if kind == "ServiceAccount":
            ns, _, sa = name.partition("/")
            out.append({"kind": kind, "namespace": ns, "name": sa})
        else:
            out.append({"kind": kind, "apiGroup": RBAC, "name": name})
    return out


class _Static:
    """``StaticRoles``: getters and listers over fixed objects."""

    def __init__(self, *objs: Obj) -> None:
        self.objs = list(objs)

    def get(self, api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
        return next((o for o in self.objs if o["kind"] == kind and o["metadata"]["name"] == name
                     and o["metadata"].get("namespace") == ns), None)  # fmt: skip

    def list(self, api_version: str, kind: str, ns: str | None) -> list[Obj]:
        return [o for o in self.objs if o["kind"] == kind and o["metadata"].get("namespace") == ns]


def _cr(name: str, *rules: Obj) -> Obj:
    return {"kind": "ClusterRole", "metadata": {"name": name}, "rules": list(rules)}


def _role(ns: str, name: str, *rules: Obj) -> Obj:
    return {"kind": "Role", "metadata": {"name": name, "namespace": ns}, "rules": list(rules)}


def _crb(name: str, role: str, *subjects: str) -> Obj:
    return {"kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"kind": "ClusterRole", "name": role}, "subjects": _subjects(*subjects)}  # fmt: skip


def _rb(ns: str, name: str, ref: str, *subjects: str) -> Obj:
    kind, _, role = ref.partition(":")
    return {"kind": "RoleBinding", "metadata": {"name": name, "namespace": ns},
            "roleRef": {"kind": kind, "name": role}, "subjects": _subjects(*subjects)}  # fmt: skip


def _res(user: str, groups: str, verb: str, resource: str, sub: str = "", ns: str = "", group: str = "") -> Attributes:
    return Attributes(user, tuple(g for g in groups.split(",") if g), verb=verb, resource=resource,
                      subresource=sub, namespace=ns, api_group=group)  # fmt: skip


def _url(user: str, groups: str, verb: str, path: str) -> Attributes:
    return Attributes(user, tuple(g for g in groups.split(",") if g), resource_request=False, verb=verb, path=path)


def _allowed(static: _Static, attrs: Attributes) -> bool:
    return authorize(attrs, static.get, static.list).allowed


# -- TestAuthorizer -------------------------------------------------------------------

_T0 = _Static(_cr("admin", _rule("*", "*", "*")), _rb("ns1", "admin", "ClusterRole:admin", "User:admin", "Group:admins"))
_T1 = _Static(
    _cr("non-resource-url-getter", _rule("get", urls="/apis")),
    _cr("non-resource-url", _rule("*", urls="/apis")),
    _cr("non-resource-url-prefix", _rule("get", urls="/apis/*")),
    _crb("non-resource-url-getter", "non-resource-url-getter", "User:foo", "Group:bar"),
    _crb("non-resource-url", "non-resource-url", "User:admin", "Group:admin"),
    _crb("non-resource-url-prefix", "non-resource-url-prefix", "User:prefixed", "Group:prefixed"),
)
_T2 = _Static(_cr("admin", _rule("*", "*", "pods")), _rb("ns1", "admin", "ClusterRole:admin", "User:admin", "Group:admins"))
_T3 = _Static(_cr("admin", _rule("*", "*", "pods/status"), _rule("*", "*", "*/scale")),
              _rb("ns1", "admin", "ClusterRole:admin", "User:admin", "Group:admins"))  # fmt: skip

AUTHORIZER = [
    (_T0, _res("admin", "", "get", "Pods", ns="ns1"), True),
    (_T0, _res("admin", "", "watch", "Pods", ns="ns1"), True),
    (_T0, _res("admin", "group1", "watch", "Foobar", ns="ns1"), True),
    (_T0, _res("joe", "admins", "watch", "Foobar", ns="ns1"), True),
    (_T0, _res("joe", "group1,admins", "watch", "Foobar", ns="ns1"), True),
    (_T0, _res("admin", "", "GET", "Pods", ns="ns2"), False),
    (_T0, _res("admin", "", "GET", "Nodes"), False),
    (_T0, _res("admin", "admins", "GET", "Pods", ns="ns2"), False),
    (_T0, _res("admin", "admins", "GET", "Nodes"), False),
    (_T1, _url("foo", "", "get", "/apis"), True),
    (_T1, _url("", "bar", "get", "/apis"), True),
    (_T1, _url("admin", "", "get", "/apis"), True),
    (_T1, _url("", "admin", "get", "/apis"), True),
    (_T1, _url("admin", "", "watch", "/apis"), True),
    (_T1, _url("", "admin", "watch", "/apis"), True),
    (_T1, _url("prefixed", "", "get", "/apis/v1"), True),
    (_T1, _url("", "prefixed", "get", "/apis/v1"), True),
    (_T1, _url("prefixed", "", "get", "/apis/v1/foobar"), True),
    (_T1, _url("", "prefixed", "get", "/apis/v1/foorbar"), True),
    (_T1, _url("foo", "", "watch", "/apis"), False),
    (_T1, _url("", "bar", "watch", "/apis"), False),
    (_T1, _url("foo", "", "get", "/api/v1"), False),
    (_T1, _url("", "bar", "get", "/api/v1"), False),
    (_T1, _url("admin", "", "get", "/api/v1"), False),
    (_T1, _url("", "admin", "get", "/api/v1"), False),
    (_T1, _url("prefixed", "", "get", "/api/v1"), False),
    (_T1, _url("", "prefixed", "get", "/api/v1"), False),
    (_T2, _res("admin", "", "get", "pods", ns="ns1"), True),
    (_T2, _res("admin", "", "get", "pods", "status", ns="ns1"), False),
    (_T3, _res("admin", "", "get", "pods", "status", ns="ns1"), True),
    (_T3, _res("admin", "", "get", "pods", "scale", ns="ns1"), True),
    (_T3, _res("admin", "", "get", "deployments", "scale", ns="ns1"), True),
    (_T3, _res("admin", "", "get", "anything", "scale", ns="ns1"), True),
    (_T3, _res("admin", "", "get", "pods", ns="ns1"), False),
]


@pytest.mark.parametrize(("static", "attrs", "allowed"), AUTHORIZER)
def test_authorizer(static: _Static, attrs: Attributes, allowed: bool) -> None:
    assert _allowed(static, attrs) is allowed


# -- TestRuleMatches ------------------------------------------------------------------

_G = [("verb1", "group1", "resource1"), ("verb1", "group2", "resource1"), ("verb1", "group1", "resource2"),
      ("verb1", "group2", "resource2"), ("verb2", "group1", "resource1"), ("verb2", "group2", "resource1"),
      ("verb2", "group1", "resource2"), ("verb2", "group2", "resource2")]  # fmt: skip
_URLS = ["/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one"]
_NOTFOO = ["/notfoo", "/notfoo/bar", "/notfoo/baz", "/notfoo/bar/one", "/notfoo/baz/one"]
_SUBS = [("group1", "resource1", "subresource1"), ("group2", "resource1", "subresource2"),
         ("group1", "resource2", "subresource1"), ("group2", "resource2", "subresource1")]  # fmt: skip


def _matches() -> list[tuple[str, Obj, Attributes, bool]]:
    def res(rule: Obj, expect: str, name: str) -> list[tuple[str, Obj, Attributes, bool]]:
        return [(name, rule, _res("", "", v, r, group=g), e == "1") for (v, g, r), e in zip(_G, expect, strict=True)]

    out = res(_rule("*", "group1", "resource1"), "10001000", "star verb, exact match other")
    out += res(_rule("verb1", "*", "resource1"), "11000000", "star group, exact match other")
    out += res(_rule("verb1", "group1", "*"), "10100000", "star resource, exact match other")
    out += res(_rule("verb1,verb2", "group1,group2", "resource1,resource2"), "11111111", "tuple expansion")
    sub = _rule("*", "*", "resource1/subresource1")
    out += [("subresource expansion", sub, _res("", "", v, r, s, group=g), e == "1")
            for v in ("verb1", "verb2") for (g, r, s), e in zip(_SUBS, "1000", strict=True)]  # fmt: skip
    star = _rule("verb1", urls="*")
    out += [("star nonresource", star, _url("", "", v, u), v == "verb1") for v in ("verb1", "verb2") for u in _URLS]
    subpath = _rule("verb1", urls="/foo/*")
    out += [("star nonresource subpath", subpath, _url("", "", "verb1", u), e == "1")
            for u, e in zip(_URLS + _NOTFOO, "0111100000", strict=True)]  # fmt: skip
    exact = _rule("*", urls="/foo,/foo/bar/one")
    out += [("star verb, exact nonresource", exact, _url("", "", v, u), e == "1")
            for v in ("verb1", "verb2") for u, e in zip(_URLS, "10010", strict=True)]  # fmt: skip
    return out


@pytest.mark.parametrize(("name", "rule", "attrs", "allowed"), _matches())
def test_rule_matches(name: str, rule: Obj, attrs: Attributes, allowed: bool) -> None:
    assert rule_allows(attrs, rule) is allowed, name


# -- the pkg/apis/rbac/v1 helpers' edges ------------------------------------------------


@pytest.mark.parametrize(
    ("resources", "combined", "sub", "want"),
    [
        (["*"], "pods", "", True),
        (["*/scale"], "deployments/scale", "scale", True),
        (["*/scale"], "scale", "", False),  # needs a subresource
        (["*/scale"], "pods/xscale", "xscale", False),  # length must be exact
        (["pods/*"], "pods/status", "status", False),  # no resource/* wildcard
        (["pods/status"], "pods/status", "status", True),
        (["pods"], "pods/status", "status", False),
    ],
)
def test_resource_matches(resources: list[str], combined: str, sub: str, want: bool) -> None:
    assert resource_matches({"resources": resources}, combined, sub) is want


@pytest.mark.parametrize(
    ("urls", "path", "want"),
    [(["/foo*"], "/foobar", True), (["/foo*"], "/foo", True), (["/foo*"], "/fo", False),
     (["*"], "/x", True), (["/foo"], "/foo/", False), (["/foo/**"], "/foo/x", True)],
)  # fmt: skip
def test_non_resource_url_matches(urls: list[str], path: str, want: bool) -> None:
    assert non_resource_url_matches({"nonResourceURLs": urls}, path) is want


def test_resource_names() -> None:
    rule = _rule("get", "", "configmaps", names="a")
    attrs = _res("", "", "get", "configmaps")
    assert rule_allows(Attributes(verb="get", resource="configmaps", name="a"), rule)
    assert not rule_allows(Attributes(verb="get", resource="configmaps", name="b"), rule)
    assert not rule_allows(attrs, rule)  # a request with no name is not a named one


# -- TestDefaultRuleResolver ------------------------------------------------------------

_READ_PODS = _rule("GET,WATCH", "v1", "pods")
_READ_SVC = _rule("GET,WATCH", "v1", "services")
_ADMIN = _rule("*", "*", "*")
_STATIC1 = _Static(
    _role("namespace1", "readthings", _READ_PODS, _READ_SVC),
    _cr("cluster-admin", _ADMIN),
    _cr("write-nodes", _rule("PUT,CREATE,UPDATE", "v1", "nodes")),
    _rb("namespace1", "rb", "Role:readthings", "User:foobar", "Group:group1"),
    _crb("crb", "cluster-admin", "User:admin", "Group:admin"),
)


@pytest.mark.parametrize(
    ("attrs", "want"),
    [
        (Attributes("foobar", namespace="namespace1"), [_READ_PODS, _READ_SVC]),
        (Attributes("foobar", namespace="namespace2"), []),
        (Attributes("foobar", ("admin",)), [_ADMIN]),
        (Attributes(), []),
    ],
)
def test_default_rule_resolver(attrs: Attributes, want: list[Obj]) -> None:
    assert rules_for(attrs, _STATIC1.get, _STATIC1.list) == (want, "")


# -- TestAppliesTo ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subjects", "attrs", "ns", "index"),
    [
        (["User:foobar"], Attributes("foobar"), "", 0),
        (["User:barfoo", "User:foobar"], Attributes("foobar"), "", 1),
        (["User:barfoo", "User:foobar"], Attributes("zimzam"), "", None),
        (["User:barfoo", "Group:foobar"], Attributes("zimzam", ("foobar",)), "", 1),
        (["User:barfoo", "Group:foobar"], Attributes("zimzam", ("foobar",)), "namespace1", 1),
        (["User:barfoo", "Group:foobar", "ServiceAccount:kube-system/default"],
         Attributes("system:serviceaccount:kube-system:default"), "default", 2),
        (["User:*"], Attributes("foobar"), "default", None),
        (["Group:system:authenticated", "Group:system:unauthenticated"],
         Attributes("foobar", ("system:authenticated",)), "default", 0),
        (["Group:system:authenticated", "Group:system:unauthenticated"],
         Attributes("system:anonymous", ("system:unauthenticated",)), "default", 1),
        # a ServiceAccount subject without a namespace takes the binding's, none at cluster scope
        (["ServiceAccount:/sa"], Attributes("system:serviceaccount:default:sa"), "default", 0),
        (["ServiceAccount:/sa"], Attributes("system:serviceaccount:default:sa"), "", None),
    ],
)  # fmt: skip
def test_applies_to(subjects: list[str], attrs: Attributes, ns: str, index: int | None) -> None:
    assert applies_to(attrs, _subjects(*subjects), ns) == index


# -- the union chain and reasons --------------------------------------------------------


def test_reasons() -> None:
    d = authorize(_res("admin", "", "get", "Pods", ns="ns1"), _T0.get, _T0.list)
    assert d.reason == 'RBAC: allowed by RoleBinding "admin/ns1" of ClusterRole "admin" to User "admin"'
    missing = _Static(_crb("m", "gone", "User:u"), _rb("ns1", "r", "Role:gone-role", "User:u"))
    d = authorize(_res("u", "", "get", "pods"), missing.get, missing.list)
    assert (d.allowed, d.reason) == (False, 'rbac: RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found')
    d = authorize(_res("u", "", "get", "pods", ns="ns1"), missing.get, missing.list)
    assert d.reason == ('rbac: RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, '
                        'role.rbac.authorization.k8s.io "gone-role" not found]')  # fmt: skip
    assert authorize(_res("x", "system:masters", "delete", "nodes"), missing.get, missing.list) == authorize(
        _url("", "system:masters", "get", "/x"), missing.get, missing.list
    )
    assert authorize(_res("x", "system:masters", "delete", "nodes"), missing.get, missing.list).reason == ""


def test_aggregate_error() -> None:
    assert aggregate_error([]) == ""
    assert aggregate_error(["a"]) == "a"
    assert aggregate_error(["a", "a"]) == "a"
    assert aggregate_error(["a", "b", "a"]) == "[a, b]"


def _with_bootstrap(*objs: Obj, without: str = "") -> _Static:
    """The bootstrap policy the apiserver stores at start, plus ``objs`` (less ``without``)."""
    boot = [o for _, o in bootstrap_objects() if o["metadata"]["name"] != without]
    return _Static(*boot, *objs)


def test_bootstrap_policy() -> None:
    boot = _with_bootstrap()
    d = authorize(_url("bob", "system:authenticated", "get", "/apis"), boot.get, boot.list)
    assert d.reason == ('RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole '
                        '"system:discovery" to Group "system:authenticated"')  # fmt: skip
    assert not authorize(_url("bob", "", "get", "/healthz"), boot.get, boot.list).allowed
    # aggregated bootstrap roles: view reads deployments, edit does not bind roles
    viewer = _with_bootstrap(_rb("ns", "v", "ClusterRole:view", "User:v"), _rb("ns", "e", "ClusterRole:edit", "User:e"))
    assert _allowed(viewer, _res("v", "", "list", "deployments", ns="ns", group="apps"))
    assert not _allowed(viewer, _res("v", "", "get", "secrets", ns="ns"))
    assert not _allowed(viewer, _res("e", "", "create", "rolebindings", ns="ns", group=RBAC))
    # a stored role of a bootstrap name replaces it
    shadow = _with_bootstrap(_cr("view"), _rb("ns", "v", "ClusterRole:view", "User:v"), without="view")
    assert not _allowed(shadow, _res("v", "", "get", "pods", ns="ns"))
    # with no policy stored, nothing is allowed (the authorizer reads only the store)
    empty = _Static()
    assert not authorize(_url("bob", "system:authenticated", "get", "/apis"), empty.get, empty.list).allowed


def _server() -> APIServer:
    srv = APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates({}))
    srv.create(make_namespace("default").build())
    return srv


def test_review_status_through_the_server() -> None:
    srv = _server()
    srv.create({"apiVersion": f"{RBAC}/v1", "kind": "ClusterRole", "metadata": {"name": "r"},
                "rules": [_rule("get", "", "pods")]})  # fmt: skip
    srv.create({"apiVersion": f"{RBAC}/v1", "kind": "RoleBinding", "metadata": {"name": "b", "namespace": "default"},
                "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "r"}, "subjects": _subjects("User:u")})  # fmt: skip
    attrs: Obj = {"verb": "get", "resource": "pods", "namespace": "default"}
    spec = {"user": "u", "resourceAttributes": attrs}
    sar = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}
    assert srv.create(sar)["status"] == {
        "allowed": True, "reason": 'RBAC: allowed by RoleBinding "b/default" of ClusterRole "r" to User "u"'}  # fmt: skip
    attrs["fieldSelector"] = {"requirements": [{"key": "a", "operator": "Exists"}]}
    attrs["namespace"] = "other"
    assert srv.create(sar)["status"] == {
        "allowed": False, "evaluationError": "spec.resourceAttributes.fieldSelector ignored due to parse error"}  # fmt: skip
    self_review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                   "spec": {"nonResourceAttributes": {"verb": "get", "path": "/metrics"}}}  # fmt: skip
    assert srv.create(self_review)["status"] == {"allowed": True}  # the caller is the admin, in system:masters

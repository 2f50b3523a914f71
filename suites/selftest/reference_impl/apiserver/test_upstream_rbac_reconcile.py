"""RBAC reconciliation (``rbac_reconcile``) against component-helpers v0.37.2
``auth/rbac/reconciliation``: reconcile_role_test.go (TestComputeReconciledRoleRules,
TestComputeReconciledRoleAggregationRules) and reconcile_rolebindings_test.go
(TestDiffObjectReferenceLists, TestComputeUpdate), one case per row; then the rbac
post-start hook (storage_rbac.go ``ensureRBACPolicy``) reconciling stored bootstrap
objects at the next start."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.rbac_bootstrap import RBAC
from reference_impl.apiserver.rbac_reconcile import (
    Operation,
    compute_reconciled_role,
    compute_reconciled_role_binding,
    diff_subject_lists,
)
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
SS = dict[str, str] | None


def role(rules: list[Obj], labels: SS = None, annotations: SS = None) -> Obj:
    meta: Obj = {}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"metadata": meta, "rules": rules}


def rules(*resources: str) -> list[Obj]:
    return [{"apiGroups": [""], "verbs": ["get"], "resources": [r]} for r in resources]


def aggregated(rule: Obj | None) -> Obj:
    out: Obj = {"metadata": {}}
    if rule is not None:
        out["aggregationRule"] = rule
    return out


def aggregationrule(*selectors: dict[str, str]) -> Obj:
    return {"clusterRoleSelectors": [{"matchLabels": s} for s in selectors]}


def _norm(obj: Obj) -> Obj:
    """``equality.Semantic``: nil and empty lists and maps alike."""
    meta = {k: v for k, v in obj.get("metadata", {}).items() if v}
    out = {k: v for k, v in obj.items() if k != "metadata" and v}
    if "aggregationRule" in obj and obj["aggregationRule"] is not None:
        out["aggregationRule"] = obj["aggregationRule"]
    return {**out, "metadata": meta}


# -- TestComputeReconciledRoleRules ------------------------------------------------------

ROLE_RULE_ROWS = [
    pytest.param(role(rules()), role(rules()), True, None, id="empty"),
    pytest.param(role(rules("a")), role(rules("a")), True, None, id="match without union"),
    pytest.param(role(rules("a")), role(rules("a")), False, None, id="match with union"),
    pytest.param(role(rules("a")), role(rules("b")), True, role(rules("a")), id="different rules without union"),
    pytest.param(role(rules("a")), role(rules("b")), False, role(rules("b", "a")), id="different rules with union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("a"), {"1": "a"}), True, None,
                 id="match labels without union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("a"), {"1": "a"}), False, None,
                 id="match labels with union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("a"), {"2": "b"}), True,
                 role(rules("a"), {"1": "a", "2": "b"}), id="different labels without union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("a"), {"2": "b"}), False,
                 role(rules("a"), {"1": "a", "2": "b"}), id="different labels with union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("b"), {"2": "b"}), True,
                 role(rules("a"), {"1": "a", "2": "b"}), id="different labels and rules without union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("b"), {"2": "b"}), False,
                 role(rules("b", "a"), {"1": "a", "2": "b"}), id="different labels and rules with union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("b"), {"1": "b"}), True,
                 role(rules("a"), {"1": "b"}), id="conflicting labels and rules without union"),
    pytest.param(role(rules("a"), {"1": "a"}), role(rules("b"), {"1": "b"}), False,
                 role(rules("b", "a"), {"1": "b"}), id="conflicting labels and rules with union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("a"), None, {"1": "a"}), True, None,
                 id="match annotations without union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("a"), None, {"1": "a"}), False, None,
                 id="match annotations with union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("a"), None, {"2": "b"}), True,
                 role(rules("a"), None, {"1": "a", "2": "b"}), id="different annotations without union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("a"), None, {"2": "b"}), False,
                 role(rules("a"), None, {"1": "a", "2": "b"}), id="different annotations with union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("b"), None, {"2": "b"}), True,
                 role(rules("a"), None, {"1": "a", "2": "b"}), id="different annotations and rules without union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("b"), None, {"2": "b"}), False,
                 role(rules("b", "a"), None, {"1": "a", "2": "b"}), id="different annotations and rules with union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("b"), None, {"1": "b"}), True,
                 role(rules("a"), None, {"1": "b"}), id="conflicting annotations and rules without union"),
    pytest.param(role(rules("a"), None, {"1": "a"}), role(rules("b"), None, {"1": "b"}), False,
                 role(rules("b", "a"), None, {"1": "b"}), id="conflicting annotations and rules with union"),
    pytest.param(role(rules("a"), {"3": "d"}, {"1": "a"}), role(rules("b"), {"4": "e"}, {"1": "b"}), True,
                 role(rules("a"), {"3": "d", "4": "e"}, {"1": "b"}),
                 id="conflicting labels/annotations and rules without union"),
    pytest.param(role(rules("a"), {"3": "d"}, {"1": "a"}), role(rules("b"), {"4": "e"}, {"1": "b"}), False,
                 role(rules("b", "a"), {"3": "d", "4": "e"}, {"1": "b"}),
                 id="conflicting labels/annotations and rules with union"),
    pytest.param(
        role(rules("pods", "nodes", "secrets"), {"env": "prod", "color": "blue"},
             {"description": "fancy", "system": "true"}),
        role(rules("nodes", "images", "projects"), {"color": "red", "team": "pm"},
             {"system": "false", "owner": "admin", "vip": "yes"}),
        True,
        role(rules("pods", "nodes", "secrets"), {"env": "prod", "color": "red", "team": "pm"},
             {"description": "fancy", "system": "false", "owner": "admin", "vip": "yes"}),
        id="complex labels/annotations and rules without union"),
    pytest.param(
        role(rules("pods", "nodes", "secrets"), {"env": "prod", "color": "blue", "manager": "randy"},
             {"description": "fancy", "system": "true", "up": "true"}),
        role(rules("nodes", "images", "projects"), {"color": "red", "team": "pm"},
             {"system": "false", "owner": "admin", "vip": "yes", "rate": "down"}),
        False,
        role(rules("nodes", "images", "projects", "pods", "secrets"),
             {"env": "prod", "manager": "randy", "color": "red", "team": "pm"},
             {"description": "fancy", "system": "false", "owner": "admin", "vip": "yes", "rate": "down", "up": "true"}),
        id="complex labels/annotations and rules with union"),
]  # fmt: skip


def _check_role(expected: Obj, actual: Obj, remove_extra: bool, reconciled: Obj | None) -> None:
    result = compute_reconciled_role(actual, expected, remove_extra)
    assert (result.operation is not Operation.NONE) == (reconciled is not None)
    if reconciled is not None:
        assert _norm(result.role) == _norm(reconciled)
        # the rules keep upstream's order (existing first, then the missing ones)
        assert result.role.get("rules", []) == reconciled.get("rules", [])


@pytest.mark.parametrize("expected,actual,remove_extra,reconciled", ROLE_RULE_ROWS)
def test_compute_reconciled_role_rules(expected: Obj, actual: Obj, remove_extra: bool, reconciled: Obj | None) -> None:
    _check_role(expected, actual, remove_extra, reconciled)


# -- TestComputeReconciledRoleAggregationRules -------------------------------------------


def _aggregated_with_rules() -> Obj:
    r = aggregated(aggregationrule({"alpha": "bravo"}))
    r["rules"] = rules("deployments")
    return r


AGGREGATION_ROWS = [
    pytest.param(aggregated({}), aggregated(None), True, None, id="empty"),
    pytest.param(aggregated({}), aggregated({}), True, None, id="empty-2"),
    pytest.param(aggregated(aggregationrule({"foo": "bar"})), aggregated(aggregationrule({"foo": "bar"})), True, None,
                 id="match without union"),
    pytest.param(aggregated(aggregationrule({"foo": "bar"})), aggregated(aggregationrule({"foo": "bar"})), False, None,
                 id="match with union"),
    pytest.param(aggregated(aggregationrule({"foo": "bar"})), aggregated(aggregationrule({"alpha": "bravo"})), True,
                 aggregated(aggregationrule({"foo": "bar"})), id="different rules without union"),
    pytest.param(aggregated(aggregationrule({"foo": "bar"})), aggregated(aggregationrule({"alpha": "bravo"})), False,
                 aggregated(aggregationrule({"alpha": "bravo"}, {"foo": "bar"})), id="different rules with union"),
    pytest.param(role(rules("pods", "nodes", "secrets")), aggregated(aggregationrule({"alpha": "bravo"})), False,
                 role(rules("pods", "nodes", "secrets")), id="unexpected aggregation"),
    pytest.param(role(rules("pods", "nodes", "secrets")), _aggregated_with_rules(), False,
                 role(rules("deployments", "pods", "nodes", "secrets")),
                 id="unexpected aggregation with differing permissions"),
]  # fmt: skip


@pytest.mark.parametrize("expected,actual,remove_extra,reconciled", AGGREGATION_ROWS)
def test_compute_reconciled_role_aggregation_rules(
    expected: Obj, actual: Obj, remove_extra: bool, reconciled: Obj | None
) -> None:
    _check_role(expected, actual, remove_extra, reconciled)
    if reconciled is not None:
        result = compute_reconciled_role(actual, expected, remove_extra)
        assert result.role.get("aggregationRule") == reconciled.get("aggregationRule")


# -- TestDiffObjectReferenceLists --------------------------------------------------------


def subjects(*names: str) -> list[Obj]:
    return [{"name": n} for n in names]


@pytest.mark.parametrize("a,b,only_a,only_b", [
    pytest.param([], [], [], [], id="empty"),
    pytest.param(subjects("foo", "bar"), subjects("bar", "foo"), [], [], id="matching, order-independent"),
    pytest.param(subjects("foo", "bar"), subjects("foo", "baz"), subjects("bar"), subjects("baz"), id="partial match"),
    pytest.param(subjects("foo"), subjects("bar"), subjects("foo"), subjects("bar"), id="missing"),
    pytest.param(subjects("foo", "foo"), subjects("bar", "bar"), subjects("foo"), subjects("bar"),
                 id="remove duplicates"),
])  # fmt: skip
def test_diff_object_reference_lists(a: list[Obj], b: list[Obj], only_a: list[Obj], only_b: list[Obj]) -> None:
    assert diff_subject_lists(a, b) == (only_a, only_b)


# -- TestComputeUpdate -------------------------------------------------------------------


def binding(ref: str, subs: list[Obj]) -> Obj:
    return {"metadata": {}, "roleRef": {"name": ref}, "subjects": subs}


@pytest.mark.parametrize("expected,actual,remove_extra,updated", [
    pytest.param(binding("role", subjects("a")), binding("role", subjects("a")), True, None, id="match without union"),
    pytest.param(binding("role", subjects("a")), binding("role", subjects("a")), False, None, id="match with union"),
    pytest.param(binding("role", subjects("a")), binding("differentRole", subjects("a")), False,
                 binding("role", subjects("a")), id="different roleref with identical subjects"),
    pytest.param(binding("role", subjects("a")), binding("role", subjects("a", "b")), True,
                 binding("role", subjects("a")), id="extra subjects without union"),
    pytest.param(binding("role", subjects("a")), binding("role", subjects("a", "b")), False, None,
                 id="extra subjects with union"),
    pytest.param(binding("role", subjects("a", "c")), binding("role", subjects("a", "b")), True,
                 binding("role", subjects("a", "c")), id="missing subjects without union"),
    pytest.param(binding("role", subjects("a", "c")), binding("role", subjects("a", "b")), False,
                 binding("role", subjects("a", "b", "c")), id="missing subjects with union"),
])  # fmt: skip
def test_compute_update(expected: Obj, actual: Obj, remove_extra: bool, updated: Obj | None) -> None:
    result = compute_reconciled_role_binding(actual, expected, remove_extra)
    assert (result.operation is not Operation.NONE) == (updated is not None)
    if updated is not None:
        assert _norm(result.binding) == _norm(updated)
        assert result.binding["subjects"] == updated["subjects"]


def test_compute_update_recreate_and_protected() -> None:
    """A roleRef change recreates (roleRef is immutable); ``autoupdate: "false"`` marks
    the result protected whatever the operation."""
    protected = {"rbac.authorization.kubernetes.io/autoupdate": "false"}
    actual = {**binding("other", subjects("a")), "metadata": {"annotations": protected}}
    result = compute_reconciled_role_binding(actual, binding("role", subjects("a")), False)
    assert (result.operation, result.protected) == (Operation.RECREATE, True)
    actual = {**binding("role", subjects("a")), "metadata": {"annotations": protected}}
    result = compute_reconciled_role_binding(actual, binding("role", subjects("a", "b")), False)
    assert (result.operation, result.protected, result.missing_subjects) == (Operation.UPDATE, True, subjects("b"))


# -- the post-start hook at the next start -----------------------------------------------


def _server(store: MVCCStore, seed: int = 0) -> APIServer:
    return APIServer(store, SimClock(), Rng(seed), FeatureGates())


AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"


def test_hook_reconciles_autoupdate_objects() -> None:
    """autoupdate=true (and unannotated) objects get the missing rules, subjects, labels
    and annotations back (a union: extras stay); the rest of the store is untouched."""
    store = MVCCStore()
    srv = _server(store)
    discovery = srv.get(RBAC, "ClusterRole", "system:discovery")
    want_rules = discovery["rules"]
    discovery["rules"] = [{"nonResourceURLs": ["/healthz", "/custom"], "verbs": ["get"]}]
    discovery["metadata"]["labels"] = {"team": "x"}
    del discovery["metadata"]["annotations"]
    srv.update(discovery)
    crb = srv.get(RBAC, "ClusterRoleBinding", "system:public-info-viewer")
    extra = {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "carol"}
    crb["subjects"] = [extra]
    srv.update(crb)
    rb = srv.get(RBAC, "RoleBinding", "system::extension-apiserver-authentication-reader", "kube-system")
    want_subjects = rb["subjects"]
    rb["subjects"] = []
    srv.update(rb)
    rev = store.revision
    again = _server(store, seed=1)
    assert store.revision == rev + 3  # one update each
    d = again.get(RBAC, "ClusterRole", "system:discovery")
    # the kept rule, then upstream's broken-down missing rules (one URL and verb each)
    assert d["rules"] == [{"nonResourceURLs": ["/healthz", "/custom"], "verbs": ["get"]}] + [
        {"nonResourceURLs": [u], "verbs": ["get"]} for u in want_rules[0]["nonResourceURLs"] if u != "/healthz"
    ]
    assert d["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults", "team": "x"}
    assert d["metadata"]["annotations"] == {AUTOUPDATE: "true"}
    assert again.get(RBAC, "ClusterRoleBinding", "system:public-info-viewer")["subjects"] == [
        extra,
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"},
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:unauthenticated"},
    ]
    got = again.get(RBAC, "RoleBinding", "system::extension-apiserver-authentication-reader", "kube-system")
    assert got["subjects"] == want_subjects
    # a third start finds nothing to do
    rev = store.revision
    _server(store, seed=2)
    assert store.revision == rev


def test_hook_leaves_autoupdate_false_alone() -> None:
    store = MVCCStore()
    srv = _server(store)
    view = srv.get(RBAC, "ClusterRole", "system:basic-user")
    view["metadata"]["annotations"] = {AUTOUPDATE: "false"}
    view["metadata"]["labels"] = {}
    view["rules"] = []
    kept = srv.update(view)
    crb = srv.get(RBAC, "ClusterRoleBinding", "system:discovery")
    crb["metadata"]["annotations"][AUTOUPDATE] = "false"
    crb["subjects"] = []
    kept_crb = srv.update(crb)
    rev = store.revision
    again = _server(store, seed=1)
    assert store.revision == rev
    assert again.get(RBAC, "ClusterRole", "system:basic-user") == kept
    assert again.get(RBAC, "ClusterRoleBinding", "system:discovery") == kept_crb


def test_hook_recreates_binding_with_other_role_ref() -> None:
    """roleRef is immutable: a bootstrap binding pointing elsewhere is deleted and created
    again as the policy has it (a new uid); protected, it stays."""
    store = MVCCStore()
    srv = _server(store)
    old = srv.get(RBAC, "ClusterRoleBinding", "system:basic-user")
    srv.delete(RBAC, "ClusterRoleBinding", "system:basic-user")
    srv.create({"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "system:basic-user"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": old["subjects"]})  # fmt: skip
    rev = store.revision
    again = _server(store, seed=1)
    assert store.revision == rev + 2  # a delete, a create
    new = again.get(RBAC, "ClusterRoleBinding", "system:basic-user")
    assert new["roleRef"] == old["roleRef"] and new["subjects"] == old["subjects"]
    assert new["metadata"]["labels"] == old["metadata"]["labels"]
    assert new["metadata"]["annotations"] == old["metadata"]["annotations"]
    assert new["metadata"]["uid"] not in (old["metadata"]["uid"],)


def test_hook_aggregated_roles_keep_their_rules() -> None:
    """Upstream's policy gives admin/edit/view no rules (the aggregation controller fills
    them), so the hook adds none to a stored aggregated role; a missing selector is added."""
    store = MVCCStore()
    srv = _server(store)
    admin = srv.get(RBAC, "ClusterRole", "admin")
    admin["rules"] = admin["rules"][:1]
    admin["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {"extra": "true"}}]}
    srv.update(admin)
    _server(store, seed=1)
    got = srv.get(RBAC, "ClusterRole", "admin")
    assert got["rules"] == admin["rules"]
    assert got["aggregationRule"] == {"clusterRoleSelectors": [
        {"matchLabels": {"extra": "true"}},
        {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-admin": "true"}},
    ]}  # fmt: skip

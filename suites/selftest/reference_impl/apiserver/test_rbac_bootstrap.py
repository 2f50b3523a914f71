"""The bootstrap RBAC policy the apiserver stores at start (``rbac_bootstrap``), against
kube-apiserver v1.37.2's: ``bootstrappolicy``'s golden files (testdata/*.yaml) for the
live cluster's gates, spot-checked row by row, and the post-start hook's create of what
the store lacks. The stored objects are normal objects: versioned, watchable, updatable,
deletable."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.rbac_authorizer import Attributes, authorize
from reference_impl.apiserver.rbac_bootstrap import RBAC, bootstrap_data, bootstrap_objects
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.clusterrole_aggregation import aggregated_rules
from reference_impl.errors import NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
ANNOTATIONS = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
AUTHENTICATED = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}


def _server(seed: int = 0, store: MVCCStore | None = None) -> APIServer:
    return APIServer(store or MVCCStore(), SimClock(), Rng(seed), FeatureGates())


def _meta(obj: Obj) -> Obj:
    m = obj["metadata"]
    return {k: m[k] for k in ("name", "namespace", "labels", "annotations") if k in m}


def _body(obj: Obj) -> Obj:
    return {k: obj[k] for k in ("aggregationRule", "rules", "roleRef", "subjects") if k in obj}


@pytest.fixture(scope="module")
def server() -> APIServer:
    return _server()


def _all(server: APIServer, kind: str) -> list[Obj]:
    return server.list(RBAC, kind, label_selector="kubernetes.io/bootstrapping=rbac-defaults")


# -- the stored objects are the data file's, as normal objects ---------------------------


@pytest.mark.parametrize("kind,section", [("ClusterRole", "clusterRoles"), ("ClusterRoleBinding", "clusterRoleBindings"),
                                          ("Role", "roles"), ("RoleBinding", "roleBindings")])  # fmt: skip
def test_stored_objects_are_the_data(server: APIServer, kind: str, section: str) -> None:
    stored = _all(server, kind)
    entries = bootstrap_data()[section]
    assert [(o["metadata"].get("namespace"), o["metadata"]["name"]) for o in stored] == [
        (e.get("namespace"), e["name"]) for e in entries
    ]
    for obj, e in zip(stored, entries, strict=True):
        assert obj["apiVersion"] == RBAC and obj["kind"] == kind
        assert obj["metadata"]["labels"] == {**LABELS, **e.get("labels", {})}
        assert obj["metadata"]["annotations"] == ANNOTATIONS
        assert _body(obj) == {k: e[k] for k in ("aggregationRule", "rules", "roleRef", "subjects") if k in e}
        meta = obj["metadata"]
        assert meta["creationTimestamp"] == "2026-09-01T00:00:00Z"
        assert int(meta["resourceVersion"]) > 0 and len(meta["uid"]) == 36


def test_counts(server: APIServer) -> None:
    # golden: 32 cluster roles, 41 controller roles (+ GenericWorkload's podgroup-protection
    # controller on the live gates), 13 + 41 (+1) cluster role bindings, 7 roles, 7 bindings
    assert len(_all(server, "ClusterRole")) == 74
    assert len(_all(server, "ClusterRoleBinding")) == 55
    assert len(_all(server, "Role")) == 7
    assert len(_all(server, "RoleBinding")) == 7
    uids = [o["metadata"]["uid"] for k in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
            for o in _all(server, k)]  # fmt: skip
    assert len(set(uids)) == len(uids)


def test_store_equals_create(server: APIServer) -> None:
    """What the start stores is what a create of the same manifest stores."""
    fresh = _server(1)
    for ns in ("kube-system", "kube-public"):  # the hook does not create them (not modelled)
        fresh.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for _, obj in bootstrap_objects():
        m = obj["metadata"]
        before = fresh.get(RBAC, obj["kind"], m["name"], m.get("namespace"))
        fresh.delete(RBAC, obj["kind"], m["name"], m.get("namespace"))
        after = fresh.create(obj)
        assert _meta(after) == _meta(before) and _body(after) == _body(before), m["name"]


# -- spot checks against upstream's golden rows -----------------------------------------


@pytest.mark.parametrize("name,selects,labels", [
    ("admin", "aggregate-to-admin", {}),
    ("edit", "aggregate-to-edit", {"rbac.authorization.k8s.io/aggregate-to-admin": "true"}),
    ("view", "aggregate-to-view", {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}),
])  # fmt: skip
def test_aggregated_roles(server: APIServer, name: str, selects: str, labels: Obj) -> None:
    role = server.get(RBAC, "ClusterRole", name)
    assert role["aggregationRule"] == {
        "clusterRoleSelectors": [{"matchLabels": {f"rbac.authorization.k8s.io/{selects}": "true"}}]
    }
    assert role["metadata"]["labels"] == {**LABELS, **labels}
    assert role["metadata"]["annotations"] == ANNOTATIONS


def test_aggregated_rules_are_the_controllers(server: APIServer) -> None:
    """The aggregated roles start with what the aggregation controller computes, so it
    writes nothing at start."""
    roles = server.list(RBAC, "ClusterRole")
    aggregating = [r for r in roles if r.get("aggregationRule")]
    assert [r["metadata"]["name"] for r in aggregating] == ["admin", "edit", "view"]
    for r in aggregating:
        assert r["rules"] == aggregated_rules(r, roles), r["metadata"]["name"]


def test_aggregate_to_edit_rows(server: APIServer) -> None:
    role = server.get(RBAC, "ClusterRole", "system:aggregate-to-edit")
    assert role["metadata"]["labels"] == {**LABELS, "rbac.authorization.k8s.io/aggregate-to-edit": "true"}
    assert role["rules"][:3] == [
        {"apiGroups": [""], "resources": ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy",
                                          "secrets", "services/proxy"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]},
        {"apiGroups": [""], "resources": ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"],
         "verbs": ["create", "delete", "deletecollection", "patch", "update"]},
    ]  # fmt: skip
    # the live gates (GenericWorkload, CompositePodGroup) add the scheduling rows last
    assert role["rules"][-2:] == [
        {"apiGroups": ["scheduling.k8s.io"], "resources": ["podgroups", "workloads"],
         "verbs": ["create", "delete", "deletecollection", "patch", "update"]},
        {"apiGroups": ["scheduling.k8s.io"], "resources": ["compositepodgroups"],
         "verbs": ["create", "delete", "deletecollection", "patch", "update"]},
    ]  # fmt: skip


def test_controller_roles(server: APIServer) -> None:
    roles = [r for r in _all(server, "ClusterRole") if r["metadata"]["name"].startswith("system:controller:")]
    bindings = {b["metadata"]["name"]: b for b in _all(server, "ClusterRoleBinding")}
    assert len(roles) == 42
    for r in roles:
        name = r["metadata"]["name"]
        sa = name.removeprefix("system:controller:")
        assert bindings[name]["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}
        assert bindings[name]["subjects"] == [{"kind": "ServiceAccount", "name": sa, "namespace": "kube-system"}]
    deploy = server.get(RBAC, "ClusterRole", "system:controller:deployment-controller")
    assert deploy["rules"] == [
        {"apiGroups": ["apps", "extensions"], "resources": ["deployments"], "verbs": ["get", "list", "update", "watch"]},
        {"apiGroups": ["apps", "extensions"], "resources": ["deployments/status"], "verbs": ["update"]},
        {"apiGroups": ["apps", "extensions"], "resources": ["deployments/finalizers"], "verbs": ["update"]},
        {"apiGroups": ["apps", "extensions"], "resources": ["replicasets"],
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]},
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "update", "watch"]},
        {"apiGroups": ["", "events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch", "update"]},
    ]  # fmt: skip


def test_cluster_role_bindings(server: APIServer) -> None:
    discovery = server.get(RBAC, "ClusterRoleBinding", "system:discovery")
    assert discovery["subjects"] == [AUTHENTICATED]
    assert discovery["roleRef"]["name"] == "system:discovery"
    public = server.get(RBAC, "ClusterRoleBinding", "system:public-info-viewer")
    assert public["subjects"] == [AUTHENTICATED, {**AUTHENTICATED, "name": "system:unauthenticated"}]
    assert "subjects" not in server.get(RBAC, "ClusterRoleBinding", "system:node")  # golden: none
    assert server.get(RBAC, "ClusterRole", "system:discovery")["rules"] == [
        {"nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                             "/openapi/*", "/readyz", "/version", "/version/"], "verbs": ["get"]}
    ]  # fmt: skip


def test_namespace_roles(server: APIServer) -> None:
    roles = [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in _all(server, "Role")]
    assert roles == [
        ("kube-public", "system:controller:bootstrap-signer"),
        ("kube-system", "extension-apiserver-authentication-reader"),
        ("kube-system", "system::leader-locking-kube-controller-manager"),
        ("kube-system", "system::leader-locking-kube-scheduler"),
        ("kube-system", "system:controller:bootstrap-signer"),
        ("kube-system", "system:controller:cloud-provider"),
        ("kube-system", "system:controller:token-cleaner"),
    ]
    reader = server.get(RBAC, "Role", "extension-apiserver-authentication-reader", "kube-system")
    assert reader["rules"] == [{"apiGroups": [""], "resourceNames": ["extension-apiserver-authentication"],
                                "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]  # fmt: skip
    bindings = [(o["metadata"]["namespace"], o["metadata"]["name"], o["roleRef"]["name"])
                for o in _all(server, "RoleBinding")]  # fmt: skip
    assert ("kube-system", "system::extension-apiserver-authentication-reader",
            "extension-apiserver-authentication-reader") in bindings  # fmt: skip
    assert len(bindings) == 7


# -- normal objects; the hook at the next start ------------------------------------------


def test_normal_objects_and_restart() -> None:
    store = MVCCStore()
    srv = _server(store=store)
    edit = srv.get(RBAC, "ClusterRole", "edit")
    watch = list(srv.watch(RBAC, "ClusterRole", since="1"))  # every write after the first
    assert {e.object["metadata"]["name"] for e in watch} >= {"edit", "view", "cluster-admin"}
    edit["metadata"]["labels"]["extra"] = "x"
    updated = srv.update(edit)
    assert int(updated["metadata"]["resourceVersion"]) > int(edit["metadata"]["resourceVersion"])
    srv.delete(RBAC, "ClusterRole", "view")
    with pytest.raises(NotFound):
        srv.get(RBAC, "ClusterRole", "view")
    # The next start creates what is missing and leaves the rest as it is.
    rev = store.revision
    again = _server(seed=5, store=store)
    assert store.revision == rev + 1
    assert again.get(RBAC, "ClusterRole", "edit") == updated
    assert again.get(RBAC, "ClusterRole", "view")["metadata"]["resourceVersion"] == str(rev + 1)


def test_uids_shift_no_other_draw() -> None:
    """The hook's uids come from a stream of their own: the apiserver's own draws (uids,
    generated names) are those of an apiserver without it."""
    srv = _server(seed=3)
    ns = srv.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    assert ns["metadata"]["uid"] == Rng(3).uuid4()
    assert srv.get(RBAC, "ClusterRole", "edit")["metadata"]["uid"] == _server(seed=3).get(
        RBAC, "ClusterRole", "edit")["metadata"]["uid"]  # fmt: skip


def test_authorizer_reads_the_stored_policy() -> None:
    srv = _server()
    attrs = Attributes(user="bob", groups=("system:authenticated",), resource_request=False, verb="get", path="/apis")
    d = authorize(attrs, srv.try_get, srv.list)
    assert d.allowed
    srv.delete(RBAC, "ClusterRoleBinding", "system:discovery")
    assert not authorize(attrs, srv.try_get, srv.list).allowed  # nothing stands in for it


def test_fast_start_stores_what_puts_store() -> None:
    """An empty store takes shared prebuilt versions (``MVCCStore.put_new``); a store
    written before takes one ``put`` per object: the same bytes, one revision each."""
    fast_store, slow_store = MVCCStore(), MVCCStore()
    slow_store.put("/registry/x/y", {"a": 1})
    slow_store.delete("/registry/x/y")
    fast, slow = _server(store=fast_store), _server(store=slow_store)
    fast_kvs = fast_store.range("/registry/").kvs
    slow_kvs = slow_store.range("/registry/").kvs
    assert [(kv.key, kv.value, kv.mod_revision + 2, kv.version) for kv in fast_kvs] == [
        (kv.key, kv.value, kv.mod_revision, kv.version) for kv in slow_kvs
    ]
    # one write per object, and one more: the default ServiceCIDR's Ready status
    assert fast.writes == slow.writes == len(fast_kvs) + 1
    # put_new takes only the next new keys: a store holding them already refuses them
    # (the bootstrap's: the default ServiceCIDR is written after, by plain puts)
    cidr = "/registry/servicecidrs."
    events = [e for e in fast_store.watch("/registry/", start_revision=1).drain() if not e.kv.key.startswith(cidr)]
    with pytest.raises(ValueError, match="not the next new key"):
        slow_store.put_new(events)
    replay = MVCCStore()
    replay.put_new(events)
    assert replay.range("/registry/").kvs == [kv for kv in fast_kvs if not kv.key.startswith(cidr)]

"""The bootstrap RBAC policy kube-apiserver v1.37.2 stores at start, after
``pkg/registry/rbac/rest/storage_rbac.go``'s ``PolicyData.EnsureRBACPolicy`` post-start
hook over ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy``'s ``ClusterRoles``,
``ClusterRoleBindings``, ``NamespaceRoles`` and ``NamespaceRoleBindings``.

The objects come from ``rbac_bootstrap.json`` (written by ``tools/rbacpolicy/extract.py``
for the live cluster's gates), each labelled ``kubernetes.io/bootstrapping=rbac-defaults``
and annotated ``rbac.authorization.kubernetes.io/autoupdate: "true"``. The hook creates
every object the store lacks (ClusterRoles, ClusterRoleBindings, Roles, RoleBindings, in
that order) and reconciles the existing ones (``rbac_reconcile``): unless annotated
``autoupdate: "false"``, an object gets the missing labels, annotations, rules,
aggregation selectors and subjects, and a binding whose roleRef differs is deleted and
created again. Not modelled: ``tryEnsureNamespace`` (kube-system and kube-public are
created by the cluster's system namespaces step, ``reference_impl.cluster``), and
``primeAggregatedClusterRoles`` / ``primeSplitClusterRoleBindings`` (migrations from
releases before 1.9 and 1.16).

Upstream stores the aggregated ClusterRoles (admin, edit, view) with no rules and the
aggregation controller fills them in a moment later; the reference stores the rules that
controller would give them, so an apiserver with no controllers answers as a settled
cluster does.

Cost: every APIServer runs the hook, so the objects are encoded once per process and a
start only joins uid and creationTimestamp in; an empty store (nearly every start) takes
versions built once per uid stream and start time, shared, being immutable. The uids
come from a stream of their own, so the apiserver's other draws do not shift.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from reference_impl.apiserver import keys, lookups
from reference_impl.apiserver.rbac_reconcile import (
    Operation,
    compute_reconciled_role,
    compute_reconciled_role_binding,
)
from reference_impl.clock import rfc3339
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage import codec
from reference_impl.storage.mvcc import EventType, KeyValue, StoreEvent

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["RBAC", "bootstrap_data", "bootstrap_objects", "ensure_rbac_policy"]

Obj = dict[str, Any]
RBAC: Final = "rbac.authorization.k8s.io/v1"
# The data file's sections, in the order the hook stores them.
_SECTIONS: Final = (
    ("clusterRoles", "ClusterRole"),
    ("clusterRoleBindings", "ClusterRoleBinding"),
    ("roles", "Role"),
    ("roleBindings", "RoleBinding"),
)
_BODY: Final = ("aggregationRule", "rules", "roleRef", "subjects")
# Placeholders for the per-start fields; JSON writes them as \u0000 escapes.
_TS: Final = "\x00T"
_UID: Final = "\x00U"
_TS_JSON: Final = b"\\u0000T"
_UID_JSON: Final = b"\\u0000U"


@cache
def bootstrap_data() -> Obj:
    """The parsed ``rbac_bootstrap.json``."""
    text = resources.files("reference_impl.apiserver").joinpath("rbac_bootstrap.json").read_text()
    data: Obj = json.loads(text)
    return data


def _manifest(entry: Obj, kind: str, labels: Obj, annotations: Obj) -> Obj:
    meta: Obj = {"name": entry["name"]}
    if "namespace" in entry:
        meta["namespace"] = entry["namespace"]
    meta["labels"] = {**labels, **entry.get("labels", {})}
    meta["annotations"] = dict(annotations)
    obj: Obj = {"apiVersion": RBAC, "kind": kind, "metadata": meta}
    obj.update((k, entry[k]) for k in _BODY if k in entry)
    return obj


@cache
def bootstrap_objects() -> tuple[tuple[str, Obj], ...]:
    """(storage key, object without uid and creationTimestamp) per bootstrap object, in
    the hook's order; shared and read-only (the store encodes a copy)."""
    data = bootstrap_data()
    out: list[tuple[str, Obj]] = []
    for section, kind in _SECTIONS:
        # RBAC is served whatever the gates, so one resolution serves every apiserver.
        info = lookups.resolve(RBAC, kind, FeatureGates())
        for entry in data[section]:
            obj = _manifest(entry, kind, data["labels"], data["annotations"])
            out.append((keys.key(info, entry["name"], entry.get("namespace")), obj))
    return tuple(out)


@cache
def _encoded() -> tuple[tuple[str, bytes, bytes, bytes], ...]:
    """(key, head, middle, tail) per bootstrap object: its stored bytes (sorted keys, as
    the store encodes) cut where creationTimestamp and uid go, so a start only joins."""
    out = []
    for key, obj in bootstrap_objects():
        meta = {**obj["metadata"], "creationTimestamp": _TS, "uid": _UID}
        data = codec.dumps({**obj, "metadata": meta}, sort_keys=True)
        head, rest = data.split(_TS_JSON)
        middle, tail = rest.split(_UID_JSON)
        out.append((key, head, middle, tail))
    return tuple(out)


@lru_cache(maxsize=32)
def _prepared(seed: int, path: str, now: bytes) -> tuple[StoreEvent, ...]:
    """The PUT of every bootstrap object as the first versions of an empty store, for one
    uid stream and start time: immutable, so shared by every apiserver that starts so."""
    rng = Rng(seed, path)
    return tuple(
        StoreEvent(EventType.PUT, KeyValue(key, b"".join((head, now, middle, rng.uuid4().encode(), tail)),
                                           rev, rev, 1), None)
        for rev, (key, head, middle, tail) in enumerate(_encoded(), start=1)
    )  # fmt: skip


def ensure_rbac_policy(server: APIServer) -> None:
    """``EnsureRBACPolicy``: store each bootstrap object the store lacks, as a create of
    it would store it (uid, creationTimestamp; resourceVersion from its revision)."""
    for _, kind in _SECTIONS:
        server.resource(RBAC, kind)  # registers the resource, so its writes are events
    rng = server.rng_stream("rbac-bootstrap")
    now = rfc3339(server.clock.now()).encode()
    store = server.store
    if store.revision == 0:  # an empty store: its first versions are built already
        events = _prepared(rng.seed, rng.path, now)
        store.put_new(events)
        server.writes += len(events)
        return
    for (key, head, middle, tail), (_, expected) in zip(_encoded(), bootstrap_objects(), strict=True):
        if store.get(key) is not None:
            if not _reconcile(server, expected):
                continue  # up to date, or protected
            # a binding whose roleRef changed was deleted: created again below
        store.put(key, b"".join((head, now, middle, rng.uuid4().encode(), tail)))
        server.writes += 1


def _reconcile(server: APIServer, expected: Obj) -> bool:
    """``ReconcileRoleOptions.Run`` / ``ReconcileRoleBindingOptions.Run`` with Confirm and
    without removing extras, over a stored bootstrap object: the union update written, or
    (a binding whose roleRef differs) the object deleted; True when it must be created."""
    kind, meta = expected["kind"], expected["metadata"]
    existing = server.get(RBAC, kind, meta["name"], meta.get("namespace"))
    if kind.endswith("Binding"):
        b = compute_reconciled_role_binding(existing, expected, remove_extra_subjects=False)
        if b.protected or b.operation is Operation.NONE:
            return False
        if b.operation is Operation.RECREATE:
            server.delete(RBAC, kind, meta["name"], meta.get("namespace"))
            return True
        server.update(b.binding)
        return False
    if expected.get("aggregationRule") is not None:
        # upstream's policy gives an aggregated role no rules (the controller fills them)
        expected = {**expected, "rules": []}
    r = compute_reconciled_role(existing, expected, remove_extra_permissions=False)
    if not r.protected and r.operation is Operation.UPDATE:
        server.update(r.role)
    return False

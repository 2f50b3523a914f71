"""Upstream ``pkg/controller/history/controller_history_test.go``, row by row, against
``reference_impl.controllers.history`` over a real APIServer. The Real and Fake history
tables share their rows; both run here against the one store-backed ``History``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, rfc3339
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.history import (
    CONTROLLER_REVISION_HASH_LABEL,
    History,
    controller_revision_name,
    find_equal_revisions,
    go_json,
    hash_controller_revision,
    new_controller_revision,
    sort_controller_revisions,
)
from reference_impl.errors import ApiError, Conflict, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
VARIANTS = ("real", "fake")


def _server() -> APIServer:
    server = APIServer(MVCCStore(), SimClock(), Rng(1).child("apiserver"), FeatureGates())
    server.create(make_namespace("default").build())
    return server


def _stateful_set(name: str, uid: str, labels: dict[str, str]) -> Obj:
    """``newStatefulSet``: set-based selector, one nginx container, a hostPath volume."""
    exprs = [{"key": k, "operator": "In", "values": [v]} for k, v in labels.items()]
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": "default", "uid": uid},
        "spec": {
            "selector": {"matchExpressions": exprs},
            "replicas": 3,
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {
                    "containers": [{
                        "name": "nginx", "image": "nginx",
                        "volumeMounts": [{"name": "datadir", "mountPath": "/tmp/"},
                                         {"name": "home", "mountPath": "/home"}],
                    }],
                    "volumes": [{"name": "home", "hostPath": {"path": "/tmp/home"}}],
                },
            },
            "serviceName": "governingsvc",
        },
    }  # fmt: skip


SS1 = _stateful_set("ss1", "ss1", {"foo": "bar"})
SS2 = _stateful_set("ss2", "ss2", {"goo": "car"})


def _rev(ss: Obj, revision: int, probe: int | None = 0, template: Obj | None = None) -> Obj:
    tpl = template if template is not None else ss["spec"]["template"]
    labels = ss["spec"]["template"]["metadata"]["labels"]
    return new_controller_revision(ss, labels, copy.deepcopy(tpl), revision, probe)


def _orphan(cr: Obj) -> Obj:
    out = copy.deepcopy(cr)
    out["metadata"].pop("ownerReferences", None)
    return out


# -- pure helpers ---------------------------------------------------------------------


def test_fnv32_hash_matches_go() -> None:
    """FNV-1 32 (``fnv.New32``) over the data then the probe, safe-encoded."""
    cr = {"data": b"a"}
    # fnv32("a") = 0x050c5d7e = 84696446; SafeEncodeString maps each decimal digit.
    assert hash_controller_revision(cr) == "d8bfb88b"  # checked with Go's hash/fnv
    assert hash_controller_revision({"data": {"x": 1}}, 0) == "6dc564974d"
    assert hash_controller_revision(cr, 0) != hash_controller_revision(cr)
    assert go_json({"b": "<&>", "a": [1, {"d": 1, "c": 2}]}) == (
        b'{"a":[1,{"c":2,"d":1}],"b":"\\u003c\\u0026\\u003e"}'
    )


def test_controller_revision_name_truncates_prefix() -> None:
    assert controller_revision_name("x" * 300, "h") == "x" * 223 + "-h"
    assert controller_revision_name("ss1", "abc") == "ss1-abc"


def test_new_controller_revision() -> None:
    cr = _rev(SS1, 1)
    h = hash_controller_revision(cr, 0)
    assert cr["metadata"]["name"] == f"ss1-{h}"
    assert cr["metadata"]["labels"] == {"foo": "bar", CONTROLLER_REVISION_HASH_LABEL: h}
    assert controller_ref(cr) == {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "name": "ss1", "uid": "ss1",
        "controller": True, "blockOwnerDeletion": True,
    }  # fmt: skip


# -- ListControllerRevisions ----------------------------------------------------------

_LIST_ROWS = [
    ("selects none", [], set()),
    ("selects all", ["ss1Rev1", "ss1Rev2"], {"ss1Rev1", "ss1Rev2"}),
    ("doesn't select another Objects history", ["ss1Rev1", "ss1Rev2", "ss2Rev1"],
     {"ss1Rev1", "ss1Rev2"}),
    ("selects orphans", ["ss1Rev1", "ss1Rev2", "ss1Orphan"], {"ss1Rev1", "ss1Rev2", "ss1Orphan"}),
]  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("existing", "want"), [pytest.param(e, w, id=n) for n, e, w in _LIST_ROWS])
def test_list_controller_revisions(variant: str, existing: list[str], want: set[str]) -> None:
    revs = {
        "ss1Rev1": _rev(SS1, 1, None),
        "ss1Rev2": _rev(SS1, 2, None),
        "ss2Rev1": _rev(SS2, 1, None),
        "ss1Orphan": _orphan(_rev(SS1, 3, None)),
    }
    index: dict[str, Obj] = {}  # the informer's indexer: a same-named revision replaces
    for name in existing:
        index[revs[name]["metadata"]["name"]] = revs[name]
    history = History(_server(), lister=lambda ns: list(index.values()))
    got = {cr["metadata"]["name"] for cr in history.list_controller_revisions(SS1, SS1["spec"]["selector"])}
    assert got == {revs[n]["metadata"]["name"] for n in want}


# -- CreateControllerRevision ---------------------------------------------------------


def _mod_rev2() -> Obj:
    """ss1Rev2: another template under ss1Rev1's name and hash label (a forced collision)."""
    rev1 = _rev(SS1, 1)
    tpl = copy.deepcopy(SS1["spec"]["template"])
    tpl["metadata"]["labels"]["foo"] = "not_bar"
    rev2 = _rev(SS1, 2, template=tpl)
    rev2["metadata"]["name"] = rev1["metadata"]["name"]
    h = rev1["metadata"]["labels"][CONTROLLER_REVISION_HASH_LABEL]
    rev2["metadata"]["labels"][CONTROLLER_REVISION_HASH_LABEL] = h
    return rev2


_CREATE_ROWS = [
    pytest.param("ss1", "ss1Rev1", [], False, id="creates new"),
    pytest.param("ss2", "ss2Rev1", ["ss1Rev1"], False, id="create doesn't conflict when parents differ"),
    pytest.param("ss1", "ss1Rev1", ["ss1Rev2"], True, id="create renames on conflict"),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("parent", "revision", "existing", "rename"), _CREATE_ROWS)
def test_create_controller_revision(
    variant: str, parent: str, revision: str, existing: list[str], rename: bool
) -> None:
    server = _server()
    revs = {"ss1Rev1": _rev(SS1, 1), "ss1Rev2": _mod_rev2(), "ss2Rev1": _rev(SS2, 1)}
    parents = {"ss1": SS1, "ss2": SS2}
    for name in existing:
        server.create(copy.deepcopy(revs[name]))
    history = History(server)
    rev = revs[revision]
    created, count = history.create_controller_revision(parents[parent], rev, 0)
    if rename:
        assert created["metadata"]["name"] != rev["metadata"]["name"]
        want = controller_revision_name(parents[parent]["metadata"]["name"],
                                        hash_controller_revision(rev, count))
        assert created["metadata"]["name"] == want
        # The second collision is with an identical revision: the count stays 1.
        _, count = history.create_controller_revision(parents[parent], rev, count)
        assert count == 1
    else:
        assert created["metadata"]["name"] == rev["metadata"]["name"]


# -- UpdateControllerRevision ---------------------------------------------------------


class _Reactor:
    """The fake clientset's prepended reactor for updates."""

    def __init__(self, server: APIServer, mode: str) -> None:
        self._server, self._mode, self.attempts = server, mode, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    def update(self, manifest: Obj) -> Obj:
        self.attempts += 1
        if self._mode == "internal":
            raise ApiError("Internal error occurred: internal error")
        if self._mode == "conflict" and self.attempts <= 2:
            raise Conflict('Operation cannot be fulfilled on controllerrevisions.apps "": conflict')
        out: Obj = self._server.update(manifest)
        return out


_UPDATE_ROWS = [
    pytest.param("real", 1, None, False, id="real/update succeeds"),
    pytest.param("real", 0, None, False, id="real/update succeeds no noop"),
    pytest.param("real", 10, "internal", True, id="real/update fails on error"),
    pytest.param("real", 1, "conflict", False, id="real/update on succeeds on conflict"),
    pytest.param("fake", 1, None, False, id="fake/update succeeds"),
    pytest.param("fake", 0, None, False, id="fake/update succeeds no noop"),
]


@pytest.mark.parametrize(("variant", "delta", "reactor", "err"), _UPDATE_ROWS)
def test_update_controller_revision(variant: str, delta: int, reactor: str | None, err: bool) -> None:
    server = _server()
    rev1 = _rev(SS1, 1)
    History(server).create_controller_revision(SS1, rev1, 0)
    stored = server.get("apps/v1", "ControllerRevision", rev1["metadata"]["name"], "default")
    history = History(_Reactor(server, reactor) if reactor else server)
    new = rev1["revision"] + delta
    if err:
        with pytest.raises(ApiError):
            history.update_controller_revision(stored, new)
        return
    updated = history.update_controller_revision(stored, new)
    assert updated["revision"] == new


# -- DeleteControllerRevision ---------------------------------------------------------

_DELETE_ROWS = [
    pytest.param([], True, id="delete empty fails"),
    pytest.param(["ss1Rev1"], False, id="delete existing succeeds"),
    pytest.param(["ss2Rev1", "ss2Rev2"], True, id="delete non-existing fails"),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("existing", "err"), _DELETE_ROWS)
def test_delete_controller_revision(variant: str, existing: list[str], err: bool) -> None:
    server = _server()
    history = History(server)
    revs = {"ss1Rev1": (SS1, _rev(SS1, 1)), "ss2Rev1": (SS2, _rev(SS2, 1)),
            "ss2Rev2": (SS2, _rev(SS2, 2))}  # fmt: skip
    count = 0
    for name in existing:
        _, count = history.create_controller_revision(*revs[name], count)
    if err:
        with pytest.raises(NotFound):
            history.delete_controller_revision(revs["ss1Rev1"][1])
    else:
        history.delete_controller_revision(revs["ss1Rev1"][1])


# -- AdoptControllerRevision ----------------------------------------------------------

_ADOPT_ROWS = [
    pytest.param("ss1Rev2", [("ss1", "ss1Rev2")], False, id="adopting an orphan succeeds"),
    pytest.param("ss2Rev1", [("ss2", "ss2Rev1")], True, id="adopting an owned revision fails"),
    pytest.param("ss1Rev2", [], True, id="adopting a non-existent revision fails"),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("revision", "existing", "err"), _ADOPT_ROWS)
def test_adopt_controller_revision(
    variant: str, revision: str, existing: list[tuple[str, str]], err: bool
) -> None:
    server = _server()
    history = History(server)
    parents = {"ss1": SS1, "ss2": SS2}
    revs = {"ss1Rev2": _orphan(_rev(SS1, 2)), "ss2Rev1": _rev(SS2, 1)}
    for parent, name in existing:
        history.create_controller_revision(parents[parent], revs[name], 0)
    if err:
        with pytest.raises((ValueError, NotFound)):
            history.adopt_controller_revision(SS1, revs[revision])
        return
    adopted = history.adopt_controller_revision(SS1, revs[revision])
    assert (controller_ref(adopted) or {}).get("uid") == "ss1"


# -- ReleaseControllerRevision --------------------------------------------------------

_RELEASE_ROWS = [
    pytest.param("ss1Rev1", [("ss1", "ss1Rev1")], id="releasing an owned revision succeeds"),
    pytest.param("ss1Rev2", [("ss1", "ss1Rev2")], id="releasing an orphan succeeds"),
    pytest.param("ss2Rev1", [("ss2", "ss2Rev1")],
                 id="releasing a revision owned by another controller succeeds"),
    pytest.param("ss1Rev1", [], id="releasing a non-existent revision succeeds"),
]  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("revision", "existing"), _RELEASE_ROWS)
def test_release_controller_revision(
    variant: str, revision: str, existing: list[tuple[str, str]]
) -> None:
    server = _server()
    history = History(server)
    parents = {"ss1": SS1, "ss2": SS2}
    revs = {"ss1Rev1": _rev(SS1, 1, None), "ss1Rev2": _orphan(_rev(SS1, 2, None)),
            "ss2Rev1": _rev(SS2, 1, None)}  # fmt: skip
    for parent, name in existing:
        history.create_controller_revision(parents[parent], revs[name], 0)
    released = history.release_controller_revision(SS1, revs[revision])
    if released is not None:
        assert (controller_ref(released) or {}).get("uid") != "ss1"


# -- FindEqualRevisions / SortControllerRevisions -------------------------------------

_FIND_ROWS = [
    pytest.param(["ss1Rev1", "ss2Rev1", "ss2Rev2"], {"ss1Rev1"}, id="finds equivalent"),
    pytest.param([], set(), id="finds nothing when empty"),
    pytest.param(["ss2Rev2", "ss2Rev1"], set(), id="finds nothing with no matches"),
]


@pytest.mark.parametrize(("revisions", "want"), _FIND_ROWS)
def test_find_equal_revisions(revisions: list[str], want: set[str]) -> None:
    rev2 = _rev(SS1, 2)
    rev2["metadata"]["ownerReferences"] = []
    revs = {"ss1Rev1": _rev(SS1, 1), "ss1Rev2": rev2, "ss2Rev1": _rev(SS2, 1), "ss2Rev2": _rev(SS2, 2)}
    found = find_equal_revisions([revs[n] for n in revisions], revs["ss1Rev1"])
    assert len(found) == len(want)
    assert {f["metadata"]["name"] for f in found} <= {revs[n]["metadata"]["name"] for n in want}


def _sort_revs() -> dict[str, Obj]:
    t0, t1 = rfc3339(Instant(0)), rfc3339(Instant(1_000_000_000))
    out = {f"ss1Rev{i}": _rev(SS1, i) for i in (1, 2, 3)}
    out["ss1Rev3Time2"] = _rev(SS1, 3)
    out["ss1Rev3Time2Name2"] = _rev(SS1, 3)
    for name, cr in out.items():
        cr["metadata"]["creationTimestamp"] = t1 if "Time2" in name else t0
        cr["metadata"]["name"] = name  # distinct names make the order observable
    return out


_SORT_ROWS = [
    pytest.param(["ss1Rev2", "ss1Rev1", "ss1Rev3"], ["ss1Rev1", "ss1Rev2", "ss1Rev3"], id="out of order"),
    pytest.param(["ss1Rev1", "ss1Rev2", "ss1Rev3"], ["ss1Rev1", "ss1Rev2", "ss1Rev3"], id="sorted"),
    pytest.param(["ss1Rev3", "ss1Rev2", "ss1Rev1"], ["ss1Rev1", "ss1Rev2", "ss1Rev3"], id="reversed"),
    pytest.param(["ss1Rev3", "ss1Rev3Time2", "ss1Rev2", "ss1Rev1"],
                 ["ss1Rev1", "ss1Rev2", "ss1Rev3", "ss1Rev3Time2"], id="with ties"),
    pytest.param([], [], id="empty"),
]  # fmt: skip


@pytest.mark.parametrize(("revisions", "want"), _SORT_ROWS)
def test_sort_controller_revisions(revisions: list[str], want: list[str]) -> None:
    revs = _sort_revs()
    got = sort_controller_revisions([revs[n] for n in revisions])
    assert [r["metadata"]["name"] for r in got] == want


def test_sort_breaks_timestamp_ties_by_name() -> None:
    revs = _sort_revs()
    got = sort_controller_revisions([revs["ss1Rev3Time2Name2"], revs["ss1Rev3Time2"]])
    assert [r["metadata"]["name"] for r in got] == ["ss1Rev3Time2", "ss1Rev3Time2Name2"]

"""Upstream's storage list tests, on the reference apiserver's ``list_page``.

Ports the rows of k8s.io/apiserver@v0.37.2 pkg/storage/testing/store_tests.go
(``RunTestList``'s table, ``RunTestListWithoutPaging``, ``RunTestListContinuation``,
``RunTestListContinuationWithFilter``, ``RunTestListInconsistentContinuation``) and
pkg/storage/continue_test.go. Upstream's pods become ConfigMaps (``spec.nodeName`` is
``data.nodeName``); the prefixes ``/pods/`` and ``/pods/<ns>/`` are the all-namespace
and the namespace lists. Where the etcd store and the watch cache differ, the reference
answers as the apiserver does (the watch cache ignores ``limit`` at resourceVersion 0).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api.builders import make_namespace
from reference_impl.apiserver.list_options import (
    INCONSISTENT_CONTINUE,
    ListOptions,
    decode_continue,
    encode_continue,
)
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import BadRequest, Gone, Invalid, Timeout
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
Pred = Callable[[Obj], bool]
MAX_INT64 = str(2**63 - 1)


def token(start: str, rv: int) -> str:
    """encodeContinueOrDie: base64url (no padding) of {"v","rv","start"}."""
    data = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).rstrip(b"=").decode()


def cm(ns: str, name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}}


@dataclass
class Seed:
    """seedMultiLevelData, then the compaction at the first write and one more write."""

    server: APIServer
    rv: dict[str, int]  # init, c0..c5, upd, list (continueRV), cur (continueRV + 1)
    objs: dict[str, tuple[str, str]]  # c0..c5, upd -> (namespace/name, resourceVersion)


def seed_multi_level() -> Seed:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    for ns in ("first", "second", "third"):
        s.create(make_namespace(ns).build())
    rv = {"init": s.store.revision}
    objs: dict[str, tuple[str, str]] = {}
    order = [("first", "bar"), ("second", "bar"), ("second", "foo"), ("third", "barfoo"),
             ("third", "foo"), ("second", "baz")]  # fmt: skip
    for i, (ns, name) in enumerate(order):
        out = s.create(cm(ns, name))
        rv[f"c{i}"] = int(out["metadata"]["resourceVersion"])
        objs[f"c{i}"] = (f"{ns}/{name}", out["metadata"]["resourceVersion"])
    bar = s.get("v1", "ConfigMap", "bar", "first")
    bar["data"] = {"nodeName": "fakeNode"}
    out = s.update(bar)
    rv["upd"] = int(out["metadata"]["resourceVersion"])
    objs["upd"] = ("first/bar", out["metadata"]["resourceVersion"])
    s.delete("v1", "ConfigMap", "baz", "second")
    rv["list"] = s.store.revision
    s.store.compact(rv["c0"])
    # "Compact and increase RV": a write outside the listed resource.
    s.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "bump", "namespace": "first"}})
    rv["cur"] = s.store.revision
    assert rv["cur"] == rv["list"] + 1
    return Seed(s, rv, objs)


@pytest.fixture(scope="module")
def seeded() -> Seed:
    return seed_multi_level()


def name_is(v: str) -> Pred:
    return lambda o: bool(o["metadata"]["name"] == v)


def name_is_not(v: str) -> Pred:
    return lambda o: bool(o["metadata"]["name"] != v)


def node_is(v: str) -> Pred:
    return lambda o: bool((o.get("data") or {}).get("nodeName") == v)


@dataclass(frozen=True)
class Row:
    ns: str | None = None  # None: the /pods/ prefix (all namespaces)
    pred: Pred | None = None
    limit: int = 0
    rv: str = ""  # a literal, or "@<symbol>" / "@<symbol>+1" of Seed.rv
    match: str = ""
    cont: tuple[str, str] | None = None  # (start, rv symbol or literal int)
    out: tuple[str, ...] = ()
    error: str = ""  # "error" (BadRequest/Invalid), "too_large", "too_old", "continue_too_old"
    expect_continue: bool = False
    continue_exact: tuple[str, str] | None = None
    remaining: int | None = None
    expect_rv: str = ""  # symbol; "" unchecked; ">=list" for NotOlderThan


def _rv(seed: Seed, v: str) -> int:
    if v.lstrip("-").isdigit():
        return int(v)
    base, _, plus = v.partition("+")
    return seed.rv[base] + (int(plus) if plus else 0)


def _opt_rv(seed: Seed, v: str) -> str:
    return str(_rv(seed, v[1:])) if v.startswith("@") else v


NN = "metadata.name"
NOT = "NotOlderThan"
EX = "Exact"

LIST_ROWS: list[Any] = [
    pytest.param(Row(rv="abc", error="error"), id="rejects invalid resource version"),
    pytest.param(Row(limit=1, rv="1", cont=("second/foo", "list"), error="error"),
                 id="rejects resource version and continue token"),
    pytest.param(Row(rv=MAX_INT64, error="too_large"), id="rejects resource version set too high"),
    pytest.param(Row(ns="first", out=("upd",)), id="test List on existing key"),
    pytest.param(Row(ns="first", rv="0", out=("upd",)),
                 id="test List on existing key with resource version set to 0"),
    pytest.param(Row(ns="first", rv="@c0", match=EX, out=("c0",), expect_rv="c0"),
                 id="test List on existing key with resource version set before update, match=Exact"),
    pytest.param(Row(ns="second", rv="@c0", match=EX, out=(), expect_rv="c0"),
                 id="test List on existing key with resource version set before creation, match=Exact"),
    pytest.param(Row(ns="second", rv="@c1", match=EX, out=("c1",), expect_rv="c1"),
                 id="test List on existing key with resource version set after creation, match=Exact"),
    pytest.param(Row(ns="first", rv="@init", match=EX, error="too_old"),
                 id="test List on existing key with resource version set before first write, match=Exact"),
    pytest.param(Row(ns="first", rv="0", match=NOT, out=("upd",)),
                 id="test List on existing key with resource version set to 0, match=NotOlderThan"),
    pytest.param(Row(ns="first", rv="0", match="Invalid", error="error"),
                 id="test List on existing key with resource version set to 0, match=Invalid"),
    pytest.param(Row(ns="first", rv="@init", match=NOT, out=("upd",)),
                 id="test List on existing key with resource version set before first write, match=NotOlderThan"),
    pytest.param(Row(ns="first", rv="@init", match="Invalid", error="error"),
                 id="test List on existing key with resource version set before first write, match=Invalid"),
    pytest.param(Row(ns="first", rv="@list", out=("upd",)),
                 id="test List on existing key with resource version set to current resource version"),
    pytest.param(Row(ns="first", rv="@list", match=EX, out=("upd",), expect_rv="list"),
                 id="test List on existing key with resource version set to current resource version, match=Exact"),
    pytest.param(Row(ns="first", rv="@list", match=NOT, out=("upd",)),
                 id="test List on existing key with resource version set to current resource version, match=NotOlderThan"),
    pytest.param(Row(ns="non-existing", out=()), id="test List on non-existing key"),
    pytest.param(Row(ns="first", pred=name_is_not("bar"), out=()), id="test List with pod name matching"),
    pytest.param(Row(ns="first", pred=name_is_not("bar"), rv="@list", match=NOT, out=()),
                 id="test List with pod name matching with resource version set to current resource version, match=NotOlderThan"),
    pytest.param(Row(ns="second", limit=1, out=("c1",), expect_rv="cur", expect_continue=True,
                     continue_exact=("bar\x00", "cur"), remaining=1), id="test List with limit"),
    pytest.param(Row(ns="second", limit=1, rv="@list", out=("c1",), expect_rv="list",
                     expect_continue=True, continue_exact=("bar\x00", "list"), remaining=1),
                 id="test List with limit at current resource version"),
    pytest.param(Row(ns="second", limit=1, rv="@list", match=EX, out=("c1",), expect_rv="list",
                     expect_continue=True, continue_exact=("bar\x00", "list"), remaining=1),
                 id="test List with limit at current resource version and match=Exact"),
    pytest.param(Row(ns="second", limit=1, rv="@list", match=NOT, out=("c1",), expect_rv=">=list",
                     expect_continue=True, remaining=1),
                 id="test List with limit at current resource version and match=NotOlderThan"),
    # ignoreForWatchCache upstream: the apiserver's watch cache ignores limit at RV 0.
    pytest.param(Row(ns="second", limit=1, rv="0", out=("c1", "c2"), expect_rv=">=list"),
                 id="test List with limit at resource version 0 (watch cache)"),
    pytest.param(Row(ns="second", limit=1, rv="0", match=NOT, out=("c1", "c2"), expect_rv=">=list"),
                 id="test List with limit at resource version 0 match=NotOlderThan (watch cache)"),
    pytest.param(Row(ns="second", limit=1, rv="@c0", match=EX, out=(), expect_rv="c0"),
                 id="test List with limit at resource version before created and match=Exact"),
    pytest.param(Row(ns="second", limit=1, rv="@c1", match=EX, out=("c1",), expect_rv="c1"),
                 id="test List with limit at resource version after created and match=Exact"),
    pytest.param(Row(ns="second", limit=1, cont=("foo", "list"), out=("c2",)),
                 id="test List with pregenerated continue token"),
    pytest.param(Row(ns="second", limit=1, rv="0", cont=("foo", "list"), out=("c2",)),
                 id="ignores resource version 0 for List with pregenerated continue token"),
    pytest.param(Row(ns="second", out=("c1", "c2")),
                 id="test List with multiple levels of directories and expect flattened result"),
    pytest.param(Row(ns="second", rv="@list", match=NOT, out=("c1", "c2")),
                 id="test List with multiple levels of directories and expect flattened result with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("barfoo"), limit=1, out=("c3",), expect_continue=True),
                 id="test List with filter returning only one item, ensure only a single page returned"),
    pytest.param(Row(pred=name_is("barfoo"), limit=1, rv="@list", match=NOT, out=("c3",),
                     expect_rv=">=list", expect_continue=True),
                 id="test List with filter returning only one item, ensure only a single page returned with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("barfoo"), limit=2, out=("c3",)),
                 id="test List with filter returning only one item, covers the entire list"),
    pytest.param(Row(pred=name_is("barfoo"), limit=2, rv="@list", match=NOT, out=("c3",), expect_rv=">=list"),
                 id="test List with filter returning only one item, covers the entire list with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("barfoo"), limit=2, rv="0", out=("c3",)),
                 id="test List with filter returning only one item, covers the entire list, with resource version 0"),
    pytest.param(Row(pred=name_is("bar"), limit=2, out=("upd", "c1"), expect_continue=True),
                 id="test List with filter returning two items, more pages possible"),
    pytest.param(Row(pred=name_is("bar"), limit=2, rv="@list", match=NOT, out=("upd", "c1"), expect_continue=True),
                 id="test List with filter returning two items, more pages possible with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("foo"), limit=2, out=("c2", "c4")),
                 id="filter returns two items split across multiple pages"),
    pytest.param(Row(pred=name_is("foo"), limit=2, rv="@list", match=NOT, out=("c2", "c4")),
                 id="filter returns two items split across multiple pages with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("foo"), limit=2, cont=("third/barfoo", "list"), out=("c4",)),
                 id="filter returns one item for last page, ends on last item, not full"),
    pytest.param(Row(pred=name_is("foo"), limit=1, cont=("third/barfoo", "list"), out=("c4",)),
                 id="filter returns one item for last page, starts on last item, full"),
    pytest.param(Row(pred=name_is("foo"), limit=2, cont=("third/barfoo", "list"), out=("c4",)),
                 id="filter returns one item for last page, starts on last item, partial page"),
    pytest.param(Row(pred=name_is("foo"), limit=5, out=("c2", "c4")),
                 id="filter returns two items, page size equal to total list size"),
    pytest.param(Row(pred=name_is("foo"), limit=5, rv="@list", match=NOT, out=("c2", "c4")),
                 id="filter returns two items, page size equal to total list size with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("barfoo"), limit=5, out=("c3",)),
                 id="filter returns one item, page size equal to total list size"),
    pytest.param(Row(pred=name_is("barfoo"), limit=5, rv="@list", match=NOT, out=("c3",)),
                 id="filter returns one item, page size equal to total list size with current resource version and match=NotOlderThan"),
    pytest.param(Row(out=("upd", "c1", "c2", "c3", "c4")), id="list all items"),
    pytest.param(Row(rv="@list", match=NOT, out=("upd", "c1", "c2", "c3", "c4")),
                 id="list all items with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=node_is("fakeNode"), limit=5, rv="@list", match=NOT, out=("upd",)),
                 id="verify list returns updated version of object; filter returns one item, page size equal to total list size with current resource version and match=NotOlderThan"),
    pytest.param(Row(pred=name_is("baz"), limit=5, rv="@list", match=NOT, out=()),
                 id="verify list does not return deleted object; filter for deleted object, page size equal to total list size with current resource version and match=NotOlderThan"),
    pytest.param(Row(ns="empty", out=(), expect_rv="cur"), id="test consistent List"),
    pytest.param(Row(ns="empty", rv="0", out=(), expect_rv=">=init"), id="test non-consistent List"),
    pytest.param(Row(rv="@init", match=EX, error="too_old"),
                 id="test List with resource version set before first write, match=Exact"),
    pytest.param(Row(rv="@c0", match=EX, out=("c0",), expect_rv="c0"),
                 id="test List with resource version of first write, match=Exact"),
    pytest.param(Row(rv="@c1", match=EX, out=("c0", "c1"), expect_rv="c1"),
                 id="test List with resource version of second write, match=Exact"),
    pytest.param(Row(rv="@c2", match=EX, out=("c0", "c1", "c2"), expect_rv="c2"),
                 id="test List with resource version of third write, match=Exact"),
    pytest.param(Row(rv="@c3", match=EX, out=("c0", "c1", "c2", "c3"), expect_rv="c3"),
                 id="test List with resource version of fourth write, match=Exact"),
    pytest.param(Row(rv="@c4", match=EX, out=("c0", "c1", "c2", "c3", "c4"), expect_rv="c4"),
                 id="test List with resource version of fifth write, match=Exact"),
    pytest.param(Row(rv="@c5", match=EX, out=("c0", "c1", "c5", "c2", "c3", "c4"), expect_rv="c5"),
                 id="test List with resource version of six write, match=Exact"),
    pytest.param(Row(rv="@upd", match=EX, out=("upd", "c1", "c5", "c2", "c3", "c4"), expect_rv="upd"),
                 id="test List with resource version of seventh write, match=Exact"),
    pytest.param(Row(rv="@list", match=EX, out=("upd", "c1", "c2", "c3", "c4"), expect_rv="list"),
                 id="test List with resource version of eight write, match=Exact"),
    pytest.param(Row(rv="@list+1", match=EX, out=("upd", "c1", "c2", "c3", "c4"), expect_rv="cur"),
                 id="test List with resource version after writes, match=Exact"),
    pytest.param(Row(rv="@list+2", match=EX, error="too_large"),
                 id="test List with future resource version, match=Exact"),
    pytest.param(Row(limit=1, rv="@c1", match=EX, out=("c0",), expect_rv="c1", expect_continue=True,
                     continue_exact=("first/bar\x00", "c1"), remaining=1),
                 id="test List with limit, resource version of second write, match=Exact"),
    pytest.param(Row(limit=2, rv="@c2", match=EX, out=("c0", "c1"), expect_rv="c2", expect_continue=True,
                     continue_exact=("second/bar\x00", "c2"), remaining=1),
                 id="test List with limit, resource version of third write, match=Exact"),
    pytest.param(Row(limit=4, rv="@c3", match=EX, out=("c0", "c1", "c2", "c3"), expect_rv="c3"),
                 id="test List with limit, resource version of fourth write, match=Exact"),
    pytest.param(Row(limit=1, rv="@c4", match=EX, out=("c0",), expect_rv="c4", expect_continue=True,
                     continue_exact=("first/bar\x00", "c4"), remaining=4),
                 id="test List with limit, resource version of fifth write, match=Exact"),
    pytest.param(Row(limit=2, rv="@c5", match=EX, out=("c0", "c1"), expect_rv="c5", expect_continue=True,
                     continue_exact=("second/bar\x00", "c5"), remaining=4),
                 id="test List with limit, resource version of six write, match=Exact"),
    pytest.param(Row(limit=4, rv="@upd", match=EX, out=("upd", "c1", "c5", "c2"), expect_rv="upd",
                     expect_continue=True, continue_exact=("second/foo\x00", "upd"), remaining=2),
                 id="test List with limit, resource version of seventh write, match=Exact"),
    pytest.param(Row(limit=8, rv="@list", match=EX, out=("upd", "c1", "c2", "c3", "c4"), expect_rv="list"),
                 id="test List with limit, resource version of eight write, match=Exact"),
    pytest.param(Row(limit=1, rv="@list+1", match=EX, out=("upd",), expect_rv="cur", expect_continue=True,
                     continue_exact=("first/bar\x00", "cur"), remaining=4),
                 id="test List with limit, resource version after writes, match=Exact"),
    pytest.param(Row(limit=1, cont=("first/bar\x00", "init"), error="continue_too_old"),
                 id="test List with continue, resource version before first write"),
    pytest.param(Row(limit=1, cont=("first/bar\x00", "c0"), out=(), expect_rv="c0"),
                 id="test List with continue, resource version of first write"),
    pytest.param(Row(limit=1, cont=("first/bar\x00", "c1"), out=("c1",), expect_rv="c1"),
                 id="test List with continue, resource version of second write"),
    pytest.param(Row(limit=2, cont=("second/bar\x00", "c2"), out=("c2",), expect_rv="c2"),
                 id="test List with continue, resource version of third write"),
    pytest.param(Row(limit=1, cont=("first/bar\x00", "c4"), out=("c1",), expect_rv="c4", expect_continue=True,
                     continue_exact=("second/bar\x00", "c4"), remaining=3),
                 id="test List with continue, resource version of fifth write"),
    pytest.param(Row(limit=2, cont=("second/bar\x00", "c5"), out=("c5", "c2"), expect_rv="c5",
                     expect_continue=True, continue_exact=("second/foo\x00", "c5"), remaining=2),
                 id="test List with continue, resource version of six write"),
    pytest.param(Row(limit=4, cont=("second/foo\x00", "upd"), out=("c3", "c4"), expect_rv="upd"),
                 id="test List with continue, resource version of seventh write"),
    pytest.param(Row(limit=1, cont=("first/bar\x00", "cur"), out=("c1",), expect_rv="cur", expect_continue=True,
                     continue_exact=("second/bar\x00", "cur"), remaining=3),
                 id="test List with continue, resource version after writes"),
    pytest.param(Row(cont=("first/bar\x00", "-1"), out=("c1", "c2", "c3", "c4"), expect_rv="cur"),
                 id="test List with continue from second pod, negative resource version gives consistent read"),
    pytest.param(Row(limit=2, cont=("first/bar\x00", "-1"), out=("c1", "c2"), expect_rv="cur", expect_continue=True,
                     continue_exact=("second/foo\x00", "cur"), remaining=2),
                 id="test List with continue from second pod and limit, negative resource version gives consistent read"),
    pytest.param(Row(cont=("second/foo\x00", "-1"), out=("c3", "c4"), expect_rv="cur"),
                 id="test List with continue from third pod, negative resource version gives consistent read"),
    pytest.param(Row(cont=("", "list"), error="error"), id="test List with continue from empty fails"),
    pytest.param(Row(cont=("first/bar\x00", "0"), error="error"),
                 id="test List with continue from first pod, empty resource version fails"),
    pytest.param(Row(rv="-1", error="error"), id="test List with negative rv fails"),
]


@pytest.mark.parametrize("row", LIST_ROWS)
def test_list(seeded: Seed, row: Row) -> None:
    """RunTestList's table."""
    cont = token(row.cont[0], _rv(seeded, row.cont[1])) if row.cont else ""
    opts = ListOptions(row.limit, cont, _opt_rv(seeded, row.rv), row.match)

    def call() -> Obj:
        return seeded.server.list_page("v1", "ConfigMap", row.ns, field_selector=row.pred,
                                       options=opts)  # fmt: skip

    if row.error:
        want: dict[str, type[Exception]] = {"error": BadRequest, "too_large": Timeout,
                                            "too_old": Gone, "continue_too_old": Gone}  # fmt: skip
        with pytest.raises((BadRequest, Invalid) if row.error == "error" else want[row.error]) as ei:
            call()
        text = str(ei.value)
        if row.error == "too_large":
            assert "Too large resource version" in text
        elif row.error == "too_old":
            assert "The resourceVersion for the provided list is too old" in text
        elif row.error == "continue_too_old":
            assert "The provided continue parameter is too old to display a consistent list result" in text
        return
    got = call()
    meta = got["metadata"]
    assert bool(meta.get("continue")) == row.expect_continue, meta
    if row.continue_exact:
        assert meta["continue"] == token(row.continue_exact[0], _rv(seeded, row.continue_exact[1]))
    if row.expect_rv.startswith(">="):
        assert int(meta["resourceVersion"]) >= seeded.rv[row.expect_rv[2:]]
    elif row.expect_rv:
        assert meta["resourceVersion"] == str(seeded.rv[row.expect_rv])
    items = [(f'{o["metadata"]["namespace"]}/{o["metadata"]["name"]}', o["metadata"]["resourceVersion"])
             for o in got["items"]]  # fmt: skip
    assert items == [seeded.objs[k] for k in row.out]
    assert meta.get("remainingItemCount") == row.remaining


# -- RunTestListWithoutPaging, RunTestListContinuation(WithFilter), RareObject -------------


def fresh(namespaces: tuple[str, ...]) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    for ns in namespaces:
        s.create(make_namespace(ns).build())
    return s


def names(page: Obj) -> list[str]:
    return [f'{o["metadata"]["namespace"]}/{o["metadata"]["name"]}' for o in page["items"]]


def test_list_without_paging() -> None:
    """RunTestListWithoutPaging: limit 0 returns every object, with no continue token."""
    s = fresh(("first", "second"))
    for ns, name in (("first", "bar"), ("second", "bar"), ("second", "foo")):
        s.create(cm(ns, name))
    got = s.list_page("v1", "ConfigMap", options=ListOptions(limit=0))
    assert names(got) == ["first/bar", "second/bar", "second/foo"]
    assert "continue" not in got["metadata"] and "remainingItemCount" not in got["metadata"]


def test_list_continuation() -> None:
    """RunTestListContinuation: pages of 1 and the rest, all at the first page's revision."""
    s = fresh(("first", "second"))
    for ns, name in (("first", "bar"), ("second", "bar"), ("second", "foo")):
        current = s.create(cm(ns, name))["metadata"]["resourceVersion"]
    everything = name_is_not("__none__")  # a field selector matching all, as upstream's

    def page(limit: int, cont: str) -> Obj:
        return s.list_page("v1", "ConfigMap", field_selector=everything,
                           options=ListOptions(limit=limit, continue_=cont))  # fmt: skip

    first = page(1, "")
    assert first["metadata"].get("continue"), "No continuation token set"
    assert names(first) == ["first/bar"] and first["metadata"]["resourceVersion"] == current
    from_second = first["metadata"]["continue"]
    rest = page(0, from_second)
    assert "continue" not in rest["metadata"]
    assert names(rest) == ["second/bar", "second/foo"]
    assert rest["metadata"]["resourceVersion"] == current
    second = page(1, from_second)
    assert second["metadata"].get("continue") and names(second) == ["second/bar"]
    assert second["metadata"]["resourceVersion"] == current
    third = page(1, second["metadata"]["continue"])
    assert "continue" not in third["metadata"] and names(third) == ["second/foo"]
    assert third["metadata"]["resourceVersion"] == current


def test_list_pagination_rare_object() -> None:
    """RunTestListPaginationRareObject: limit 1 with a selector matching only the last of
    1000 objects still finds it, in one page with no continue token."""
    s = fresh(("default",))
    for i in range(1000):
        last = s.create(cm("default", f"pod-{i}"))
    got = s.list_page("v1", "ConfigMap", field_selector=name_is("pod-999"),
                      options=ListOptions(limit=1))  # fmt: skip
    assert "continue" not in got["metadata"]
    assert got["items"] == [last]


def test_list_continuation_with_filter() -> None:
    """RunTestListContinuationWithFilter: a page fills past objects the filter drops."""
    s = fresh(("1", "2", "3", "4"))
    for ns, name in (("1", "foo"), ("2", "bar"), ("3", "foo"), ("4", "foo")):
        current = s.create(cm(ns, name))["metadata"]["resourceVersion"]
    not_bar = name_is_not("bar")
    first = s.list_page("v1", "ConfigMap", field_selector=not_bar, options=ListOptions(limit=2))
    assert first["metadata"].get("continue"), "No continuation token set"
    assert names(first) == ["1/foo", "3/foo"] and first["metadata"]["resourceVersion"] == current
    second = s.list_page("v1", "ConfigMap", field_selector=not_bar,
                         options=ListOptions(limit=2, continue_=first["metadata"]["continue"]))  # fmt: skip
    assert "continue" not in second["metadata"]
    assert names(second) == ["4/foo"] and second["metadata"]["resourceVersion"] == current


def test_list_inconsistent_continuation() -> None:
    """RunTestListInconsistentContinuation: a continue token older than the compaction is
    410 Expired carrying a token (rv -1) that lists the rest at the latest revision.

    Upstream's pages ask resourceVersion "0" of the etcd store; the apiserver's watch cache
    ignores limit there, so these pages ask the consistent read ("") instead."""
    s = fresh(("first", "second"))
    for ns, name in (("first", "bar"), ("second", "bar"), ("second", "foo")):
        s.create(cm(ns, name))
    first = s.list_page("v1", "ConfigMap", options=ListOptions(limit=1))
    assert names(first) == ["first/bar"] and first["metadata"].get("continue")
    foo = s.get("v1", "ConfigMap", "foo", "second")
    foo["metadata"]["labels"] = {"state": "new"}
    last_rv = int(s.update(foo)["metadata"]["resourceVersion"])
    s.store.compact(last_rv)
    with pytest.raises(Gone) as ei:
        s.list_page("v1", "ConfigMap", options=ListOptions(continue_=first["metadata"]["continue"]))
    assert ei.value.message == INCONSISTENT_CONTINUE
    assert ei.value.code == 410 and ei.value.reason == "Expired"
    inconsistent = ei.value.continue_token
    assert inconsistent == token("first/bar\x00", -1)
    second = s.list_page("v1", "ConfigMap", options=ListOptions(limit=1, continue_=inconsistent))
    assert second["metadata"].get("continue") and names(second) == ["second/bar"]
    assert int(second["metadata"]["resourceVersion"]) >= last_rv
    third = s.list_page("v1", "ConfigMap",
                        options=ListOptions(limit=1, continue_=second["metadata"]["continue"]))  # fmt: skip
    assert "continue" not in third["metadata"] and names(third) == ["second/foo"]
    assert third["items"][0]["metadata"]["labels"] == {"state": "new"}
    assert third["metadata"]["resourceVersion"] == second["metadata"]["resourceVersion"]


# -- continue_test.go ------------------------------------------------------------------


def raw_token(version: str, rv: int, start: str) -> str:
    data = json.dumps({"v": version, "rv": rv, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).rstrip(b"=").decode()


UNRECOGNIZED = "continue key is not valid: server does not recognize this encoded version"
INVALID_RV = "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
EMPTY_KEY = "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"
GENERIC = "continue key is not valid"


@pytest.mark.parametrize(
    ("value", "want_key", "want_rv", "want_err"),
    [
        pytest.param(raw_token("meta.k8s.io/v1", 1, "key"), "/test/key", 1, "", id="valid"),
        pytest.param(raw_token("meta.k8s.io/v1", 1, "/"), "/test/", 1, "", id="root path"),
        pytest.param(raw_token("", 1, "key"), "", 0, UNRECOGNIZED + " ", id="empty version"),
        pytest.param(raw_token("v1", 1, "key"), "", 0, UNRECOGNIZED + " v1", id="invalid version"),
        pytest.param(raw_token("meta.k8s.io/v1", 0, "key"), "", 0, INVALID_RV, id="invalid RV"),
        pytest.param(raw_token("meta.k8s.io/v1", 1, ""), "", 0, EMPTY_KEY, id="no start Key"),
        pytest.param(raw_token("meta.k8s.io/v1", 1, "../key"), "", 0, GENERIC + ": ../key",
                     id="path traversal - parent"),
        pytest.param(raw_token("meta.k8s.io/v1", 1, "./key"), "", 0, GENERIC + ": ./key",
                     id="path traversal - local"),
        pytest.param(raw_token("meta.k8s.io/v1", 1, "./../key"), "", 0, GENERIC + ": ./../key",
                     id="path traversal - double parent"),
        pytest.param(raw_token("meta.k8s.io/v1", 1, "key/../.."), "", 0, GENERIC + ": key/../..",
                     id="path traversal - after parent"),
    ],
)
def test_decode_continue(value: str, want_key: str, want_rv: int, want_err: str) -> None:
    """Test_decodeContinue."""
    if want_err:
        with pytest.raises(ValueError) as ei:
            decode_continue(value, "/test/")
        assert str(ei.value) == want_err
        return
    assert decode_continue(value, "/test/") == (want_key, want_rv)


def test_encode_continue_round_trip() -> None:
    """EncodeContinue: the start key is relative to the prefix; unpadded base64url."""
    value = encode_continue("/test/pod-2\x00", "/test/", 12345)
    assert value == raw_token("meta.k8s.io/v1", 12345, "pod-2\x00") and "=" not in value
    assert decode_continue(value, "/test/") == ("/test/pod-2\x00", 12345)
    with pytest.raises(ValueError, match="the key and key prefix do not match"):
        encode_continue("/other/pod-2", "/test/", 1)


@pytest.mark.parametrize(
    ("label_selector", "want_remaining"),
    [
        pytest.param(None, 3, id="empty predicate reports remaining count"),
        pytest.param("name=foo", None, id="label selector omits remaining count"),
        pytest.param(None, None, marks=pytest.mark.skip(reason="the reference has no ShardedListAndWatch shard selectors"),
                     id="shard selector omits remaining count when ShardedListAndWatch enabled"),
        pytest.param(None, None, marks=pytest.mark.skip(reason="the reference has no ShardedListAndWatch shard selectors"),
                     id="shard selector reports remaining count when ShardedListAndWatch disabled"),
    ],
)
def test_prepare_continue_token_remaining_item_count(
    label_selector: str | None, want_remaining: int | None
) -> None:
    """TestPrepareContinueTokenRemainingItemCount: 5 objects, limit 2, a page with more."""
    s = fresh(("test",))
    for i in range(5):
        body = cm("test", f"pod-{i}")
        body["metadata"]["labels"] = {"name": "foo"}
        s.create(body)
    got = s.list_page("v1", "ConfigMap", "test", label_selector, options=ListOptions(limit=2))
    assert got["metadata"]["continue"]
    assert got["metadata"].get("remainingItemCount") == want_remaining


# -- the handler's ValidateListOptions (validation_test.go, the list rows) ---------------


@pytest.mark.parametrize(
    ("opts", "want"),
    [
        pytest.param(ListOptions(), "", id="valid-default"),
        pytest.param(ListOptions(resource_version="1", resource_version_match="Exact"), "",
                     id="valid-resourceversionmatch-exact"),
        pytest.param(ListOptions(resource_version="0", resource_version_match="Exact"),
                     'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
                     id="invalid-resourceversionmatch-exact"),
        pytest.param(ListOptions(resource_version="0", resource_version_match="NotOlderThan"), "",
                     id="valid-resourceversionmatch-notolderthan"),
        pytest.param(ListOptions(resource_version="0", resource_version_match="foo"),
                     'resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""',
                     id="invalid-resourceversionmatch"),
        pytest.param(ListOptions(resource_version_match="NotOlderThan"),
                     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
                     id="resourceversionmatch-without-resourceversion"),
        pytest.param(ListOptions(resource_version="1", resource_version_match="NotOlderThan",
                                 continue_=raw_token("meta.k8s.io/v1", 1, "a")),
                     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided",
                     id="resourceversionmatch-with-continue"),
    ],
)
def test_validate_list_options(opts: ListOptions, want: str) -> None:
    """ValidateListOptions on a list: 422 Invalid ListOptions.meta.k8s.io."""
    s = fresh(())
    if not want:
        s.list_page("v1", "ConfigMap", options=opts)
        return
    with pytest.raises(Invalid) as ei:
        s.list_page("v1", "ConfigMap", options=opts)
    assert ei.value.code == 422
    assert (ei.value.kind, ei.value.name) == ("ListOptions.meta.k8s.io", "")
    assert [f"{c.field}: {c.message}" for c in ei.value.causes] == [want]


# -- the errors the storage layer answers ------------------------------------------------


def test_error_texts(seeded: Seed) -> None:
    """The status messages: invalid resourceVersion and continue token (400), the
    resourceVersion with continue (400), a future resourceVersion (504 with retry-after)."""
    api = seeded.server

    def err(opts: ListOptions) -> Exception:
        with pytest.raises(Exception) as ei:
            api.list_page("v1", "ConfigMap", options=opts)
        return ei.value

    e = err(ListOptions(resource_version="abc"))
    assert isinstance(e, BadRequest) and str(e) == (
        'invalid resource version: resourceVersion: Invalid value: "abc": '
        'strconv.ParseUint: parsing "abc": invalid syntax'
    )
    e = err(ListOptions(continue_="not=base64"))
    assert isinstance(e, BadRequest)
    assert str(e) == "invalid continue token: continue key is not valid: illegal base64 data at input byte 3"
    e = err(ListOptions(continue_=raw_token("meta.k8s.io/v1", 5, "a"), resource_version="7"))
    assert isinstance(e, BadRequest)
    assert str(e) == "specifying resource version is not allowed when using continue"
    cur = seeded.rv["cur"]
    e = err(ListOptions(resource_version=str(cur + 5), resource_version_match="NotOlderThan"))
    assert isinstance(e, Timeout) and e.code == 504 and e.retry_after == 1
    assert str(e) == f"Timeout: Too large resource version: {cur + 5}, current: {cur}"
    assert [c.reason for c in e.causes] == ["ResourceVersionTooLarge"]
    e = err(ListOptions(resource_version=str(seeded.rv["init"]), resource_version_match="Exact"))
    assert isinstance(e, Gone) and e.code == 410 and str(e) == "The resourceVersion for the provided list is too old."


def test_plain_list_unchanged(seeded: Seed) -> None:
    """``list`` (the controllers' call) still returns the plain items, the same objects."""
    plain = seeded.server.list("v1", "ConfigMap")
    assert plain == seeded.server.list_page("v1", "ConfigMap")["items"]

"""Upstream's storage watch tests, on the reference apiserver's ``watch``.

Ports the rows of k8s.io/apiserver@v0.37.2 pkg/storage/testing/watcher_tests.go as the
watch cache (the cacher) answers them, which is what an apiserver's watch meets:
``RunTestWatch`` (testWatch, recursive and not), ``RunTestWatchFromZero``,
``RunTestDeleteTriggerWatch``, ``RunTestWatchFromNonZero``,
``RunTestWatchDeleteEventObjectHaveLatestRV``, ``RunTestClusterScopedWatch``,
``RunTestNamespaceScopedWatch``, ``RunTestWatchDispatchBookmarkEvents``,
``RunTestOptionalWatchBookmarksWithCorrectResourceVersion``,
``RunSendInitialEventsBackwardCompatibility``, ``RunWatchSemantics``,
``RunWatchSemanticInitialEventsExtended``; and the watch rows of
apimachinery's internalversion/validation ``TestValidateListOptions``.

Upstream's example pods become ConfigMaps (ClusterRoles where cluster-scoped); the pod
fields the predicates read, ``spec.nodeName`` and ``status.phase``, are the annotations
``nodeName`` and ``phase``. A watch of one key is a watch with ``metadata.name=<name>``,
as the apiserver serves a watch of a named object. Time is simulated: a wait of upstream
becomes ``SimClock.run_until`` with the iterator's ``has_pending`` as the stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reference_impl.api.builders import make_namespace
from reference_impl.api.watch import WatchEvent
from reference_impl.apiserver.list_options import validate_watch_options
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.watch import INITIAL_EVENTS_END, open_watch
from reference_impl.clock import Instant, SimClock, millis, seconds
from reference_impl.errors import Gone, Invalid, Timeout
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
Pred = Callable[[Obj], bool]
CM = ("v1", "ConfigMap")
CR = ("rbac.authorization.k8s.io/v1", "ClusterRole")
NOT = "NotOlderThan"


def fresh(namespaces: tuple[str, ...] = ()) -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    for ns in namespaces:
        s.create(make_namespace(ns).build())
    return s


def pod(name: str, ns: str = "", *, node: str = "", running: bool = False,
        labels: dict[str, str] | None = None) -> Obj:
    """basePod / baseNamespacedPod(Updated|Assigned) as a ConfigMap (a ClusterRole when
    ``ns`` is empty)."""
    meta: Obj = {"name": name}
    if ns:
        meta["namespace"] = ns
    notes = {k: v for k, v in (("nodeName", node), ("phase", "Running" if running else "")) if v}
    if notes:
        meta["annotations"] = notes
    if labels:
        meta["labels"] = labels
    av, kind = CM if ns else CR
    return {"apiVersion": av, "kind": kind, "metadata": meta}


_FIELDS: dict[str, Callable[[Obj], str]] = {
    "metadata.name": lambda o: str(o["metadata"]["name"]),
    "metadata.namespace": lambda o: str(o["metadata"].get("namespace", "")),
    "spec.nodeName": lambda o: str((o["metadata"].get("annotations") or {}).get("nodeName", "")),
    "status.phase": lambda o: str((o["metadata"].get("annotations") or {}).get("phase", "")),
}


def fields(selector: str) -> Pred | None:
    """A field selector (``a=b,c!=d``) over the fields above; None for everything."""
    terms: list[tuple[str, str, bool]] = []
    for term in filter(None, selector.split(",")):
        neg = "!=" in term
        key, value = term.split("!=" if neg else "=")
        terms.append((key, value, neg))
    if not terms:
        return None
    return lambda o: all((_FIELDS[k](o) == v) != neg for k, v, neg in terms)


def drain(it: Iterator[WatchEvent]) -> list[WatchEvent]:
    """What the watch has delivered so far."""
    return list(it)


def one(it: Iterator[WatchEvent]) -> WatchEvent:
    got = drain(it)
    assert len(got) == 1, [(e.type, e.object["metadata"]) for e in got]
    return got[0]


def deleted_as(prev: Obj, rv: str) -> Obj:
    """The object a DELETED event carries: the last state, at the event's revision."""
    obj = {**prev, "metadata": {**prev["metadata"], "resourceVersion": rv}}
    return obj


# -- RunTestWatch (testWatch) ------------------------------------------------------------

SEL = {"select": "true"}
# name -> (field selector, label selector, steps: (object kind or None=delete, event))
TEST_WATCH: dict[str, tuple[str, str, list[tuple[str | None, str]]]] = {
    "create a key": ("", "", [("base", "ADDED")]),
    "key updated to match predicate": ("spec.nodeName=bar", "", [("base", ""), ("assigned", "ADDED")]),
    "update": ("", "", [("base", "ADDED"), ("assigned", "MODIFIED")]),
    "delete because of being filtered": (
        "spec.nodeName!=bar", "", [("base", "ADDED"), ("assigned", "DELETED")]),
    "filtering": ("", "select=true", [("sel-base", "ADDED"), ("base", "DELETED"),
                                      ("sel-base", "ADDED"), ("sel-assigned", "MODIFIED"),
                                      (None, "DELETED")]),
}  # fmt: skip


def _variant(kind: str, ns: str) -> Obj:
    return pod("foo", ns, node="bar" if kind.endswith("assigned") else "",
               labels=SEL if kind.startswith("sel-") else None)  # fmt: skip


@pytest.mark.parametrize("recursive", [False, True], ids=["key", "recursive"])
@pytest.mark.parametrize("name", list(TEST_WATCH))
def test_watch(name: str, recursive: bool) -> None:
    """testWatch: ADDED on the first match, MODIFIED on update, DELETED when filtered out;
    nothing from another namespace."""
    field_sel, label_sel, steps = TEST_WATCH[name]
    ns = f"test-ns-{list(TEST_WATCH).index(name) + 1}-{str(recursive).lower()}"
    s = fresh((ns, f"{ns}-bad"))
    pred = fields(field_sel if recursive else ",".join(filter(None, [field_sel, "metadata.name=foo"])))
    listed = s.list_page(*CM, ns, label_sel, pred)
    w = s.watch(*CM, listed["metadata"]["resourceVersion"], ns, label_selector=label_sel,
                field_selector=pred)  # fmt: skip
    s.apply(pod("foo", f"{ns}-bad"))
    prev: Obj | None = None
    for kind, event in steps:
        if kind is None:
            s.delete(*CM, "foo", ns)
            assert prev is not None
            out = deleted_as(prev, str(s.store.revision))
        else:
            out = s.apply(_variant(kind, ns))
        if event:
            expect = deleted_as(prev, out["metadata"]["resourceVersion"]) if event == "DELETED" and prev else out
            assert one(w) == WatchEvent(event, expect)  # type: ignore[arg-type]
        else:
            assert drain(w) == []
        prev = out
    assert drain(w) == []


# -- RunTestWatchFromZero, RunTestDeleteTriggerWatch, RunTestWatchFromNonZero ------------


def test_watch_from_zero() -> None:
    """A watch from "0" starts with the current state as ADDED (not the history), also
    after compaction; a watch from a compacted revision is Gone (410 Expired)."""
    s = fresh(("test-ns",))
    stored = s.create(pod("foo", "test-ns"))
    w = s.watch(*CM, "0", "test-ns", field_selector=fields("metadata.name=foo"))
    assert one(w) == WatchEvent("ADDED", stored)
    out = s.update(pod("foo", "test-ns", running=True))
    assert one(w) == WatchEvent("MODIFIED", out)
    w = s.watch(*CM, "0", "test-ns", field_selector=fields("metadata.name=foo"))
    assert one(w) == WatchEvent("ADDED", out)
    new_out = s.update(pod("foo", "test-ns"))
    s.store.compact(int(new_out["metadata"]["resourceVersion"]))
    w = s.watch(*CM, "0", "test-ns", field_selector=fields("metadata.name=foo"))
    assert one(w) == WatchEvent("ADDED", new_out)
    with pytest.raises(Gone) as ei:
        s.watch(*CM, out["metadata"]["resourceVersion"], "test-ns")
    assert (ei.value.code, ei.value.reason) == (410, "Expired")
    assert str(ei.value) == (
        f"too old resource version: {out['metadata']['resourceVersion']} "
        f"({new_out['metadata']['resourceVersion']})"
    )


def test_delete_trigger_watch() -> None:
    s = fresh(("test-ns",))
    stored = s.create(pod("foo", "test-ns"))
    w = s.watch(*CM, stored["metadata"]["resourceVersion"], "test-ns")
    s.delete(*CM, "foo", "test-ns")
    assert one(w).type == "DELETED"


def test_watch_from_non_zero() -> None:
    s = fresh(("test-ns",))
    stored = s.create(pod("foo", "test-ns"))
    w = s.watch(*CM, stored["metadata"]["resourceVersion"], "test-ns")
    out = s.update(pod("foo", "test-ns", running=True))
    assert one(w) == WatchEvent("MODIFIED", out)


def test_watch_delete_event_object_have_latest_rv() -> None:
    """RunTestWatchDeleteEventObjectHaveLatestRV: the DELETED object is at the delete's
    revision, not the stored object's."""
    s = fresh(("test-ns",))
    stored = s.create(pod("foo", "test-ns"))
    w = s.watch(*CM, stored["metadata"]["resourceVersion"], "test-ns")
    s.delete(*CM, "foo", "test-ns")
    rv = str(s.store.revision)
    assert rv != stored["metadata"]["resourceVersion"]
    assert one(w) == WatchEvent("DELETED", deleted_as(stored, rv))


# -- RunTestClusterScopedWatch, RunTestNamespaceScopedWatch ------------------------------

Step = tuple[str, str, str, str]  # name, namespace, variant (base|updated|n:<node>), event


def _steps(spec: str) -> list[Step]:
    """``name/ns/variant/event`` steps separated by spaces (``-`` for no event)."""
    out: list[Step] = []
    for item in spec.split():
        name, ns, variant, event = item.split("/")
        out.append((name, ns, variant, "" if event == "-" else event))
    return out


SCOPED_ROWS = [
    # (id, requested namespace, field selector, steps)
    ("cluster-wide watch, request without name, without field selector", "", "",
     "t1-foo1//base/ADDED t1-foo1//updated/MODIFIED t1-foo2//n:t1-bar1/ADDED"),
    ("cluster-wide watch, request without name, field selector with spec.nodeName", "",
     "spec.nodeName=t2-bar1", "t2-foo1//base/- t2-foo1//n:t2-bar1/ADDED"),
    ("cluster-wide watch, request without name, field selector with spec.nodeName to filter out watch",
     "", "spec.nodeName!=t3-bar1",
     "t3-foo1//base/ADDED t3-foo2//base/ADDED t3-foo1//updated/MODIFIED t3-foo1//n:t3-bar1/DELETED"),
    ("cluster-wide watch, request with name, field selector with metadata.name", "",
     "metadata.name=t4-foo1",
     "t4-foo1//base/ADDED t4-foo2//base/- t4-foo1//updated/MODIFIED t4-foo2//updated/-"),
    ("cluster-wide watch, request with name, field selector with metadata.name and spec.nodeName",
     "", "metadata.name=t5-foo1,spec.nodeName=t5-bar1",
     "t5-foo1//base/- t5-foo2//base/- t5-foo1//updated/- t5-foo2//updated/- t5-foo1//n:t5-bar1/ADDED"),
    ("cluster-wide watch, request with name, field selector with metadata.name, and with spec.nodeName to filter out watch",
     "", "spec.nodeName!=t6-bar1,metadata.name=t6-foo1",
     "t6-foo1//base/ADDED t6-foo2//base/- t6-foo1//updated/MODIFIED t6-foo1//n:t6-bar1/DELETED "
     "t6-foo2//n:t6-bar1/-"),
    ("namespaced watch, request without name, request without namespace, without field selector",
     "", "", "t1-foo1/t1-ns1/base/ADDED t1-foo2/t1-ns2/base/ADDED t1-foo1/t1-ns1/updated/MODIFIED "
     "t1-foo2/t1-ns2/updated/MODIFIED"),
    ("namespaced watch, request without name, request without namespace, field selector with metadata.namespace",
     "", "metadata.namespace=t2-ns1",
     "t2-foo1/t2-ns1/base/ADDED t2-foo1/t2-ns2/base/- t2-foo1/t2-ns1/updated/MODIFIED "
     "t2-foo1/t2-ns2/updated/-"),
    ("namespaced watch, request without name, request without namespace, field selector with spec.nodename",
     "", "spec.nodeName=t3-bar1",
     "t3-foo1/t3-ns1/base/- t3-foo2/t3-ns2/base/- t3-foo1/t3-ns1/n:t3-bar1/ADDED "
     "t3-foo2/t3-ns2/n:t3-bar1/ADDED"),
    ("namespaced watch, request without name, request without namespace, field selector with spec.nodename to filter out watch",
     "", "spec.nodeName!=t4-bar1",
     "t4-foo1/t4-ns1/base/ADDED t4-foo2/t4-ns1/base/ADDED t4-foo1/t4-ns1/updated/MODIFIED "
     "t4-foo1/t4-ns1/n:t4-bar1/DELETED"),
    ("namespaced watch, request without name, request with namespace, without field selector",
     "t5-ns1", "", "t5-foo1/t5-ns1/base/ADDED t5-foo1/t5-ns2/base/- t5-foo2/t5-ns1/base/ADDED "
     "t5-foo1/t5-ns1/updated/MODIFIED t5-foo1/t5-ns2/updated/-"),
    ("namespaced watch, request without name, request with namespace, field selector with matched metadata.namespace",
     "t6-ns1", "metadata.namespace=t6-ns1",
     "t6-foo1/t6-ns1/base/ADDED t6-foo1/t6-ns2/base/- t6-foo1/t6-ns1/updated/MODIFIED"),
    ("namespaced watch, request without name, request with namespace, field selector with non-matched metadata.namespace",
     "t7-ns1", "metadata.namespace=t7-ns2",
     "t7-foo1/t7-ns1/base/- t7-foo1/t7-ns2/base/- t7-foo1/t7-ns1/updated/- t7-foo1/t7-ns2/updated/-"),
    ("namespaced watch, request without name, request with namespace, field selector with spec.nodename",
     "t8-ns1", "spec.nodeName=t8-bar2",
     "t8-foo1/t8-ns1/base/- t8-foo1/t8-ns1/n:t8-bar1/- t8-foo1/t8-ns2/n:t8-bar2/- "
     "t8-foo1/t8-ns1/n:t8-bar2/ADDED"),
    ("namespaced watch, request without name, request with namespace, field selector with spec.nodename to filter out watch",
     "t9-ns2", "spec.nodeName!=t9-bar1",
     "t9-foo1/t9-ns1/base/- t9-foo1/t9-ns2/base/ADDED t9-foo1/t9-ns2/n:t9-bar1/DELETED "
     "t9-foo1/t9-ns2/n:t9-bar2/ADDED"),
    ("namespaced watch, request with name, request without namespace, field selector with metadata.name",
     "", "metadata.name=t10-foo1",
     "t10-foo1/t10-ns1/base/ADDED t10-foo1/t10-ns2/base/ADDED t10-foo2/t10-ns1/base/- "
     "t10-foo1/t10-ns1/updated/MODIFIED t10-foo1/t10-ns1/n:t10-bar1/MODIFIED"),
    ("namespaced watch, request with name, request without namespace, field selector with metadata.name and metadata.namespace",
     "", "metadata.name=t11-foo1,metadata.namespace=t11-ns1",
     "t11-foo1/t11-ns1/base/ADDED t11-foo2/t11-ns1/base/- t11-foo1/t11-ns2/base/- "
     "t11-foo1/t11-ns1/updated/MODIFIED t11-foo1/t11-ns1/n:t11-bar1/MODIFIED"),
    ("namespaced watch, request with name, request without namespace, field selector with metadata.name and spec.nodeName",
     "", "metadata.name=t12-foo1,spec.nodeName=t12-bar1",
     "t12-foo1/t12-ns1/base/- t12-foo1/t12-ns1/updated/- t12-foo1/t12-ns1/n:t12-bar1/ADDED"),
    ("namespaced watch, request with name, request without namespace, field selector with metadata.name, and with spec.nodeName to filter out watch",
     "", "spec.nodeName!=t15-bar1,metadata.name=t15-foo1",
     "t15-foo1/t15-ns1/base/ADDED t15-foo2/t15-ns1/base/- t15-foo1/t15-ns1/updated/MODIFIED "
     "t15-foo1/t15-ns1/n:t15-bar1/DELETED t15-foo1/t15-ns1/n:t15-bar2/ADDED"),
    ("namespaced watch, request with name, request with namespace, with field selector metadata.name",
     "t16-ns1", "metadata.name=t16-foo1",
     "t16-foo1/t16-ns1/base/ADDED t16-foo2/t16-ns1/base/- t16-foo1/t16-ns1/updated/MODIFIED "
     "t16-foo1/t16-ns1/n:t16-bar1/MODIFIED"),
    ("namespaced watch, request with name, request with namespace, with field selector metadata.name and metadata.namespace",
     "t17-ns1", "metadata.name=t17-foo2,metadata.namespace=t17-ns1",
     "t17-foo1/t17-ns1/base/- t17-foo2/t17-ns1/base/ADDED t17-foo1/t17-ns1/updated/- "
     "t17-foo2/t17-ns1/n:t17-bar1/MODIFIED"),
    ("namespaced watch, request with name, request with namespace, with field selector metadata.name, metadata.namespace and spec.nodename",
     "t18-ns1", "metadata.name=t18-foo1,metadata.namespace=t18-ns1,spec.nodeName=t18-bar1",
     "t18-foo1/t18-ns1/base/- t18-foo2/t18-ns1/base/- t18-foo1/t18-ns2/base/- "
     "t18-foo1/t18-ns1/updated/- t18-foo1/t18-ns1/n:t18-bar1/ADDED"),
    ("namespaced watch, request with name, request with namespace, with field selector metadata.name, metadata.namespace, and with spec.nodename to filter out watch",
     "t19-ns1", "spec.nodeName!=t19-bar1,metadata.name=t19-foo2,metadata.namespace=t19-ns1",
     "t19-foo1/t19-ns1/base/- t19-foo2/t19-ns2/base/- t19-foo2/t19-ns1/base/ADDED "
     "t19-foo2/t19-ns1/updated/MODIFIED t19-foo2/t19-ns1/n:t19-bar1/DELETED"),
]  # fmt: skip


@pytest.mark.parametrize(("requested_ns", "selector", "spec"),
                         [pytest.param(*row[1:], id=row[0]) for row in SCOPED_ROWS])  # fmt: skip
def test_scoped_watch(requested_ns: str, selector: str, spec: str) -> None:
    """Cluster- and namespace-scoped watches with field selectors: each write's event or
    none, the DELETED object the last matching state at the write's revision."""
    steps = _steps(spec)
    cluster = all(ns == "" for _, ns, _, _ in steps)
    s = fresh(tuple(sorted({ns for _, ns, _, _ in steps if ns} | ({requested_ns} - {""}))))
    av, kind = CR if cluster else CM
    pred = fields(selector)
    listed = s.list_page(av, kind, None, None, pred)
    w: Any = s.watch(av, kind, listed["metadata"]["resourceVersion"], requested_ns or None,
                     field_selector=pred)  # fmt: skip
    current: dict[str, Obj] = {}
    for name, ns, variant, event in steps:
        node = variant[2:] if variant.startswith("n:") else ""
        out = s.apply(pod(name, ns, node=node, running=variant == "updated"))
        ident = f"{ns}/{name}"
        if event == "DELETED":
            expect = deleted_as(current.pop(ident), out["metadata"]["resourceVersion"])
        else:
            current[ident] = expect = out
        got = drain(w)
        assert got == ([WatchEvent(event, expect)] if event else [])  # type: ignore[arg-type]
    w.stop()
    assert drain(w) == []


def test_delayed_watch_delivery() -> None:
    """RunTestDelayedWatchDelivery: events queued before a watch stops are still
    delivered, in order (at least the first plus the cacher's 10-event buffer)."""
    s = fresh(("test-ns",))
    stored = s.create(pod("foo", "test-ns"))
    w: Any = s.watch(*CM, stored["metadata"]["resourceVersion"], "test-ns")
    for i in range(21):
        s.apply(pod(f"foo-{i}", "test-ns"))
    first = next(w)
    w.stop()
    names = [first.object["metadata"]["name"]] + [e.object["metadata"]["name"] for e in drain(w)]
    assert names == [f"foo-{i}" for i in range(len(names))]
    assert len(names) >= 11


def test_watcher_timeout() -> None:
    """RunTestWatcherTimeout: 50 watchers that never read do not hold up one that does."""
    s = fresh(("test-ns",))
    rv = s.list_page(*CM)["metadata"]["resourceVersion"]
    idle = [s.watch(*CM, rv, "test-ns") for _ in range(50)]
    reading = s.watch(*CM, rv, "test-ns")
    for i in range(22):
        out = s.create(pod(f"foo-{i}", "test-ns"))
        assert one(reading) == WatchEvent("ADDED", out)
    assert len(idle) == 50


@pytest.mark.skip(reason="the reference's watch takes no context: nothing to cancel")
def test_watch_context_cancel() -> None:
    """RunTestWatchContextCancel."""


# -- bookmarks ---------------------------------------------------------------------------


@pytest.mark.parametrize(("allow", "expected"), [(False, False), (True, True)],
                         ids=["allowWatchBookmarks=false", "allowWatchBookmarks=true"])  # fmt: skip
def test_watch_dispatch_bookmark_events(allow: bool, expected: bool) -> None:
    """RunTestWatchDispatchBookmarkEvents (the cacher: bookmarks expected): a watch with a
    3 s deadline and bookmarks gets a BOOKMARK 2 s before it; an old client none."""
    s = fresh(("test-ns", "other-ns-0"))
    stored = s.create(pod("foo", "test-ns"))
    w: Any = s.watch(*CM, stored["metadata"]["resourceVersion"], "test-ns",
                     field_selector=fields("metadata.name=foo"), allow_bookmarks=allow,
                     timeout_seconds=3)  # fmt: skip
    other = s.create(pod("foo", "other-ns-0"))
    start = s.clock.now()
    s.clock.run_until(Instant(start + seconds(3)), stop=w.has_pending)
    got = drain(w)
    if not expected:
        assert got == [] and s.clock.now() == start + seconds(3)
        return
    assert s.clock.now() == start + seconds(1)
    assert got == [WatchEvent("BOOKMARK", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "resourceVersion": other["metadata"]["resourceVersion"]}})]  # fmt: skip
    s.clock.run_until(Instant(start + seconds(3)), stop=w.has_pending)
    assert drain(w) == []  # one pre-timeout bookmark only


def test_optional_watch_bookmarks_with_correct_resource_version() -> None:
    """RunTestOptionalWatchBookmarksWithCorrectResourceVersion: 100 creates 10 ms apart
    under a 3 s watch; a bookmark arrives, its revision never below an event's before it,
    every other event's above everything before it."""
    s = fresh(("test-ns",))
    start_rv = s.list_page(*CM)["metadata"]["resourceVersion"]
    w: Any = s.watch(*CM, start_rv, "test-ns", allow_bookmarks=True, timeout_seconds=3)
    seen: list[WatchEvent] = []
    t0 = s.clock.now()
    for i in range(100):
        s.create(pod(f"foo-{i}", "test-ns"))
        seen += drain(w)
        s.clock.run_until(Instant(s.clock.now() + millis(10)))
        seen += drain(w)
    s.clock.run_until(Instant(t0 + seconds(3)))
    seen += drain(w)
    last = 0
    for ev in seen:
        rv = int(ev.resource_version)
        assert rv >= last if ev.type == "BOOKMARK" else rv > last
        last = rv
    assert [ev.type for ev in seen].count("BOOKMARK") == 1
    assert [ev.type for ev in seen].count("ADDED") == 100


def test_bookmark_every_minute_without_deadline() -> None:
    """defaultBookmarkFrequency: with no deadline, a bookmark a minute after the watch
    opened and each minute after that, at the current revision."""
    s = fresh(("test-ns",))
    w: Any = s.watch(*CM, str(s.store.revision), "test-ns", allow_bookmarks=True)
    t0 = s.clock.now()
    s.clock.run_until(Instant(t0 + seconds(150)), stop=w.has_pending)
    assert s.clock.now() == t0 + seconds(60)
    assert [e.type for e in drain(w)] == ["BOOKMARK"]
    s.clock.run_until(Instant(t0 + seconds(150)), stop=w.has_pending)
    assert s.clock.now() == t0 + seconds(120)
    out = s.create(pod("x", "test-ns"))  # the due bookmark follows the event before it
    rv = out["metadata"]["resourceVersion"]
    assert [(e.type, e.resource_version) for e in drain(w)] == [("ADDED", rv), ("BOOKMARK", rv)]
    w.stop()
    s.clock.run_until(Instant(t0 + seconds(300)))
    assert drain(w) == []


# -- RunWatchSemantics, RunWatchSemanticInitialEventsExtended ----------------------------

# (id, allowWatchBookmarks, sendInitialEvents, resourceVersion ("cur": the current one),
#  initial ADDED expected, initial-events-end bookmark expected)
SEMANTICS = [
    ("allowWatchBookmarks=true, sendInitialEvents=true, RV=unset", True, True, None, True, True),
    ("allowWatchBookmarks=true, sendInitialEvents=false, RV=unset", True, False, None, False, False),
    ("allowWatchBookmarks=false, sendInitialEvents=false, RV=unset", False, False, None, False, False),
    ("allowWatchBookmarks=false, sendInitialEvents=true, RV=unset", False, True, None, True, False),
    ("allowWatchBookmarks=true, sendInitialEvents=true, RV=0", True, True, "0", True, True),
    ("allowWatchBookmarks=true, sendInitialEvents=false, RV=0", True, False, "0", False, False),
    ("allowWatchBookmarks=false, sendInitialEvents=false, RV=0", False, False, "0", False, False),
    ("allowWatchBookmarks=false, sendInitialEvents=true, RV=0", False, True, "0", True, False),
    ("allowWatchBookmarks=true, sendInitialEvents=true, RV=1", True, True, "1", True, True),
    ("allowWatchBookmarks=true, sendInitialEvents=false, RV=1", True, False, "1", True, False),
    ("allowWatchBookmarks=false, sendInitialEvents=false, RV=1", False, False, "1", True, False),
    ("allowWatchBookmarks=false, sendInitialEvents=true, RV=1", False, True, "1", True, False),
    ("allowWatchBookmarks=true, sendInitialEvents=true, RV=useCurrentRV", True, True, "cur", True, True),
    ("allowWatchBookmarks=true, sendInitialEvents=false, RV=useCurrentRV", True, False, "cur", False, False),
    ("allowWatchBookmarks=false, sendInitialEvents=false, RV=useCurrentRV", False, False, "cur", False, False),
    ("allowWatchBookmarks=false, sendInitialEvents=true, RV=useCurrentRV", False, True, "cur", True, False),
    ("legacy, RV=0", False, None, "0", True, False),
    ("legacy, RV=unset", False, None, None, True, False),
]  # fmt: skip


@pytest.mark.parametrize(("idx", "allow", "send", "rv", "initial", "end"),
                         [pytest.param(i, *row[1:], id=row[0]) for i, row in enumerate(SEMANTICS)])  # fmt: skip
def test_watch_semantics(idx: int, allow: bool, send: bool | None, rv: str | None,
                         initial: bool, end: bool) -> None:  # fmt: skip
    """The sendInitialEvents x resourceVersion x allowWatchBookmarks table: the initial
    ADDED in order, the initial-events-end bookmark (at least the last created revision),
    then the later creates (bookmarks ignored), and nothing more."""
    ns = f"ns-{idx}"
    s = fresh((ns,))
    created = [s.create(pod(f"pod-{i}", ns)) for i in "123"]
    listed = s.list_page(*CM, ns)
    assert len(listed["items"]) == 3
    since = str(s.store.revision) if rv == "cur" else rv
    w: Any = s.watch(*CM, since, ns, allow_bookmarks=allow, send_initial_events=send,
                     resource_version_match=NOT if send is not None else "")  # fmt: skip
    got = drain(w)
    want = [WatchEvent("ADDED", o) for o in created] if initial else []
    assert got[: len(want)] == want
    rest = got[len(want):]
    if end:
        assert len(rest) == 1 and rest[0].type == "BOOKMARK"
        bm = rest[0].object
        assert int(bm["metadata"]["resourceVersion"]) >= int(created[-1]["metadata"]["resourceVersion"])
        assert bm == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "resourceVersion": bm["metadata"]["resourceVersion"],
            "annotations": {INITIAL_EVENTS_END: "true"}}}  # fmt: skip
    else:
        assert rest == []
    later = [s.create(pod(f"pod-{i}", ns)) for i in "45"]
    after = [e for e in drain(w) if e.type != "BOOKMARK"]
    assert after == [WatchEvent("ADDED", o) for o in later]
    s.clock.run_until(Instant(s.clock.now() + seconds(5)))
    assert [e for e in drain(w) if e.type != "BOOKMARK"] == []


def test_watch_semantic_initial_events_extended() -> None:
    """The initial-events-end bookmark carries the global revision (a create in another
    namespace after the watched ones)."""
    s = fresh(("ns-foo", "other-ns-foo"))
    initial = [s.create(pod(f"pod-{i}", "ns-foo")) for i in "12345"]
    other = s.create(pod("pod-1", "other-ns-foo"))
    w = s.watch(*CM, None, "ns-foo", allow_bookmarks=True, send_initial_events=True,
                resource_version_match=NOT)  # fmt: skip
    assert drain(w) == [WatchEvent("ADDED", o) for o in initial] + [
        WatchEvent("BOOKMARK", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "resourceVersion": other["metadata"]["resourceVersion"],
            "annotations": {INITIAL_EVENTS_END: "true"}}})]  # fmt: skip
    assert drain(w) == []


def test_watch_list_match_single() -> None:
    """RunWatchListMatchSingle: a watch-list with ``metadata.name=pod-1`` across all
    namespaces sends that one object, then the bookmark at the global revision."""
    s = fresh(("ns-foo",))
    expected = s.create(pod("pod-1", "ns-foo"))
    last = {}
    for i in "2345":
        last = s.create(pod(f"pod-{i}", "ns-foo"))
    w = s.watch(*CM, None, None, field_selector=fields("metadata.name=pod-1"),
                allow_bookmarks=True, send_initial_events=True, resource_version_match=NOT)  # fmt: skip
    assert drain(w) == [WatchEvent("ADDED", expected), WatchEvent("BOOKMARK", {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "resourceVersion": last["metadata"]["resourceVersion"],
            "annotations": {INITIAL_EVENTS_END: "true"}}})]  # fmt: skip
    assert drain(w) == []


def test_send_initial_events_backward_compatibility() -> None:
    """RunSendInitialEventsBackwardCompatibility: the storage layer opens a watch with
    sendInitialEvents and nothing else (the handler's validation is not its concern)."""
    s = fresh()
    w = open_watch(s.store, "/registry/configmaps/", "v1", None, s._out, send_initial_events=True)
    w.stop()


def test_watch_list_resource_version_too_large() -> None:
    """waitUntilFreshLocked: sendInitialEvents from a revision the cache has not reached
    ends as "Too large resource version" (504, retry after 1 s)."""
    s = fresh(("ns",))
    cur = s.store.revision
    with pytest.raises(Timeout) as ei:
        s.watch(*CM, str(cur + 5), "ns", send_initial_events=True, resource_version_match=NOT)
    assert str(ei.value) == f"Timeout: Too large resource version: {cur + 5}, current: {cur}"
    assert ei.value.retry_after == 1


def test_watch_from_future_revision_starts_after_it() -> None:
    """A watch from a revision not reached yet delivers only the changes after it."""
    s = fresh(("ns",))
    future = s.store.revision + 2
    w = s.watch(*CM, str(future), "ns")
    s.create(pod("a", "ns"))
    s.create(pod("b", "ns"))
    c = s.create(pod("c", "ns"))
    assert drain(w) == [WatchEvent("ADDED", c)]


# -- TestValidateListOptions, the watch rows ---------------------------------------------

FG_OFF = "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"
NEEDS_NOT = "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"


@pytest.mark.parametrize(
    ("send", "match", "continue_", "fg", "want"),
    [
        pytest.param(None, "", "", False, [], id="valid-watch-default"),
        pytest.param(True, NOT, "", True, [], id="valid-watch-sendInitialEvents-on"),
        pytest.param(False, NOT, "", True, [], id="valid-watch-sendInitialEvents-off"),
        pytest.param(None, NOT, "", False,
                     ["resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"],
                     id="watch-resourceversionmatch-without-sendInitialEvents-forbidden"),
        pytest.param(True, "", "", False, [NEEDS_NOT, FG_OFF],
                     id="watch-sendInitialEvents-without-resourceversionmatch-forbidden"),
        pytest.param(True, "Exact", "", True,
                     [NEEDS_NOT, 'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"'],
                     id="watch-sendInitialEvents-with-exact-resourceversionmatch-forbidden"),
        pytest.param(True, "", "", False, [NEEDS_NOT, FG_OFF],
                     id="watch-sendInitialEvents-on-with-empty-resourceversionmatch-forbidden"),
        pytest.param(False, "", "", False, [NEEDS_NOT, FG_OFF],
                     id="watch-sendInitialEvents-off-with-empty-resourceversionmatch-forbidden"),
        pytest.param(True, "incorrect", "", True,
                     [NEEDS_NOT, 'resourceVersionMatch: Unsupported value: "incorrect": supported values: "NotOlderThan"'],
                     id="watch-sendInitialEvents-with-incorrect-resourceversionmatch-forbidden"),
        pytest.param(True, NOT, "", True, [], id="watch-sendInitialEvents-no-allowWatchBookmark"),
        pytest.param(True, NOT, "", False, [FG_OFF], id="watch-sendInitialEvents-no-watchlist-fg-disabled"),
        pytest.param(True, NOT, "123", True,
                     ["resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"],
                     id="watch-sendInitialEvents-no-watchlist-fg-disabled-continue"),
    ],
)  # fmt: skip
def test_validate_watch_options(send: bool | None, match: str, continue_: str, fg: bool,
                                want: list[str]) -> None:  # fmt: skip
    """validateWatchOptions: 422 Invalid ListOptions.meta.k8s.io, causes in order."""
    if not want:
        validate_watch_options(send, match, continue_, watch_list_enabled=fg)
        return
    with pytest.raises(Invalid) as ei:
        validate_watch_options(send, match, continue_, watch_list_enabled=fg)
    assert (ei.value.code, ei.value.kind, ei.value.name) == (422, "ListOptions.meta.k8s.io", "")
    assert [f"{c.field}: {c.message}" for c in ei.value.causes] == want


def test_watch_validates_its_options() -> None:
    """The apiserver's watch runs the validation (WatchList on, as 1.37's default)."""
    s = fresh(("ns",))
    with pytest.raises(Invalid) as ei:
        s.watch(*CM, None, "ns", send_initial_events=True)
    assert [f"{c.field}: {c.message}" for c in ei.value.causes] == [NEEDS_NOT]

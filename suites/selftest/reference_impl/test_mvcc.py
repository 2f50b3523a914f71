"""Unit tests of the MVCC store: revisions, history, range paging, watch and compaction."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference_impl.errors import Gone
from reference_impl.storage.mvcc import EventType, MVCCStore


def test_every_write_gets_the_next_revision_and_history_is_readable() -> None:
    s = MVCCStore()
    a1 = s.put("/r/a", {"v": 1})
    a2 = s.put("/r/a", {"v": 2})
    assert (a1.mod_revision, a2.mod_revision) == (1, 2)
    assert a2.create_revision == 1 and a2.version == 2
    old = s.get("/r/a", revision=1)
    assert old is not None and old.decode() == {"v": 1}
    s.delete("/r/a")
    assert s.get("/r/a") is None
    assert s.get("/r/a", revision=2) is not None


def test_range_pages_with_limit_and_continue_at_one_revision() -> None:
    s = MVCCStore()
    for i in range(7):
        s.put(f"/r/k{i}", {"i": i})
    first = s.range("/r/", limit=3)
    assert [kv.key for kv in first.kvs] == ["/r/k0", "/r/k1", "/r/k2"] and first.more
    s.put("/r/k8", {"i": 8})  # written after the snapshot: must not appear in later pages
    keys = [kv.key for kv in first.kvs]
    last = first.kvs[-1].key
    while True:
        page = s.range("/r/", limit=3, start_after=last, revision=first.revision)
        keys += [kv.key for kv in page.kvs]
        if not page.more:
            break
        last = page.kvs[-1].key
    assert keys == [f"/r/k{i}" for i in range(7)]


def test_watch_replays_from_a_revision_then_streams() -> None:
    s = MVCCStore()
    s.put("/r/a", {"v": 1})
    s.put("/other/x", {})
    s.put("/r/a", {"v": 2})
    w = s.watch("/r/", start_revision=2)
    s.delete("/r/a")
    events = list(w.drain())
    assert [(e.type, e.kv.mod_revision) for e in events] == [
        (EventType.PUT, 3),
        (EventType.DELETE, 4),
    ]


def test_compaction_makes_old_revisions_gone_but_keeps_current_values() -> None:
    s = MVCCStore()
    s.put("/r/a", {"v": 1})
    s.put("/r/a", {"v": 2})
    s.put("/r/b", {"v": 1})
    s.compact(3)
    with pytest.raises(Gone):
        s.get("/r/a", revision=1)
    with pytest.raises(Gone):
        s.watch("/r/", start_revision=2)
    kv = s.get("/r/a")
    assert kv is not None and kv.decode() == {"v": 2}


@given(
    st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 3)), max_size=40),
    st.integers(1, 5),
)
def test_paginated_range_equals_unary_range(ops: list[tuple[str, int]], limit: int) -> None:
    s = MVCCStore()
    for key, v in ops:
        if v == 0:
            s.delete(f"/r/{key}")
        else:
            s.put(f"/r/{key}", {"v": v})
    unary = s.range("/r/")
    paged = []
    after = None
    while True:
        page = s.range("/r/", limit=limit, start_after=after, revision=unary.revision)
        paged += page.kvs
        if not page.more:
            break
        after = page.kvs[-1].key
    assert paged == unary.kvs


def test_history_across_delete_recreate_and_compaction() -> None:
    s = MVCCStore()
    s.put("/r/a", {"v": 1})  # 1
    s.delete("/r/a")  # 2
    s.put("/r/b", {})  # 3
    again = s.put("/r/a", {"v": 3})  # 4: a new life of the key
    assert (again.create_revision, again.version) == (4, 1)
    assert s.get("/r/a", revision=2) is None and s.get("/r/a", revision=3) is None
    one = s.get("/r/a", revision=1)
    assert one is not None and one.decode() == {"v": 1}
    assert [kv.key for kv in s.range("/r/", revision=3).kvs] == ["/r/b"]
    assert [kv.key for kv in s.range("/r/", revision=1).kvs] == ["/r/a"]
    s.delete("/r/b")  # 5
    s.compact(5)  # b's history is only its tombstone now: the key goes
    assert [kv.key for kv in s.range("/r/").kvs] == ["/r/a"]
    assert s.get("/r/b") is None
    s.compact(6)
    latest = s.get("/r/a")
    assert latest is not None and latest.mod_revision == 4

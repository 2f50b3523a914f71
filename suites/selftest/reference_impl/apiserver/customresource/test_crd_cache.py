"""The per-store CRD cache behind custom resource serving (``info.stored_crds``): a request
with no CRD change decodes nothing, and a CRD's update, status change or delete is seen by
the very next request, through ``lookup`` and discovery alike."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.customresource.discovery import served_custom_resources
from reference_impl.apiserver.customresource.info import CRD_PREFIX, lookup, stored_crds
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import NotFound, ServiceUnavailable
from reference_impl.storage.mvcc import KeyValue, MVCCStore

Obj = dict[str, Any]
CRD = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
ESTABLISHED = {"conditions": [{"type": "Established", "status": "True"}]}


def _crd(plural: str, kind: str, versions: tuple[str, ...] = ("v1",), **status: Any) -> Obj:
    return {
        "apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": f"{plural}.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": plural, "kind": kind},
                 "versions": [{"name": v, "served": True, "storage": i == 0}
                              for i, v in enumerate(versions)]},
        "status": {**ESTABLISHED, **status},
    }  # fmt: skip


def _put(store: MVCCStore, crd: Obj) -> None:
    store.put(f"{CRD_PREFIX}{crd['metadata']['name']}", crd)


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys decoded under the CRD prefix, in order."""
    seen: list[str] = []
    real = KeyValue.decode

    def counting(self: KeyValue) -> Obj:
        if self.key.startswith(CRD_PREFIX):
            seen.append(self.key)
        return real(self)

    monkeypatch.setattr(KeyValue, "decode", counting)
    return seen


def test_unchanged_crds_decode_nothing(decodes: list[str]) -> None:
    store = MVCCStore()
    for i in range(5):
        _put(store, _crd(f"w{i}s", f"W{i}"))
    first = lookup(store, "example.com/v1", "W3")
    assert first is not None and first.plural == "w3s"
    assert len(decodes) == 5
    for _ in range(10):
        assert lookup(store, "example.com/v1", "W3") == first
        assert [i.kind for i in served_custom_resources(store)] == [f"W{i}" for i in range(5)]
    assert len(decodes) == 5
    # An unrelated write does not invalidate it.
    store.put("/registry/configmaps/default/x", {"data": {}})
    assert lookup(store, "example.com/v1", "W3") == first
    assert len(decodes) == 5


def test_update_decodes_only_the_changed_crd(decodes: list[str]) -> None:
    store = MVCCStore()
    _put(store, _crd("as", "A"))
    _put(store, _crd("bs", "B"))
    assert lookup(store, "example.com/v2", "B") is None  # v2 not served yet
    decodes.clear()
    _put(store, _crd("bs", "B", ("v1", "v2")))
    got = lookup(store, "example.com/v2", "B")
    assert got is not None and got.api_version == "example.com/v2"
    assert decodes == [f"{CRD_PREFIX}bs.example.com"]


def test_status_changes_are_seen_at_once() -> None:
    store = MVCCStore()
    crd = _crd("ws", "W")
    _put(store, crd)
    assert lookup(store, "example.com/v1", "W") is not None
    # Established withdrawn: no longer served.
    crd["status"] = {"conditions": [{"type": "Established", "status": "False"}]}
    _put(store, crd)
    assert lookup(store, "example.com/v1", "W") is None
    assert served_custom_resources(store) == []
    # acceptedNames take over from spec.names.
    crd["status"] = {**ESTABLISHED, "acceptedNames": {"plural": "ws", "kind": "Accepted"}}
    _put(store, crd)
    assert lookup(store, "example.com/v1", "W") is None
    accepted = lookup(store, "example.com/v1", "Accepted")
    assert accepted is not None and not accepted.terminating
    # Terminating: still served, creates refused by the handler.
    crd["status"]["conditions"].append({"type": "Terminating", "status": "True"})
    _put(store, crd)
    terminating = lookup(store, "example.com/v1", "Accepted")
    assert terminating is not None and terminating.terminating
    assert [i.terminating for i in served_custom_resources(store)] == [True]


def test_delete_is_seen_at_once() -> None:
    store = MVCCStore()
    _put(store, _crd("ws", "W"))
    _put(store, _crd("xs", "X"))
    assert lookup(store, "example.com/v1", "W") is not None
    assert len(served_custom_resources(store, namespaced=True)) == 2
    store.delete(f"{CRD_PREFIX}ws.example.com")
    assert lookup(store, "example.com/v1", "W") is None
    assert [i.kind for i in served_custom_resources(store)] == ["X"]
    # Recreated at another revision: served again.
    _put(store, _crd("ws", "W"))
    assert lookup(store, "example.com/v1", "W") is not None


def test_first_crd_in_key_order_wins() -> None:
    """Two CRDs claiming one kind: the scan's first (key order) answers, served or not."""
    store = MVCCStore()
    late = _crd("zs", "W")
    early = _crd("as", "W", ("v2",))
    _put(store, late)
    _put(store, early)
    assert lookup(store, "example.com/v1", "W") is None  # "as" first, v1 not served there
    got = lookup(store, "example.com/v2", "W")
    assert got is not None and got.crd_name == "as.example.com"


def test_stores_are_cached_apart() -> None:
    one, two = MVCCStore(), MVCCStore()
    _put(one, _crd("ws", "W"))
    assert lookup(one, "example.com/v1", "W") is not None
    assert lookup(two, "example.com/v1", "W") is None
    assert stored_crds(one) is stored_crds(one)
    assert stored_crds(one) is not stored_crds(two)


def test_unavailable_store_still_fails() -> None:
    store = MVCCStore()
    _put(store, _crd("ws", "W"))
    assert lookup(store, "example.com/v1", "W") is not None
    store.available = False
    with pytest.raises(ServiceUnavailable):
        lookup(store, "example.com/v1", "W")


def test_cluster_sees_crd_update_and_delete_between_requests() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    schema: Obj = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "n": {"type": "integer", "default": 1}}}}}  # fmt: skip
    crd = _crd("ws", "W")
    del crd["status"]
    crd["spec"]["versions"][0]["schema"] = {"openAPIV3Schema": schema}
    c.apply(copy.deepcopy(crd))
    c.settle()

    def create(name: str) -> Obj:
        return c.api.create({"apiVersion": "example.com/v1", "kind": "W",
                             "metadata": {"name": name, "namespace": "default"}, "spec": {}})  # fmt: skip

    assert create("a")["spec"] == {"n": 1}
    stored = c.get(*CRD, "ws.example.com")
    stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"]["n"]["default"] = 2  # fmt: skip
    c.api.update(stored)
    assert create("b")["spec"] == {"n": 2}
    c.delete(*CRD, "ws.example.com")
    c.settle()
    with pytest.raises(NotFound):
        create("c")

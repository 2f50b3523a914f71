"""Upstream's storage get test, on the reference apiserver's ``get(resource_version=)``.

Ports ``RunTestGet``'s rows (k8s.io/apiserver@v0.37.2 pkg/storage/testing/store_tests.go)
as the apiserver serves a get (``CacheDelegator.Get``: "" from etcd, otherwise the watch
cache, at least as fresh as the resourceVersion). The example pod is a ConfigMap;
``IgnoreNotFound`` is ``try_get`` (None for upstream's empty object).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api.builders import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import NotFound, Timeout
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
MAX_INT64 = str(2**63 - 1)


def _seed() -> tuple[APIServer, Obj, Obj, Obj]:
    """foo created, then updated (an annotation); bar created after it."""
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("test-ns").build())
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "foo", "namespace": "test-ns"}}
    created = s.create(cm)
    updated = {**created, "metadata": {**created["metadata"], "annotations": {"test-annotation": "1"}}}
    stored = s.update(updated)
    second = s.create({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "bar", "namespace": "test-ns"}})  # fmt: skip
    return s, created, stored, second


# (rv: "created" / "current" / "latest" / literal, name, ignoreNotFound, expected)
ROWS = [
    pytest.param("", "foo", False, "stored", id="get existing"),
    pytest.param("0", "foo", True, "empty|created|stored", id="resource version 0"),
    pytest.param("created", "foo", False, "created|stored", id="object created resource version"),
    pytest.param("current", "foo", False, "stored", id="current object resource version, match=NotOlderThan"),
    pytest.param("latest", "foo", False, "stored", id="latest resource version"),
    pytest.param(MAX_INT64, "foo", False, "too-large", id="too high resource version"),
    pytest.param("", "non-existing", False, "not-found", id="get non-existing"),
    pytest.param("", "non-existing", True, "empty", id="get non-existing, ignore not found"),
]


@pytest.mark.parametrize(("rv", "name", "ignore", "want"), ROWS)
def test_get(rv: str, name: str, ignore: bool, want: str) -> None:
    s, created, stored, second = _seed()
    rv = {
        "created": created["metadata"]["resourceVersion"],
        "current": stored["metadata"]["resourceVersion"],
        "latest": second["metadata"]["resourceVersion"],
    }.get(rv, rv)

    def get() -> Obj | None:
        if ignore:
            try:
                return s.get("v1", "ConfigMap", name, "test-ns", resource_version=rv)
            except NotFound:
                return None
        return s.get("v1", "ConfigMap", name, "test-ns", resource_version=rv)

    if want == "not-found":
        with pytest.raises(NotFound) as nf:
            get()
        assert str(nf.value) == f'configmaps "{name}" not found'
        return
    if want == "too-large":
        with pytest.raises(Timeout) as ei:
            get()
        cur = s.store.revision
        assert str(ei.value) == f"Timeout: Too large resource version: {MAX_INT64}, current: {cur}"
        assert ei.value.code == 504 and ei.value.retry_after == 1
        assert [c.reason for c in ei.value.causes] == ["ResourceVersionTooLarge"]
        return
    alternatives = {"empty": None, "created": created, "stored": stored}
    assert get() in [alternatives[w] for w in want.split("|")]


"""No input crashes the reference: random and mutated objects of every served kind end in
success or an ``ApiError``, and a failed write changes nothing stored.

Objects come from ``fixtures.fuzz``: drawn from each kind's 1.37 schema (nulls, wrong
types, boundary strings and integers) and mutations of valid seeds (nulls, deletions,
wrong types, null list elements, duplicates). ``GARHWAL_FUZZ_EXAMPLES`` scales the budget.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.fuzz import SEEDS, mutated, schema_objects
from reference_impl.api import RESOURCES, make_namespace
from reference_impl.apiserver.admission import install_priority, podgroup_protection
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ApiError
from reference_impl.features import GATES, FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
_SCALE = int(os.environ.get("GARHWAL_FUZZ_EXAMPLES", "1"))
_KINDS = sorted(
    (info.api_version, info.kind, info.namespaced)
    for info in RESOURCES.values()
    if not info.virtual
)
_FUZZ = settings(
    max_examples=8 * _SCALE,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _server() -> APIServer:
    # Every gate on that may be (v1.37.2 locks some deprecated ones off).
    on = {g: True for g, spec in GATES.items() if spec.default or not spec.locked}
    srv = APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates(on))
    install_priority(srv)
    podgroup_protection.install(srv)
    srv.create(make_namespace("default").build())
    return srv


def _dump(srv: APIServer) -> list[tuple[str, bytes]]:
    return [(kv.key, kv.value) for kv in srv.store.range("").kvs]


def _write(srv: APIServer, verb: str, obj: Obj) -> None:
    """One write; success or an ApiError is an answer, anything else fails the test."""
    before = _dump(srv)
    try:
        getattr(srv, verb)(obj)
    except ApiError:
        assert _dump(srv) == before, f"a failed {verb} changed what is stored"
    except Exception as e:  # noqa: BLE001 - the point: no other exception is an answer
        pytest.fail(f"{verb} crashed with {type(e).__name__}: {e}\nobject: {obj!r}")


@pytest.mark.parametrize(("api_version", "kind", "namespaced"), _KINDS, ids=lambda v: str(v))
def test_schema_drawn_objects_get_an_api_answer(
    api_version: str, kind: str, namespaced: bool
) -> None:
    @_FUZZ
    @given(schema_objects(api_version, kind, namespaced))
    def run(obj: Obj) -> None:
        _write(_server(), "create", obj)

    run()


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"{s['kind']}-{s['metadata']['name']}")
def test_mutated_seeds_get_an_api_answer_on_create_update_and_status(seed: Obj) -> None:
    @settings(_FUZZ, max_examples=40 * _SCALE)
    @given(mutated(seed), st.sampled_from(("create", "update", "update_status")))
    def run(obj: Obj, verb: str) -> None:
        srv = _server()
        if verb != "create":
            stored = srv.create(copy.deepcopy(seed))
            meta = obj.get("metadata")
            if isinstance(meta, dict):
                meta["resourceVersion"] = stored["metadata"]["resourceVersion"]
        _write(srv, verb, obj)

    run()


def test_null_fields_decode_as_upstream() -> None:
    """``resources: null`` is absent (accepted); ``containers: [null]`` is an empty
    Container, rejected with field errors; a null label value is the empty string."""
    srv = _server()
    pod: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "labels": {"a": None}},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": None}]},
    }
    stored = srv.create(pod)
    assert stored["metadata"]["labels"] == {"a": ""}
    assert (
        "resources" not in stored["spec"]["containers"][0]
        or stored["spec"]["containers"][0]["resources"] == {}
    )
    bad = copy.deepcopy(pod)
    bad["metadata"]["name"] = "q"
    bad["spec"]["containers"] = [None]
    with pytest.raises(ApiError) as err:
        srv.create(bad)
    assert "spec.containers[0].name" in str(err.value)

"""An update's decode skips the top-level fields the body repeats from the stored object
(a status write repeats the whole spec). It must report exactly what the full walk
reports: the same errors, the same paths, the same decoded object."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.api import make_namespace, make_pod
from reference_impl.apiserver.decode import Decoded, decode
from reference_impl.apiserver.lookups import StoredPeek, current
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]

# Where an edit lands (spec, metadata and status, top level and deep) and what it writes.
_PATHS = [
    ("spec", "hostNetwork"),
    ("spec", "enableServiceLinks"),
    ("spec", "terminationGracePeriodSeconds"),
    ("spec", "containers", 0, "name"),
    ("spec", "bogus"),
    ("metadata", "resourceVersion"),
    ("metadata", "labels"),
    ("metadata", "generation"),
    ("status", "phase"),
    ("status", "hostIP"),
    ("status", "bogus"),
    ("apiVersion",),
    ("bogus",),
]
_VALUES = st.one_of(
    st.none(), st.booleans(), st.sampled_from(["", "x", "v1", "v2"]),
    st.sampled_from([0, 1, 30, 30.0, 2**31, 2**63, 1.5]), st.just({"a": "b"}), st.just({"a": 1}),
)  # fmt: skip


def _server() -> tuple[APIServer, Obj]:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    pod = s.create(make_pod("p", "default").req(cpu="1").label("app", "a").build())
    pod["status"] = {"phase": "Pending", "hostIP": "10.0.0.1"}
    return s, s.update_status(pod)


def _set(obj: Obj, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        if not isinstance(obj.get(step) if isinstance(obj, dict) else None, (dict, list)):
            return
        obj = obj[step]
    if isinstance(obj, dict):
        obj[path[-1]] = value


def _outcome(s: APIServer, body: Obj, peek: StoredPeek | None) -> tuple[str, Any]:
    try:
        d: Decoded = decode(copy.deepcopy(body), s.resource, peek)
    except ApiError as e:
        return type(e).__name__, (e.message, getattr(e, "causes", None))
    return "ok", (d.obj, d.api_version)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PATHS), _VALUES), max_size=3))
@example([])  # the body repeats everything: only resourceVersion is walked
@example([(("spec", "bogus"), "x")])  # a change in the repeated spec is still found
@example([(("spec", "hostNetwork"), "x"), (("status", "bogus"), "x")])
@example([(("spec", "enableServiceLinks"), 1)])  # == holds (1 == True), the JSON differs
@example([(("metadata", "generation"), True)])
@example([(("metadata", "resourceVersion"), 5)])  # a bad resourceVersion, metadata repeated
def test_skipping_repeated_fields_reports_what_the_full_walk_reports(
    edits: list[tuple[tuple[Any, ...], Any]],
) -> None:
    s, stored = _server()
    body = copy.deepcopy(stored)
    for path, value in edits:
        _set(body, path, value)
    peek = StoredPeek(s.store)
    assert _outcome(s, body, peek) == _outcome(s, body, None)


def test_the_peeked_object_is_reused_only_while_it_is_stored() -> None:
    s, stored = _server()
    info = s.resource("v1", "Pod")
    peek = StoredPeek(s.store)
    seen = peek(info, stored["metadata"])
    assert seen is not None and peek.seen is not None
    key, old = current(s.store, info, stored["metadata"], peek)
    assert old is seen  # the same read: no second decode
    s.update_status({**stored, "status": {"phase": "Running"}})
    meta = {k: v for k, v in stored["metadata"].items() if k != "resourceVersion"}
    _, fresh = current(s.store, info, meta, peek)
    assert fresh is not seen and fresh["status"]["phase"] == "Running"


def test_a_status_write_repeating_a_spec_with_an_unknown_field_is_rejected() -> None:
    # The stored spec is valid; a body that changes it to carry an unknown field must
    # still be walked there, though only status is applied.
    s, stored = _server()
    body = copy.deepcopy(stored)
    body["spec"]["bogus"] = 1
    try:
        s.update_status(body)
    except ApiError as e:
        assert "bogus" in str(e)
    else:
        raise AssertionError("the unknown spec field was not reported")


def test_a_body_at_another_version_is_walked_whole() -> None:
    # The stored claim's v1 spec, sent as v1beta1: the same JSON, but unknown fields there.
    s, _ = _server()
    claim = s.create({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}},
    })  # fmt: skip
    body = {**claim, "apiVersion": "resource.k8s.io/v1beta1"}
    full = _outcome(s, body, None)
    assert full[0] == "BadRequest" and "exactly" in full[1][0]
    assert _outcome(s, body, StoredPeek(s.store)) == full

"""No crash on any input for resource.k8s.io kinds (issue #14 part 4).

Hypothesis takes the objects of the upstream cases, puts JSON ``null`` (and other wrong
shapes: ``[null]``, ``{}``, ``[]``, strings, numbers) at random places, creates and
updates them, and checks that every answer is an API error or a success, never a Python
exception, and that a failed write leaves storage as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, Final

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.validation_diff.dra_cases import CASES
from fixtures.validation_diff.reference import NAMESPACE
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
_SEEDS: Final = [c.obj for c in CASES if c.old is None]
_WRONG: Final = [None, [None], {}, [], "", 0, -1, True, "x" * 70, {"a": None}, [{}], [[None]]]
_CONFIG: Final = ClusterConfig(
    runtime_config={"resource.k8s.io/v1beta1": "true", "resource.k8s.io/v1beta2": "true"})
_GATES: Final = {"DRAListTypeAttributes": True, "DRADerivedAttributes": True}


def _paths(v: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(v, dict):
        for k in v:
            if prefix or k not in ("apiVersion", "kind", "metadata"):
                yield (*prefix, k)
                yield from _paths(v[k], (*prefix, k))
    elif isinstance(v, list):
        for i, x in enumerate(v[:3]):
            yield (*prefix, i)
            yield from _paths(x, (*prefix, i))


def _mutated(obj: Obj, picks: list[tuple[int, int]]) -> Obj:
    out = copy.deepcopy(obj)
    for where, what in picks:
        paths = list(_paths(out))
        if not paths:
            break
        path = paths[where % len(paths)]
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = copy.deepcopy(_WRONG[what % len(_WRONG)])
    return out


def _namespaced(obj: Obj) -> Obj:
    if obj["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
        obj["metadata"]["namespace"] = NAMESPACE
    return obj


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(_SEEDS),
       picks=st.lists(st.tuples(st.integers(0, 500), st.integers(0, 50)), min_size=1, max_size=3),
       as_update=st.booleans())
def test_mutated_writes_answer_with_api_errors(seed: Obj, picks: list[tuple[int, int]], as_update: bool) -> None:
    cluster = Cluster(_GATES, config=_CONFIG)
    obj = _namespaced(_mutated(seed, picks))
    meta = obj["metadata"]
    ns = meta.get("namespace")
    if as_update:
        try:
            stored = cluster.create(_namespaced(copy.deepcopy(seed)))
        except ApiError:
            return  # the seed itself is one of the invalid cases
        obj["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
    before = cluster.store.revision
    before_obj = _get(cluster, obj, ns)
    try:
        (cluster.update if as_update else cluster.create)(obj)
    except ApiError:
        assert cluster.store.revision == before  # a failed write stores nothing
        assert _get(cluster, obj, ns) == before_obj


def _get(cluster: Cluster, obj: Obj, ns: str | None) -> Obj | None:
    try:
        return cluster.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], ns)
    except ApiError:
        return None


_STATUS_SEEDS: Final = [c for c in CASES if c.status and c.old is not None]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(_STATUS_SEEDS),
       picks=st.lists(st.tuples(st.integers(0, 500), st.integers(0, 50)), min_size=1, max_size=3))
def test_mutated_status_writes_answer_with_api_errors(case: Any, picks: list[tuple[int, int]]) -> None:
    cluster = Cluster(_GATES, config=_CONFIG)
    assert case.old is not None
    stored = cluster.create(_namespaced(copy.deepcopy(case.old)))
    ns = stored["metadata"].get("namespace")
    if case.old.get("status"):
        cluster.patch_status({**stored, "status": copy.deepcopy(case.old["status"])})
    stored = _get(cluster, stored, ns) or stored  # controllers (taint rule status) write too
    body = _mutated({"apiVersion": "v", "kind": "k", "status": case.obj.get("status") or {}}, picks)
    before = cluster.store.revision
    try:
        cluster.patch_status({**stored, "status": body["status"]})
    except ApiError:
        assert cluster.store.revision == before
        assert _get(cluster, stored, ns) == stored

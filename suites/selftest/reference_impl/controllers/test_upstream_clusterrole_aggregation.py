"""Upstream v1.37.2 pkg/controller/clusterroleaggregation/clusterroleaggregation_controller_test.go,
row by row, against ``reference_impl.controllers.clusterrole_aggregation``.

``TestSyncClusterRole`` feeds an indexer and a fake client that neither validates nor
stores writes: the rows' rules have no apiGroups, which the apiserver would refuse. So
the rows run ``sync`` over a fake lister and a recording client; one extra case runs the
controller on the real apiserver (valid rules) through the controller harness.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from controller_harness import build_harness

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import SharedInformer
from reference_impl.clock import SimClock
from reference_impl.controllers.clusterrole_aggregation import ClusterRoleAggregationController

Obj = dict[str, Any]
RBAC = "rbac.authorization.k8s.io/v1"


def hammer_rules() -> list[Obj]:
    return [{"verbs": ["hammer"], "resources": ["nails"]}, {"verbs": ["hammer"], "resources": ["wedges"]}]


def chisel_rules() -> list[Obj]:
    return [{"verbs": ["chisel"], "resources": ["mortises"]}]


def saw_rules() -> list[Obj]:
    return [{"verbs": ["saw"], "resources": ["boards"]}]


def role(name: str, labels: dict[str, str], rules: list[Obj]) -> Obj:
    return {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": name, "labels": labels}, "rules": rules}


def combined_role(selectors: list[dict[str, str]], *rules: list[Obj]) -> Obj:
    return {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "combined"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": s} for s in selectors]},
            "rules": [r for rs in rules for r in rs]}  # fmt: skip


def combined_apply_rules(*rules: list[Obj]) -> list[Obj]:
    """The ``rules`` of upstream's ``combinedApplyRole`` (the apply configuration)."""
    return [r for rs in rules for r in rs]


class _Informer:
    """The indexer-backed lister: objects by key, listed in key order."""

    def __init__(self, objs: list[Obj]) -> None:
        self.cache = {o["metadata"]["name"]: o for o in objs}

    def get(self, key: str) -> Obj | None:
        return self.cache.get(key)

    def items(self) -> Iterator[Obj]:
        for k in sorted(self.cache):
            yield self.cache[k]


class _Client:
    """The fake clientset: reads the starting objects, records writes, stores nothing."""

    def __init__(self, objs: list[Obj]) -> None:
        self.objs = {o["metadata"]["name"]: o for o in objs}
        self.actions: list[Obj] = []

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        return copy.deepcopy(self.objs[name])

    def update(self, manifest: Obj) -> Obj:
        self.actions.append(copy.deepcopy(manifest))
        return manifest


def _controller(objs: list[Obj]) -> tuple[ClusterRoleAggregationController, _Client]:
    clock = SimClock()
    client = _Client(objs)
    ctx = SimpleNamespace(server=client, informers=None, clock=clock, trace=Trace(clock))
    c = ClusterRoleAggregationController(cast(ComponentContext, ctx))
    c._roles = cast(SharedInformer, _Informer(objs))  # what start() takes from informers
    return c, client


SYNC_ROWS = [
    pytest.param(
        [role("hammer", {"foo": "bar"}, hammer_rules()), combined_role([{"foo": "bar"}], saw_rules())],
        "combined",
        combined_role([{"foo": "bar"}], hammer_rules()),
        combined_apply_rules(hammer_rules()),
        id="remove dead rules",
    ),
    pytest.param(
        [role("hammer", {"foo": "not-bar"}, hammer_rules()), combined_role([{"foo": "bar"}], hammer_rules())],
        "combined",
        combined_role([{"foo": "bar"}]),
        combined_apply_rules(),
        id="strip rules",
    ),
    pytest.param(
        [role("hammer", {"foo": "bar"}, hammer_rules()), role("chisel", {"foo": "bar"}, chisel_rules()),
         role("saw", {"foo": "not-bar"}, saw_rules()), combined_role([{"foo": "bar"}])],
        "combined",
        combined_role([{"foo": "bar"}], chisel_rules(), hammer_rules()),
        combined_apply_rules(chisel_rules(), hammer_rules()),
        id="select properly and put in order",
    ),  # fmt: skip
    pytest.param(
        [role("hammer", {"foo": "bar"}, hammer_rules()), role("chisel", {"foo": "bar"}, chisel_rules()),
         role("saw", {"foo": "not-bar"}, saw_rules()),
         combined_role([{"foo": "bar"}, {"foo": "not-bar"}])],
        "combined",
        combined_role([{"foo": "bar"}, {"foo": "not-bar"}], chisel_rules(), hammer_rules(), saw_rules()),
        combined_apply_rules(chisel_rules(), hammer_rules(), saw_rules()),
        id="select properly with multiple selectors",
    ),  # fmt: skip
    pytest.param(
        [role("hammer", {"foo": "bar"}, hammer_rules()), role("chisel", {"foo": "bar"}, chisel_rules()),
         role("saw", {"foo": "bar"}, saw_rules()), role("other-saw", {"foo": "not-bar"}, saw_rules()),
         combined_role([{"foo": "bar"}, {"foo": "not-bar"}])],
        "combined",
        combined_role([{"foo": "bar"}, {"foo": "not-bar"}], chisel_rules(), hammer_rules(), saw_rules()),
        combined_apply_rules(chisel_rules(), hammer_rules(), saw_rules()),
        id="select properly remove duplicates",
    ),  # fmt: skip
    pytest.param(
        [role("hammer", {"foo": "bar"}, hammer_rules()), combined_role([{"foo": "bar"}], hammer_rules())],
        "combined",
        None,
        None,
        id="no diff skip",
    ),
]


@pytest.mark.parametrize(("starting", "to_sync", "expected_role", "expected_apply"), SYNC_ROWS)
def test_sync_cluster_role(
    starting: list[Obj], to_sync: str, expected_role: Obj | None, expected_apply: list[Obj] | None
) -> None:
    """``TestSyncClusterRole``: no write when nothing changes, else exactly one write whose
    rules are the apply configuration's (and the rest of the role as it was)."""
    c, client = _controller(starting)
    c.sync(to_sync)
    if expected_apply is None:
        assert client.actions == []
        return
    assert len(client.actions) == 1
    written = client.actions[0]
    assert written["metadata"]["name"] == "combined"
    assert written["rules"] == expected_apply
    assert expected_role is not None
    assert written["aggregationRule"] == expected_role["aggregationRule"]
    assert written["rules"] == expected_role["rules"]


def test_later_labelled_role_reaches_the_aggregating_role() -> None:
    """Beyond the table: on the real apiserver, a ClusterRole created (or relabelled) after
    the aggregating one requeues it (``enqueue``), and a deleted one leaves its rules."""
    h = build_harness(nodes=0)
    agg = {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "agg"},
           "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]}}  # fmt: skip
    h.create(agg)
    rule = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}
    h.create(role("feeder", {"x": "y"}, [rule]))
    stored = h.get(RBAC, "ClusterRole", "agg", None)
    assert stored is not None and stored["rules"] == [rule]
    h.server.delete(RBAC, "ClusterRole", "feeder")
    h.clock.settle()
    stored = h.get(RBAC, "ClusterRole", "agg", None)
    assert stored is not None and not stored.get("rules")

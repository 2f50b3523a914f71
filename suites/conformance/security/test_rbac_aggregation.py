"""RBAC ClusterRole aggregation: kube-controller-manager's clusterrole-aggregation
controller (on by default) fills an aggregating ClusterRole's ``rules`` from the
ClusterRoles its ``aggregationRule`` selects, including roles created after it.

ClusterRoles are cluster-scoped: names and the label carry the test's namespace name so
parallel runs never select each other's roles, and each test deletes what it created.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
CLUSTER_ROLE = ("rbac.authorization.k8s.io/v1", "ClusterRole")
LABEL = "garhwal.dev/aggregate-to"


def _role(name: str, **fields: Any) -> Obj:
    meta = {"name": name, **({"labels": fields.pop("labels")} if "labels" in fields else {})}
    return {"apiVersion": CLUSTER_ROLE[0], "kind": CLUSTER_ROLE[1], "metadata": meta, **fields}


def _rules(target: Target, name: str) -> list[Obj]:
    return list(target.get(*CLUSTER_ROLE, name).get("rules") or [])


def test_rbac_aggregating_role_picks_up_roles_created_later(
    target: Target, namespace: str, cluster_roles: list[str]
) -> None:
    """ClusterRole aggregation.

    A ClusterRole whose ``aggregationRule`` selects a label MUST get, as its ``rules``, the
    rules of ClusterRoles created later with that label: the selected roles in name order,
    each rule once. Removing the label MUST take the role's rules back out.
    """
    agg, first, second = f"{namespace}-agg", f"{namespace}-a", f"{namespace}-b"
    selector = {"matchLabels": {LABEL: namespace}}
    widgets = {"apiGroups": ["garhwal.dev"], "resources": ["widgets"], "verbs": ["get", "list"]}
    gadgets = {"apiGroups": ["garhwal.dev"], "resources": ["gadgets"], "verbs": ["watch"]}
    target.apply(_role(agg, aggregationRule={"clusterRoleSelectors": [selector]}))
    cluster_roles.append(agg)
    # Created first, named last: its rule must still come second.
    target.apply(_role(second, labels={LABEL: namespace}, rules=[gadgets]))
    cluster_roles.append(second)
    target.wait_until(lambda: _rules(target, agg) == [gadgets], timeout=60,
                      what=f"ClusterRole {agg} to aggregate {second}")  # fmt: skip
    target.apply(_role(first, labels={LABEL: namespace}, rules=[widgets, gadgets]))
    cluster_roles.append(first)
    target.wait_until(lambda: _rules(target, agg) == [widgets, gadgets], timeout=60,
                      what=f"ClusterRole {agg} to aggregate {first} and {second}")  # fmt: skip
    target.apply(_role(first, labels={LABEL: "elsewhere"}, rules=[widgets, gadgets]))
    target.wait_until(lambda: _rules(target, agg) == [gadgets], timeout=60,
                      what=f"ClusterRole {agg} to drop the rules of the relabelled {first}")  # fmt: skip

"""The bootstrap RBAC policy: kube-apiserver stores its default ClusterRoles at start
(labelled ``kubernetes.io/bootstrapping=rbac-defaults``, annotated for auto-update), and
the user-facing "edit" role aggregates every ClusterRole labelled
``rbac.authorization.k8s.io/aggregate-to-edit: "true"``.

The test's ClusterRole is cluster-scoped and feeds the shared "edit" role: its name and
its rule's API group carry the test's namespace name, so parallel runs never see each
other's rules, and the test deletes it afterwards.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
CLUSTER_ROLE = ("rbac.authorization.k8s.io/v1", "ClusterRole")
AGGREGATE_TO_EDIT = "rbac.authorization.k8s.io/aggregate-to-edit"


def _edit_rules(target: Target) -> list[Obj]:
    return list(target.get(*CLUSTER_ROLE, "edit").get("rules") or [])


def test_rbac_bootstrap_edit_role_aggregates_labelled_roles(
    target: Target, namespace: str, cluster_roles: list[str]
) -> None:
    """Bootstrap ClusterRole "edit".

    The apiserver MUST store the bootstrap ClusterRole "edit" with the label
    ``kubernetes.io/bootstrapping=rbac-defaults``, the annotation
    ``rbac.authorization.kubernetes.io/autoupdate: "true"`` and an ``aggregationRule``
    selecting ``rbac.authorization.k8s.io/aggregate-to-edit=true``. A ClusterRole created
    with that label MUST have its rule appear in "edit"; deleting it MUST take the rule
    back out.
    """
    edit = target.get(*CLUSTER_ROLE, "edit")
    meta = edit["metadata"]
    assert meta.get("labels", {}).get("kubernetes.io/bootstrapping") == "rbac-defaults"
    assert meta.get("annotations", {}).get("rbac.authorization.kubernetes.io/autoupdate") == "true"
    selectors = (edit.get("aggregationRule") or {}).get("clusterRoleSelectors") or []
    assert {"matchLabels": {AGGREGATE_TO_EDIT: "true"}} in selectors
    name = f"{namespace}-aggregate-to-edit"
    rule = {"apiGroups": [f"{namespace}.garhwal.dev"], "resources": ["widgets"], "verbs": ["get", "list"]}
    assert rule not in _edit_rules(target)
    target.apply({"apiVersion": CLUSTER_ROLE[0], "kind": CLUSTER_ROLE[1],
                  "metadata": {"name": name, "labels": {AGGREGATE_TO_EDIT: "true"}}, "rules": [rule]})  # fmt: skip
    cluster_roles.append(name)
    target.wait_until(lambda: rule in _edit_rules(target), timeout=60,
                      what=f'ClusterRole "edit" to aggregate {name}')  # fmt: skip
    target.delete(*CLUSTER_ROLE, name)
    target.wait_until(lambda: rule not in _edit_rules(target), timeout=60,
                      what=f'ClusterRole "edit" to drop the rule of the deleted {name}')  # fmt: skip

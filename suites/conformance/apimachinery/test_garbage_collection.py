"""API machinery conformance: owner references and the garbage collector."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_configmap
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance


def _exists(target: Target, name: str, namespace: str) -> bool:
    try:
        target.get("v1", "ConfigMap", name, namespace)
        return True
    except NotFound:
        return False


def test_dependents_are_collected_after_their_owner_is_deleted(
    target: Target, namespace: str
) -> None:
    """Garbage collector, background propagation.

    A ConfigMap owned by another ConfigMap MUST be deleted by the garbage collector
    after its owner is deleted, while an unowned ConfigMap MUST survive.
    """
    owner = target.apply(make_configmap("owner", namespace).build())
    target.apply(make_configmap("child", namespace).owner(owner, controller=False).build())
    target.apply(make_configmap("bystander", namespace).build())
    target.delete("v1", "ConfigMap", "owner", namespace)
    target.wait_until(
        lambda: not _exists(target, "child", namespace), timeout=60, what="child collected"
    )
    assert _exists(target, "bystander", namespace)


def test_a_dependent_with_a_live_owner_is_kept(target: Target, namespace: str) -> None:
    """Garbage collector, multiple owners.

    A dependent with two owners MUST survive while one owner still exists, and MUST be
    collected once both are gone.
    """
    a = target.apply(make_configmap("owner-a", namespace).build())
    b = target.apply(make_configmap("owner-b", namespace).build())
    child = (
        make_configmap("shared", namespace).owner(a, controller=False).owner(b, controller=False)
    )
    target.apply(child.build())
    target.delete("v1", "ConfigMap", "owner-a", namespace)
    target.wait_until(
        lambda: not _exists(target, "owner-a", namespace), timeout=30, what="owner-a gone"
    )
    assert _exists(target, "shared", namespace)
    target.delete("v1", "ConfigMap", "owner-b", namespace)
    target.wait_until(
        lambda: not _exists(target, "shared", namespace), timeout=60, what="shared collected"
    )

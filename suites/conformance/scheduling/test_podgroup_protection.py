"""PodGroup protection (GenericWorkload): a PodGroup outlives its deletion while pods use it.

Upstream 1.37 has the PodGroupProtection admission plugin (on by default) stamp the
finalizer ``scheduling.k8s.io/podgroup-protection`` on every new PodGroup, and the
podgroup-protection controller remove it once no active pod names the group.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import make_pod_group, make_pool_pod
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4671")]
PG = "scheduling.k8s.io/v1beta1"
FINALIZER = "scheduling.k8s.io/podgroup-protection"


def _gone(target: Target, namespace: str, name: str) -> bool:
    try:
        target.get(PG, "PodGroup", name, namespace)
    except NotFound:
        return True
    return False


def test_a_new_pod_group_gets_the_protection_finalizer_and_an_unused_one_is_deleted_at_once(
    target: Target, namespace: str
) -> None:
    """The protection finalizer.

    A PodGroup created without finalizers MUST be stored with exactly
    ``scheduling.k8s.io/podgroup-protection``; a user's own finalizers MUST be kept ahead
    of it; a PodGroup that no pod names MUST disappear soon after it is deleted.
    """
    pg = target.apply(make_pod_group("lonely", namespace))
    assert pg["metadata"]["finalizers"] == [FINALIZER]
    own = make_pod_group("mine", namespace)
    own["metadata"]["finalizers"] = ["example.com/keep"]
    assert target.apply(own)["metadata"]["finalizers"] == ["example.com/keep", FINALIZER]
    target.delete(PG, "PodGroup", "lonely", namespace)
    target.wait_until(lambda: _gone(target, namespace, "lonely"), timeout=30, what="lonely gone")
    stored = target.get(PG, "PodGroup", "mine", namespace)
    stored["metadata"]["finalizers"] = []
    target.apply(stored)


def test_a_deleted_pod_group_stays_until_no_active_pod_names_it(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Deletion waits for the pods.

    Deleting a PodGroup that a bound pod names MUST only set its deletionTimestamp (the
    finalizer stays and the pod keeps running); once that pod is deleted, the PodGroup
    MUST be removed.
    """
    pool(cpu="2")
    target.apply(make_pod_group("used", namespace))
    target.apply(make_pool_pod("member", namespace).pod_group("used").build())
    target.wait_until(
        lambda: bool(target.get("v1", "Pod", "member", namespace)["spec"].get("nodeName")),
        timeout=60,
        what="member bound",
    )
    target.delete(PG, "PodGroup", "used", namespace)
    target.wait_until(
        lambda: bool(
            target.get(PG, "PodGroup", "used", namespace)["metadata"].get("deletionTimestamp")
        ),
        timeout=30,
        what="deletionTimestamp on the PodGroup",
    )
    # Give the controller time to act on it: it must keep the finalizer.
    target.wait_until(
        lambda: target.get("v1", "Pod", "member", namespace)["status"].get("phase") == "Running",
        timeout=60,
        what="member running",
    )
    held = target.get(PG, "PodGroup", "used", namespace)
    assert held["metadata"]["finalizers"] == [FINALIZER]
    target.delete("v1", "Pod", "member", namespace)
    target.wait_until(lambda: _gone(target, namespace, "used"), timeout=60, what="PodGroup gone")

"""The garbage collector's three propagation policies."""

from __future__ import annotations

from controller_harness import Harness

from reference_impl.api import make_configmap, make_deployment


def _cm(h: Harness, name: str) -> bool:
    return h.get("v1", "ConfigMap", name) is not None


def test_background_deletion_collects_dependents_whose_owners_are_all_gone(h: Harness) -> None:
    a, b = h.create(make_configmap("a", "default").build(), make_configmap("b", "default").build())
    h.create(
        make_configmap("child", "default").owner(a, controller=False).build(),
        make_configmap("shared", "default")
        .owner(a, controller=False)
        .owner(b, controller=False)
        .build(),
        make_configmap("bystander", "default").build(),
    )
    h.server.delete("v1", "ConfigMap", "a", "default")
    h.clock.settle()
    assert not _cm(h, "child")
    assert _cm(h, "shared") and _cm(h, "bystander")
    shared = h.get("v1", "ConfigMap", "shared")
    assert shared is not None and [r["name"] for r in shared["metadata"]["ownerReferences"]] == [
        "b"
    ]
    h.server.delete("v1", "ConfigMap", "b", "default")
    h.clock.settle()
    assert not _cm(h, "shared")


def test_foreground_deletion_removes_dependents_before_the_owner(h: Harness) -> None:
    h.create(make_deployment("fg", "default", replicas=2).build())
    h.advance(3)
    h.server.delete("apps/v1", "Deployment", "fg", "default", propagation_policy="Foreground")
    d = h.get("apps/v1", "Deployment", "fg")
    assert d is not None and "foregroundDeletion" in d["metadata"]["finalizers"]
    order: list[str] = []

    def check() -> None:
        if not h.pods(selector="app=fg") and "pods" not in order:
            order.append("pods")
        if not h.server.list("apps/v1", "ReplicaSet", "default") and "rs" not in order:
            order.append("rs")
        if h.get("apps/v1", "Deployment", "fg") is None and "deployment" not in order:
            order.append("deployment")

    h.step_until(lambda: h.get("apps/v1", "Deployment", "fg") is None, check, timeout=60)
    assert order == ["pods", "rs", "deployment"]


def test_orphan_deletion_keeps_dependents_without_the_owner_reference(h: Harness) -> None:
    h.create(make_deployment("orph", "default", replicas=2).build())
    h.advance(3)
    h.server.delete("apps/v1", "Deployment", "orph", "default", propagation_policy="Orphan")
    h.run_until(lambda: h.get("apps/v1", "Deployment", "orph") is None, timeout=60)
    h.advance(5)
    rss = h.server.list("apps/v1", "ReplicaSet", "default")
    assert len(rss) == 1 and not rss[0]["metadata"].get("ownerReferences")
    assert len(h.pods(selector="app=orph")) == 2

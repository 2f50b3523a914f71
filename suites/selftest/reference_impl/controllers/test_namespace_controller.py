"""Namespace deletion empties the namespace, then finalizes it."""

from __future__ import annotations

from controller_harness import Harness

from reference_impl.api import make_configmap, make_deployment, make_namespace


def test_deleting_a_namespace_removes_its_contents_then_the_namespace(h: Harness) -> None:
    h.create(make_namespace("doomed").build())
    h.create(
        make_configmap("inside", "doomed").build(),
        make_deployment("web", "doomed", replicas=2).build(),
    )
    h.advance(3)
    assert len(h.pods("doomed")) == 2
    h.create(make_configmap("outside", "default").build())
    h.server.delete("v1", "Namespace", "doomed")
    ns = h.get("v1", "Namespace", "doomed", None)
    assert ns is not None and ns["status"]["phase"] == "Terminating"
    h.run_until(lambda: h.get("v1", "Namespace", "doomed", None) is None, timeout=60)
    assert h.server.list("v1", "ConfigMap", "doomed") == []
    assert h.pods("doomed") == []
    assert h.server.list("apps/v1", "ReplicaSet", "doomed") == []
    assert h.get("v1", "ConfigMap", "outside") is not None

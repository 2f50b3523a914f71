"""DefaultTolerationSeconds (``plugin/pkg/admission/defaulttolerationseconds``): creates and
updates of pods, never subresources, after upstream's ``admission_test.go``."""

from __future__ import annotations

from typing import Any

from reference_impl.cluster import Cluster

Obj = dict[str, Any]
NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}


def _pod(**spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}],
                     "nodeSelector": {"garhwal.io/no-such-node": "x"}, **spec}}  # fmt: skip


def test_create_adds_both_and_a_wildcard_key_or_effect_counts_as_tolerating() -> None:
    c = Cluster()
    assert c.apply(_pod())["spec"]["tolerations"] == [NOT_READY, UNREACHABLE]
    c.delete("v1", "Pod", "p", "default")
    own = {"operator": "Exists", "effect": "NoExecute"}  # empty key: tolerates both taints
    assert c.apply(_pod(tolerations=[own]))["spec"]["tolerations"] == [own]


def test_an_update_gets_them_back_too() -> None:
    """Upstream's handler admits Update: an update that drops them has them re-added
    (before validation, so the update is not a forbidden toleration removal)."""
    c = Cluster()
    c.apply(_pod())
    pod = c.get("v1", "Pod", "p", "default")  # after the scheduler's status write
    pod["spec"]["tolerations"] = []
    pod["metadata"]["labels"] = {"updated": "yes"}
    out = c.apply(pod)
    assert out["spec"]["tolerations"] == [NOT_READY, UNREACHABLE]
    assert out["metadata"]["labels"] == {"updated": "yes"}

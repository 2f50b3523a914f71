"""The disruption controller's time-driven parts, which no black-box suite can reach:
``disruptedPods`` entries expire after 2 minutes, and a stale DisruptionTarget is reset."""

from __future__ import annotations

from controller_harness import Harness

from reference_impl.api import make_deployment, make_pdb
from reference_impl.api.meta import set_condition
from reference_impl.clock import rfc3339

POLICY = "policy/v1"


def _status(h: Harness, name: str) -> dict[str, object]:
    pdb = h.get(POLICY, "PodDisruptionBudget", name)
    assert pdb is not None
    return dict(pdb.get("status") or {})


def test_a_listed_disruption_counts_as_unhealthy_until_it_expires(h: Harness) -> None:
    h.create(make_deployment("web", "default", replicas=3).build())
    h.create(make_pdb("guard", "default", {"app": "web"}, min_available=2))
    h.advance(5)
    assert _status(h, "guard")["disruptionsAllowed"] == 1
    victim = h.pods("default")[0]["metadata"]["name"]
    pdb = h.get(POLICY, "PodDisruptionBudget", "guard")
    assert pdb is not None
    # As the eviction subresource would: the pod is listed, with the time of approval.
    pdb["status"]["disruptedPods"] = {victim: rfc3339(h.clock.now())}
    pdb["status"]["disruptionsAllowed"] = 0
    h.server.update_status(pdb)
    h.advance(1)
    st = _status(h, "guard")
    assert st["currentHealthy"] == 2 and st["disruptionsAllowed"] == 0
    assert st["disruptedPods"] == {victim: pdb["status"]["disruptedPods"][victim]}
    h.advance(125)  # the pod was never deleted: after DeletionTimeout it counts again
    st = _status(h, "guard")
    assert st["currentHealthy"] == 3 and st["disruptionsAllowed"] == 1
    assert "disruptedPods" not in st


def test_a_stale_disruption_target_is_reset_after_two_minutes(h: Harness) -> None:
    h.create(make_deployment("api", "default", replicas=1).build())
    h.advance(5)
    (pod,) = h.pods("default")
    status = dict(pod["status"])
    cond = {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"}
    set_condition(status, cond, rfc3339(h.clock.now()))
    h.server.update_status({**pod, "status": status})
    h.advance(60)
    live = h.get("v1", "Pod", pod["metadata"]["name"])
    assert live is not None
    assert any(
        c["type"] == "DisruptionTarget" and c["status"] == "True"
        for c in live["status"]["conditions"]
    )
    h.advance(65)
    live = h.get("v1", "Pod", pod["metadata"]["name"])
    assert live is not None
    assert any(
        c["type"] == "DisruptionTarget" and c["status"] == "False"
        for c in live["status"]["conditions"]
    )

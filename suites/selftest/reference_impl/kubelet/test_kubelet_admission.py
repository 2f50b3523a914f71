"""The fake kubelet admits a bound pod the way ``HandlePodAdditions`` does: the predicate
admit handler against the pods already admitted on the node; a rejected pod is Failed
with ``rejectPod``'s reason and message and never runs."""

from __future__ import annotations

from typing import Any

from kubelet_harness import KubeletHarness

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Instant, seconds

Obj = dict[str, Any]


def _status(k: KubeletHarness, name: str) -> Obj:
    p = k.pod(name)
    assert p is not None
    return dict(p.get("status") or {})


def test_a_pod_bound_past_capacity_is_rejected_out_of_cpu(k: KubeletHarness) -> None:
    k.create(make_node("n1").capacity(cpu="1", memory="4Gi").build())
    k.create(make_pod("first", "default").req(cpu="600m").node("n1").build())
    k.create(make_pod("second", "default").req(cpu="600m", memory="1Gi").node("n1").build())
    k.wait(lambda: _status(k, "first").get("phase") == "Running")
    assert _status(k, "second") == {
        "phase": "Failed",
        "reason": "OutOfcpu",
        "message": "Pod was rejected: Node didn't have enough resource: cpu, requested: 600, "
        "used: 600, capacity: 1000",
        "qosClass": "Burstable",
        "startTime": "2026-09-01T00:00:00Z",
        "observedGeneration": 1,
    }
    k.clock.run_until(Instant(k.clock.now() + seconds(30)))
    assert _status(k, "second")["phase"] == "Failed"  # never started
    assert any(r.event == "OutOfcpu" for r in k.trace.records)  # the Warning event


def test_room_freed_by_a_deleted_pod_admits_the_next_one(k: KubeletHarness) -> None:
    k.create(make_node("n1").capacity(cpu="1").build())
    k.create(make_pod("first", "default").req(cpu="600m").node("n1").build())
    k.server.delete("v1", "Pod", "first", "default")
    k.wait(lambda: k.pod("first") is None)
    k.create(make_pod("second", "default").req(cpu="600m").node("n1").build())
    k.wait(lambda: _status(k, "second").get("phase") == "Running")


def test_the_pod_count_is_checked(k: KubeletHarness) -> None:
    k.create(make_node("n1").capacity(pods="1").build())
    k.create(make_pod("a", "default").node("n1").build(), make_pod("b", "default").node("n1").build())
    assert _status(k, "b")["reason"] == "OutOfpods"
    assert _status(k, "b")["message"] == (
        "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 1, "
        "capacity: 1"
    )
    assert _status(k, "b")["qosClass"] == "BestEffort"


def test_an_untolerated_no_execute_taint_rejects_and_os_checks_come_first(
    k: KubeletHarness,
) -> None:
    k.create(make_node("n1").taint("dedicated", "NoExecute", "x").build())
    k.create(make_pod("tainted", "default").node("n1").build())
    assert _status(k, "tainted")["reason"] == "TaintToleration"
    assert _status(k, "tainted")["message"] == (
        "Pod was rejected: Predicate TaintToleration failed: node(s) had taints that the pod "
        "didn't tolerate"
    )
    k.create(make_pod("win", "default").label("kubernetes.io/os", "windows").node("n1").build())
    assert _status(k, "win")["reason"] == "PodOSSelectorNodeLabelDoesNotMatch"
    tolerated = make_pod("ok", "default").node("n1").build()
    tolerated["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    k.create(tolerated)
    k.wait(lambda: _status(k, "ok").get("phase") == "Running")


def test_a_rejected_pod_does_not_count_and_is_deleted_when_asked(k: KubeletHarness) -> None:
    k.create(make_node("n1").capacity(cpu="1").build())
    k.create(make_pod("big", "default").req(cpu="2").node("n1").build())
    assert _status(k, "big")["reason"] == "OutOfcpu"
    k.create(make_pod("small", "default").req(cpu="1").node("n1").build())
    k.wait(lambda: _status(k, "small").get("phase") == "Running")
    k.server.delete("v1", "Pod", "big", "default")
    k.wait(lambda: k.pod("big") is None)

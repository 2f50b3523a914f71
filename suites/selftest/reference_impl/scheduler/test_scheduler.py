"""Integration tests: the scheduler against the apiserver model on the simulated clock."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.schedule_one import num_feasible_nodes_to_find


def test_pods_bind_to_fitting_nodes(h: Any) -> None:
    h.create(make_node("small").capacity(cpu="1").build(), make_node("big").capacity(cpu="8").build())
    h.create(make_pod("p", "default").req(cpu="2").build())
    assert h.node_of("p") == "big"
    assert h.scheduled_condition("p")["status"] == "True"  # type: ignore[index]
    assert [(r.event, r.object, r.detail) for r in h.trace.records] == [("Bound", "default/p", "big")]


def test_oversized_pod_is_unschedulable_with_the_upstream_message(h: Any) -> None:
    h.create(
        make_node("n1").capacity(cpu="2").build(),
        make_node("n2").capacity(cpu="8").taint("key", "NoSchedule", "value").build(),
        make_node("n3").capacity(cpu="8").taint("key", "NoSchedule", "value").build(),
    )
    h.create(make_pod("p", "default").req(cpu="4").build())
    cond = h.scheduled_condition("p")
    assert cond is not None
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"] == (
        "0/3 nodes are available: 1 Insufficient cpu, "
        "2 node(s) had untolerated taint(s). preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )
    assert h.scheduler.queue.where("default/p") == "unschedulable"


def test_no_nodes_gives_no_nodes_available(h: Any) -> None:
    h.create(make_pod("p", "default").build())
    assert h.scheduled_condition("p")["message"] == "no nodes available to schedule pods"  # type: ignore[index]


def test_adding_a_node_later_schedules_the_pending_pod(h: Any) -> None:
    h.create(make_node("n1").capacity(cpu="1").build())
    h.create(make_pod("p", "default").req(cpu="4").build())
    assert h.node_of("p") == ""
    h.create(make_node("n2").capacity(cpu="8").build())
    h.advance(1)
    assert h.node_of("p") == "n2"


def test_an_irrelevant_node_event_does_not_requeue_the_pod(h: Any) -> None:
    h.create(make_node("n1").capacity(cpu="1").build())
    h.create(make_pod("p", "default").req(cpu="4").build())
    attempts = h.scheduler.attempts
    h.create(make_node("tiny").capacity(cpu="1").build())  # the hint: still too small
    h.advance(30)
    assert h.scheduler.attempts == attempts and h.node_of("p") == ""


def test_deleting_a_bound_pod_frees_room_for_a_pending_one(h: Any) -> None:
    h.create(make_node("n").capacity(cpu="2").build())
    h.create(make_pod("first", "default").req(cpu="2").build())
    h.create(make_pod("second", "default").req(cpu="2").build())
    assert h.node_of("second") == ""
    h.server.delete("v1", "Pod", "first", "default", grace_period_seconds=0)
    h.advance(11)
    assert h.node_of("second") == "n"


def test_gated_pod_is_not_scheduled_until_gates_are_removed(h: Any) -> None:
    h.create(make_node("n").build())
    h.create(make_pod("p", "default").scheduling_gate("example.com/wait").build())
    h.advance(600)
    assert h.node_of("p") == "" and h.scheduler.queue.where("default/p") == "gated"
    pod = h.pod("p")
    pod["spec"]["schedulingGates"] = []
    h.server.update(pod)
    h.clock.settle()
    assert h.node_of("p") == "n"


def test_taints_and_tolerations_steer_pods(h: Any) -> None:
    h.create(make_node("gpu").taint("nvidia.com/gpu", "NoSchedule", "present").build())
    h.create(make_pod("plain", "default").build())
    h.create(make_pod("tolerant", "default").toleration("nvidia.com/gpu", "Exists").build())
    assert h.node_of("plain") == "" and h.node_of("tolerant") == "gpu"


def test_prefer_no_schedule_taint_is_avoided_when_possible(h: Any) -> None:
    h.create(make_node("a").taint("soft", "PreferNoSchedule").build(), make_node("b").build())
    h.create(*(make_pod(f"p{i}", "default").build() for i in range(3)))
    assert set(h.bindings().values()) == {"b"}


def test_node_affinity_and_selector_pick_the_labelled_node(h: Any) -> None:
    n1, n2 = make_node("n1").build(), make_node("n2").build()
    n2["metadata"]["labels"]["zone"] = "z2"
    h.create(n1, n2)
    h.create(make_pod("sel", "default").node_selector(zone="z2").build())
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["z2"]}]}]}}}
    h.create(make_pod("aff", "default").set("spec.affinity", aff).build())
    assert h.node_of("sel") == "n2" and h.node_of("aff") == "n1"


def test_relabelling_a_node_requeues_a_pod_waiting_for_affinity(h: Any) -> None:
    h.create(make_node("n").build())
    h.create(make_pod("p", "default").node_selector(zone="z").build())
    assert "didn't match Pod's node affinity/selector" in h.scheduled_condition("p")["message"]  # type: ignore[index]
    node = h.server.get("v1", "Node", "n")
    node["metadata"]["labels"]["zone"] = "z"
    h.server.update(node)
    h.advance(1)
    assert h.node_of("p") == "n"


def test_higher_priority_pods_are_scheduled_first(h: Any) -> None:
    for i, prio in enumerate((1, 100, 10)):
        h.server.create(make_pod(f"p{i}", "default").req(cpu="1").set("spec.priority", prio).build())
    h.server.create(make_node("n").capacity(cpu="1").build())
    h.clock.settle()
    assert h.node_of("p1") == "n"
    assert [r.object for r in h.trace.records if r.event == "Bound"] == ["default/p1"]


def test_same_seed_gives_the_same_bindings(harness_factory: Any) -> None:
    def run(seed: int) -> dict[str, str]:
        h = harness_factory(seed)
        h.create(*(make_node(f"n{i}").capacity(cpu="4").build() for i in range(5)))
        h.create(*(make_pod(f"p{i}", "default").req(cpu="500m").build() for i in range(20)))
        return h.bindings()

    first = run(7)
    assert all(first.values()) and run(7) == first


def test_backoff_grows_from_one_to_ten_seconds(h: Any) -> None:
    q: SchedulingQueue = h.scheduler.queue
    h.create(make_pod("p", "default").build())
    pinfo = q._find("default/p")  # noqa: SLF001 - white-box check of the backoff curve
    assert pinfo is not None
    pinfo.consecutive_errors = 0  # "no nodes available" has no rejector: it counted as an error
    got = []
    for rejections in range(1, 7):
        pinfo.unschedulable_count = rejections  # upstream's UnschedulableCount, not attempts
        got.append((q._backoff_expiry(pinfo) - pinfo.timestamp) // 1_000_000_000)  # noqa: SLF001
    assert got == [1, 2, 4, 8, 10, 10]


def test_unschedulable_pods_are_retried_after_five_minutes(h: Any) -> None:
    h.create(make_node("n").capacity(cpu="1").build())
    h.create(make_pod("p", "default").req(cpu="2").build())
    attempts = h.scheduler.attempts
    h.advance(299)
    assert h.scheduler.attempts == attempts
    h.advance(2)
    assert h.scheduler.attempts == attempts + 1


def test_num_feasible_nodes_to_find_follows_upstream() -> None:
    assert num_feasible_nodes_to_find(None, 50) == 50
    assert num_feasible_nodes_to_find(None, 1000) == 420
    assert num_feasible_nodes_to_find(None, 5000) == 500
    assert num_feasible_nodes_to_find(None, 100) == 100
    assert num_feasible_nodes_to_find(None, 200) == 100
    assert num_feasible_nodes_to_find(None, 10_000) == 500
    assert num_feasible_nodes_to_find(30, 1000) == 300


def test_node_iteration_start_rotates(h: Any) -> None:
    h.create(*(make_node(f"n{i:03d}").build() for i in range(300)))
    h.create(make_pod("p", "default").build())
    # 300 nodes: 50 - 300//125 = 48% -> 144 to find; all fit, so the next cycle starts there.
    assert h.scheduler.algorithm.next_start_node_index == num_feasible_nodes_to_find(None, 300)

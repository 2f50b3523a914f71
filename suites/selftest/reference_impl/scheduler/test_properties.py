"""Property tests: whatever the nodes and pods, no node is ever over-committed, and no pod
that fits somewhere is left pending (a scheduler that binds nothing fails the second)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from reference_impl.api import make_node, make_pod
from reference_impl.api.meta import parse_quantity
from reference_impl.clock import Instant, millis
from reference_impl.scheduler.framework.pod_resources import pod_requests

Obj = dict[str, Any]


def assert_not_overcommitted(h: Any) -> None:
    used: dict[str, dict[str, int]] = {}
    counts: dict[str, int] = {}
    for pod in h.server.list("v1", "Pod", "default"):
        node = pod["spec"].get("nodeName")
        if not node:
            continue
        counts[node] = counts.get(node, 0) + 1
        for k, v in pod_requests(pod).items():
            used.setdefault(node, {})[k] = used.setdefault(node, {}).get(k, 0) + v
    for node in h.server.list("v1", "Node"):
        name = node["metadata"]["name"]
        alloc = node["status"]["allocatable"]
        assert counts.get(name, 0) <= int(alloc["pods"])
        for k, v in used.get(name, {}).items():
            have = parse_quantity(alloc.get(k, "0")) * (1000 if k == "cpu" else 1)
            assert v <= have, f"{name} over-committed on {k}: {v} > {have}"


def _free(h: Any) -> dict[str, dict[str, int]]:
    """Each node's allocatable minus what its bound pods request (cpu in millicores)."""
    free: dict[str, dict[str, int]] = {}
    for node in h.server.list("v1", "Node"):
        alloc = node["status"]["allocatable"]
        free[node["metadata"]["name"]] = {
            "pods": int(alloc["pods"]),
            "cpu": parse_quantity(alloc.get("cpu", "0")) * 1000,
            "memory": parse_quantity(alloc.get("memory", "0")),
        }
    for pod in h.server.list("v1", "Pod", "default"):
        room = free.get(pod["spec"].get("nodeName") or "")
        if room is not None:
            room["pods"] -= 1
            for k, v in pod_requests(pod).items():
                room[k] = room.get(k, 0) - v
    return free


def assert_nothing_that_fits_is_pending(h: Any) -> None:
    free = _free(h)
    for pod in h.server.list("v1", "Pod", "default"):
        if pod["spec"].get("nodeName"):
            continue
        want = pod_requests(pod)
        fits = [
            n for n, room in free.items()
            if room["pods"] >= 1 and all(room.get(k, 0) >= v for k, v in want.items())
        ]
        assert not fits, f"{pod['metadata']['name']} is pending although it fits on {fits}"


nodes_st = st.lists(
    st.tuples(st.integers(1, 8), st.integers(1, 16), st.integers(1, 6)), min_size=0, max_size=6
)
pods_st = st.lists(
    st.tuples(st.integers(0, 4000), st.integers(0, 4096), st.booleans()), min_size=1, max_size=25
)


@settings(
    max_examples=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(nodes=nodes_st, pods=pods_st, seed=st.integers(0, 2**16))
def test_no_node_is_ever_overcommitted(
    harness_factory: Any,
    nodes: list[tuple[int, int, int]],
    pods: list[tuple[int, int, bool]],
    seed: int,
) -> None:
    h = harness_factory(seed)
    for i, (cpu, gib, slots) in enumerate(nodes):
        h.server.create(
            make_node(f"n{i}").capacity(cpu=str(cpu), memory=f"{gib * 1024}Mi", pods=str(slots)).build()
        )
    for i, (mcpu, mib, best_effort) in enumerate(pods):
        b = make_pod(f"p{i}", "default")
        if not best_effort:
            b.req(cpu=f"{mcpu}m", memory=f"{mib}Mi")
        h.server.create(b.build())
    h.clock.settle()
    h.advance(30)
    assert_not_overcommitted(h)
    assert_nothing_that_fits_is_pending(h)


def test_scheduler_state_machine_never_overcommits(harness_factory: Any) -> None:
    """Nodes come and go, pods arrive and leave, time passes; capacity always holds."""
    factory = harness_factory

    class SchedulerModel(RuleBasedStateMachine):
        """The model after aesthetics example 7."""

        nodes = Bundle("nodes")
        pods = Bundle("pods")

        def __init__(self) -> None:
            super().__init__()
            self.h = factory(1)
            self.n = 0

        @rule(target=nodes, cpu=st.integers(1, 8))
        def add_node(self, cpu: int) -> str:
            self.n += 1
            name = f"n{self.n}"
            self.h.create(make_node(name).capacity(cpu=str(cpu), memory="8192Mi", pods="4").build())
            return name

        @rule(target=pods, mcpu=st.integers(100, 3000))
        def add_pod(self, mcpu: int) -> str:
            self.n += 1
            name = f"p{self.n}"
            self.h.create(make_pod(name, "default").req(cpu=f"{mcpu}m", memory="64Mi").build())
            return name

        @rule(pod=pods)
        def delete_pod(self, pod: str) -> None:
            if self.h.server.try_get("v1", "Pod", pod, "default") is not None:
                self.h.server.delete("v1", "Pod", pod, "default", grace_period_seconds=0)
                self.h.clock.settle()

        @rule(ms=st.integers(0, 60_000))
        def advance(self, ms: int) -> None:
            self.h.clock.run_until(Instant(self.h.clock.now() + millis(ms)))
            self.h.clock.settle()

        @rule()
        def wait_out_the_backoff(self) -> None:
            # Past the 10 s maximum backoff, every pod that fits must have been bound.
            self.h.advance(15)
            assert_nothing_that_fits_is_pending(self.h)

        @invariant()
        def no_node_is_overcommitted(self) -> None:
            assert_not_overcommitted(self.h)


    run_state_machine_as_test(
        SchedulerModel,
        settings=settings(
            max_examples=25, stateful_step_count=20, deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )

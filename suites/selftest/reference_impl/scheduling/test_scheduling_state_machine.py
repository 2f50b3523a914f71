"""A Hypothesis state machine over gang scheduling and workload-aware preemption.

Rules add and remove nodes, create gangs (PodGroup + pods) of two priorities with
disruptionMode all or single, delete pods and advance time, on the reference Cluster
directly. After every step: no gang that is not yet PodGroupInitiallyScheduled has
between 1 and minCount-1 pods bound; no disruptionMode-all group loses part of its bound
pods to preemption; no node holds more cpu or pods than it has. PodDisruptionBudgets
(minAvailable over a gang's pods) are added too: their status always equals a
recomputation from the pods (the budget preemption reads), and no pod is ever preempted
for a preemptor of equal or lower priority.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from reference_impl.api import (
    condition,
    make_node,
    make_pdb,
    make_pod,
    make_pod_group,
    make_priority_class,
    parse_quantity,
)
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import ApiError

Obj = dict[str, Any]
NS = "default"
PG = "scheduling.k8s.io/v1beta1"
GATES = {"GenericWorkload": True, "PodGroupPreemptionPolicy": True}
CLASSES = {"sm-low": 10, "sm-high": 1000}


def _bound(pod: Obj) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return bool(pod["spec"].get("nodeName")) and phase not in ("Succeeded", "Failed")


class GangMachine(RuleBasedStateMachine):
    """Random clusters of small nodes and competing gangs."""

    def __init__(self) -> None:
        super().__init__()
        runtime = {"scheduling.k8s.io/v1beta1": "true"}  # PodGroups are a beta API
        self.c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=runtime))
        for name, value in sorted(CLASSES.items()):
            self.c.apply(make_priority_class(name, value))
        self.nodes: list[str] = []
        self.groups: dict[str, tuple[str, int]] = {}  # name -> (disruption, minCount)
        self.next = 0
        # Pods the test deleted and nodes it removed (for good: such pods linger while they
        # terminate, and are not the scheduler's evictions).
        self.user_deleted: set[str] = set()
        self.removed_nodes: set[str] = set()
        self.before: dict[str, set[str]] = {}  # all-mode group -> pods bound before the step
        self.bound_on: dict[str, str] = {}  # their nodes then (the pod GC may delete them later)
        self.admitted: set[str] = set()  # groups seen PodGroupInitiallyScheduled=True
        self.pdbs: dict[str, int] = {}  # PDB name -> minAvailable
        self.classes: dict[str, str] = {}  # group -> its PriorityClass

    def _pods(self) -> list[Obj]:
        return self.c.list("v1", "Pod", NS)

    def _snapshot(self) -> None:
        """Remember the bound members of every disruptionMode-all group."""
        self.before = {g: set() for g, (mode, _) in self.groups.items() if mode == "all"}
        for p in self._pods():
            g = (p["spec"].get("schedulingGroup") or {}).get("podGroupName")
            if g in self.before and _bound(p):
                self.before[g].add(p["metadata"]["name"])
                self.bound_on[p["metadata"]["name"]] = p["spec"]["nodeName"]

    # -- rules --------------------------------------------------------------------------

    @initialize(cpus=st.lists(st.integers(1, 2), min_size=1, max_size=3))
    def start_with_nodes(self, cpus: list[int]) -> None:
        """A small, mostly full cluster makes gangs compete and preemption happen."""
        for cpu in cpus:
            self.add_node(cpu)

    @rule(cpu=st.integers(1, 4))
    def add_node(self, cpu: int) -> None:
        self._snapshot()
        name = f"sm-node-{self.next}"
        self.next += 1
        self.c.apply(make_node(name).capacity(cpu=str(cpu), memory="8Gi", pods="4").build())
        self.nodes.append(name)

    @precondition(lambda self: bool(self.nodes))
    @rule(data=st.data())
    def remove_node(self, data: st.DataObject) -> None:
        self._snapshot()
        name = data.draw(st.sampled_from(self.nodes))
        self.nodes.remove(name)
        self.removed_nodes.add(name)
        self.c.delete("v1", "Node", name)

    @rule(
        size=st.integers(1, 4),
        slack=st.integers(0, 2),
        cls=st.sampled_from(sorted(CLASSES)),
        mode=st.sampled_from(["all", "single"]),
        cpu=st.integers(1, 2),
    )
    def create_gang(self, size: int, slack: int, cls: str, mode: str, cpu: int) -> None:
        self._snapshot()
        name = f"g{self.next}"
        self.next += 1
        min_count = max(1, size - slack)
        self.c.apply(
            make_pod_group(name, NS, min_count=min_count, disruption=mode, priority_class=cls)
        )
        self.groups[name] = (mode, min_count)
        self.classes[name] = cls
        for i in range(size):
            pod = make_pod(f"{name}-{i}", NS).req(cpu=str(cpu)).priority_class(cls)
            self.c.apply(pod.pod_group(name).label("sm-group", name).build())

    @precondition(lambda self: bool(self.groups))
    @rule(data=st.data())
    def delete_pod(self, data: st.DataObject) -> None:
        self._snapshot()
        names = sorted(p["metadata"]["name"] for p in self._pods())
        if not names:
            return
        name = data.draw(st.sampled_from(names))
        self.user_deleted.add(name)
        try:
            self.c.delete("v1", "Pod", name, NS)
        except ApiError:
            pass

    @precondition(lambda self: bool(self.groups))
    @rule(data=st.data(), min_available=st.integers(0, 3))
    def create_pdb(self, data: st.DataObject, min_available: int) -> None:
        self._snapshot()
        group = data.draw(st.sampled_from(sorted(self.groups)))
        name = f"pdb-{group}"
        if name not in self.pdbs:
            self.c.apply(make_pdb(name, NS, {"sm-group": group}, min_available=min_available))
            self.pdbs[name] = min_available

    @rule(secs=st.sampled_from([1, 5, 30]))
    def advance(self, secs: int) -> None:
        self._snapshot()
        self.c.advance(secs)

    # -- invariants ---------------------------------------------------------------------

    @invariant()
    def no_partially_bound_unscheduled_gang(self) -> None:
        pods = self._pods()
        for name, (_, min_count) in sorted(self.groups.items()):
            pg = self.c.get(PG, "PodGroup", name, NS)
            if (condition(pg, "PodGroupInitiallyScheduled") or {}).get("status") == "True":
                continue
            n = sum(
                1
                for p in pods
                if (p["spec"].get("schedulingGroup") or {}).get("podGroupName") == name
                and _bound(p)
            )
            assert n == 0 or n >= min_count, f"{name}: {n} of minCount {min_count} bound"

    @invariant()
    def a_gang_is_admitted_only_with_min_count_pods_bound(self) -> None:
        """When PodGroupInitiallyScheduled first turns True, at least minCount distinct
        members have been bound (from the scheduler's trace, so deletions cannot hide it)."""
        bound_ever = {
            r.object.split("/", 1)[1]
            for r in self.c.trace.records
            if r.component == "scheduler" and r.event == "Bound"
        }
        for name, (_, min_count) in sorted(self.groups.items()):
            if name in self.admitted:
                continue
            pg = self.c.get(PG, "PodGroup", name, NS)
            if (condition(pg, "PodGroupInitiallyScheduled") or {}).get("status") != "True":
                continue
            self.admitted.add(name)
            n = sum(1 for b in bound_ever if b.rsplit("-", 1)[0] == name)
            assert n >= min_count, f"{name} admitted with {n} of minCount {min_count} bound"

    @invariant()
    def no_partial_eviction_of_an_all_group(self) -> None:
        pods = {p["metadata"]["name"]: p for p in self._pods()}
        for g, members in sorted(self.before.items()):
            kept = {
                m
                for m in members
                if m not in self.user_deleted
                and ((pods.get(m) or {}).get("spec", {}).get("nodeName") or self.bound_on.get(m))
                not in self.removed_nodes
            }
            lost = {
                m
                for m in kept
                if m not in pods
                or pods[m]["metadata"].get("deletionTimestamp")
                or condition(pods[m], "DisruptionTarget")
            }
            assert not lost or lost == kept, f"{g}: lost {sorted(lost)} of {sorted(kept)}"

    @invariant()
    def no_node_over_committed(self) -> None:
        used: dict[str, tuple[float, int]] = {}
        for p in self._pods():
            if not _bound(p):
                continue
            cpu = sum(
                parse_quantity(((c.get("resources") or {}).get("requests") or {}).get("cpu", "0"))
                for c in p["spec"]["containers"]
            )
            u = used.get(p["spec"]["nodeName"], (0.0, 0))
            used[p["spec"]["nodeName"]] = (u[0] + float(cpu), u[1] + 1)
        for node in self.c.list("v1", "Node"):
            alloc = node["status"].get("allocatable") or node["status"]["capacity"]
            cpu, count = used.get(node["metadata"]["name"], (0.0, 0))
            assert cpu <= float(parse_quantity(alloc["cpu"])), node["metadata"]["name"]
            assert count <= int(alloc["pods"]), node["metadata"]["name"]

    @invariant()
    def pdb_status_matches_the_pods(self) -> None:
        """What preemption reads is exact after every step (disruption controller)."""
        pods = self._pods()
        for name, min_available in sorted(self.pdbs.items()):
            group = name.removeprefix("pdb-")
            mine = [p for p in pods if (p["metadata"].get("labels") or {}).get("sm-group") == group]
            healthy = sum(
                1
                for p in mine
                if not p["metadata"].get("deletionTimestamp")
                and (condition(p, "Ready") or {}).get("status") == "True"
            )
            allowed = max(0, healthy - min_available) if mine else 0
            st_ = self.c.get("policy/v1", "PodDisruptionBudget", name, NS).get("status") or {}
            got = (st_.get("currentHealthy"), st_.get("desiredHealthy"), st_.get("expectedPods"))
            assert got == (healthy, min_available, len(mine)), f"{name}: {got}"
            assert st_.get("disruptionsAllowed") == allowed, f"{name}: {st_}"
            want = ("True", "SufficientPods") if allowed > 0 else ("False", "InsufficientPods")
            cond = condition({"status": st_}, "DisruptionAllowed") or {}
            assert (cond.get("status"), cond.get("reason")) == want, f"{name}: {cond}"

    @invariant()
    def preemptors_outrank_their_victims(self) -> None:
        """Every preemption (trace) evicted a unit of lower priority than its preemptor."""
        prio = {name: CLASSES[cls] for name, cls in self.classes.items()}
        for r in self.c.trace.records:
            if r.component != "scheduler" or r.event != "Preempted":
                continue
            victim = r.object.rsplit("/", 1)[-1].rsplit("-", 1)[0]
            preemptor = str(r.detail).rsplit("/", 1)[-1]
            preemptor = preemptor if preemptor in prio else preemptor.rsplit("-", 1)[0]
            if victim in prio and preemptor in prio:
                assert prio[victim] < prio[preemptor], f"{r.object} preempted for {r.detail}"


GangMachine.TestCase.settings = settings(
    max_examples=15,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_gang_state_machine = GangMachine.TestCase

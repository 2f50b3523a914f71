"""A Hypothesis state machine over single-pod preemption and PodDisruptionBudgets.

Every pod asks for 1 CPU, so whenever a high-priority pod must preempt, exactly one
victim is needed and upstream's choice is predictable: on each node the candidates are
the lower-priority pods; with each PDB's ``status.disruptionsAllowed`` spent in order of
importance, a candidate *violates* once its PDB's budget is gone; the node with the
fewest violating victims wins; and on a node the victim is a non-violating candidate
whenever one exists. The invariant: a preemption that takes a PDB below its budget
happens only when upstream's rule leaves no other choice (no node had a non-violating
candidate). PDB status is also checked against the pods after every step.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from reference_impl.api import condition, make_node, make_pdb, make_pod, make_priority_class
from reference_impl.cluster import Cluster, ClusterConfig

Obj = dict[str, Any]
NS = "default"
CLASSES = {"pm-low": 10, "pm-mid": 100, "pm-high": 1000}


def _running(pod: Obj) -> bool:
    return bool(pod["spec"].get("nodeName")) and not pod["metadata"].get("deletionTimestamp")


class PdbPreemptionMachine(RuleBasedStateMachine):
    """Full small nodes, low/mid pods under budgets, high pods that must preempt."""

    def __init__(self) -> None:
        super().__init__()
        self.c = Cluster({}, config=ClusterConfig(nodes=0))
        for name, value in sorted(CLASSES.items()):
            self.c.apply(make_priority_class(name, value))
        self.next = 0
        self.pdbs: dict[str, int] = {}  # app label -> minAvailable
        self.checked = 0  # trace records already examined

    def _pods(self) -> list[Obj]:
        return self.c.list("v1", "Pod", NS)

    def _pending(self) -> bool:
        return any(not p["spec"].get("nodeName") for p in self._pods())

    @initialize(cpus=st.lists(st.integers(1, 3), min_size=1, max_size=3))
    def nodes(self, cpus: list[int]) -> None:
        for i, cpu in enumerate(cpus):
            node = make_node(f"pm-node-{i}").capacity(cpu=str(cpu), memory="8Gi", pods="8")
            self.c.apply(node.build())

    @precondition(lambda self: not self._pending())
    @rule(
        app=st.sampled_from(["a", "b", ""]),
        cls=st.sampled_from(["pm-low", "pm-mid", "pm-high"]),
    )
    def add_pod(self, app: str, cls: str) -> None:
        """A pod; created only when nothing is pending, so any preemption is its own."""
        prio = CLASSES[cls]
        before = self._candidates(prio)
        pod = make_pod(f"p{self.next}", NS).req(cpu="1").priority_class(cls)
        self.next += 1
        self.c.apply((pod.label("app", app) if app else pod).build())
        self.c.advance(5)
        victims = [
            r
            for r in self.c.trace.records[self.checked :]
            if r.component == "scheduler" and r.event == "Preempted"
        ]
        self.checked = len(self.c.trace.records)
        if not victims:
            return
        assert len(victims) == 1, f"one slot needed, {len(victims)} victims"
        victim = victims[0].object.split("/", 1)[1]
        node = before["where"][victim]
        if before["violating"][victim]:
            # Upstream: fewest violations first, so no node may have offered a clean victim.
            clean = sorted(
                n
                for n, vs in before["by_node"].items()
                if any(not before["violating"][v] for v in vs)
            )
            assert not clean, f"{victim} on {node} violates its PDB but {clean} had a clean victim"
        else:
            assert victim in before["by_node"][node]

    @precondition(lambda self: self._pending())
    @rule()
    def drop_pending(self) -> None:
        """Delete the pods that found no room (deleting unbound pods frees nothing)."""
        for p in self._pods():
            if not p["spec"].get("nodeName"):
                self.c.delete("v1", "Pod", p["metadata"]["name"], NS)
        self.c.advance(1)
        self.checked = len(self.c.trace.records)

    @precondition(lambda self: len(self.pdbs) < 2)
    @rule(app=st.sampled_from(["a", "b"]), min_available=st.integers(0, 2))
    def add_pdb(self, app: str, min_available: int) -> None:
        if app not in self.pdbs:
            self.c.apply(make_pdb(f"pdb-{app}", NS, {"app": app}, min_available=min_available))
            self.pdbs[app] = min_available
            self.c.advance(1)
        self.checked = len(self.c.trace.records)

    def _candidates(self, below: int) -> dict[str, Any]:
        """Per node: running pods of priority below ``below``, which would violate a PDB."""
        pods = [
            p for p in self._pods() if _running(p) and int(p["spec"].get("priority") or 0) < below
        ]
        status = {
            app: int(
                (
                    self.c.get("policy/v1", "PodDisruptionBudget", f"pdb-{app}", NS).get("status")
                    or {}
                ).get("disruptionsAllowed")
                or 0
            )
            for app in self.pdbs
        }
        by_node: dict[str, list[str]] = {}
        where: dict[str, str] = {}
        for p in pods:
            by_node.setdefault(p["spec"]["nodeName"], []).append(p["metadata"]["name"])
            where[p["metadata"]["name"]] = p["spec"]["nodeName"]
        info = {p["metadata"]["name"]: p for p in pods}
        violating: dict[str, bool] = {}
        for names in by_node.values():
            left = dict(status)
            # Most important first: higher priority, then name (the plugin's tie order).
            for n in sorted(
                names, key=lambda n: (-int(info[n]["spec"]["priority"]), "default/" + n)
            ):
                app = (info[n]["metadata"].get("labels") or {}).get("app")
                if app in left:
                    left[app] -= 1
                    violating[n] = left[app] < 0
                else:
                    violating[n] = False
        return {"by_node": by_node, "where": where, "violating": violating}

    @invariant()
    def pdb_status_is_exact(self) -> None:
        pods = self._pods()
        for app, min_available in sorted(self.pdbs.items()):
            mine = [p for p in pods if (p["metadata"].get("labels") or {}).get("app") == app]
            healthy = sum(
                1
                for p in mine
                if not p["metadata"].get("deletionTimestamp")
                and (condition(p, "Ready") or {}).get("status") == "True"
            )
            st_ = (
                self.c.get("policy/v1", "PodDisruptionBudget", f"pdb-{app}", NS).get("status") or {}
            )
            assert st_.get("currentHealthy") == healthy, st_
            assert st_.get("expectedPods") == len(mine), st_
            assert st_.get("disruptionsAllowed") == (
                max(0, healthy - min_available) if mine else 0
            ), st_


PdbPreemptionMachine.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_pdb_preemption_state_machine = PdbPreemptionMachine.TestCase

"""Rows of pkg/controller/podgc/gc_controller_test.go (v1.37.2) on the reference collector.

The collector is built but not started, so nothing runs unless a row calls a pass, as
upstream's rows call ``gcc.gc(ctx)``. Deleted and patched pods are the successful
``delete`` and ``update_status`` calls it makes (upstream reads the fake client's
actions). Creation times are one second apart in row order (upstream: one hour). A pod
that must stay terminating carries a finalizer, since no kubelet ends it here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from reference_impl.api import make_namespace, make_node, make_pod
from reference_impl.api.well_known_taints import TAINT_NODE_OUT_OF_SERVICE
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Duration, Instant, SimClock, seconds
from reference_impl.controllers.pod_gc import QUARANTINE_S, PodGCController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"
OOS = TAINT_NODE_OUT_OF_SERVICE


class Env:
    """An apiserver, a collector that is not started, and a record of its writes."""

    def __init__(self, threshold: int = -1) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        self.server.create(make_namespace(NS).build())
        ctx = ComponentContext(self.server, InformerFactory(self.server), self.clock, rng, gates, Trace(self.clock))
        self.gcc = PodGCController(ctx, threshold)
        self.deleted: set[str] = set()
        self.patched: set[str] = set()
        self.patches: list[Obj] = []
        self.delete_kwargs: list[Obj] = []
        real_update_status, real_delete = self.server.update_status, self.server.delete

        def update_status(obj: Obj) -> Obj:
            out = real_update_status(obj)
            if obj["kind"] == "Pod":
                self.patched.add(obj["metadata"]["name"])
                self.patches.append(out)
            return out

        def delete(api_version: str, kind: str, name: str, *args: Any, **kwargs: Any) -> Any:
            out = real_delete(api_version, kind, name, *args, **kwargs)
            if kind == "Pod":
                self.deleted.add(name)
                self.delete_kwargs.append(kwargs)
            return out

        self.server.update_status = update_status  # type: ignore[method-assign,assignment]
        self.server.delete = delete  # type: ignore[method-assign]

    def node(self, name: str, ready: str = "True", taints: Sequence[tuple[str, str, str | None]] = ()) -> None:
        b = make_node(name)
        for key, effect, value in taints:
            b.taint(key, effect, value)
        node = self.server.create(b.build())
        conds = [{"type": "Ready", "status": ready}]
        self.server.update_status({**node, "status": {**node["status"], "conditions": conds}})

    def pod(self, name: str, node: str = "", phase: str | None = None, *, reason: str | None = None,
            deleting: bool = False, ready: bool = False) -> None:  # fmt: skip
        self.clock.run_until(Instant(self.clock.now() + seconds(1)))
        b = make_pod(name, NS)
        if node:
            b.node(node)
        m = b.build()
        if deleting:
            m["metadata"]["finalizers"] = ["example.com/keep"]
        pod = self.server.create(m)
        status = dict(pod.get("status") or {})
        if phase:
            status["phase"] = phase
        if reason:
            status["reason"] = reason
        if ready:
            status["conditions"] = [{"type": "Ready", "status": "True"}]
        self.server.update_status({**pod, "status": status})
        if deleting:
            self.server.delete("v1", "Pod", name, NS)

    def ready(self) -> None:
        """Let the informers catch up and forget the setup's own writes."""
        self.clock.settle()
        self.deleted.clear()
        self.patched.clear()
        self.patches.clear()
        self.delete_kwargs.clear()

    def gc(self) -> None:
        self.gcc.gc()
        self.clock.settle()

    def pods(self) -> list[Obj]:
        return sorted(self.gcc._pods.items(), key=lambda p: str(p["metadata"]["name"]))


# -- TestGCTerminated ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pods", "threshold", "deleted"),
    [
        pytest.param([("a", "Failed", None), ("b", "Succeeded", None), ("c", "Failed", None)], 1, {"a", "b"},
                     id="delete pod a which is PodFailed and pod b which is PodSucceeded"),
        pytest.param([("a", "Failed", None), ("b", "Succeeded", None)], 0, set(),
                     id="threshold = 0, disables terminated pod deletion"),
        pytest.param([("a", "Failed", None), ("b", "Succeeded", None), ("c", "Failed", None)], 1, {"a", "b"},
                     id="threshold = 1, delete pod a which is PodFailed and pod b which is PodSucceeded"),
        pytest.param([("a", "Running", None), ("b", "Succeeded", None), ("c", "Failed", None)], 1, {"b"},
                     id="threshold = 1, delete pod b which is PodSucceeded"),
        pytest.param([("a", "Failed", None), ("b", "Succeeded", None)], 1, {"a"},
                     id="threshold = 1, delete pod a which is PodFailed"),
        pytest.param([("a", "Failed", None), ("b", "Succeeded", None)], 5, set(), id="threshold = 5, don't delete pod"),
        pytest.param([("a", "Failed", None), ("b", "Succeeded", None), ("c", "Failed", "Evicted")], 1, {"c", "a"},
                     id="unnamed row 7: the evicted pod goes first"),
        pytest.param([("a", "Running", None), ("b", "Succeeded", None), ("c", "Failed", "Evicted")], 1, {"c"},
                     id="unnamed row 8: only the evicted pod goes"),
    ],
)  # fmt: skip
def test_gc_terminated(pods: list[tuple[str, str, str | None]], threshold: int, deleted: set[str]) -> None:
    """TestGCTerminated."""
    env = Env(threshold)
    env.node("node")
    for name, phase, reason in pods:
        env.pod(name, "node", phase, reason=reason)
    env.ready()
    env.gc()
    assert (env.deleted, env.patched) == (deleted, set())


# -- TestGCOrphaned ------------------------------------------------------------------------

Q = QUARANTINE_S


@pytest.mark.parametrize(
    ("nodes", "delay", "added", "pods", "deleted", "patched"),
    [
        pytest.param(["existing1", "existing2"], 2 * Q, [],
                     [("a", "existing1", "Running"), ("b", "existing2", "Failed"), ("c", "existing2", "Succeeded")],
                     set(), set(), id="nodes present in lister"),
        pytest.param(["existing1", "existing2"], 2 * Q, [],
                     [("a", "existing1", "Running"), ("b", "existing2", "Failed"), ("c", "existing2", "Succeeded")],
                     set(), set(), id="nodes present in client"),
        pytest.param([], 2 * Q, [], [("a", "deleted", "Failed"), ("b", "deleted", "Succeeded")], {"a", "b"}, set(),
                     id="no nodes"),
        pytest.param([], 2 * Q, [],
                     [("a", "deleted", "Failed"), ("b", "deleted", "Succeeded"), ("c", "deleted", "Running")],
                     {"a", "b", "c"}, {"c"}, id="no nodes, one running pod"),
        pytest.param([], Q / 2, [], [("a", "deleted", "Failed")], set(), set(), id="quarantine not finished"),
        pytest.param(["existing"], 2 * Q, [], [("a", "deleted", "Running")], {"a"}, {"a"}, id="wrong nodes"),
        pytest.param(["existing"], 2 * Q, [],
                     [("a", "deleted", "Failed"), ("b", "existing", "Failed"), ("c", "deleted", "Succeeded"),
                      ("d", "deleted", "Running")], {"a", "c", "d"}, {"d"}, id="some nodes missing"),
        pytest.param([], 2 * Q, ["node"], [("a", "node", "Running")], set(), set(),
                     id="node added to client after quarantine"),
        pytest.param([], 2 * Q, ["node"], [("a", "node", "Failed")], set(), set(),
                     id="node added to informer after quarantine"),
    ]
    + [
        pytest.param([], 0.0, [], [], set(), set(), id=name, marks=pytest.mark.skip(
            reason="needs the lister and the apiserver to disagree about a node; the reference's "
                   "informers follow its apiserver"))
        for name in ("node deleted from client after quarantine", "node deleted from informer after quarantine")
    ],
)  # fmt: skip
def test_gc_orphaned(nodes: list[str], delay: float, added: list[str], pods: list[tuple[str, str, str]],
                     deleted: set[str], patched: set[str]) -> None:  # fmt: skip
    """TestGCOrphaned: a missing node's pods go only after the quarantine."""
    env = Env()
    for n in nodes:
        env.node(n)
    for name, node, phase in pods:
        env.pod(name, node, phase)
    env.ready()
    env.gc()
    assert env.deleted == set()
    env.clock.run_until(Instant(env.clock.now() + seconds(delay)))
    for n in added:
        env.node(n)
    env.clock.settle()
    env.gc()
    assert (env.deleted, env.patched) == (deleted, patched)


# -- TestGCUnscheduledTerminating ----------------------------------------------------------


@pytest.mark.parametrize(
    ("pods", "deleted", "patched"),
    [
        pytest.param([("a", "Failed", True, ""), ("b", "Succeeded", True, ""), ("c", "Running", True, "")],
                     {"a", "b", "c"}, {"c"}, id="Unscheduled pod in any phase must be deleted"),
        pytest.param([("a", "Failed", False, ""), ("b", "Succeeded", False, "node"), ("c", "Running", True, "node")],
                     set(), set(), id="Scheduled pod in any phase must not be deleted"),
    ],
)  # fmt: skip
def test_gc_unscheduled_terminating(pods: list[tuple[str, str, bool, str]], deleted: set[str],
                                    patched: set[str]) -> None:  # fmt: skip
    """TestGCUnscheduledTerminating."""
    env = Env()
    for name, phase, deleting, node in pods:
        env.pod(name, node, phase, deleting=deleting)
    env.ready()
    env.gcc.gc_unscheduled_terminating(env.pods())
    env.clock.settle()
    assert (env.deleted, env.patched) == (deleted, patched)


# -- TestGCTerminating ---------------------------------------------------------------------

_NODES_2 = [
    ("worker-0", "False", [(OOS, "NoExecute", None)]),
    ("worker-1", "False", []),
    ("worker-2", "True", []),
    ("worker-3", "False", [(OOS, "NoSchedule", None)]),
    ("worker-4", "False", [(OOS, "PreferNoSchedule", None)]),
    ("worker-5", "False", [(OOS, "NoExecute", "any-value")]),
]
_PODS_2 = [
    (f"{p}{i}", phase, p == "b", node)
    for i, node in ((1, "worker-0"), (2, "worker-1"), (3, "worker-2"), (4, "worker-3"), (5, "worker-4"), (6, "worker-5"))
    for p, phase in (("a", None), ("b", None), ("c", "Pending"), ("d", "Running"), ("e", "Unknown"))
]
_PODS_2 = [("a5", None, False, "worker-3") if p[0] == "a5" else p for p in _PODS_2]  # as upstream's row has it


@pytest.mark.parametrize(
    ("nodes", "pods", "deleted", "patched"),
    [
        pytest.param([("worker-0", "False", []), ("worker-1", "False", [])],
                     [("a", None, True, "worker-0"), ("b", None, True, "worker-1")], set(), set(),
                     id="pods have deletion timestamp set and the corresponding nodes are not ready"),
        pytest.param(_NODES_2, _PODS_2, {"b1", "b4", "b5", "b6"}, {"b1", "b4", "b5", "b6"},
                     id="some pods have deletion timestamp and/or phase set and some of the corresponding nodes "
                        "have an outofservice taint that are not ready"),
        pytest.param([("worker", "False", [(OOS, "NoExecute", None)])],
                     [("a", "Running", True, "worker"), ("b", "Failed", True, "worker"),
                      ("c", "Succeeded", True, "worker")], {"a", "b", "c"}, {"a"},
                     id="pods deleted from node tainted out-of-service"),
    ],
)  # fmt: skip
def test_gc_terminating(nodes: list[tuple[str, str, list[tuple[str, str, str | None]]]],
                        pods: list[tuple[str, str | None, bool, str]], deleted: set[str],
                        patched: set[str]) -> None:  # fmt: skip
    """TestGCTerminating: terminating pods of not-Ready nodes tainted out-of-service."""
    env = Env()
    for name, ready, taints in nodes:
        env.node(name, ready, taints)
    for name, phase, deleting, node in pods:
        env.pod(name, node, phase, deleting=deleting)
    env.ready()
    env.gc()
    assert (env.deleted, env.patched) == (deleted, patched)


# -- TestGCInspectingPatchedPodBeforeDeletion ----------------------------------------------


def test_gc_inspecting_patched_pod_before_deletion() -> None:
    """An orphaned pod is patched to Failed with DeletionByPodGC, then deleted with grace 0."""
    env = Env()
    env.gcc.quarantine = Duration(-1)
    env.pod("testPod".lower(), "deletedNode".lower(), "Running", ready=True)
    env.ready()
    env.gc()
    (patched,) = env.patches
    got = [{k: v for k, v in c.items() if k not in ("lastTransitionTime", "observedGeneration")}
           for c in patched["status"]["conditions"]]  # fmt: skip
    assert patched["status"]["phase"] == "Failed"
    assert got == [
        {"type": "Ready", "status": "True"},
        {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
         "message": "PodGC: node no longer exists"},
    ]  # fmt: skip
    assert env.deleted == {"testpod"}
    assert env.delete_kwargs[0]["grace_period_seconds"] == 0

"""Upstream ``pkg/controller/nodelifecycle/node_lifecycle_controller_test.go`` rows (v1.37.2).

A real APIServer and an unstarted node lifecycle controller on a simulated clock that
starts at the row's ``fakeNow``; the rows call the passes themselves, as upstream does
(``monitorNodeHealth``, ``doNoExecuteTaintingPass``, ``doNoScheduleTaintingPass``,
``reconcileNodeLabels``). The apiserver stamps ``creationTimestamp`` with the clock, so
nodes are created at ``fakeNow`` (the rows' 2012 creation dates only matter for nodes that
never posted status, which these rows create at ``fakeNow``).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, parse_rfc3339, seconds
from reference_impl.controllers.node_health import (
    NodeHealth,
    compute_zone_state,
    is_excluded_from_disruption,
    try_update_node_health,
    written,
    zone_key,
)
from reference_impl.controllers.node_lifecycle import NodeLifecycleController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
QPS = 100000.0  # testRateLimiterQPS
FULL, PARTIAL, NORMAL = "FullDisruption", "PartialDisruption", "Normal"
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}
NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}


def zid(region: str, zone: str) -> str:
    """``testutil.CreateZoneID``."""
    return f"{region}:\x00:{zone}"


def ready(status: str, beat: str, since: str | None = None) -> Obj:
    return {"type": "Ready", "status": status, "lastHeartbeatTime": beat,
            "lastTransitionTime": since or beat}  # fmt: skip


def node(name: str, conds: list[Obj] | None, zone: tuple[str, str] | None = ("region1", "zone1"),
         extra: dict[str, str] | None = None) -> Obj:  # fmt: skip
    labels: dict[str, str] = dict(extra or {})
    if zone is not None:
        labels.update({"topology.kubernetes.io/region": zone[0],
                       "topology.kubernetes.io/zone": zone[1],
                       "failure-domain.beta.kubernetes.io/region": zone[0],
                       "failure-domain.beta.kubernetes.io/zone": zone[1]})  # fmt: skip
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = labels
    status: Obj = {}
    if conds is not None:
        status["conditions"] = conds
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": {}, "status": status}


def pod(name: str, node_name: str) -> Obj:
    """``testutil.NewPod``: Ready, bound to ``node_name``."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node_name,
                     "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


class Env:
    """One row's apiserver and node lifecycle controller (``newNodeLifecycleControllerFromClient``
    with testRateLimiterQPS, threshold 20, 0.55)."""

    def __init__(self, now: str, nodes: list[Obj], pods: list[Obj] = (),  # type: ignore[assignment]
                 created: str | None = None) -> None:  # fmt: skip
        """Objects are created at ``created`` (default ``now``), then the clock moves to now."""
        self.clock = SimClock(parse_rfc3339(created or now))
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        self.server.create({"apiVersion": "v1", "kind": "Namespace",
                            "metadata": {"name": "default"}})  # fmt: skip
        self.trace = Trace(self.clock)
        ctx = ComponentContext(self.server, InformerFactory(self.server), self.clock, rng, gates,
                               self.trace)  # fmt: skip
        self.ctrl = NodeLifecycleController(ctx, eviction_qps=QPS, secondary_qps=QPS,
                                            large_cluster=20, unhealthy_threshold=0.55)  # fmt: skip
        for n in nodes:
            self.server.create(n)
        for p in pods:
            status = p["status"]
            made = self.server.create({k: v for k, v in p.items() if k != "status"})
            self.server.update_status({**made, "status": status})
        self.clock.run_until(parse_rfc3339(now))

    def at(self, when: str) -> None:
        self.clock.run_until(parse_rfc3339(when))

    def set_status(self, name: str, status: Obj) -> None:
        cur = self.server.get("v1", "Node", name)
        self.server.update_status({**cur, "status": status})

    def replace(self, n: Obj) -> None:
        """``fakeNodeHandler.Update``: the node as written, spec and labels included."""
        cur = self.server.get("v1", "Node", n["metadata"]["name"])
        meta = {**cur["metadata"], "labels": n["metadata"].get("labels") or {}}
        out = self.server.update({**cur, "metadata": meta, "spec": n["spec"]})
        self.server.update_status({**out, "status": n["status"]})

    def taint_pass(self) -> None:
        """``doNoExecuteTaintingPass``; upstream's fake client calls outlast the 10 µs token
        refill at testRateLimiterQPS, a simulated pass takes none: 1 ms between two."""
        self.ctrl.do_no_execute_tainting_pass()
        self.clock.run_until(Instant(self.clock.now() + seconds(0.001)))
        self.ctrl.do_no_execute_tainting_pass()

    def taints(self, name: str) -> list[tuple[str, str]]:
        n = self.server.get("v1", "Node", name)
        return sorted((t["key"], t["effect"]) for t in n["spec"].get("taints") or ())


# -- TestMonitorNodeHealth (zone states) ---------------------------------------------------

NOW = "2015-01-01T12:00:00Z"
T17 = "2017-01-01T12:00:00Z"
LATER = "2015-01-01T13:00:00Z"  # fakeNow + timeToPass (60 min)
HEALTHY: Obj = {"conditions": [ready("True", LATER, NOW)]}  # healthyNodeNewStatus
UNHEALTHY: Obj = {"conditions": [ready("Unknown", NOW)]}  # unhealthyNodeNewStatus
Z1, Z2 = ("region1", "zone1"), ("region1", "zone2")


def _monitor_rows() -> list[Any]:
    u, t = [ready("Unknown", NOW)], [ready("True", NOW)]
    return [
        pytest.param([node("node0", t, zone=None)], [HEALTHY], {"": NORMAL}, {"": NORMAL},
                     id="No Disruption: Node created recently without failure domain labels "
                        "(happens only at cluster startup)"),
        pytest.param([node("node0", u, Z1), node("node1", u, Z2)], [UNHEALTHY, HEALTHY],
                     {zid(*Z1): FULL, zid(*Z2): FULL}, {zid(*Z1): FULL, zid(*Z2): NORMAL},
                     id="No Disruption: Initially both zones down, one comes back"),
        pytest.param([node(f"node{i}", None, Z1) for i in range(4)],
                     [UNHEALTHY, UNHEALTHY, UNHEALTHY, HEALTHY], {zid(*Z1): FULL}, {zid(*Z1): PARTIAL},
                     id="Partial Disruption: Nodes created recently without status conditions "
                        "(happens only at cluster startup)"),
        pytest.param([node("node0", u, Z1), node("node1", u, Z1)] + [node(f"node{i}", t, Z1) for i in (2, 3, 4)],
                     [UNHEALTHY, UNHEALTHY, UNHEALTHY, HEALTHY, HEALTHY], {zid(*Z1): NORMAL},
                     {zid(*Z1): PARTIAL},
                     id="Partial Disruption: one Node failed leading to the number of healthy Nodes "
                        "to exceed the configured threshold"),
        pytest.param([node("node0", u, Z1), node("node1", u, Z1), node("node2", t, Z1)],
                     [UNHEALTHY, UNHEALTHY, UNHEALTHY], {zid(*Z1): NORMAL}, {zid(*Z1): FULL},
                     id="Full Disruption: the zone has less than 2 Nodes down, the last healthy Node "
                        "has failed"),
        pytest.param([node("node0", u, Z1), node("node1", t, Z2)], [UNHEALTHY, HEALTHY],
                     {zid(*Z1): FULL, zid(*Z2): NORMAL}, {zid(*Z1): FULL, zid(*Z2): NORMAL},
                     id="Full Disruption: all the Nodes in one zone are down"),
        pytest.param([node("node0", u, Z1), node("node1", u, ("region2", "zone2"))],
                     [UNHEALTHY, UNHEALTHY], {zid(*Z1): FULL, zid("region2", "zone2"): FULL},
                     {zid(*Z1): FULL, zid("region2", "zone2"): FULL},
                     id="Full Disruption: all the Nodes in both the zones are down"),
        pytest.param([node("node0", t, Z1)], [{"conditions": []}], {zid(*Z1): NORMAL},
                     {zid(*Z1): FULL}, id="Full Disruption: Ready condition removed from the Node"),
        pytest.param([node("node0", u, Z1),
                      node("node-master", t, Z1, {"node.kubernetes.io/exclude-disruption": ""})],
                     [UNHEALTHY, HEALTHY], {zid(*Z1): FULL}, {zid(*Z1): FULL},
                     id="Full Disruption: the only available Node has the "
                        "node.kubernetes.io/exclude-disruption label"),
    ]  # fmt: skip


@pytest.mark.parametrize(("nodes", "updated", "initial", "following"), _monitor_rows())
def test_monitor_node_health(
    nodes: list[Obj], updated: list[Obj], initial: dict[str, str], following: dict[str, str]
) -> None:
    env = Env(NOW, nodes)
    env.ctrl.monitor_node_health()
    assert env.ctrl.zones.states == initial
    env.at(LATER)
    for n, status in zip(nodes, updated, strict=True):
        env.set_status(n["metadata"]["name"], status)
    env.ctrl.monitor_node_health()
    assert env.ctrl.zones.states == following


@pytest.mark.parametrize(("statuses", "expected"), [
    pytest.param([], (0, NORMAL), id="empty zone"),
    pytest.param([None], (1, FULL), id="no Ready condition counts as not ready"),
    pytest.param(["True", "False", "False"], (2, NORMAL), id="two down is never partial"),
    pytest.param(["True", "False", "False", "Unknown"], (3, PARTIAL), id="three of four down"),
    pytest.param(["True"] * 3 + ["False"] * 3, (3, NORMAL), id="half is under 0.55"),
])  # fmt: skip
def test_compute_zone_state(statuses: list[str | None], expected: tuple[int, str]) -> None:
    """``ComputeZoneState`` (the states TestMonitorNodeHealth expects, one zone at a time)."""
    conds = [None if s is None else {"type": "Ready", "status": s} for s in statuses]
    assert compute_zone_state(conds, 0.55) == expected


def test_zone_key_prefers_beta_labels() -> None:
    """``GetZoneKey``: region and zone joined by ":\\x00:", beta labels first, "" for none."""
    n = node("n", [], None, {"failure-domain.beta.kubernetes.io/zone": "b",
                             "topology.kubernetes.io/zone": "ga", "topology.kubernetes.io/region": "r"})  # fmt: skip
    assert zone_key(n) == "r:\x00:b"
    assert zone_key(node("n", [], None)) == ""


# -- TestMonitorNodeHealthUpdateStatus ------------------------------------------------------

C12 = "2012-01-01T00:00:00Z"
HOUR_LATER = "2015-01-01T13:00:00Z"


def _unknown(ctype: str, reason: str, beat: str, at: str) -> Obj:
    msg = {"NodeStatusNeverUpdated": "Kubelet never posted node status.",
           "NodeStatusUnknown": "Kubelet stopped posting node status."}[reason]  # fmt: skip
    return {"type": ctype, "status": "Unknown", "reason": reason, "message": msg,
            "lastHeartbeatTime": beat, "lastTransitionTime": at}  # fmt: skip


def _never(at: str, ready_reason: str = "NodeStatusNeverUpdated", beat: str = C12) -> list[Obj]:
    first = _unknown("Ready", ready_reason, beat, at)
    return [first] + [_unknown(t, "NodeStatusNeverUpdated", C12, at)
                      for t in ("MemoryPressure", "DiskPressure", "PIDPressure")]  # fmt: skip


@pytest.mark.parametrize(("created", "conds", "pass_hour", "expected", "pod_update"), [
    pytest.param(C12, None, False, _never(NOW), False,
                 id="Node created long time ago, without status"),
    pytest.param(NOW, None, False, None, False, id="Node created recently, without status"),
    pytest.param(C12, [ready("True", NOW)], True,
                 _never(HOUR_LATER, "NodeStatusUnknown", NOW), True,
                 id="Node created long time ago, with status updated by kubelet exceeds grace period"),
    pytest.param(C12, [ready("True", NOW)], False, None, False,
                 id="Node created long time ago, with status updated recently"),
])  # fmt: skip
def test_monitor_node_health_update_status(
    created: str, conds: list[Obj] | None, pass_hour: bool, expected: list[Obj] | None,
    pod_update: bool,
) -> None:
    env = Env(NOW, [node("node0", conds, None)], [pod("pod0", "node0")], created=created)
    before = env.server.get("v1", "Node", "node0")
    env.ctrl.monitor_node_health()
    if pass_hour:
        env.at(HOUR_LATER)  # the same status: the heartbeat did not move
        env.ctrl.monitor_node_health()
    after = env.server.get("v1", "Node", "node0")
    if expected is None:
        assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    else:
        assert after["status"]["conditions"] == expected
    p = env.server.get("v1", "Pod", "pod0", "default")
    ready_cond = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert (ready_cond["status"] == "False") == pod_update


# -- TestMonitorNodeHealthMarkPodsNotReady, TestProcessPodMarkPodNotReady ----------------


@pytest.mark.parametrize(("created", "conds", "minute_later", "pod_update"), [
    pytest.param(NOW, None, False, False, id="Node created recently, without status"),
    pytest.param(C12, [ready("True", NOW)], False, False,
                 id="Node created long time ago, with status updated recently"),
    pytest.param(C12, [ready("True", NOW)], True, True,
                 id="Node created long time ago, with status updated by kubelet exceeds grace period"),
])  # fmt: skip
def test_monitor_node_health_mark_pods_not_ready(
    created: str, conds: list[Obj] | None, minute_later: bool, pod_update: bool
) -> None:
    env = Env(NOW, [node("node0", conds, None)], [pod("pod0", "node0")], created=created)
    env.ctrl.monitor_node_health()
    if minute_later:
        env.at("2015-01-01T12:01:00Z")
        env.set_status("node0", {"conditions": [ready("True", NOW)]})
        env.ctrl.monitor_node_health()
    p = env.server.get("v1", "Pod", "pod0", "default")
    got = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert (got["status"] == "False") == pod_update
    if pod_update:
        assert got["lastTransitionTime"] == "2015-01-01T12:01:00Z"
        notes = [(r.event, r.object, r.detail) for r in env.trace.records if r.object == "default/pod0"]
        assert notes == [("NodeNotReady", "default/pod0", "Node is not ready")]


@pytest.mark.parametrize(("status", "monitor", "pod_update"), [
    pytest.param("False", False, False,
                 id="Do not mark pod as NotReady when the scheduled node's healthy is not gathered yet"),
    pytest.param("True", True, False, id="Do not mark pod as NotReady when the scheduled node is ready"),
    pytest.param("False", True, True, id="Pod marked as NotReady when the scheduled node is not ready"),
])  # fmt: skip
def test_process_pod_mark_pod_not_ready(status: str, monitor: bool, pod_update: bool) -> None:
    env = Env(NOW, [node("node0", [ready(status, NOW)], None)], [pod("pod0", "node0")])
    if monitor:
        env.ctrl.monitor_node_health()
    env.ctrl.process_pod("default/pod0")
    p = env.server.get("v1", "Pod", "pod0", "default")
    got = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert (got["status"] == "False") == pod_update


# -- TestTryUpdateNodeHealth, Test_isNodeExcludedFromDisruptionChecks ------------------------

OLD16 = "2016-01-01T12:00:00Z"


@pytest.mark.parametrize(("created", "status"), [
    pytest.param(T17, "True", id="Status true"),
    pytest.param(T17, "False", id="Status false"),
    pytest.param(T17, "Unknown", id="Status unknown"),
    pytest.param(T17, None, id="Status nil"),
    pytest.param(OLD16, "True", id="Status true - after grace period"),
    pytest.param(OLD16, "False", id="Status false - after grace period"),
    pytest.param(OLD16, "Unknown", id="Status unknown - after grace period"),
    pytest.param(OLD16, None, id="Status nil - after grace period"),
])  # fmt: skip
def test_try_update_node_health(created: str, status: str | None) -> None:
    """The Ready status returned equals the one kept in the health map."""
    conds = [] if status is None else [ready(status, created)]
    n = node("node0", conds, None)
    n["metadata"]["creationTimestamp"] = created
    t0 = parse_rfc3339(created)
    health = NodeHealth(t0, t0, n["status"])
    now = parse_rfc3339(T17)
    res = try_update_node_health(health, n, None, now, seconds(50), seconds(60))
    kept = written(res, now) if res.new_status is not None else res.health
    saved = next((c for c in kept.status.get("conditions") or () if c["type"] == "Ready"), None)
    assert (None if saved is None else saved["status"]) == (
        None if res.current is None else res.current["status"])
    # Written only past the grace period, and only when Ready changes.
    assert (res.new_status is not None) == (created == OLD16 and status != "Unknown")


@pytest.mark.parametrize(("labels", "name", "want"), [
    pytest.param({}, "", False, id="no labels"),
    pytest.param(None, "master-abc", False, id="a master name alone"),
    pytest.param({"node.kubernetes.io/exclude-disruption": ""}, "", True, id="the label"),
])  # fmt: skip
def test_is_node_excluded_from_disruption_checks(
    labels: dict[str, str] | None, name: str, want: bool
) -> None:
    meta: Obj = {"name": name}
    if labels is not None:
        meta["labels"] = labels
    assert is_excluded_from_disruption({"metadata": meta}) is want


# -- TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease ------------------------------------

_BREAKER = pytest.mark.skip(reason="NodeControllerLeaseCircuitBreaker: the reference's informer "
                            "cache is never behind the apiserver, so a stale cached lease "
                            "cannot be modelled")  # fmt: skip
_DISK = {"type": "DiskPressure", "status": "False", "lastHeartbeatTime": NOW, "lastTransitionTime": NOW}
_DISK_LATER = {**_DISK, "lastHeartbeatTime": HOUR_LATER}


def _lease_rows() -> list[Any]:
    t = [ready("True", NOW), _DISK]
    t_later = [ready("True", HOUR_LATER, NOW), _DISK_LATER]
    return [
        pytest.param(NOW, None, None, None, None, None, False,
                     id="Node created recently, without status. Node lease is missing."),
        pytest.param(NOW, None, NOW, None, None, None, False,
                     id="Node created recently, without status. Node lease is renewed recently."),
        pytest.param(C12, None, None, None, None, _never(NOW), False,
                     id="Node created long time ago, without status. Node lease is missing."),
        pytest.param(C12, None, NOW, HOUR_LATER, None, None, False,
                     id="Node created long time ago, without status. Node lease is renewed recently."),
        pytest.param(C12, None, NOW, NOW, None, _never(HOUR_LATER), False,
                     id="Node created long time ago, without status. Node lease is expired."),
        pytest.param(C12, t, NOW, HOUR_LATER, t, None, False,
                     id="Node created long time ago, with status updated by kubelet exceeds grace "
                        "period. Node lease is renewed."),
        pytest.param(C12, t, NOW, NOW, t_later, t_later, False,
                     id="Node created long time ago, with status updated by kubelet recently. "
                        "Node lease is expired."),
        pytest.param(C12, [ready("True", NOW)], NOW, NOW, [ready("True", NOW)],
                     _never(HOUR_LATER, "NodeStatusUnknown", NOW), True,
                     id="Node created long time ago, with status updated by kubelet exceeds grace "
                        "period. Node lease is also expired."),
        pytest.param(C12, t, NOW, NOW, t, None, False, marks=_BREAKER,
                     id="Node created long time ago, with status updated by kubelet exceeds grace "
                        "period. Node lease is expired in cache, but fresh in API server."),
        pytest.param(C12, t, NOW, NOW, t, None, False, marks=_BREAKER,
                     id="Node lease expired in cache but fresh in API server. EnsureReady should "
                        "skip on second run."),
    ]  # fmt: skip


def _micro(rfc: str) -> str:
    return rfc[:-1] + ".000000Z"


@pytest.mark.parametrize(("created", "conds", "lease", "new_lease", "new_conds", "expected",
                          "pod_update"), _lease_rows())  # fmt: skip
def test_monitor_node_health_with_lease(
    created: str, conds: list[Obj] | None, lease: str | None, new_lease: str | None,
    new_conds: list[Obj] | None, expected: list[Obj] | None, pod_update: bool,
) -> None:
    env = Env(NOW, [node("node0", conds, None)], [pod("pod0", "node0")], created=created)
    if lease is not None:
        env.server.create({"apiVersion": "v1", "kind": "Namespace",
                           "metadata": {"name": "kube-node-lease"}})  # fmt: skip
        env.server.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                           "metadata": {"name": "node0", "namespace": "kube-node-lease"},
                           "spec": {"holderIdentity": "node0", "renewTime": _micro(lease)}})  # fmt: skip
    before = env.server.get("v1", "Node", "node0")
    env.ctrl.monitor_node_health()
    if new_lease is not None:
        env.at(HOUR_LATER)
        if new_conds is not None:
            env.set_status("node0", {"conditions": new_conds})
            before = env.server.get("v1", "Node", "node0")
        cur = env.server.get("coordination.k8s.io/v1", "Lease", "node0", "kube-node-lease")
        env.server.update({**cur, "spec": {**cur["spec"], "renewTime": _micro(new_lease)}})
        env.ctrl.monitor_node_health()
    after = env.server.get("v1", "Node", "node0")
    if expected is None or expected == new_conds:
        assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    else:
        assert after["status"]["conditions"] == expected
    p = env.server.get("v1", "Pod", "pod0", "default")
    ready_cond = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert (ready_cond["status"] == "False") == pod_update


# -- TestApplyNoExecuteTaints, TestSwapUnreachableNotReadyTaints --------------------------



def test_apply_no_execute_taints() -> None:
    env = Env(T17, [
        node("node0", [ready("Unknown", "2015-01-01T12:00:00Z")]),
        node("node1", [ready("True", T17)]),
        node("node2", [ready("False", "2015-01-01T12:00:00Z")]),
        node("node3", [ready("True", "2016-01-01T12:00:00Z")]),
    ], [pod("pod0", "node0")])  # fmt: skip
    env.ctrl.monitor_node_health()
    env.taint_pass()
    assert ("node.kubernetes.io/unreachable", "NoExecute") in env.taints("node0")
    assert ("node.kubernetes.io/not-ready", "NoExecute") in env.taints("node2")
    # node2 healthy again: no taint at all.
    env.set_status("node2", {"conditions": [ready("True", "2017-01-01T12:10:00Z", T17)]})
    env.ctrl.monitor_node_health()
    env.taint_pass()
    assert env.taints("node2") == []
    # node3 NotReady, then its status replaced before the tainting pass: no Ready, no taint.
    env.set_status("node3", {"conditions": [ready("False", "2017-01-01T12:10:00Z", T17)]})
    env.ctrl.monitor_node_health()
    env.set_status("node3", {"conditions": [{"type": "MemoryPressure", "status": "Unknown",
                                             "lastHeartbeatTime": "2017-01-01T12:10:00Z",
                                             "lastTransitionTime": T17}]})  # fmt: skip
    env.taint_pass()
    assert env.taints("node3") == []


def test_apply_no_execute_taints_to_unreachable_node() -> None:
    """TestApplyNoExecuteTaintsToUnreachableNode: silent past the grace period, Unknown with
    upstream's reason and message, then the unreachable NoExecute taint; Ready removes it."""
    env = Env(T17, [node("node0", [ready("True", T17)]), node("node1", [ready("True", T17)])],
              [pod("pod0", "node0")])  # fmt: skip
    env.ctrl.monitor_node_health()
    env.at("2017-01-01T12:00:51Z")  # past the 50 s grace, node1 heartbeats
    env.set_status("node1", {"conditions": [ready("True", "2017-01-01T12:00:51Z", T17)]})
    env.ctrl.monitor_node_health()
    env.taint_pass()
    stored = env.server.get("v1", "Node", "node0")
    cond = next(c for c in stored["status"]["conditions"] if c["type"] == "Ready")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
    assert cond["lastTransitionTime"] == "2017-01-01T12:00:51Z"
    assert ("node.kubernetes.io/unreachable", "NoExecute") in env.taints("node0")
    p = env.server.get("v1", "Pod", "pod0", "default")
    assert [c["status"] for c in p["status"]["conditions"] if c["type"] == "Ready"] == ["False"]
    env.set_status("node0", {"conditions": [ready("True", "2017-01-01T12:00:52Z")]})
    env.ctrl.monitor_node_health()
    assert ("node.kubernetes.io/unreachable", "NoExecute") not in env.taints("node0")


def test_swap_unreachable_not_ready_taints() -> None:
    env = Env(T17, [node("node0", [ready("Unknown", "2015-01-01T12:00:00Z")]),
                    node("node1", [ready("True", T17)])], [pod("pod0", "node0")])  # fmt: skip
    env.ctrl.monitor_node_health()
    env.taint_pass()
    assert ("node.kubernetes.io/unreachable", "NoExecute") in env.taints("node0")
    env.set_status("node0", {"conditions": [ready("False", "2017-01-01T12:09:00Z", T17)]})
    env.set_status("node1", {"conditions": [ready("True", "2017-01-01T12:10:00Z", T17)]})
    env.ctrl.monitor_node_health()
    env.taint_pass()
    assert ("node.kubernetes.io/not-ready", "NoExecute") in env.taints("node0")
    assert ("node.kubernetes.io/unreachable", "NoExecute") not in env.taints("node0")


# -- TestTaintsNodeByCondition, TestReconcileNodeLabels, TestNodeEventGeneration -----------

R15 = [ready("True", "2015-01-01T12:00:00Z")]


@pytest.mark.parametrize(("conds", "expected"), [
    pytest.param(R15 + [{"type": "NetworkUnavailable", "status": "True"}],
                 [("node.kubernetes.io/network-unavailable", "NoSchedule")],
                 id="NetworkUnavailable is true"),
    pytest.param(R15 + [{"type": "NetworkUnavailable", "status": "True"}],
                 [("node.kubernetes.io/network-unavailable", "NoSchedule")],
                 id="NetworkUnavailable is true (again)"),
    pytest.param([ready("False", "2015-01-01T12:00:00Z")],
                 [("node.kubernetes.io/not-ready", "NoSchedule")], id="Ready is false"),
    pytest.param([ready("Unknown", "2015-01-01T12:00:00Z")],
                 [("node.kubernetes.io/unreachable", "NoSchedule")], id="Ready is unknown"),
])  # fmt: skip
def test_taints_node_by_condition(conds: list[Obj], expected: list[tuple[str, str]]) -> None:
    env = Env(T17, [node("node0", R15)], [pod("pod0", "node0")])
    env.replace(node("node0", conds))
    env.ctrl.do_no_schedule_tainting_pass("node0")
    assert env.taints("node0") == expected
    stamped = env.server.get("v1", "Node", "node0")["spec"]["taints"]
    assert all(t["timeAdded"] == T17 for t in stamped)  # SwapNodeControllerTaint


OS, ARCH, BOS, BARCH = ("kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os",
                        "beta.kubernetes.io/arch")  # fmt: skip


@pytest.mark.parametrize(("labels", "expected"), [
    pytest.param({}, {}, id="No-op if node has no labels"),
    pytest.param({"topology.kubernetes.io/region": "region1"},
                 {"topology.kubernetes.io/region": "region1"},
                 id="No-op if no target labels present"),
    pytest.param({OS: "linux", ARCH: "amd64"}, {BOS: "linux", BARCH: "amd64", OS: "linux", ARCH: "amd64"},
                 id="Create OS/arch beta labels when they don't exist"),
    pytest.param({BOS: "windows", BARCH: "arm", OS: "linux", ARCH: "amd64"},
                 {BOS: "linux", BARCH: "amd64", OS: "linux", ARCH: "amd64"},
                 id="Reconcile OS/arch beta labels to match stable labels"),
])  # fmt: skip
def test_reconcile_node_labels(labels: dict[str, str], expected: dict[str, str]) -> None:
    env = Env(T17, [node("node0", R15)], [pod("pod0", "node0")])
    n = node("node0", [], None, labels)
    env.replace(n)
    env.ctrl.reconcile_node_labels("node0")
    assert (env.server.get("v1", "Node", "node0")["metadata"].get("labels") or {}) == expected


def test_node_event_generation() -> None:
    """TestNodeEventGeneration: one pass over a long-Unknown node records only
    RegisteredNode."""
    env = Env("2016-09-10T12:00:00Z", [node("node0", [ready("Unknown", "2015-08-10T00:00:00Z")], None)],
              [pod("pod0", "node0")])  # fmt: skip
    env.ctrl.monitor_node_health()
    events = [(r.event, r.object, r.detail) for r in env.trace.records
              if r.component == "node-controller"]  # fmt: skip
    assert events == [("RegisteredNode", "node0", "Registered Node node0 in Controller")]


# -- handleDisruption's effect on NoExecute tainting ---------------------------------------


def _down_row(zones: list[tuple[str, str]], down: set[str]) -> Env:
    nodes = [node(f"node{i}", [ready("True", NOW)], z) for i, z in enumerate(zones)]
    env = Env(NOW, nodes)
    env.ctrl.monitor_node_health()
    env.at(LATER)
    for i in range(len(zones)):
        if f"node{i}" not in down:
            env.set_status(f"node{i}", {"conditions": [ready("True", LATER, NOW)]})
    env.ctrl.monitor_node_health()
    env.taint_pass()
    return env


def test_one_fully_disrupted_zone_is_still_tainted() -> None:
    """A zone with no Ready node while another zone is healthy: FullDisruption runs at
    HealthyQPSFunc, so its nodes still get the unreachable NoExecute taint."""
    env = _down_row([Z1, Z2], {"node0"})
    assert env.ctrl.zones.states == {zid(*Z1): FULL, zid(*Z2): NORMAL}
    assert ("node.kubernetes.io/unreachable", "NoExecute") in env.taints("node0")


def test_every_zone_fully_disrupted_stops_tainting() -> None:
    """All zones FullDisruption: master disruption mode, no NoExecute taint anywhere."""
    env = _down_row([Z1, Z2], {"node0", "node1"})
    assert env.ctrl.zones.states == {zid(*Z1): FULL, zid(*Z2): FULL}
    assert env.taints("node0") == env.taints("node1") == []


def test_partial_disruption_of_a_small_zone_stops_tainting() -> None:
    """3 of 5 nodes down (>= 0.55) in a zone of at most largeClusterThreshold nodes:
    ReducedQPSFunc gives 0, nothing is tainted."""
    env = _down_row([Z1] * 5, {"node0", "node1", "node2"})
    assert env.ctrl.zones.states == {zid(*Z1): PARTIAL}
    assert all(env.taints(f"node{i}") == [] for i in range(5))

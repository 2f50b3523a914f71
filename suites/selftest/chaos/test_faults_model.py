"""garhwal's own fault models: notices, the injector contract, the reference's node
lifecycle, taint eviction, PodGC and DefaultTolerationSeconds, and process control."""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from fixtures.chaos import INJECTORS, Rollback, Scope, Touch
from fixtures.chaos.faults import NodeLoss, SpotReclaim
from fixtures.localcluster import processes
from fixtures.localcluster.launcher import ClusterState
from fixtures.targets.reference import ReferenceTarget
from reference_impl.api import make_pod
from reference_impl.cloud.notices import notice_for
from reference_impl.errors import BadRequest, Timeout


def test_provider_notices_have_the_providers_windows_and_shapes() -> None:
    aws = notice_for("aws", "n", 1_800_000_000.0)
    assert aws.window_seconds == 120
    assert aws.document() == {"action": "terminate", "time": "2027-01-15T08:02:00Z"}
    assert notice_for("gcp", "n", 0.0).window_seconds == 30
    assert notice_for("gcp", "n", 0.0).document() == "TRUE"
    az = notice_for("azure", "vm-1", 0.0).document()["Events"][0]
    assert (az["EventType"], az["Resources"], az["NotBefore"]) == (
        "Preempt", ["vm-1"], "Thu, 01 Jan 1970 00:00:30 GMT")  # fmt: skip
    with pytest.raises(ValueError, match="aws, gcp, azure"):
        notice_for("ibm", "n", 0.0)


def _journal_roundtrip(rb: Rollback) -> Rollback:
    data = json.loads(json.dumps(asdict(rb)))
    return Rollback(data["injector"], tuple(Touch(**t) for t in data["touches"]), data["undo"])


def test_prepare_changes_nothing_and_revert_replays_from_the_journal_twice() -> None:
    t = ReferenceTarget()
    before = t.get("v1", "Node", "kwok-node-1")["metadata"]["resourceVersion"]
    for inj, scope in ((NodeLoss(), Scope(nodes=("kwok-node-1",))),
                       (SpotReclaim(), Scope(nodes=("kwok-node-1",), params={"provider": "gcp"}))):  # fmt: skip
        rb = inj.prepare(t, scope)
        assert t.get("v1", "Node", "kwok-node-1")["metadata"]["resourceVersion"] == before
        inj.apply(t, rb)
        again = INJECTORS[rb.injector]()  # what ``garhwal chaos revert`` rebuilds
        replay = _journal_roundtrip(rb)
        again.revert(t, replay)
        again.revert(t, replay)
        node = t.get("v1", "Node", "kwok-node-1")
        assert not node["spec"].get("unschedulable") and not node["spec"].get("taints")
        t.wait_until(lambda: t.node_faults.heartbeat_stopped() == frozenset(), timeout=1, what="x")
        before = node["metadata"]["resourceVersion"]


def test_bad_scopes_name_the_field() -> None:
    t = ReferenceTarget()
    with pytest.raises(BadRequest, match=r"scope\.nodes"):
        NodeLoss().prepare(t, Scope(nodes=("a", "b")))
    with pytest.raises(BadRequest, match=r"scope\.params\.provider"):
        SpotReclaim().prepare(t, Scope(nodes=("kwok-node-0",), params={"provider": "ibm"}))


def test_default_toleration_seconds_adds_only_what_a_pod_lacks() -> None:
    t = ReferenceTarget()
    all_ = t.apply(make_pod("a", "default").toleration("", "Exists", "", "").build())
    assert len(all_["spec"]["tolerations"]) == 1  # tolerates everything: nothing added
    one = t.apply(make_pod("b", "default").toleration(
        "node.kubernetes.io/unreachable", "Exists", "", "NoExecute").build())  # fmt: skip
    added = [x for x in one["spec"]["tolerations"] if x.get("tolerationSeconds") == 300]
    assert [x["key"] for x in added] == ["node.kubernetes.io/not-ready"]


def test_all_nodes_silent_is_full_disruption_no_noexecute_taint() -> None:
    t = ReferenceTarget()
    for i in range(3):
        t.node_faults.stop_heartbeat(f"kwok-node-{i}")
    t.cluster.advance(120)
    for i in range(3):
        node = t.get("v1", "Node", f"kwok-node-{i}")
        assert {x["effect"] for x in node["spec"]["taints"]} == {"NoSchedule"}


def test_podgc_force_deletes_pods_of_a_deleted_node_after_the_quarantine() -> None:
    t = ReferenceTarget()
    t.apply(make_pod("p", "default").node("kwok-node-2").build())
    t.node_faults.stop_heartbeat("kwok-node-2")
    t.cluster.delete("v1", "Node", "kwok-node-2")
    t.cluster.advance(39)
    assert t.get("v1", "Pod", "p", "default")
    with pytest.raises(Timeout):
        t.wait_until(lambda: not t.list("v1", "Pod", "default"), timeout=0.5, what="too early")
    t.wait_until(lambda: not t.list("v1", "Pod", "default"), timeout=30, what="PodGC")


def test_process_control_kills_by_recorded_pid_and_restarts_with_the_recorded_argv(
    tmp_path: Path,
) -> None:
    (tmp_path / "logs").mkdir()
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    state = ClusterState(str(tmp_path), argv={"etcd": argv})
    state.save()
    pid = processes.restart(tmp_path, "etcd")
    try:
        assert processes.alive(tmp_path, "etcd")
        with pytest.raises(processes.ProcessError, match="still runs"):
            processes.restart(tmp_path, "etcd")
        assert processes.kill(tmp_path, "etcd") == pid
        assert not processes.alive(tmp_path, "etcd")
        new = processes.restart(tmp_path, "etcd")
        assert new != pid and ClusterState.load(tmp_path).pids["etcd"] == new  # type: ignore[union-attr]
    finally:
        for p in (ClusterState.load(tmp_path) or state).pids.values():
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_pdb_that_allows_no_disruption_blocks_the_drain_until_the_instance_goes() -> None:
    """Best effort, as kubectl drain's eviction loop: the blocked pod is retried until the
    notice window closes, then dies with the instance (the spot market deletes the node)."""
    from reference_impl.api import make_pdb

    t = ReferenceTarget()
    t.apply(make_pod("guarded", "default").node("kwok-node-0").label("app", "g").build())
    t.apply(make_pod("free", "default").node("kwok-node-0").build())
    t.apply(make_pdb("keep", "default", {"app": "g"}, min_available=1))
    t.cluster.advance(5)
    inj = SpotReclaim()
    rb = inj.prepare(t, Scope(namespaces=("default",), nodes=("kwok-node-0",), params={"provider": "gcp"}))
    inj.apply(t, rb)
    rep = inj.report
    assert rep["evicted"] == ["default/free"] and rep["pdb_blocked"] == ["default/guarded"]
    assert rep["drained_at"] is None  # the window closed first
    assert rep["node_deleted_at"] <= rep["deadline"] + 1
    t.cluster.advance(120)  # PodGC: the pod of the vanished node is removed
    assert [p["metadata"]["name"] for p in t.list("v1", "Pod", "default")] == []
    inj.revert(t, rb)
    assert t.get("v1", "Node", "kwok-node-0")["metadata"]["name"] == "kwok-node-0"


def test_the_drain_evicts_through_the_eviction_api_and_takes_what_a_budget_allows() -> None:
    """As a node termination handler: a policy/v1 Eviction per pod (never a plain delete);
    a budget allowing one disruption of two pods lets one go and answers 429 for the other."""
    from fixtures.targets.observer import ObservedTarget
    from reference_impl.api import make_pdb

    ref = ReferenceTarget()
    for name in ("g-0", "g-1"):
        ref.apply(make_pod(name, "default").node("kwok-node-0").label("app", "g").build())
    ref.apply(make_pdb("one", "default", {"app": "g"}, min_available=1))
    ref.cluster.advance(5)
    calls: list[tuple[str, str, str]] = []
    t = ObservedTarget(ref, lambda verb, res, _s, err: calls.append((verb, res, getattr(err, "reason", ""))))
    inj = SpotReclaim()
    rb = inj.prepare(t, Scope(namespaces=("default",), nodes=("kwok-node-0",), params={"provider": "gcp"}))
    inj.apply(t, rb)
    assert inj.report["evicted"] == ["default/g-0"] and inj.report["pdb_blocked"] == ["default/g-1"]
    evictions = [c for c in calls if c[1] == "pods/eviction"]
    assert evictions[0] == ("create", "pods/eviction", "")
    assert ("create", "pods/eviction", "TooManyRequests") in evictions
    assert not [c for c in calls if c[:2] == ("delete", "pods")]


def test_only_a_garhwal_started_cluster_gets_the_process_extensions(tmp_path: Path) -> None:
    from fixtures.targets.live_local import attach

    class Stub:
        dyn = None

    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("")
    assert attach(Stub(), str(kubeconfig), "https://127.0.0.1:6443") == frozenset()
    (tmp_path / "logs").mkdir()
    ClusterState(str(tmp_path), server="https://127.0.0.1:1", argv={"etcd": ["x"]}).save()
    assert attach(Stub(), str(kubeconfig), "https://127.0.0.1:6443") == frozenset()  # other server
    ClusterState(str(tmp_path), server="https://127.0.0.1:6443", argv={"etcd": ["x"]},
                 pids={"etcd": 2**22 + 7}).save()  # fmt: skip
    assert attach(Stub(), str(kubeconfig), "https://127.0.0.1:6443") == frozenset()  # etcd gone
    assert not hasattr(Stub, "etcd_control")


def test_the_notice_is_served_on_loopback_in_the_metadata_services_shapes() -> None:
    import urllib.error
    import urllib.request

    from fixtures.chaos.faults.imds import NoticeServer

    aws = NoticeServer(notice_for("aws", "n", 0.0))
    gcp = NoticeServer(notice_for("gcp", "n", 0.0))
    try:
        with urllib.request.urlopen(f"{aws.url}/latest/meta-data/spot/instance-action") as r:
            assert json.loads(r.read()) == {"action": "terminate", "time": "1970-01-01T00:02:00Z"}
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"{aws.url}/latest/meta-data/events/recommendations/rebalance")
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(f"{gcp.url}/computeMetadata/v1/instance/preempted")
        req = urllib.request.Request(f"{gcp.url}/computeMetadata/v1/instance/preempted",
                                     headers={"Metadata-Flavor": "Google"})  # fmt: skip
        with urllib.request.urlopen(req) as r:
            assert r.read() == b"TRUE"
    finally:
        aws.close()
        gcp.close()


def test_a_notice_delivered_to_the_clusters_handler_is_judged_by_what_it_did() -> None:
    """``deliver: handler``: a handler polling the loopback endpoint cordons and drains."""
    import urllib.error
    import urllib.request

    from reference_impl.clock import seconds

    t = ReferenceTarget()
    t.apply(make_pod("w", "default").node("kwok-node-1").build())
    inj = SpotReclaim()
    scope = Scope(namespaces=("default",), nodes=("kwok-node-1",),
                  params={"provider": "aws", "deliver": "handler"})  # fmt: skip
    rb = inj.prepare(t, scope)

    def handler() -> None:  # what aws-node-termination-handler does, every 5 s
        url = inj.report.get("imds_url")
        try:
            with urllib.request.urlopen(f"{url}/latest/meta-data/spot/instance-action") as r:
                assert json.loads(r.read())["action"] == "terminate"
        except (urllib.error.URLError, TypeError, ValueError):
            t.cluster.clock.call_later(seconds(5), handler)
            return
        node = t.get("v1", "Node", "kwok-node-1")
        node["spec"]["unschedulable"] = True
        t.apply(node)
        t.delete("v1", "Pod", "w", "default")

    t.cluster.clock.call_later(seconds(5), handler)
    inj.apply(t, rb)
    rep = inj.report
    assert rep["drained_at"] is not None and rep["drained_at"] <= rep["deadline"]
    assert rep["handler_cordoned"] and rep["imds_requests"] >= 1 and not rep["evicted"]
    inj.revert(t, rb)
    assert not t.get("v1", "Node", "kwok-node-1")["spec"].get("unschedulable")

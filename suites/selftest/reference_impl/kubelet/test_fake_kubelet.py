"""The fake kubelet: start-up and cold-start timing, completion, deletion and nodes."""

from __future__ import annotations

from kubelet_harness import KubeletHarness, make_harness

from reference_impl.api import condition, make_node, make_pod
from reference_impl.clock import Instant, seconds
from reference_impl.kubelet import KubeletConfig, ManagedNodes


def _ready(k: KubeletHarness, name: str) -> bool:
    p = k.pod(name)
    return p is not None and (condition(p, "Ready") or {}).get("status") == "True"


def _phase(k: KubeletHarness, name: str) -> str | None:
    p = k.pod(name)
    return None if p is None else p["status"].get("phase")


def test_a_bound_pod_runs_and_is_ready_after_the_start_delay(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    k.create(
        make_pod("p", "default").req(cpu="500m", memory="1Gi").lim(memory="1Gi").node("n1").build()
    )
    assert _phase(k, "p") == "Pending"
    assert k.wait(lambda: _ready(k, "p")) == 1.0
    p = k.pod("p")
    assert p is not None
    s = p["status"]
    assert s["phase"] == "Running" and s["podIP"] == "10.244.0.2" and s["hostIP"] == "10.0.0.2"
    assert s["startTime"] == "2026-09-01T00:00:00Z"
    cs = s["containerStatuses"][0]
    assert (
        cs["ready"]
        and cs["started"]
        and cs["state"]["running"]["startedAt"] == "2026-09-01T00:00:01Z"
    )
    assert cs["allocatedResources"] == {"cpu": "500m", "memory": "1Gi"}
    assert cs["resources"] == {
        "requests": {"cpu": "500m", "memory": "1Gi"},
        "limits": {"memory": "1Gi"},
    }
    types = {c["type"]: c["status"] for c in s["conditions"]}
    for t in ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready"):
        assert types[t] == "True"


def test_cold_start_is_start_plus_image_pull_then_model_load(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    pod = (
        make_pod("llm", "default")
        .annotation("garhwal.dev/start-seconds", "0.5")
        .annotation("garhwal.dev/image-pull-seconds", "30")
        .annotation("garhwal.dev/model-load-seconds", "45.25")
        .node("n1")
    )
    k.create(pod.build())
    assert k.wait(lambda: _phase(k, "llm") == "Running") == 30.5
    assert not _ready(k, "llm")
    assert k.wait(lambda: _ready(k, "llm")) == 45.25


def test_pods_complete_after_run_seconds_with_their_exit_code(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    ok = (
        make_pod("ok", "default")
        .restart_policy("Never")
        .annotation("garhwal.dev/run-seconds", "5")
        .node("n1")
    )
    bad = (
        make_pod("bad", "default")
        .restart_policy("OnFailure")
        .annotation("garhwal.dev/run-seconds", "5")
    )
    bad = bad.annotation("garhwal.dev/exit-code", "2").node("n1")
    always = make_pod("svc", "default").annotation("garhwal.dev/run-seconds", "5").node("n1")
    k.create(ok.build(), bad.build(), always.build())
    assert k.wait(lambda: _phase(k, "ok") == "Succeeded") == 6.0
    assert _phase(k, "bad") == "Failed"
    assert _phase(k, "svc") == "Running"  # restartPolicy Always never completes
    p = k.pod("bad")
    assert (
        p is not None
        and p["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 2
    )


def test_graceful_deletion_stops_then_deletes_the_pod() -> None:
    k = make_harness(KubeletConfig(termination_seconds=5))
    k.create(make_node("n1").build())
    k.create(
        make_pod("p", "default").node("n1").build(), make_pod("q", "default").node("n1").build()
    )
    k.wait(lambda: _ready(k, "p"))
    k.server.delete("v1", "Pod", "p", "default")  # terminationGracePeriodSeconds 30
    k.server.delete("v1", "Pod", "q", "default", grace_period_seconds=2)
    k.clock.settle()
    p = k.pod("p")
    assert p is not None and p["metadata"]["deletionGracePeriodSeconds"] == 30
    assert k.wait(lambda: k.pod("q") is None) == 2.0
    assert k.wait(lambda: k.pod("p") is None) == 3.0  # min(30, 5) after the deletion


def test_nodes_get_ready_status_and_a_lease(k: KubeletHarness) -> None:
    node = make_node("n1").build()
    node["status"]["conditions"] = []
    k.create(node)
    n = k.server.get("v1", "Node", "n1")
    conds = {c["type"]: c["status"] for c in n["status"]["conditions"]}
    assert conds == {
        "MemoryPressure": "False",
        "DiskPressure": "False",
        "PIDPressure": "False",
        "Ready": "True",
    }
    assert n["status"]["nodeInfo"]["kubeletVersion"] == "v1.37.2"
    lease = k.server.get("coordination.k8s.io/v1", "Lease", "n1", "kube-node-lease")
    assert lease["spec"]["holderIdentity"] == "n1"
    writes = k.server.writes
    k.clock.run_until(k.clock.now() + 3600 * 10**9)  # type: ignore[arg-type]
    assert k.server.writes == writes  # a quiet node writes nothing


def test_kwok_mode_manages_only_marked_nodes() -> None:
    k = make_harness(KubeletConfig(managed_nodes=ManagedNodes.KWOK))
    real = make_node("real").build()
    del real["metadata"]["labels"]["type"]
    k.create(make_node("fake").build(), real)
    k.create(
        make_pod("a", "default").node("fake").build(), make_pod("b", "default").node("real").build()
    )
    k.wait(lambda: _ready(k, "a"))
    k.clock.run_until(k.clock.now() + 10 * 10**9)  # type: ignore[arg-type]
    assert _phase(k, "b") == "Pending"
    assert k.kubelet.manages("fake") and not k.kubelet.manages("real")


def test_pod_ips_are_per_node_and_reused_after_deletion(k: KubeletHarness) -> None:
    k.create(make_node("n1").build(), make_node("n2").build())
    k.create(
        *(make_pod(f"p{i}", "default").node("n1" if i < 2 else "n2").build() for i in range(3))
    )
    k.wait(lambda: all(_ready(k, f"p{i}") for i in range(3)))
    ips = {f"p{i}": k.pod(f"p{i}")["status"]["podIP"] for i in range(3)}  # type: ignore[index]
    assert ips == {"p0": "10.244.0.2", "p1": "10.244.0.3", "p2": "10.244.1.2"}
    k.server.delete("v1", "Pod", "p0", "default")
    k.clock.settle()
    k.create(make_pod("p3", "default").node("n1").build())
    k.wait(lambda: _ready(k, "p3"))
    assert k.pod("p3")["status"]["podIP"] == "10.244.0.2"  # type: ignore[index]


def test_a_full_pod_cidr_keeps_the_next_pod_from_starting_until_an_address_is_freed(
    k: KubeletHarness,
) -> None:
    # A /30 has one address from .2 up (.3 is its broadcast): room for one pod.
    k.create(make_node("n1").set("spec.podCIDR", "10.9.0.0/30").build())
    k.create(make_pod("first", "default").node("n1").build())
    assert k.wait(lambda: _phase(k, "first") == "Running") == 1.0
    k.create(make_pod("second", "default").node("n1").build())
    k.clock.run_until(Instant(k.clock.now() + seconds(30)))  # three sandbox retries
    assert _phase(k, "second") == "Pending"
    assert (k.pod("second") or {}).get("status", {}).get("podIP") is None
    first = k.pod("first")
    assert first is not None and first["status"]["podIP"] == "10.9.0.2"
    k.server.delete("v1", "Pod", "first", "default", grace_period_seconds=0)
    k.clock.settle()
    k.wait(lambda: _phase(k, "second") == "Running", timeout=60)
    second = k.pod("second")
    assert second is not None and second["status"]["podIP"] == "10.9.0.2"

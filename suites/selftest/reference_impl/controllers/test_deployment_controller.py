"""Deployment → ReplicaSet → pods, scaling and rolling updates."""

from __future__ import annotations

from typing import Any

from controller_harness import Harness

from reference_impl.api import condition, make_deployment, make_pod

Obj = dict[str, Any]


def _live(h: Harness, app: str) -> list[Obj]:
    return [p for p in h.pods(selector=f"app={app}") if not p["metadata"].get("deletionTimestamp")]


def _ready(h: Harness, app: str) -> list[Obj]:
    return [p for p in _live(h, app) if (condition(p, "Ready") or {}).get("status") == "True"]


def _status(h: Harness, name: str) -> Obj:
    """The Deployment's status, or {} until it reflects the current generation."""
    d = h.get("apps/v1", "Deployment", name)
    assert d is not None
    s = dict(d.get("status") or {})
    return s if s.get("observedGeneration") == d["metadata"]["generation"] else {}


def test_deployment_creates_one_replicaset_and_its_pods_become_ready(h: Harness) -> None:
    h.create(make_deployment("web", "default", replicas=3).build())
    h.run_until(lambda: len(_ready(h, "web")) == 3)
    h.advance(1)
    rss = h.server.list("apps/v1", "ReplicaSet", "default")
    assert len(rss) == 1
    rs = rss[0]
    assert rs["metadata"]["labels"]["pod-template-hash"] in rs["metadata"]["name"]
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    for p in _ready(h, "web"):
        assert p["metadata"]["name"].startswith(rs["metadata"]["name"] + "-")
        assert len(p["metadata"]["name"]) == len(rs["metadata"]["name"]) + 6
        assert p["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"]
    s = _status(h, "web")
    assert (s["replicas"], s["updatedReplicas"], s["readyReplicas"], s["availableReplicas"]) == (
        3,
        3,
        3,
        3,
    )
    assert s["unavailableReplicas"] == 0
    conds = {c["type"]: c for c in s["conditions"]}
    assert conds["Available"]["reason"] == "MinimumReplicasAvailable"
    assert conds["Progressing"]["reason"] == "NewReplicaSetAvailable"
    assert rs["status"]["fullyLabeledReplicas"] == 3


def test_scaling_up_and_down_changes_the_pod_count(h: Harness) -> None:
    h.create(make_deployment("api", "default", replicas=2).build())
    h.run_until(lambda: len(_ready(h, "api")) == 2)
    d = h.server.get("apps/v1", "Deployment", "api")
    d["spec"]["replicas"] = 5
    h.server.update(d)
    h.run_until(lambda: len(_ready(h, "api")) == 5)
    d = h.server.get("apps/v1", "Deployment", "api")
    d["spec"]["replicas"] = 1
    h.server.update(d)
    h.run_until(lambda: len(h.pods(selector="app=api")) == 1)
    h.advance(1)
    assert _status(h, "api")["availableReplicas"] == 1
    assert len(h.server.list("apps/v1", "ReplicaSet", "default")) == 1


def test_rolling_update_respects_max_surge_and_max_unavailable(h: Harness) -> None:
    b = make_deployment("roll", "default", replicas=4)
    b.set(
        "spec.strategy",
        {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}},
    )
    h.create(b.build())
    h.run_until(lambda: len(_ready(h, "roll")) == 4)
    h.advance(2)
    d = h.server.get("apps/v1", "Deployment", "roll")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:3.11"
    h.server.update(d)
    peak = [0]

    def check() -> None:
        rss = h.server.list("apps/v1", "ReplicaSet", "default")
        assert sum(rs["spec"]["replicas"] for rs in rss) <= 5  # replicas + maxSurge
        assert len(_live(h, "roll")) <= 5
        assert len(_ready(h, "roll")) >= 3  # replicas - maxUnavailable (25% of 4, rounded down)
        peak[0] = max(peak[0], len(_live(h, "roll")))

    def done() -> bool:
        s = _status(h, "roll")
        return (
            s.get("updatedReplicas") == 4
            and s.get("availableReplicas") == 4
            and s.get("replicas") == 4
        )

    h.step_until(done, check)
    assert peak[0] == 5
    rss = sorted(
        h.server.list("apps/v1", "ReplicaSet", "default"),
        key=lambda r: r["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
    )
    assert [rs["spec"]["replicas"] for rs in rss] == [0, 4]
    assert rss[1]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    images = {p["spec"]["containers"][0]["image"] for p in _live(h, "roll")}
    assert images == {"registry.k8s.io/pause:3.11"}


def test_recreate_never_overlaps_old_and_new_pods(h: Harness) -> None:
    b = make_deployment("rec", "default", replicas=2).set("spec.strategy", {"type": "Recreate"})
    h.create(b.build())
    h.run_until(lambda: len(_ready(h, "rec")) == 2)
    d = h.server.get("apps/v1", "Deployment", "rec")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:3.11"
    h.server.update(d)

    def check() -> None:
        images = {p["spec"]["containers"][0]["image"] for p in h.pods(selector="app=rec")}
        assert len(images) <= 1

    h.step_until(
        lambda: (
            _status(h, "rec").get("updatedReplicas") == 2
            and _status(h, "rec").get("availableReplicas") == 2
        ),
        check,
    )


def test_revision_history_limit_deletes_old_replicasets(h: Harness) -> None:
    h.create(
        make_deployment("hist", "default", replicas=1).set("spec.revisionHistoryLimit", 1).build()
    )
    for tag in ("3.11", "3.12", "3.13"):
        h.run_until(
            lambda: (
                _status(h, "hist").get("availableReplicas") == 1
                and _status(h, "hist").get("updatedReplicas") == 1
            )
        )
        d = h.server.get("apps/v1", "Deployment", "hist")
        d["spec"]["template"]["spec"]["containers"][0]["image"] = f"registry.k8s.io/pause:{tag}"
        h.server.update(d)
    h.advance(30)
    rss = h.server.list("apps/v1", "ReplicaSet", "default")
    assert len(rss) == 2  # the current one plus one old revision


def test_pods_with_cold_start_delay_readiness(h: Harness) -> None:
    pod = (
        make_pod("x")
        .annotation("garhwal.dev/image-pull-seconds", "4")
        .annotation("garhwal.dev/model-load-seconds", "10")
    )
    h.create(make_deployment("llm", "default", replicas=1, pod=pod).build())
    took = h.run_until(lambda: len(_ready(h, "llm")) == 1)
    assert took == 15.0  # 1 s start + 4 s pull + 10 s load

"""Two runs with the same seed make the same names and the same trace."""

from __future__ import annotations

from controller_harness import build_harness

from reference_impl.api import make_deployment, make_job, make_pod


def _run(seed: int) -> tuple[list[str], list[tuple[int, str, str, str, str]]]:
    h = build_harness(seed=seed)
    h.create(make_deployment("web", "default", replicas=3).build())
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "2")
    h.create(make_job("batch", "default", completions=3, parallelism=2, pod=pod).build())
    h.advance(20)
    d = h.server.get("apps/v1", "Deployment", "web")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:3.11"
    h.server.update(d)
    h.advance(20)
    names = sorted(p["metadata"]["name"] for p in h.pods())
    trace = [(r.instant, r.component, r.event, r.object, r.detail) for r in h.trace.records]
    return names, trace


def test_same_seed_same_pod_names_and_trace() -> None:
    assert _run(7) == _run(7)


def test_different_seeds_give_different_pod_names() -> None:
    assert _run(7)[0] != _run(8)[0]

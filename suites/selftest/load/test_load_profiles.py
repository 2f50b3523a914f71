"""Load profiles through the ``load`` fixture on the reference, the all-or-nothing check,
the SLO verdicts on Locust's stats, and the results.json/report.html load section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.load


def test_api_churn_returns_locust_stats_with_one_entry_per_verb_and_resource(load: Any) -> None:
    result = load("api-churn", users=3, spawn_rate=3, run_time_s=2)
    entries = {(e.method, e.name) for e in result.stats.entries.values() if e.num_requests}
    # The reference reports Target calls (apply); a live target reports wire verbs (create).
    write = "apply" if result.target == "reference" else "create"
    for verb in (write, "get", "list", "delete"):
        assert (verb, "pods") in entries and (verb, "resourceclaims") in entries
    assert result.stats.total.num_failures == 0 and result.passed
    assert {v.slo.key for v in result.verdicts} >= {"mutating_api_p99", "read_single_p99"}


def test_gang_bursts_bind_gangs_whole_and_time_pod_startup(load: Any) -> None:
    result = load("gang-bursts", users=1, spawn_rate=1, run_time_s=2)
    gang = result.stats.get("podgroups", "gang_bound")
    assert gang.num_requests >= 4 and gang.num_failures == 0
    assert result.stats.get("pods", "pod_startup").num_requests >= 32
    verdicts = {v.slo.key: v for v in result.verdicts}
    assert verdicts["gang_partly_bound"].measured == 0 and verdicts["gang_partly_bound"].passed


def test_scale_from_zero_times_the_first_ready_replica(load: Any) -> None:
    result = load("scale-from-zero", users=1, spawn_rate=1, run_time_s=1, max_requests=5)
    first = result.stats.get("deployments", "first_ready")
    assert first.num_requests == 1 and first.num_failures == 0
    # Simulated time: the HPA's 15 s sync plus the pod's start.
    assert 1000 <= first.max_response_time <= 30_000


def test_watch_fanout_delivers_to_concurrent_watchers_within_the_run_time(load: Any) -> None:
    # Three watchers block in their streams while the writer writes: on a live cluster each
    # write reaches (nearly) every watcher only if the Users run concurrently (gevent-patched
    # sockets, not one blocking read holding the whole process), and the run ends near its
    # run time. On the reference a watcher's stream runs simulated time without yielding,
    # so the watchers take turns and a write is timed by at least one of them.
    result = load("watch-fanout", users=4, spawn_rate=4, run_time_s=4)
    delivery = result.stats.get("configmaps", "watch_delivery")
    writes = result.stats.get("configmaps", "apply" if result.target == "reference" else "create")
    assert writes.num_requests >= 5 and writes.num_failures == 0
    fanout = 2 if result.target == "live" else 1
    assert delivery.num_requests >= fanout * writes.num_requests, (delivery.num_requests, writes.num_requests)
    assert result.elapsed_s < 4 + 3, result.elapsed_s
    assert result.passed, [v for v in result.verdicts if not v.passed]


def test_the_max_request_bound_stops_a_run(load: Any) -> None:
    result = load("api-churn", users=2, spawn_rate=2, run_time_s=30, max_requests=40)
    assert result.stop_reason == "max-requests" and result.elapsed_s < 30


def _session(nodes_pods: str) -> Any:
    import fixtures.plugin.load_fixture as lf

    lf._import_runner()
    from locust.env import Environment

    from fixtures.load.session import LoadSession
    from fixtures.targets.reference import ReferenceTarget

    env = Environment(user_classes=[])
    env.create_local_runner()  # attaches Locust's stats to the request event
    target = ReferenceTarget({"GenericWorkload": True}, 0, {"scheduling.k8s.io/v1beta1": "true"})
    return env, LoadSession.over(env, target, "t")


def test_a_gang_bound_partly_is_reported_as_a_partly_bound_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    from fixtures.load import bursts, setup

    env, s = _session("3")
    # Break all-or-nothing on purpose: minCount 1 lets members bind one by one, and one
    # small node holds only 3 of each 4-pod gang.
    real = bursts.make_pod_group
    monkeypatch.setattr(bursts, "make_pod_group", lambda *a, **kw: real(*a, **{**kw, "min_count": 1}))
    monkeypatch.setattr(setup, "POOL_NODES", 1)
    real_node = setup.make_pool_node
    monkeypatch.setattr(setup, "make_pool_node", lambda n, ns, **kw: real_node(n, ns, cpu="0.3", pods="110"))
    monkeypatch.setattr(bursts, "_BURST_TIMEOUT_S", 20.0)
    bursts.gang_burst(s, gangs=1, size=4)
    partly = env.stats.get("podgroups", "partly_bound")
    assert partly.num_failures == 1
    assert any("PartlyBound: gang" in str(e.error) for e in env.stats.errors.values())


def test_a_failed_call_is_a_failed_request_carrying_the_api_reason() -> None:
    from reference_impl import errors

    env, s = _session("110")
    with pytest.raises(errors.NotFound):
        s.target.get("v1", "Pod", "missing", "default")
    entry = env.stats.get("pods", "get")
    assert entry.num_requests == 1 and entry.num_failures == 1
    (err,) = env.stats.errors.values()
    assert str(err.error) == 'NotFound: pods "missing" not found'


def test_slo_verdicts_come_from_locust_percentiles() -> None:
    import fixtures.plugin.load_fixture as lf

    lf._import_runner()
    from locust.stats import RequestStats

    from fixtures.load.slo import DEFAULT_SLOS, evaluate, with_thresholds

    stats = RequestStats()
    for ms in [10] * 98 + [1500, 1600]:
        stats.log_request("create", "pods", ms, 0)
        stats.log_request("get", "pods", 5, 0)
    verdicts = {v.slo.key: v for v in evaluate(DEFAULT_SLOS, stats)}
    assert not verdicts["mutating_api_p99"].passed and verdicts["mutating_api_p99"].measured == 1.6  # Locust's p99 of 100
    assert verdicts["read_single_p99"].passed
    relaxed = {v.slo.key: v for v in evaluate(with_thresholds(DEFAULT_SLOS, {"mutating_api_p99": 2}), stats)}
    assert relaxed["mutating_api_p99"].passed
    with pytest.raises(KeyError, match="unknown SLO nope"):
        with_thresholds(DEFAULT_SLOS, {"nope": 1})


def test_the_run_dir_holds_a_schema_valid_load_entry_and_an_svg_chart(load: Any, tmp_path: Path) -> None:
    from fixtures.cli.load_output import write_run_dir
    from reports.model import load_results

    result = load("api-churn", users=2, spawn_rate=2, run_time_s=3)
    report = write_run_dir(tmp_path, [result])
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["load"][0]["profile"] == "api-churn" and load_results(tmp_path).load
    html = report.read_text()
    assert 'data-profile="api-churn"' in html and "requests/s over time" in html and "<polyline" in html
    doc["load"][0]["stop_reason"] = "whenever"
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="load/0/stop_reason"):
        load_results(tmp_path)

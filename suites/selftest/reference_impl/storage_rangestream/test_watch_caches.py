"""Unit tests of the apiserver's watch caches: start-up warm-up, following commits, the
RangeStream support recheck, the fallback log and the metrics exposition."""

from __future__ import annotations

from fixtures.helpers.apiserver_metrics import parse_metrics
from reference_impl.api import make_configmap
from reference_impl.apiserver.cacher import FALLBACK_LOG
from reference_impl.apiserver.watch_caches import NOT_CACHED
from reference_impl.clock import SimClock, seconds
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.storage.feature_support import FeatureSupportChecker
from reference_impl.storage.metrics import StorageMetrics


def test_every_served_resource_but_events_is_warmed_at_start_through_rangestream() -> None:
    c = Cluster(config=ClusterConfig(nodes=1))
    start = [s for s in c.watch_caches.history() if s["reason"] == "start"]
    resources = {s["resource"] for s in start}
    assert "configmaps" in resources and "pods" in resources and "nodes" in resources
    assert not resources & NOT_CACHED
    assert {s["mode"] for s in start} == {"RangeStream"}
    # Objects written after the warm-up (system namespaces, the node) are followed.
    keys = c.watch_caches.cache_for("", "namespaces").items
    assert "/registry/namespaces/kube-system" in keys
    assert "/registry/nodes/kwok-node-0" in c.watch_caches.cache_for("", "nodes").items


def test_the_cache_follows_puts_and_deletes() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.apply(make_configmap("a", "default", v="1").build())
    c.apply(make_configmap("a", "default", v="2").build())
    c.apply(make_configmap("b", "default", v="1").build())
    c.delete("v1", "ConfigMap", "b", "default")
    objs = c.watch_caches.objects("", "configmaps")
    # Every namespace also holds the root-ca-cert-publisher's kube-root-ca.crt.
    assert {o["metadata"]["name"]: o["data"]["v"] for o in objs.values()
            if o["metadata"]["name"] != "kube-root-ca.crt"} == {"a": "2"}  # fmt: skip
    assert "/registry/configmaps/default/kube-root-ca.crt" in objs


def test_an_old_etcd_falls_back_logs_it_and_counts_paged_lists() -> None:
    c = Cluster(config=ClusterConfig(nodes=0, etcd_version="3.6.6"))
    first = c.watch_caches.history()[0]
    assert first["mode"] == "PaginatedRange" and first["fell_back"] is True
    # Marked unsupported once: every later cache goes straight to Range.
    assert [s["fell_back"] for s in c.watch_caches.history()].count(True) == 1
    logs = [r.detail for r in c.trace.records if r.event == "StorageList"]
    assert logs == [FALLBACK_LOG.format(gr=first["resource"])]
    m = parse_metrics(c.metrics_text())
    assert m.value("etcd_requests_total", operation="listStream") == 0
    assert m.value("etcd_requests_total", operation="list", resource="configmaps") == 1
    assert (
        m.value("apiserver_watch_cache_initialization_duration_seconds_count", resource="pods") == 1
    )


def test_support_is_rechecked_after_ten_minutes() -> None:
    clock = SimClock()
    fs = FeatureSupportChecker(clock.now)
    assert fs.supports_range_stream()
    fs.mark_unsupported()
    assert not fs.supports_range_stream()
    clock.run_until(clock.now() + seconds(599))
    assert not fs.supports_range_stream()
    clock.run_until(clock.now() + seconds(1))
    assert fs.supports_range_stream()


def test_metrics_expose_counters_and_histograms_that_parse_back() -> None:
    m = StorageMetrics()
    labels = {"operation": "listStream", "group": "", "resource": "pods"}
    m.inc("etcd_requests_total", labels)
    m.inc("etcd_requests_total", labels)
    m.observe(
        "apiserver_watch_cache_initialization_duration_seconds",
        {"group": "", "resource": "pods"},
        0.0,
    )
    text = m.expose()
    assert "# TYPE etcd_requests_total counter" in text
    assert "# TYPE apiserver_watch_cache_initialization_duration_seconds histogram" in text
    parsed = parse_metrics(text)
    assert parsed.value("etcd_requests_total", resource="pods") == 2
    name = "apiserver_watch_cache_initialization_duration_seconds"
    assert parsed.value(f"{name}_bucket", le="+Inf") == 1
    assert parsed.value(f"{name}_bucket", le="0.05", resource="pods") == 1
    assert parsed.value(f"{name}_count", resource="pods") == 1


def test_a_warm_up_that_finds_etcd_down_counts_an_error_and_retries_every_second() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    # kube-root-ca.crt ConfigMaps are among the start-up's last writes: two more writes
    # leave the configmaps watch behind, so compacting now goes past it: it must relist.
    for name in ("idle-1", "idle-2"):
        c.apply({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": "default"}})
    c.store.compact(c.store.revision)
    c.etcd.stop()
    c.etcd.start()
    c.etcd.stop()  # down again before the scheduled re-warm runs
    c.settle()
    cache = c.watch_caches.cache_for("", "configmaps")
    assert not cache.ready
    m = parse_metrics(c.metrics_text())
    assert m.value("apiserver_watch_cache_initialization_errors_total", resource="configmaps") == 1
    c.advance(3)
    m = parse_metrics(c.metrics_text())
    assert m.value("apiserver_watch_cache_initialization_errors_total", resource="configmaps") == 4
    c.store.available = True  # etcd answers again without a restart event: the retry warms
    c.advance(1)
    assert cache.ready
    assert c.watch_caches.history("configmaps")[-1]["reason"] == "etcd-restart"


def test_a_restart_relists_only_caches_whose_watch_revision_was_compacted() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.apply(make_configmap("a", "default", v="1").build())
    before = len(c.watch_caches.history())
    c.etcd.restart()
    c.settle()
    assert len(c.watch_caches.history()) == before  # every watch resumed
    c.store.compact(c.store.revision)
    c.etcd.restart()
    c.settle()
    relisted = {s["resource"] for s in c.watch_caches.history()[before:]}
    # configmaps saw the newest write, so its watch resumes; quiet caches relist.
    assert "configmaps" not in relisted and "pods" in relisted


def test_progress_notifications_keep_quiet_watches_resumable() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.apply(make_configmap("a", "default", v="1").build())
    c.advance(600)  # one progress notification: every watch is at the newest revision
    c.store.compact(c.store.revision)
    before = len(c.watch_caches.history())
    c.etcd.restart()
    c.settle()
    assert len(c.watch_caches.history()) == before

"""AI service metrics (AI conformance ``ai_service_metrics``, a MUST).

Upstream ``TestAIServiceMetrics``: a stub inference server exposes counters, histograms and
gauges in the Prometheus format, the platform's scrape template targets it, and after 10
requests the platform's Prometheus-compatible query API returns the series.

Here the server is the workload image's ``inference`` mode (tools/images/workload,
client_golang: ``garhwal_inference_requests_total``, ``..._request_duration_seconds``,
``..._requests_in_flight``) running on a real node; the platform's collector is the
upstream Prometheus that ``cluster up --real-nodes`` starts, whose only scrape job is the
annotation template (kubernetes_sd role pod, ``prometheus.io/scrape``, ``/port``, ``/path``).
The requests go through the apiserver's pod proxy; the series are read back by PromQL.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from fixtures import Capability, Target, eventually
from fixtures.targets.extensions import MetricsCollector, metrics_collector_of, pod_proxy_of
from reference_impl.api import make_pod

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.requires(Capability.KUBELET, Capability.PROMETHEUS),
]

IMAGE: Final = "garhwal.dev/inference-stub:v1"  # fixtures/localcluster/node_image.py
PORT: Final = 8000
REQUESTS: Final = 10
RUNNING_S: Final = 60
SCRAPED_S: Final = 60  # discovery, then a 2 s scrape interval: seconds, not a minute
COUNTER, GAUGE = "garhwal_inference_requests_total", "garhwal_inference_requests_in_flight"
HISTOGRAM: Final = "garhwal_inference_request_duration_seconds"


def _collector(target: Target) -> MetricsCollector:
    collector = metrics_collector_of(target)
    assert collector is not None, "PROMETHEUS declared without a metrics_collector"
    return collector


def _server(name: str, namespace: str, *, scrape: bool) -> dict[str, Any]:
    pod = make_pod(name, namespace).image(IMAGE)
    if scrape:  # the supplied scrape template's annotations
        pod = pod.annotation("prometheus.io/scrape", "true").annotation("prometheus.io/port", str(PORT))
        pod = pod.annotation("prometheus.io/path", "/metrics")
    return pod.build()


def _running(target: Target, namespace: str, name: str) -> None:
    def running() -> bool:
        return target.get("v1", "Pod", name, namespace).get("status", {}).get("phase") == "Running"

    target.wait_until(running, timeout=RUNNING_S, what=f"pod {name} Running")



def _value(sample: dict[str, Any]) -> float:
    return float(sample["value"][1])


def test_a_stub_inference_servers_metrics_reach_the_query_api(
    target: Target, namespace: str, request: pytest.FixtureRequest
) -> None:
    """After 10 completions the collector MUST return the server's counter (10), its latency
    histogram (``_count`` 10, ``_bucket`` series by ``le``) and its in-flight gauge, each
    labelled with the discovered pod and namespace; a pod without the annotations MUST NOT
    be scraped."""
    request.node.user_properties.append(("ai_requirement", "ai_service_metrics"))
    collector, proxy = _collector(target), pod_proxy_of(target)
    assert proxy is not None, "PROMETHEUS declared on a target that cannot reach a pod's port"
    target.apply(_server("stub", namespace, scrape=True))
    target.apply(_server("unannotated", namespace, scrape=False))
    _running(target, namespace, "stub")
    _running(target, namespace, "unannotated")
    sel = f'namespace="{namespace}",pod="stub"'

    def discovered() -> str:
        up = collector.query(f"up{{{sel}}}")
        return "" if up and _value(up[0]) == 1 else f"up{{{sel}}} = {up}"

    eventually(target, discovered, SCRAPED_S, "the stub as a healthy scrape target")

    for i in range(REQUESTS):
        body = {"model": "garhwal-stub", "prompt": f"request {i} of the conformance test"}
        status, text = proxy.pod_proxy_post(namespace, "stub", PORT, "/v1/completions", body)
        assert status == 200 and "text_completion" in text, f"completion {i}: {status} {text[:200]}"

    def counted() -> str:
        total = collector.query(f"sum({COUNTER}{{{sel}}})")
        count = collector.query(f"sum({HISTOGRAM}_count{{{sel}}})")
        got = (_value(total[0]) if total else None, _value(count[0]) if count else None)
        return "" if got == (REQUESTS, REQUESTS) else f"(counter, histogram count) = {got}"

    eventually(target, counted, SCRAPED_S, f"{REQUESTS} requests in the counter and the histogram")

    for series in (COUNTER, f"{HISTOGRAM}_count", f"{HISTOGRAM}_bucket", GAUGE):
        for sample in collector.query(f"{series}{{{sel}}}"):
            labels = sample["metric"]
            assert (labels.get("namespace"), labels.get("pod")) == (namespace, "stub"), labels
    buckets = {s["metric"]["le"]: _value(s) for s in collector.query(f"{HISTOGRAM}_bucket{{{sel}}}")}
    assert len(buckets) >= 2 and buckets.get("+Inf") == REQUESTS, buckets
    ordered = [buckets[le] for le in sorted(buckets, key=float)]
    assert ordered == sorted(ordered), f"cumulative buckets must not decrease: {buckets}"
    gauge = collector.query(f"{GAUGE}{{{sel}}}")
    assert len(gauge) == 1 and _value(gauge[0]) == 0, f"in-flight gauge once idle: {gauge}"

    other = collector.query(f'{{namespace="{namespace}",pod="unannotated"}}')
    assert other == [], f"a pod without prometheus.io/scrape was scraped: {other}"
    request.node.user_properties.append(("prometheus_query_url", collector.query_url))

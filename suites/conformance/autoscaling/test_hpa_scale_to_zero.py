"""HPA scale to and from zero (KEP-2021, autoscaling/v2).

Validation runs on every target; the tests that drive a metric need a target that can
serve external metrics (on live clusters, the external-metrics adapter).
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Target
from reference_impl.api import condition, make_deployment, make_hpa, make_pod
from reference_impl.errors import Invalid, Timeout

pytestmark = [pytest.mark.conformance, pytest.mark.feature("HPA-ZERO")]

HPA = ("autoscaling/v2", "HorizontalPodAutoscaler")


def _replicas(target: Target, namespace: str, name: str) -> int:
    return int(target.get("apps/v1", "Deployment", name, namespace)["spec"]["replicas"])


def _hpa(target: Target, namespace: str, name: str) -> dict[str, Any]:
    return target.get(*HPA, name, namespace)


def _scaled_to_zero(hpa: dict[str, Any]) -> bool:
    return (condition(hpa, "ScaledToZero") or {}).get("status") == "True"


def _pods(target: Target, namespace: str, app: str) -> list[dict[str, Any]]:
    return target.list("v1", "Pod", namespace, label_selector=f"app={app}")


def _ready(target: Target, namespace: str, app: str) -> list[dict[str, Any]]:
    pods = target.list("v1", "Pod", namespace, label_selector=f"app={app}")
    return [p for p in pods if (condition(p, "Ready") or {}).get("status") == "True"]


def test_min_replicas_zero_with_only_a_cpu_metric_is_rejected(
    target: Target, namespace: str
) -> None:
    """HPA scale-to-zero needs an Object or External metric.

    An HPA with ``minReplicas: 0`` and only a Resource (CPU) metric MUST be rejected as
    Invalid at ``spec.metrics``, with a message naming Object or External metrics, and
    nothing MUST be stored.
    """
    bad = make_hpa("zero-cpu", namespace, target="web").replicas(0, 5).cpu(50).build()
    with pytest.raises(Invalid) as err:
        target.apply(bad)
    assert "spec.metrics" in err.value.fields
    assert "Object or External" in str(err.value)
    assert target.list(*HPA, namespace) == []


def test_min_replicas_zero_without_metrics_is_rejected(target: Target, namespace: str) -> None:
    """HPA scale-to-zero with the default metric.

    An HPA with ``minReplicas: 0`` and no metrics (which defaults to 80% CPU) MUST be
    rejected as Invalid at ``spec.metrics``.
    """
    with pytest.raises(Invalid) as err:
        target.apply(make_hpa("zero-none", namespace, target="web").replicas(0, 5).build())
    assert "spec.metrics" in err.value.fields


def test_min_replicas_zero_with_an_external_metric_is_accepted(
    target: Target, namespace: str
) -> None:
    """HPA scale-to-zero accepted with an External metric.

    An HPA with ``minReplicas: 0`` and an External metric MUST be stored with
    ``minReplicas`` 0 and its metric unchanged.
    """
    hpa = make_hpa("zero-ext", namespace, target="web").replicas(0, 5)
    stored = target.apply(hpa.external("queue_depth", average_value="10").build())
    assert stored["spec"]["minReplicas"] == 0
    assert stored["spec"]["metrics"][0]["type"] == "External"


def test_max_replicas_below_min_replicas_is_rejected(target: Target, namespace: str) -> None:
    """HPA replica bounds.

    An HPA whose ``maxReplicas`` is below ``minReplicas`` MUST be rejected as Invalid at
    ``spec.maxReplicas``.
    """
    with pytest.raises(Invalid) as err:
        target.apply(make_hpa("bounds", namespace, target="web").replicas(6, 5).build())
    assert "spec.maxReplicas" in err.value.fields


def test_a_deployment_scaled_to_zero_by_hand_gets_no_scaled_to_zero_condition(
    target: Target, namespace: str
) -> None:
    """HPA and a target scaled to zero by hand.

    When a Deployment under an HPA with ``minReplicas: 1`` is scaled to 0 by hand, the
    HPA MUST leave it at 0, report ``ScalingActive=False`` and MUST NOT set
    ``ScaledToZero``.
    """
    target.apply(make_deployment("idle", namespace, replicas=0).build())
    target.apply(make_hpa("idle", namespace, target="idle").replicas(1, 4).cpu(50).build())
    target.wait_until(
        lambda: (
            (condition(_hpa(target, namespace, "idle"), "ScalingActive") or {}).get("status")
            == "False"
        ),
        timeout=90,
        what="ScalingActive=False on the HPA",
    )
    assert _replicas(target, namespace, "idle") == 0
    assert not _scaled_to_zero(_hpa(target, namespace, "idle"))


@pytest.mark.requires(Capability.EXTERNAL_METRICS)
def test_hpa_scales_to_zero_and_back_with_an_external_metric(
    target: Target, namespace: str
) -> None:
    """HPA scale to zero and from zero.

    With ``minReplicas: 0`` and an External AverageValue metric, an idle metric MUST
    scale the Deployment to 0 and set ``ScaledToZero=True``; a metric of 25 against an
    average of 10 MUST scale it up to 3 and clear ``ScaledToZero``.
    """
    target.apply(make_deployment("worker", namespace, replicas=2).build())
    target.set_external_metric("queue_depth", 0, {"queue": "worker"})
    hpa = make_hpa("worker", namespace, target="worker").replicas(0, 10).scale_down(0)
    target.apply(
        hpa.external("queue_depth", average_value="10", selector={"queue": "worker"}).build()
    )
    target.wait_until(
        lambda: (
            _replicas(target, namespace, "worker") == 0
            and _scaled_to_zero(_hpa(target, namespace, "worker"))
        ),
        timeout=120,
        what="scaled to zero with ScaledToZero=True",
    )
    target.set_external_metric("queue_depth", 25, {"queue": "worker"})
    target.wait_until(
        lambda: _replicas(target, namespace, "worker") == 3,
        timeout=120,
        what="scaled from zero to 3",
    )
    target.wait_until(
        lambda: not _scaled_to_zero(_hpa(target, namespace, "worker")),
        timeout=60,
        what="ScaledToZero cleared",
    )


@pytest.mark.requires(Capability.EXTERNAL_METRICS)
def test_scale_down_stabilization_window_delays_scaling_to_zero(
    target: Target, namespace: str
) -> None:
    """HPA scale-down stabilization.

    With a 120 s scale-down stabilization window, a metric that drops to 0 MUST NOT
    scale the Deployment to 0 before the window has passed, and MUST afterwards.
    """
    target.apply(make_deployment("batch", namespace, replicas=2).build())
    target.set_external_metric("jobs", 20, {"app": "batch"})
    hpa = make_hpa("batch", namespace, target="batch").replicas(0, 10).scale_down(120)
    target.apply(hpa.external("jobs", average_value="10", selector={"app": "batch"}).build())
    target.wait_until(
        lambda: (_hpa(target, namespace, "batch").get("status") or {}).get("currentMetrics"),
        timeout=60,
        what="the HPA has read the metric",
    )
    target.set_external_metric("jobs", 0, {"app": "batch"})
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: _replicas(target, namespace, "batch") == 0, timeout=90, what="early zero"
        )
    target.wait_until(
        lambda: _replicas(target, namespace, "batch") == 0, timeout=90, what="zero after window"
    )


@pytest.mark.requires(Capability.EXTERNAL_METRICS)
def test_cold_start_from_zero_is_image_pull_plus_model_load(target: Target, namespace: str) -> None:
    """HPA cold start from zero.

    An idle HPA MUST first scale its Deployment to 0 (ScaledToZero=True). Scaling up from
    that 0 MUST create pods whose first Ready transition comes no sooner than image pull
    plus model load after the scale-up; the measured time to first ready replica is
    recorded. (A target that starts at 0 is "scaled by hand": upstream 1.37 disables the
    HPA then, so the test lets the HPA take it to zero itself.)
    """
    pod = (
        make_pod("x")
        .annotation("garhwal.dev/image-pull-seconds", "20")
        .annotation("garhwal.dev/model-load-seconds", "40")
    )
    target.apply(make_deployment("llm", namespace, replicas=1, pod=pod).build())
    target.set_external_metric("requests", 0, {"model": "llm"})
    hpa = make_hpa("llm", namespace, target="llm").replicas(0, 4).scale_down(0)
    target.apply(hpa.external("requests", average_value="5", selector={"model": "llm"}).build())

    def at_zero() -> bool:
        h = _hpa(target, namespace, "llm")
        dep = target.get("apps/v1", "Deployment", "llm", namespace)
        return _scaled_to_zero(h) and dep["spec"].get("replicas") == 0 and not _pods(target, namespace, "llm")

    target.wait_until(at_zero, timeout=300, what="the HPA scaling the Deployment to zero")
    target.set_external_metric("requests", 5, {"model": "llm"})
    target.wait_until(
        lambda: bool(_ready(target, namespace, "llm")), timeout=300, what="a ready replica"
    )
    scaled = _hpa(target, namespace, "llm")["status"]["lastScaleTime"]
    first = min(
        (condition(p, "Ready") or {})["lastTransitionTime"]
        for p in _ready(target, namespace, "llm")
    )
    elapsed = _seconds_between(scaled, first)
    print(f"time to first ready replica from zero: {elapsed:.0f}s")
    assert elapsed >= 60


def _seconds_between(a: str, b: str) -> float:
    """Seconds from RFC 3339 stamp ``a`` to ``b`` (UTC, as the apiserver writes them)."""

    def parse(t: str) -> float:
        date, clock = t.rstrip("Z").split("T")
        y, m, d = (int(x) for x in date.split("-"))
        y -= m <= 2  # days from the civil date (Howard Hinnant's algorithm)
        era = y // 400
        yoe = y - era * 400
        doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
        days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy
        h, mi, sec = clock.split(":")
        return days * 86400 + int(h) * 3600 + int(mi) * 60 + float(sec)

    return parse(b) - parse(a)

"""HPA condition transitions (``reconcileAutoscaler`` in ``horizontal.go`` and the
scale-to-zero cases of ``horizontal_test.go``), with an External metric."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Target
from reference_impl.api import condition, make_deployment, make_hpa

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("HPA-ZERO"),
    pytest.mark.requires(Capability.EXTERNAL_METRICS),
]

HPA = ("autoscaling/v2", "HorizontalPodAutoscaler")


def _replicas(target: Target, namespace: str, name: str) -> int:
    return int(target.get("apps/v1", "Deployment", name, namespace)["spec"]["replicas"])


def _hpa(target: Target, namespace: str, name: str) -> dict[str, Any]:
    return target.get(*HPA, name, namespace)


def _cond(hpa: dict[str, Any], ctype: str) -> tuple[str, str]:
    c = condition(hpa, ctype) or {}
    return str(c.get("status", "")), str(c.get("reason", ""))


def test_raising_min_replicas_takes_the_target_off_zero(target: Target, namespace: str) -> None:
    """HPA leaving zero when minReplicas rises.

    After an HPA with ``minReplicas: 0`` has scaled its Deployment to 0
    (``ScaledToZero=True``), raising ``minReplicas`` to 2 while the metric still reports
    no work MUST scale the Deployment to 2, with ``ScaledToZero=False/NotScaledToZero``,
    ``AbleToScale=True/SucceededRescale``, ``ScalingActive=True`` and an
    ``observedGeneration`` equal to the HPA's new generation.
    """
    target.apply(make_deployment("rise", namespace, replicas=2).build())
    target.set_external_metric("rise_depth", 0, {"queue": "rise"})
    hpa = make_hpa("rise", namespace, target="rise").replicas(0, 5).scale_down(0)
    target.apply(hpa.external("rise_depth", average_value="10", selector={"queue": "rise"}).build())
    target.wait_until(
        lambda: _replicas(target, namespace, "rise") == 0
        and _cond(_hpa(target, namespace, "rise"), "ScaledToZero") == ("True", "ScaledToZero"),
        timeout=120, what="scaled to zero with ScaledToZero=True",
    )
    stored = _hpa(target, namespace, "rise")
    stored["spec"]["minReplicas"] = 2
    generation = int(target.apply(stored)["metadata"]["generation"])
    assert generation == int(stored["metadata"]["generation"]) + 1

    def left_zero() -> bool:
        h = _hpa(target, namespace, "rise")
        return (
            _replicas(target, namespace, "rise") == 2
            and _cond(h, "ScaledToZero") == ("False", "NotScaledToZero")
            and _cond(h, "AbleToScale") == ("True", "SucceededRescale")
        )

    target.wait_until(left_zero, timeout=120, what="scaled to 2 with NotScaledToZero and SucceededRescale")
    h = _hpa(target, namespace, "rise")
    assert _cond(h, "ScalingActive")[0] == "True"
    assert h["status"]["observedGeneration"] == generation
    assert h["status"]["desiredReplicas"] == 2


def test_a_target_above_max_replicas_is_scaled_down_to_it(target: Target, namespace: str) -> None:
    """HPA and a target above maxReplicas.

    A Deployment with more replicas than the HPA's ``maxReplicas`` MUST be scaled down to
    ``maxReplicas`` (whatever the metric says), with ``AbleToScale=True/SucceededRescale``,
    ``ScaledToZero=False/NotScaledToZero`` (set on every rescale) and
    ``desiredReplicas`` equal to ``maxReplicas``.
    """
    target.apply(make_deployment("over", namespace, replicas=4).build())
    target.set_external_metric("over_depth", 100, {"queue": "over"})
    hpa = make_hpa("over", namespace, target="over").replicas(1, 2)
    target.apply(hpa.external("over_depth", average_value="10", selector={"queue": "over"}).build())

    def capped() -> bool:
        h = _hpa(target, namespace, "over")
        return (
            _replicas(target, namespace, "over") == 2
            and _cond(h, "AbleToScale") == ("True", "SucceededRescale")
        )

    target.wait_until(capped, timeout=120, what="scaled down to maxReplicas")
    h = _hpa(target, namespace, "over")
    assert _cond(h, "ScaledToZero") == ("False", "NotScaledToZero")
    assert h["status"]["desiredReplicas"] == 2
    assert h["status"]["currentReplicas"] == 4


def test_a_target_below_min_replicas_is_scaled_up_without_its_metrics(target: Target, namespace: str) -> None:
    """HPA and a target below minReplicas.

    A Deployment with fewer replicas than the HPA's ``minReplicas`` MUST be scaled up to
    ``minReplicas`` before any metric is read: even when its only metric has no value,
    the HPA MUST rescale (``AbleToScale=True/SucceededRescale``) and record
    ``desiredReplicas`` equal to ``minReplicas``.
    """
    target.apply(make_deployment("under", namespace, replicas=1).build())
    hpa = make_hpa("under", namespace, target="under").replicas(3, 5)
    target.apply(hpa.external("under_never_served", average_value="10", selector={"queue": "under"}).build())
    target.wait_until(lambda: _replicas(target, namespace, "under") == 3, timeout=120,
                      what="scaled up to minReplicas")
    h = _hpa(target, namespace, "under")
    assert h["status"]["desiredReplicas"] == 3
    assert (condition(h, "AbleToScale") or {}).get("status") == "True"


def test_a_metric_above_target_limits_scaling_at_max_replicas(target: Target, namespace: str) -> None:
    """HPA ScalingLimited.

    When the metric asks for more than ``maxReplicas``, the HPA MUST scale to
    ``maxReplicas`` and report ``ScalingLimited=True/TooManyReplicas``, with
    ``ScalingActive=True/ValidMetricFound``.
    """
    target.apply(make_deployment("hot", namespace, replicas=1).build())
    target.set_external_metric("hot_depth", 100, {"queue": "hot"})
    hpa = make_hpa("hot", namespace, target="hot").replicas(1, 3)
    target.apply(hpa.external("hot_depth", average_value="10", selector={"queue": "hot"}).build())
    target.wait_until(lambda: _replicas(target, namespace, "hot") == 3, timeout=120,
                      what="scaled up to maxReplicas")
    target.wait_until(
        lambda: _cond(_hpa(target, namespace, "hot"), "ScalingLimited") == ("True", "TooManyReplicas"),
        timeout=120, what="ScalingLimited=True/TooManyReplicas",
    )
    assert _cond(_hpa(target, namespace, "hot"), "ScalingActive") == ("True", "ValidMetricFound")


def test_two_hpas_on_the_same_pods_both_report_an_ambiguous_selector(
    target: Target, namespace: str
) -> None:
    """HPA AmbiguousSelector.

    When two HPAs target the same Deployment, each MUST report
    ``ScalingActive=False/AmbiguousSelector`` with a message naming the pods' selector
    and both HPAs ("pods by selector app=<name> are controlled by more than one HPA").
    """
    target.apply(make_deployment("twice", namespace, replicas=1).build())
    target.set_external_metric("twice_q", 10, {"q": "twice"})
    for name in ("first", "second"):
        hpa = make_hpa(name, namespace, target="twice").replicas(1, 3)
        target.apply(hpa.external("twice_q", average_value="10", selector={"q": "twice"}).build())
    for name in ("first", "second"):
        target.wait_until(
            lambda name=name: _cond(_hpa(target, namespace, name), "ScalingActive") == ("False", "AmbiguousSelector"),
            timeout=120, what=f"{name}: AmbiguousSelector",
        )
        msg = (condition(_hpa(target, namespace, name), "ScalingActive") or {})["message"]
        assert msg.startswith("pods by selector app=twice are controlled by more than one HPA (e.g. ["), msg
        assert f"{namespace}/first" in msg and f"{namespace}/second" in msg, msg


def test_a_missing_target_and_a_missing_metric_are_reported(target: Target, namespace: str) -> None:
    """HPA failure conditions.

    An HPA whose Deployment does not exist MUST report ``AbleToScale=False/FailedGetScale``
    naming the missing object, with ``desiredReplicas: 0``; an HPA whose External metric
    has no series MUST report ``ScalingActive=False/FailedGetExternalMetric`` saying no
    metrics were returned, keep the Deployment's replicas, and record the metric's empty
    status in ``currentMetrics``.
    """
    target.apply(make_hpa("ghost", namespace, target="nothing").replicas(1, 3)
                 .external("ghost_q", average_value="10").build())
    target.apply(make_deployment("quiet", namespace, replicas=2).build())
    target.apply(make_hpa("quiet", namespace, target="quiet").replicas(1, 3)
                 .external("quiet_absent_q", average_value="10").build())
    target.wait_until(lambda: _cond(_hpa(target, namespace, "ghost"), "AbleToScale") == ("False", "FailedGetScale"),
                      timeout=120, what="ghost: FailedGetScale")
    ghost = _hpa(target, namespace, "ghost")
    assert (condition(ghost, "AbleToScale") or {})["message"] == (
        "the HPA controller was unable to get the target's current scale: "
        'deployments.apps "nothing" not found')
    assert ghost["status"]["desiredReplicas"] == 0
    target.wait_until(
        lambda: _cond(_hpa(target, namespace, "quiet"), "ScalingActive") == ("False", "FailedGetExternalMetric"),
        timeout=120, what="quiet: FailedGetExternalMetric",
    )
    quiet = _hpa(target, namespace, "quiet")
    msg = (condition(quiet, "ScalingActive") or {})["message"]
    assert msg == ("the HPA was unable to compute the replica count: unable to get external metric "
                   f"{namespace}/quiet_absent_q/nil: no metrics returned from external metrics API"), msg
    assert _cond(quiet, "AbleToScale") == ("True", "SucceededGetScale")
    assert quiet["status"]["currentReplicas"] == 2
    assert quiet["status"]["currentMetrics"] == [{"type": ""}]
    assert _replicas(target, namespace, "quiet") == 2

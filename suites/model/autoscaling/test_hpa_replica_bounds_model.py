"""HPA replica bounds, as a property over metric sequences (HPA scale to zero, KEP-2021).

A model test (marker ``model``, not conformance evidence): it observes 45 s of autoscaling
per metric value, for a dozen generated sequences, which only the reference's virtual
clock makes affordable; no live cluster can run it in a test run's time. The live
behaviours (scale to zero on an External metric and back, within the bounds) are
conformance in suites/conformance/autoscaling/test_hpa_scale_to_zero.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fixtures import Capability, Target
from reference_impl.api import make_deployment, make_hpa
from reference_impl.errors import Invalid, Timeout

pytestmark = [pytest.mark.model, pytest.mark.feature("HPA-ZERO")]


def _replicas(target: Target, namespace: str, name: str) -> int:
    return int(target.get("apps/v1", "Deployment", name, namespace)["spec"]["replicas"])


def _observe(target: Target, seconds: float, probe: Callable[[], None]) -> None:
    """Run the target for ``seconds``, calling ``probe`` at every step on the way."""

    def never() -> bool:
        probe()
        return False

    with pytest.raises(Timeout):
        target.wait_until(never, timeout=seconds, what=f"{seconds:g}s of autoscaling")


_names = itertools.count()


@pytest.mark.requires(Capability.EXTERNAL_METRICS, Capability.VIRTUAL_TIME)
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    min_replicas=st.integers(0, 3),
    values=st.lists(st.integers(0, 100), min_size=1, max_size=5),
    external=st.booleans(),
)
def test_hpa_never_goes_below_min_replicas_nor_to_zero_without_an_object_or_external_metric(
    target: Target, namespace: str, min_replicas: int, values: list[int], external: bool
) -> None:
    """HPA bounds property.

    For any metric sequence the HPA MUST keep replicas within [minReplicas, maxReplicas],
    and an HPA that reaches 0 MUST have an External or Object metric; an HPA with only
    Pods metrics and ``minReplicas: 0`` MUST be rejected.
    """
    # Only the External metric is driven here (Pods metrics are driven in
    # test_hpa_accelerator_pods_metric.py), so a Pods-only HPA is checked where it tells:
    # minReplicas 0 must be refused.
    assume(external or min_replicas == 0)
    name = f"prop-{next(_names)}"
    hpa = make_hpa(name, namespace, target=name).replicas(min_replicas, 6).scale_down(0)
    hpa = (
        hpa.external("load", average_value="10", selector={"p": name})
        if external
        else hpa.pods("load", "10")
    )
    if min_replicas == 0 and not external:
        with pytest.raises(Invalid):
            target.apply(hpa.build())
        return
    target.apply(make_deployment(name, namespace, replicas=max(min_replicas, 1)).build())
    target.apply(hpa.build())
    seen: list[int] = []
    for v in values:
        target.set_external_metric("load", v, {"p": name})
        _observe(target, 45, lambda: seen.append(_replicas(target, namespace, name)))
        # Past the tolerance at either end the HPA must move all the way: 70 over an
        # average target of 10 wants more than maxReplicas, 0 wants no replica at all.
        if v >= 70:
            assert seen[-1] == 6, (values, seen)
        if v == 0:
            assert seen[-1] == min_replicas, (values, seen)
    assert all(min_replicas <= r <= 6 for r in seen), seen

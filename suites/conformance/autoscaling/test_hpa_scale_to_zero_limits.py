"""HPA scale to zero: the feature gate.

It needs a cluster whose HPAScaleToZero gate is off (the reference switches it for the
test; live, a cluster started with ``--feature-gates HPAScaleToZero=false``), so it is kept
apart from ``test_hpa_scale_to_zero.py``, which is the AI-conformance ``pod_autoscaling``
evidence and runs whole on the usual live cluster. The replica-bounds property, which
needs virtual time, is a model test (suites/model/autoscaling/test_hpa_replica_bounds_model.py).
"""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_hpa
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("HPA-ZERO")]


def _replicas(target: Target, namespace: str, name: str) -> int:
    return int(target.get("apps/v1", "Deployment", name, namespace)["spec"]["replicas"])


@pytest.mark.feature_gates(HPAScaleToZero=False)
def test_min_replicas_zero_needs_the_gate(target: Target, namespace: str) -> None:
    """HPA scale-to-zero gate.

    With HPAScaleToZero off, ``minReplicas: 0`` MUST be rejected at ``spec.minReplicas``
    even with an External metric.
    """
    hpa = make_hpa("gated", namespace, target="web").replicas(0, 5).external("q", value="1")
    with pytest.raises(Invalid) as err:
        target.apply(hpa.build())
    assert "spec.minReplicas" in err.value.fields

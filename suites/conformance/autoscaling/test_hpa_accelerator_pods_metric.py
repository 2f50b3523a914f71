"""HPA on a per-pod custom metric, for pods that use accelerators.

Each pod of the Deployment claims one GPU through a ResourceClaimTemplate; the fake DRA
driver publishes the GPUs. The HPA scales on a ``Pods`` metric. Live clusters serve it per
pod through custom.metrics.k8s.io (garhwal's adapter), as prometheus-adapter serves DCGM
series. This is the shape of the AI-conformance ``pod_autoscaling`` test (upstream
``TestAcceleratorHorizontalPodAutoscaling`` scales GPU pods 1 to 2 on a custom metric).
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, FakeDriver, Target
from fixtures.helpers.dra_driver import dra_driver  # noqa: F401 - the fixture
from reference_impl.api import (
    DRA_API,
    condition,
    make_claim_template,
    make_deployment,
    make_hpa,
    make_pod,
)

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("HPA-ZERO"),
    pytest.mark.requires(Capability.EXTERNAL_METRICS),
]

HPA = ("autoscaling/v2", "HorizontalPodAutoscaler")
NODE = "kwok-node-0"
METRIC = "gpu_duty_cycle"  # DCGM_FI_DEV_GPU_UTIL, as a per-pod custom metric


def _running(target: Target, namespace: str) -> list[dict[str, Any]]:
    pods = target.list("v1", "Pod", namespace, label_selector="app=trainer")
    return [
        p for p in pods
        if not p["metadata"].get("deletionTimestamp") and (p.get("status") or {}).get("phase") == "Running"
    ]  # fmt: skip


def _replicas(target: Target, namespace: str) -> int:
    return int(target.get("apps/v1", "Deployment", "trainer", namespace)["spec"]["replicas"])


def _set_all(target: Target, namespace: str, value: float) -> list[str]:
    names = sorted(p["metadata"]["name"] for p in _running(target, namespace))
    for name in names:
        target.set_pod_metric(namespace, name, METRIC, value)
    return names


def _gpu_devices(target: Target, namespace: str) -> set[str]:
    """The GPUs allocated to the running pods' generated claims."""
    out = set()
    for pod in _running(target, namespace):
        (status,) = pod["status"]["resourceClaimStatuses"]
        claim = target.get(DRA_API, "ResourceClaim", status["resourceClaimName"], namespace)
        (result,) = claim["status"]["allocation"]["devices"]["results"]
        out.add(result["device"])
    return out


@pytest.fixture
def gpu_trainer(target: Target, namespace: str, dra_driver: FakeDriver) -> None:  # noqa: F811
    """A one-replica Deployment whose pods each hold one allocated GPU."""
    dra_driver.install_class("hpa-gpu")
    dra_driver.publish([NODE], gpus=4)
    target.apply(make_claim_template("one-gpu", namespace).request("gpu", "hpa-gpu").build())
    pod = make_pod("trainer").claim("gpu", template="one-gpu")
    target.apply(make_deployment("trainer", namespace, replicas=1, pod=pod).build())
    target.wait_until(lambda: len(_running(target, namespace)) == 1, timeout=120, what="one GPU pod Running")


@pytest.mark.usefixtures("gpu_trainer")
def test_gpu_pods_scale_out_and_in_on_a_per_pod_custom_metric(target: Target, namespace: str) -> None:
    """HPA on a Pods metric of GPU pods.

    With one pod at a duty cycle of 100 against an averageValue of 50, the HPA MUST scale
    the Deployment to 2, report the pods' average (100) in ``status.currentMetrics`` with
    ``ScalingActive=True`` (ValidMetricFound), and each new pod MUST get its own GPU. With
    both pods at 10 it MUST scale back to 1 (no stabilization window set).
    """
    hpa = make_hpa("trainer", namespace, target="trainer").replicas(1, 3).scale_down(0)
    target.apply(hpa.pods(METRIC, average_value="50").build())
    (first,) = _set_all(target, namespace, 100)
    target.wait_until(lambda: _replicas(target, namespace) == 2, timeout=120, what="scaled to 2 replicas")
    status = target.get(*HPA, "trainer", namespace)["status"]
    (current,) = status["currentMetrics"]
    assert current["type"] == "Pods"
    assert current["pods"]["metric"]["name"] == METRIC
    assert current["pods"]["current"]["averageValue"] == "100"
    active = condition(target.get(*HPA, "trainer", namespace), "ScalingActive") or {}
    assert (active.get("status"), active.get("reason")) == ("True", "ValidMetricFound")

    target.wait_until(lambda: len(_running(target, namespace)) == 2, timeout=120, what="two GPU pods Running")
    assert len(_gpu_devices(target, namespace)) == 2, "each replica holds its own GPU"
    # The new pod has no value yet: counted as 0 on a scale-up, so (100 + 0) / 2 is on target
    # and the HPA holds at 2 rather than scaling on.
    assert first in _set_all(target, namespace, 10)
    target.wait_until(lambda: _replicas(target, namespace) == 1, timeout=120, what="scaled back to 1 replica")


@pytest.mark.usefixtures("gpu_trainer")
def test_a_pods_metric_within_tolerance_keeps_the_replicas(target: Target, namespace: str) -> None:
    """HPA tolerance on a Pods metric.

    A pod at 54 against an averageValue of 50 (ratio 1.08, inside the default 10 %
    tolerance) MUST leave the Deployment at 1 replica, with the average (54) reported; at
    150 it MUST scale to ``ceil(1 * 3) = 3``, the maximum.
    """
    hpa = make_hpa("trainer", namespace, target="trainer").replicas(1, 3)
    target.apply(hpa.pods(METRIC, average_value="50").build())
    _set_all(target, namespace, 54)

    def reported() -> bool:
        status = target.get(*HPA, "trainer", namespace).get("status") or {}
        metrics = status.get("currentMetrics") or [{}]
        return bool((metrics[0].get("pods") or {}).get("current", {}).get("averageValue") == "54")

    target.wait_until(reported, timeout=120, what="averageValue 54 reported")
    assert _replicas(target, namespace) == 1
    _set_all(target, namespace, 150)
    target.wait_until(lambda: _replicas(target, namespace) == 3, timeout=120, what="scaled to 3 replicas")

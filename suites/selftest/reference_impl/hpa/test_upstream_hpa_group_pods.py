"""Rows of upstream ``replica_calculator_test.go`` (v1.37.2) ``TestGroupPods``,
``TestCalculateRequests`` and ``TestCalculatePodRequestsFromContainers_NonExistentContainer``
against ``replica_rules.group_pods`` / ``calculate_requests``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.clock import Duration, Instant, rfc3339, seconds
from reference_impl.controllers.hpa.replica_rules import (
    GO_ZERO_TIME,
    PodGroups,
    PodMetric,
    ReplicaCalcError,
    calculate_requests,
    group_pods,
)

Obj = dict[str, Any]
NOW = Instant(seconds(10 * 86_400))
INIT, DELAY = seconds(120), seconds(10)  # defaultTestingCPUInitializationPeriod, ...ReadinessStatus


def ago(s: float) -> Instant:
    return Instant(NOW - seconds(s))


def pod(name: str, phase: str, start: Instant | None = None, ready: tuple[str, Instant] | None = None,
        deleted: bool = False) -> Obj:
    status: Obj = {"phase": phase}
    if start is not None:
        status["startTime"] = rfc3339(start)
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready[0], "lastTransitionTime": rfc3339(ready[1])}]
    meta: Obj = {"name": name}
    if deleted:
        meta["deletionTimestamp"] = rfc3339(Instant(seconds(1)))
    return {"metadata": meta, "status": status}


NO_WINDOW = Duration(0)


def sample(at: Instant = GO_ZERO_TIME, window: Duration = NO_WINDOW) -> PodMetric:
    """``metricsclient.PodMetric{Value: 1, ...}``; unset fields are Go's zero values."""
    return PodMetric(1, at, window)


GROUP_PODS = [
    pytest.param([], {}, "cpu", PodGroups(), id="void"),
    pytest.param([pod("bentham", "Succeeded")], {"bentham": sample(NOW, seconds(60))}, "memory",
                 PodGroups(ready=1), id="count in a ready pod - memory"),
    pytest.param([pod("lucretius", "Succeeded", NOW)], {"lucretius": sample()}, "cpu",
                 PodGroups(unready={"lucretius"}), id="unready a pod without ready condition - CPU"),
    pytest.param([pod("bentham", "Succeeded", ago(60), ("True", ago(30)))], {"bentham": sample(NOW, seconds(30))},
                 "cpu", PodGroups(ready=1), id="count in a ready pod with fresh metrics during initialization period - CPU"),
    pytest.param([pod("bentham", "Succeeded", ago(60), ("True", ago(30)))], {"bentham": sample(NOW, seconds(60))},
                 "cpu", PodGroups(unready={"bentham"}),
                 id="unready a ready pod without fresh metrics during initialization period - CPU"),
    pytest.param([pod("lucretius", "Succeeded", ago(600), ("False", ago(594)))], {"lucretius": sample()}, "cpu",
                 PodGroups(unready={"lucretius"}), id="unready an unready pod during initialization period - CPU"),
    pytest.param([pod("bentham", "Succeeded", ago(180), ("True", ago(180)))],
                 {"bentham": sample(ago(120), seconds(60))}, "cpu", PodGroups(ready=1),
                 id="count in a ready pod without fresh metrics after initialization period - CPU"),
    pytest.param([pod("lucretius", "Succeeded", ago(600), ("False", ago(540)))], {"lucretius": sample()}, "cpu",
                 PodGroups(ready=1), id="count in an unready pod that was ready after initialization period - CPU"),
    pytest.param([pod("lucretius", "Succeeded", ago(600), ("False", ago(590)))], {"lucretius": sample()}, "cpu",
                 PodGroups(ready=1), id="unready pod that has never been ready after initialization period - CPU"),
    pytest.param([pod("epicurus", "Succeeded", ago(180))], {}, "cpu", PodGroups(missing={"epicurus"}),
                 id="a missing pod"),
    pytest.param([pod("lucretius", "Succeeded", NOW), pod("niccolo", "Succeeded", ago(180), ("True", ago(180))),
                  pod("epicurus", "Succeeded", ago(180))],
                 {"lucretius": sample(), "niccolo": sample()}, "cpu",
                 PodGroups(ready=1, unready={"lucretius"}, missing={"epicurus"}), id="several pods"),
    pytest.param([pod("unscheduled", "Pending")], {}, "cpu", PodGroups(unready={"unscheduled"}),
                 id="pending pods are unreadied"),
    pytest.param([pod("deleted", "Pending", deleted=True)], {"deleted": sample()}, "cpu",
                 PodGroups(ignored={"deleted"}), id="ignore pods with deletion timestamps"),
    pytest.param([pod("failed", "Failed")], {"failed": sample()}, "cpu", PodGroups(ignored={"failed"}),
                 id="ignore pods in a failed state"),
]


@pytest.mark.parametrize(("pods", "metrics", "resource", "want"), GROUP_PODS)
def test_group_pods(pods: list[Obj], metrics: dict[str, PodMetric], resource: str, want: PodGroups) -> None:
    """TestGroupPods."""
    assert group_pods(pods, metrics, resource, NOW, INIT, DELAY) == want


def _c(name: str, cpu: str | None = None, restart: str | None = None) -> Obj:
    out: Obj = {"name": name}
    if cpu is not None:
        out["resources"] = {"requests": {"cpu": cpu}}
    if restart is not None:
        out["restartPolicy"] = restart
    return out


def _pod(containers: list[Obj], pod_cpu: str | None = None, init: list[Obj] | None = None) -> Obj:
    spec: Obj = {"containers": containers}
    if pod_cpu is not None:
        spec["resources"] = {"requests": {"cpu": pod_cpu}}
    if init is not None:
        spec["initContainers"] = init
    return {"metadata": {"name": "test-pod", "namespace": "test-namespace"}, "spec": spec}


TWO = [_c("container1", "100m"), _c("container2", "50m")]
CALCULATE_REQUESTS = [
    pytest.param([], "", False, {}, None, id="void"),
    pytest.param([_pod(TWO)], "", False, {"test-pod": 150}, None,
                 id="Sum container requests if pod-level feature is disabled"),
    pytest.param([_pod(TWO)], "", True, {"test-pod": 150}, None,
                 id="Pod-level resources are enabled, but not set: fallback to sum container requests"),
    pytest.param([_pod(TWO, "800m")], "", True, {"test-pod": 800}, None,
                 id="Pod-level resources override container requests when feature enabled and pod resources specified"),
    pytest.param([_pod([_c("container1"), _c("container2", "50m")])], "", False, None,
                 "missing request for cpu in container container1 of Pod test-pod",
                 id="Fail if at least one of the containers is missing requests and pod-level feature/requests are not set"),
    pytest.param([_pod([_c("container1"), _c("container2", "50m")], "800m")], "", True, {"test-pod": 800}, None,
                 id="Pod-level resources override missing container requests when feature enabled and pod resources specified"),
    pytest.param([_pod(TWO)], "container1", False, {"test-pod": 100}, None,
                 id="Container: if a container name is specified, calculate requests only for that container"),
    pytest.param([_pod(TWO, "800m")], "container1", True, {"test-pod": 100}, None,
                 id="Container: if a container name is specified, calculate requests only for that container and ignore pod-level requests"),
    pytest.param([_pod([_c("container1", "100m")], init=[_c("init-container1", "20m"),
                                                        _c("restartable-container1", "50m", "Always")])],
                 "", False, {"test-pod": 150}, None, id="pod with restartable init containers"),
]


@pytest.mark.parametrize(("pods", "container", "pod_level", "want", "error"), CALCULATE_REQUESTS)
def test_calculate_requests(
    pods: list[Obj], container: str, pod_level: bool, want: dict[str, int] | None, error: str | None
) -> None:
    """TestCalculateRequests (the PodLevelResources gate as the row sets it)."""
    if error is not None:
        with pytest.raises(ReplicaCalcError) as info:
            calculate_requests(pods, container, "cpu", pod_level)
        assert str(info.value) == error
        return
    assert calculate_requests(pods, container, "cpu", pod_level) == want


def test_calculate_pod_requests_from_containers_non_existent_container() -> None:
    """TestCalculatePodRequestsFromContainers_NonExistentContainer."""
    with pytest.raises(ReplicaCalcError) as info:
        calculate_requests([_pod([_c("container1", "100m")])], "non-existent-container", "cpu")
    assert str(info.value) == "container non-existent-container not found in Pod test-pod"

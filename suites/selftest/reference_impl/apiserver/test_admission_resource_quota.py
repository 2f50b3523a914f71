"""ResourceQuota admission (``CheckRequest``), after upstream's
``plugin/pkg/admission/resourcequota/admission_test.go`` and k8s.io/apiserver's
``admission_test.go``, plus the plugin end to end in a Cluster."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.admission.resource_quota import (
    QuotaRefused,
    check_request,
    scope_selectors,
)
from reference_impl.apiserver.quota import registry
from reference_impl.apiserver.quota.types import Env
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.clock import Instant
from reference_impl.cluster import Cluster
from reference_impl.errors import Forbidden
from reference_impl.features import FeatureGates

Obj = dict[str, Any]


def _env(objects: list[Obj] | None = None) -> Env:
    def get(api_version: str, kind: str, name: str, namespace: str | None) -> Obj | None:
        return next((o for o in objects or () if o["kind"] == kind and o["metadata"]["name"] == name), None)

    def list_(api_version: str, kind: str, namespace: str | None) -> list[Obj]:
        return [o for o in objects or () if o["kind"] == kind]

    return Env(Context(FeatureGates(), get, list_), Instant(0))


def _quota(hard: dict[str, str], used: dict[str, str], name: str = "quota", **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": name, "namespace": "test", "resourceVersion": "124"},
            "spec": {"hard": hard, **spec}, "status": {"hard": hard, "used": used}}  # fmt: skip


def _pod(name: str = "pod", containers: int = 1, requests: Obj | None = None,
         limits: Obj | None = None, **spec: Any) -> Obj:  # fmt: skip
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    cs = [{"name": f"c{i}", "image": f"foo:V{i}", "resources": res} for i in range(containers)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "test"},
            "spec": {"containers": cs, **spec}}  # fmt: skip


def _check(quotas: list[Obj], obj: Obj, old: Obj | None = None, group_resource: str = "pods") -> list[Obj]:
    op = Operation.UPDATE if old is not None else Operation.CREATE
    ev = registry.evaluator_for(group_resource, _env())
    return check_request(quotas, op, "", obj, old, ev)


BASE_HARD = {"cpu": "3", "memory": "100Gi", "pods": "5"}
BASE_USED = {"cpu": "1", "memory": "50Gi", "pods": "3"}


def test_below_the_limit_charges_every_resource() -> None:
    """TestAdmitBelowQuotaLimit: the sums keep the quantities' formats."""
    out = _check([_quota(BASE_HARD, BASE_USED)], _pod(requests={"cpu": "100m", "memory": "2Gi"}))
    assert out[0]["status"]["used"] == {"cpu": "1100m", "memory": "52Gi", "pods": "4"}


def test_over_the_limit_is_refused_naming_only_the_exceeded_resources() -> None:
    """TestAdmitExceedQuotaLimit, with controller.go's message."""
    with pytest.raises(QuotaRefused) as e:
        _check([_quota(BASE_HARD, BASE_USED)], _pod(requests={"cpu": "3", "memory": "2Gi"}))
    assert str(e.value) == "exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3"


def test_a_tracked_limit_the_pod_lacks_is_refused() -> None:
    """TestAdmitEnforceQuotaConstraints."""
    hard = {**BASE_HARD, "limits.memory": "200Gi"}
    used = {**BASE_USED, "limits.memory": "100Gi"}
    pod = _pod(requests={"cpu": "100m", "memory": "2Gi"}, limits={"cpu": "200m"})
    with pytest.raises(QuotaRefused) as e:
        _check([_quota(hard, used)], pod)
    assert str(e.value) == "failed quota: quota: must specify limits.memory for: c0"


def test_a_quota_without_usage_for_a_hard_resource_refuses() -> None:
    """hasUsageStats: the controller has not filled the status yet."""
    quota = _quota(BASE_HARD, {"cpu": "0"})
    with pytest.raises(QuotaRefused) as e:
        _check([quota], _pod(requests={"cpu": "100m", "memory": "1Gi"}))
    assert str(e.value) == "status unknown for quota: quota, resources: cpu,memory,pods"


def test_an_update_is_charged_its_increase_only() -> None:
    """TestAdmitHandlesOldObjects: a LoadBalancer Service becoming a NodePort one charges
    the node port and gives nothing back (no negative deltas)."""
    hard = {"services": "10", "services.loadbalancers": "10", "services.nodeports": "10"}
    used = {"services": "1", "services.loadbalancers": "1", "services.nodeports": "0"}
    old = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "test", "resourceVersion": "1"},
           "spec": {"type": "LoadBalancer"}}  # fmt: skip
    new = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "test"},
           "spec": {"type": "NodePort", "ports": [{"port": 1234}]}}  # fmt: skip
    out = _check([_quota(hard, used)], new, old, "services")
    assert out[0]["status"]["used"] == {"services": "1", "services.loadbalancers": "1", "services.nodeports": "1"}


def test_an_unrelated_exceeded_resource_does_not_refuse() -> None:
    """TestAdmitWhenUnrelatedResourceExceedsQuota: only what the write consumes is compared."""
    quota = _quota({"services": "3", "pods": "4"}, {"services": "4", "pods": "1"})
    out = _check([quota], _pod())
    assert out[0]["status"]["used"] == {"services": "4", "pods": "2"}


def test_terminating_pods_are_charged_to_the_terminating_quota_only() -> None:
    """TestAdmitBelowTerminatingQuotaLimit."""
    plain = _quota(BASE_HARD, BASE_USED, name="quota-non-terminating", scopes=["NotTerminating"])
    term = _quota(BASE_HARD, BASE_USED,
                  name="quota-terminating", scopes=["Terminating"])  # fmt: skip
    pod = _pod(requests={"cpu": "100m", "memory": "2Gi"}, activeDeadlineSeconds=60)
    out = _check([plain, term], pod)
    assert out[0]["status"]["used"] == BASE_USED
    assert out[1]["status"]["used"] == {"cpu": "1100m", "memory": "52Gi", "pods": "4"}


def test_best_effort_quota_ignores_burstable_pods() -> None:
    """TestAdmitBestEffortQuotaLimitIgnoresBurstable and TestAdmitBelowBestEffortQuotaLimit."""
    best = _quota({"pods": "5"}, {"pods": "3"}, scopes=["BestEffort"])
    assert _check([best], _pod(requests={"cpu": "100m"}))[0]["status"]["used"] == {"pods": "3"}
    assert _check([best], _pod())[0]["status"]["used"] == {"pods": "4"}


def test_negative_usage_is_refused() -> None:
    """TestAdmitRejectsNegativeUsage."""
    quota = _quota({"persistentvolumeclaims": "3", "requests.storage": "100Gi"},
                   {"persistentvolumeclaims": "1", "requests.storage": "10Gi"})  # fmt: skip
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "test"},
           "spec": {"resources": {"requests": {"storage": "-1Gi"}}}}  # fmt: skip
    with pytest.raises(QuotaRefused) as e:
        _check([quota], pvc, group_resource="persistentvolumeclaims")
    assert str(e.value) == "quota usage is negative for resource(s): requests.storage"


def test_scope_selectors_put_plain_scopes_first() -> None:
    quota = _quota({}, {}, scopes=["BestEffort"], scopeSelector={"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]})  # fmt: skip
    assert scope_selectors(quota) == [
        {"scopeName": "BestEffort", "operator": "Exists"},
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]},
    ]


def _cluster_with_quota(hard: dict[str, str]) -> Cluster:
    c = Cluster(seed=1)
    c.apply({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
             "spec": {"hard": hard}})  # fmt: skip
    c.settle()
    return c


def test_end_to_end_the_controller_fills_status_and_admission_charges() -> None:
    c = _cluster_with_quota({"pods": "1", "requests.cpu": "1"})
    status = c.get("v1", "ResourceQuota", "q", "default")["status"]
    assert status == {"hard": {"pods": "1", "requests.cpu": "1"}, "used": {"pods": "0", "requests.cpu": "0"}}
    c.apply(_pod("a", requests={"cpu": "500m"}) | {"metadata": {"name": "a", "namespace": "default"}})
    assert c.get("v1", "ResourceQuota", "q", "default")["status"]["used"] == {"pods": "1", "requests.cpu": "500m"}
    with pytest.raises(Forbidden) as e:
        c.apply(_pod("b", requests={"cpu": "100m"}) | {"metadata": {"name": "b", "namespace": "default"}})
    assert str(e.value).startswith('pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1')


def test_end_to_end_a_deleted_pod_is_given_back_by_the_controller() -> None:
    c = _cluster_with_quota({"pods": "1"})
    c.apply(_pod("a") | {"metadata": {"name": "a", "namespace": "default"}})
    c.delete("v1", "Pod", "a", "default")
    assert c.run_until(lambda: not c.list("v1", "Pod", "default"), timeout=60)
    c.settle()
    assert c.get("v1", "ResourceQuota", "q", "default")["status"]["used"] == {"pods": "0"}

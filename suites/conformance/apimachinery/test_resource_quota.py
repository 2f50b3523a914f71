"""ResourceQuota (admission plugin on by default in kube-apiserver 1.37, and the resource
quota controller of kube-controller-manager): a namespace's quotas report what is used,
refuse writes past their hard limits, and give usage back when objects go.

Each test waits for the controller to fill the quota's status first: until then the
admission plugin refuses what the quota tracks ("status unknown"). Pods carry a node
selector no node matches, so they stay API objects and are deleted at once.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.quota import add_quota
from reference_impl.api.quantity import quantity_value
from reference_impl.errors import Conflict, Forbidden, Timeout

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
IMAGE = "registry.k8s.io/pause:3.10"
CLAIMS = "count/resourceclaims.resource.k8s.io"
GPU_CLASS = "gpu.garhwal.dev"
GPU_DEVICES = f"{GPU_CLASS}.deviceclass.resource.k8s.io/devices"


def _quota(namespace: str, hard: dict[str, str], name: str = "quota", **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"hard": hard, **spec}}  # fmt: skip


def _pod(name: str, namespace: str, requests: Obj | None = None, limits: Obj | None = None,
         containers: int = 1) -> Obj:  # fmt: skip
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    cs = [{"name": f"c{i}", "image": IMAGE, **({"resources": res} if res else {})} for i in range(containers)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"containers": cs, "nodeSelector": {"garhwal.io/no-such-node": "x"}}}  # fmt: skip


def _claim(name: str, namespace: str, *counts: int, all_devices: bool = False) -> Obj:
    reqs: list[Obj] = []
    for i, n in enumerate(counts):
        exactly: Obj = {"deviceClassName": GPU_CLASS, "count": n}
        if all_devices:
            exactly = {"deviceClassName": GPU_CLASS, "allocationMode": "All"}
        reqs.append({"name": f"r{i}", "exactly": exactly})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"devices": {"requests": reqs}}}  # fmt: skip


def _used(target: Target, namespace: str, name: str = "quota") -> dict[str, Any]:
    status = target.get("v1", "ResourceQuota", name, namespace).get("status") or {}
    return {k: quantity_value(v) for k, v in (status.get("used") or {}).items()}


def _ready(target: Target, namespace: str, quota: Obj) -> Obj:
    """Create the quota; return once the controller filled it and admission enforces it."""
    return add_quota(target, quota)


def _wait_used(
    target: Target, namespace: str, want: dict[str, str], name: str = "quota", timeout: float = 30
) -> None:
    expected = {k: quantity_value(v) for k, v in want.items()}
    seen: list[dict[str, Any]] = [{}]

    def matches() -> bool:
        seen[0] = {k: v for k, v in _used(target, namespace, name).items() if k in expected}
        return seen[0] == expected

    try:
        target.wait_until(matches, timeout=timeout, what=f"quota {name} used {want}")
    except Timeout as e:
        raise Timeout(f"{e}; last seen {seen[0]}") from None


def _wait_used_recounting(target: Target, namespace: str, want: dict[str, str], nudge: str) -> None:
    """``_wait_used`` where the controller may have recounted from informers that had not
    seen an object admission just charged (upstream only repairs that at its 5-minute
    resync): each 5 s without the usage, raising ``spec.hard[nudge]`` by one makes it
    recount (at most 12 times)."""
    for attempt in range(12):
        try:
            _wait_used(target, namespace, want, timeout=5)
            return
        except Timeout:
            if attempt == 11:
                raise
        _raise_limit(target, namespace, nudge)


def _raise_limit(target: Target, namespace: str, key: str) -> Any:
    """Raise ``spec.hard[key]`` of the quota by one; the new limit."""
    out: list[Any] = []

    def attempt() -> bool:
        rq = target.get("v1", "ResourceQuota", "quota", namespace)
        limit = quantity_value(rq["spec"]["hard"][key]) + 1
        rq["spec"]["hard"][key] = str(limit)
        try:
            target.apply(rq)
        except Conflict:  # the controller's status write came between
            return False
        out.append(limit)
        return True

    target.wait_until(attempt, timeout=30, what=f"{key} limit raised")
    return out[0]


def _admitted_eventually(target: Target, obj: Obj) -> None:
    """Create ``obj`` once the quota has room: admission reads quotas from an informer,
    which may trail a status the test has just read."""

    def attempt() -> bool:
        try:
            target.apply(obj)
        except Forbidden:
            return False
        return True

    target.wait_until(attempt, timeout=30, what=f"{obj['metadata']['name']} admitted")


def test_status_reports_hard_and_what_the_namespace_already_uses(
    target: Target, namespace: str
) -> None:
    """The controller MUST copy ``spec.hard`` into ``status.hard`` and MUST fill
    ``status.used`` for each hard resource from the objects already in the namespace
    (zero for what nothing uses); a changed hard limit MUST show in the status.

    The controller counts from its informers, which may not have seen objects created a
    moment before the quota (live, after the etcd restart test, they trailed by many
    seconds), and it recounts on a spec change (else only every 5 minutes); so the usage
    is awaited while the pods limit is raised, a step every 5 seconds."""
    target.apply(_pod("before", namespace, requests={"cpu": "250m", "memory": "64Mi"}))
    target.apply(_claim("claim-before", namespace, 2))
    hard = {"pods": "5", "requests.cpu": "2", "requests.memory": "1Gi", "limits.cpu": "4",
            CLAIMS: "4", GPU_DEVICES: "8", "services": "3"}  # fmt: skip
    rq = _ready(target, namespace, _quota(namespace, hard))
    assert {k: quantity_value(v) for k, v in rq["status"]["hard"].items()} == {
        k: quantity_value(v) for k, v in hard.items()
    }
    limit = _raise_limit(target, namespace, "pods")
    target.wait_until(
        lambda: quantity_value(target.get("v1", "ResourceQuota", "quota", namespace)["status"]["hard"]["pods"]) == limit,
        timeout=30,
        what="status.hard follows the raised pods limit",
    )
    want = {"pods": "1", "requests.cpu": "250m", "requests.memory": "64Mi", "limits.cpu": "0",
            CLAIMS: "1", GPU_DEVICES: "2", "services": "0"}  # fmt: skip
    _wait_used_recounting(target, namespace, want, "pods")


def test_a_pod_past_the_requests_quota_is_forbidden_naming_the_resource(
    target: Target, namespace: str
) -> None:
    """A pod whose requests would take ``used`` past ``hard`` MUST be Forbidden with
    "exceeded quota: <quota>, requested: ..., used: ..., limited: ..." for the exceeded
    resources only; a pod that fits MUST be admitted and charged at once."""
    _ready(target, namespace, _quota(namespace, {"requests.cpu": "1", "pods": "10",
                                                 "requests.nvidia.com/gpu": "1"}))  # fmt: skip
    target.apply(_pod("first", namespace, requests={"cpu": "600m"}))
    _wait_used(target, namespace, {"requests.cpu": "600m", "pods": "1"})
    with pytest.raises(Forbidden) as refused:
        target.apply(_pod("second", namespace, requests={"cpu": "300m"}, containers=2))
    assert (
        "exceeded quota: quota, requested: requests.cpu=600m, used: requests.cpu=600m, "
        "limited: requests.cpu=1"
    ) in str(refused.value)
    gpu = {"cpu": "100m", "nvidia.com/gpu": "1"}
    target.apply(_pod("gpu", namespace, requests=gpu, limits={"nvidia.com/gpu": "1"}))
    with pytest.raises(Forbidden) as refused:
        target.apply(_pod("gpu-2", namespace, requests=gpu, limits={"nvidia.com/gpu": "1"}))
    assert "requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=1, limited: requests.nvidia.com/gpu=1" in str(refused.value)
    _wait_used(target, namespace, {"requests.cpu": "700m", "pods": "2", "requests.nvidia.com/gpu": "1"})


def test_a_quota_on_limits_forbids_pods_that_do_not_set_them(target: Target, namespace: str) -> None:
    """A quota tracking ``limits.memory`` MUST refuse a pod with a container lacking a
    memory limit ("failed quota: <quota>: must specify limits.memory for: <container>")."""
    _ready(target, namespace, _quota(namespace, {"limits.memory": "1Gi"}))
    with pytest.raises(Forbidden) as refused:
        target.apply(_pod("no-limit", namespace, requests={"memory": "64Mi"}))
    assert "failed quota: quota: must specify limits.memory for: c0" in str(refused.value)
    target.apply(_pod("limited", namespace, limits={"memory": "128Mi"}))
    _wait_used(target, namespace, {"limits.memory": "128Mi"})


def test_deleting_a_pod_gives_its_usage_back(target: Target, namespace: str) -> None:
    """Once a pod is deleted the controller MUST lower ``used`` by what it consumed, and
    a pod refused for want of room MUST then be admitted."""
    _ready(target, namespace, _quota(namespace, {"pods": "1", "requests.memory": "1Gi"}))
    target.apply(_pod("holder", namespace, requests={"memory": "768Mi"}))
    with pytest.raises(Forbidden):
        target.apply(_pod("waiting", namespace, requests={"memory": "512Mi"}))
    target.delete("v1", "Pod", "holder", namespace)
    _wait_used(target, namespace, {"pods": "0", "requests.memory": "0"})
    _admitted_eventually(target, _pod("waiting", namespace, requests={"memory": "512Mi"}))
    _wait_used_recounting(target, namespace, {"pods": "1", "requests.memory": "512Mi"}, "requests.memory")


def test_resource_claims_are_counted_and_their_devices_charged_per_class(
    target: Target, namespace: str
) -> None:
    """A quota MUST count ResourceClaims (``count/resourceclaims.resource.k8s.io``) and the
    devices they request of a DeviceClass (``<class>.deviceclass.resource.k8s.io/devices``):
    a claim whose devices would pass the class limit MUST be Forbidden; deleting a claim
    MUST give its devices back."""
    _ready(target, namespace, _quota(namespace, {CLAIMS: "3", GPU_DEVICES: "4"}))
    target.apply(_claim("pair", namespace, 1, 2))
    _wait_used(target, namespace, {CLAIMS: "1", GPU_DEVICES: "3"})
    with pytest.raises(Forbidden) as refused:
        target.apply(_claim("too-many", namespace, 2))
    assert f"exceeded quota: quota, requested: {GPU_DEVICES}=2, used: {GPU_DEVICES}=3, limited: {GPU_DEVICES}=4" in str(refused.value)
    target.apply(_claim("one", namespace, 1))
    _wait_used(target, namespace, {CLAIMS: "2", GPU_DEVICES: "4"})
    target.delete("resource.k8s.io/v1", "ResourceClaim", "pair", namespace)
    _wait_used(target, namespace, {CLAIMS: "1", GPU_DEVICES: "1"})
    _admitted_eventually(target, _claim("too-many", namespace, 2))
    _wait_used_recounting(target, namespace, {CLAIMS: "2", GPU_DEVICES: "3"}, CLAIMS)


def test_a_best_effort_scope_counts_only_best_effort_pods(target: Target, namespace: str) -> None:
    """A quota scoped ``BestEffort`` MUST count only pods without requests or limits, and
    one scoped ``NotBestEffort`` only the others."""
    _ready(target, namespace, _quota(namespace, {"pods": "1"}, name="best-effort", scopes=["BestEffort"]))
    _ready(target, namespace, _quota(namespace, {"pods": "2"}, name="burstable", scopes=["NotBestEffort"]))
    target.apply(_pod("be", namespace))
    with pytest.raises(Forbidden) as refused:
        target.apply(_pod("be-2", namespace))
    assert "exceeded quota: best-effort" in str(refused.value)
    target.apply(_pod("bu", namespace, requests={"cpu": "100m"}))
    target.apply(_pod("bu-2", namespace, requests={"memory": "10Mi"}))
    _wait_used(target, namespace, {"pods": "1"}, name="best-effort")
    _wait_used(target, namespace, {"pods": "2"}, name="burstable")


def _service(name: str, namespace: str, type_: str = "ClusterIP") -> Obj:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace},
            "spec": {"type": type_, "ports": [{"port": 80}], "selector": {"app": name}}}  # fmt: skip


def test_an_update_is_charged_only_what_it_adds(target: Target, namespace: str) -> None:
    """An update MUST be charged the difference from the stored object only: relabelling a
    Service in a namespace at its ``services`` limit MUST be admitted, and turning a
    ClusterIP Service into a NodePort one MUST be Forbidden for ``services.nodeports``
    alone when that is at its limit."""
    _ready(target, namespace, _quota(namespace, {"services": "2", "services.nodeports": "1"}))
    target.apply(_service("edge", namespace, "NodePort"))
    target.apply(_service("inner", namespace))
    _wait_used(target, namespace, {"services": "2", "services.nodeports": "1"})

    def relabel() -> bool:
        svc = target.get("v1", "Service", "inner", namespace)
        svc["metadata"].setdefault("labels", {})["tier"] = "backend"
        target.apply(svc)
        return True

    target.wait_until(relabel, timeout=30, what="inner relabelled")
    svc = target.get("v1", "Service", "inner", namespace)
    svc["spec"]["type"] = "NodePort"
    with pytest.raises(Forbidden) as refused:
        target.apply(svc)
    assert (
        "exceeded quota: quota, requested: services.nodeports=1, used: services.nodeports=1, "
        "limited: services.nodeports=1"
    ) in str(refused.value)
    _wait_used(target, namespace, {"services": "2", "services.nodeports": "1"})

"""The ResourceClaim evaluator, after upstream's ``resource_claims_test.go``:
TestResourceClaimEvaluatorUsage (device counts, prioritized lists, and the
DRAExtendedResource names less the owning pod's usage), MatchingResources and Handles."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conftest import MakeEnv
from reference_impl.apiserver.quota import resources as r
from reference_impl.apiserver.quota.resource_claims import ResourceClaimEvaluator
from reference_impl.apiserver.quota.types import UsageStatsOptions
from reference_impl.apiserver.registry import Operation

Obj = dict[str, Any]
DRA = "resource.k8s.io/v1"
COUNT = "count/resourceclaims.resource.k8s.io"
GPU_DEV, TPU_DEV = (
    "gpu.deviceclass.resource.k8s.io/devices",
    "tpu.deviceclass.resource.k8s.io/devices",
)
IMPL_GPU = "requests.deviceclass.resource.kubernetes.io/gpu"
IMPL_TPU = "requests.deviceclass.resource.kubernetes.io/tpu"
EXT_GPU = "requests.example.com/gpu"
DC_GPU = "deviceclass.resource.kubernetes.io/gpu"


def exactly(name: str, cls: str = "gpu", mode: str = "ExactCount", count: int = 1) -> Obj:
    return {
        "name": name,
        "exactly": {"deviceClassName": cls, "allocationMode": mode, "count": count},
    }


def sub(name: str, cls: str = "gpu", mode: str = "ExactCount", count: int = 1) -> Obj:
    return {"name": name, "deviceClassName": cls, "allocationMode": mode, "count": count}


def claim(requests: list[Obj], name: str = "foo", pod_name: str = "") -> Obj:
    """``testResourceClaim``: an extended-resource claim when ``pod_name`` is set."""
    meta: Obj = {"name": name, "namespace": "ns"}
    if pod_name:
        meta["annotations"] = {"resource.kubernetes.io/extended-resource-claim": "true"}
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                                    "uid": "uid", "controller": True}]  # fmt: skip
    return {"apiVersion": DRA, "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": requests}}}  # fmt: skip


def test_pod(name: str, init: list[Obj], containers: list[Obj], status_claim: str | None) -> Obj:
    status = (
        {"extendedResourceClaimStatus": {"resourceClaimName": status_claim}} if status_claim else {}
    )
    wrap = [
        {
            "name": c.get("name", ""),
            "resources": {"requests": {k: v for k, v in c.items() if k != "name"}},
        }
        for c in [*init, *containers]
    ]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": "ns", "name": name, "uid": "uid"},
            "spec": {"initContainers": wrap[: len(init)], "containers": wrap[len(init) :]},
            "status": status}  # fmt: skip


test_pod.__test__ = False  # type: ignore[attr-defined]  # a builder, not a test

BOTH = {"example.com/gpu": "1", DC_GPU: "1"}
PODS = [
    test_pod("pod-implicit", [], [{DC_GPU: "1"}], "foo"),
    test_pod("pod-explicit", [{"example.com/gpu": "1"}], [], "foo"),
    test_pod("pod-hybrid", [dict(BOTH)], [dict(BOTH)], "foo"),
    test_pod("pod-nil-status", [{"example.com/gpu": "1"}], [{DC_GPU: "1"}], None),
    test_pod("pod-init", [{"name": "init-container-1", **BOTH}, {"name": "init-container-2", **BOTH}],
             [{"name": "container-1", **BOTH}], "foo"),
]  # fmt: skip
DEVICE_CLASS = {"apiVersion": DRA, "kind": "DeviceClass", "metadata": {"name": "gpu"},
                "spec": {"extendedResourceName": "example.com/gpu"}}  # fmt: skip

VALID = claim([exactly("req-0")])
PRIORITIZED = claim([{"name": "req-0", "firstAvailable": [sub("subreq-0")]}])
NIL_STATUS = claim(
    [exactly("request-0"), exactly("container-1-request-0")], "foo-copy", "pod-nil-status"
)
NIL_STATUS_STORED = claim(
    [exactly("request-0"), exactly("container-1-request-0")], "foo", "pod-nil-status"
)


def edit(base: Obj, fn: Any) -> Obj:
    c = copy.deepcopy(base)
    fn(c["spec"]["devices"]["requests"])
    return c


@pytest.mark.parametrize(("mapped", "c", "others", "usage"), [
    pytest.param(True, claim([exactly("container-0-request-0")], pod_name="pod-implicit"), [],
                 {COUNT: "1", GPU_DEV: "1", EXT_GPU: "1"}, id="implicit-extended-resource-claim"),
    pytest.param(True, claim([exactly("container-0-request-0")], pod_name="pod-explicit"), [],
                 {COUNT: "1", GPU_DEV: "1", IMPL_GPU: "1"}, id="explicit-extended-resource-claim"),
    pytest.param(True, claim([exactly("container-1-request-0"), exactly("container-1-request-1")],
                             pod_name="pod-hybrid"), [],
                 {COUNT: "1", GPU_DEV: "2", IMPL_GPU: "1", EXT_GPU: "1"},
                 id="hybrid-extended-resource-claim"),
    pytest.param(True, NIL_STATUS, [], {COUNT: "1", GPU_DEV: "2", IMPL_GPU: "1", EXT_GPU: "1"},
                 id="nil-status-extended-resource-claim"),
    pytest.param(True, NIL_STATUS, [NIL_STATUS_STORED],
                 {COUNT: "1", GPU_DEV: "2", IMPL_GPU: "2", EXT_GPU: "2"},
                 id="nil-status-two-extended-resource-claims"),
    pytest.param(True, claim([exactly("container-2-request-0"), exactly("container-2-request-1")],
                             pod_name="pod-init"), [],
                 {COUNT: "1", GPU_DEV: "2", IMPL_GPU: "1", EXT_GPU: "1"},
                 id="init-extended-resource-claim"),
    pytest.param(False, VALID, [], {COUNT: "1", GPU_DEV: "1", IMPL_GPU: "1"}, id="simple"),
    pytest.param(False, edit(VALID, lambda rs: rs.extend([rs[0]] * 4)), [],
                 {COUNT: "1", GPU_DEV: "5", IMPL_GPU: "5"}, id="many-requests"),
    pytest.param(False, edit(VALID, lambda rs: rs[0]["exactly"].update(count=5)), [],
                 {COUNT: "1", GPU_DEV: "5", IMPL_GPU: "5"}, id="count"),
    pytest.param(False, edit(VALID, lambda rs: rs[0]["exactly"].update(allocationMode="All")), [],
                 {COUNT: "1", GPU_DEV: "32", IMPL_GPU: "32"}, id="all"),
    pytest.param(False, edit(VALID, lambda rs: rs[0]["exactly"].update(allocationMode="future-mode")),
                 [], {COUNT: "1", GPU_DEV: "0"}, id="unknown-count-mode"),
    pytest.param(False, edit(VALID, lambda rs: rs[0]["exactly"].update(adminAccess=True)), [],
                 {COUNT: "1", GPU_DEV: "1", IMPL_GPU: "1"}, id="admin"),
    pytest.param(False, PRIORITIZED, [], {COUNT: "1", GPU_DEV: "1", IMPL_GPU: "1"},
                 id="prioritized-list"),
    pytest.param(False, edit(PRIORITIZED, lambda rs: (rs[0]["firstAvailable"][0].update(count=2),
                                                      rs[0]["firstAvailable"].append(sub("subreq-1")))),
                 [], {COUNT: "1", GPU_DEV: "2", IMPL_GPU: "2"},
                 id="prioritized-list-multiple-subrequests"),
    pytest.param(False, edit(PRIORITIZED, lambda rs: rs[0]["firstAvailable"].append(
                     sub("subreq-1", mode="All", count=0))), [],
                 {COUNT: "1", GPU_DEV: "32", IMPL_GPU: "32"},
                 id="prioritized-list-multiple-subrequests-allocation-mode-all"),
    pytest.param(False, edit(PRIORITIZED, lambda rs: rs[0]["firstAvailable"].append(
                     sub("subreq-1", "tpu", "All", 0))), [],
                 {COUNT: "1", GPU_DEV: "1", IMPL_GPU: "1", TPU_DEV: "32", IMPL_TPU: "32"},
                 id="prioritized-list-multiple-subrequests-different-device-classes"),
])  # fmt: skip
def test_usage(
    make_env: MakeEnv, mapped: bool, c: Obj, others: list[Obj], usage: dict[str, str]
) -> None:
    """``mapped``: upstream's evaluator with the DeviceClass cache and pod lister; the
    others run with no DeviceClass stored."""
    objs = [*PODS, DEVICE_CLASS, *others] if mapped else list(others)
    got = ResourceClaimEvaluator(make_env(objs)).usage(c)
    assert r.to_wire(got) == r.to_wire(r.from_wire(usage))


def test_usage_not_exempted_when_pod_uid_differs(make_env: MakeEnv) -> None:
    pod = copy.deepcopy(PODS[0])
    pod["metadata"]["uid"] = "other"
    c = claim([exactly("container-0-request-0")], pod_name="pod-implicit")
    got = ResourceClaimEvaluator(make_env([pod, DEVICE_CLASS])).usage(c)
    assert r.to_wire(got) == {COUNT: "1", GPU_DEV: "1", IMPL_GPU: "1", EXT_GPU: "1"}


def test_usage_stats(make_env: MakeEnv) -> None:
    objs = [VALID, edit(claim([exactly("a")], "bar"), lambda rs: rs[0]["exactly"].update(count=2))]
    ev = ResourceClaimEvaluator(make_env(objs))
    got = ev.usage_stats(UsageStatsOptions("ns", [], [COUNT, GPU_DEV, TPU_DEV]))
    assert r.to_wire(got) == {COUNT: "2", GPU_DEV: "3", IMPL_GPU: "3", TPU_DEV: "0"}


@pytest.mark.parametrize(("items", "want"), [
    (["count/resourceclaims.resource.k8s.io", GPU_DEV, EXT_GPU, IMPL_GPU],
     ["count/resourceclaims.resource.k8s.io", GPU_DEV, EXT_GPU, IMPL_GPU]),  # supported-resources
    (["resourceclaims", "storage", "ephemeral-storage", "bronze.deviceclass.resource.k8s.io/storage",
      "gpu.storage.k8s.io/requests.storage"], []),  # unsupported-resources
    (["requests.other.com/gpu", "requests.deviceclass.resource.kubernetes.io/tpu"], []),  # no class
])  # fmt: skip
def test_matching_resources(make_env: MakeEnv, items: list[str], want: list[str]) -> None:
    assert ResourceClaimEvaluator(make_env([DEVICE_CLASS])).matching_resources(items) == want


@pytest.mark.parametrize(("op", "sub_", "want"), [
    (Operation.CREATE, "", True), (Operation.UPDATE, "", True), (Operation.DELETE, "", False),
    (Operation.CREATE, "subresource", False), (Operation.UPDATE, "subresource", False),
])  # fmt: skip
def test_handles(make_env: MakeEnv, op: Operation, sub_: str, want: bool) -> None:
    assert ResourceClaimEvaluator(make_env()).handles(op, sub_, VALID, None) is want

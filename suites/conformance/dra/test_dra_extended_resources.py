"""DRA-EXT: extended resources (``example.com/gpu: 2``) backed by a DeviceClass."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, Target
from reference_impl.api import (
    DRA_API,
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    condition,
    make_pool_pod,
)
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5004")]
Obj = dict[str, Any]
DRIVER = "ext.garhwal.dev"


class Env(DraEnv):
    """Private nodes, a driver pool of GPUs and DeviceClasses serving one extended resource."""

    def __init__(self, target: Target, ns: str) -> None:
        super().__init__(target, ns, "dra-ext", DRIVER)
        self.resource = f"{ns}.garhwal.dev/gpu"  # unique per test: classes are cluster-scoped

    def gpu_node(self, suffix: str, gpus: int = 0, advertised: str | None = None) -> str:
        name = self.node(suffix, {self.resource: advertised} if advertised else None)
        if gpus:
            self.fake.publish([name], gpus=gpus)
        return name

    def gpu_class(self, suffix: str, index: int | None = None, explicit: bool = True) -> str:
        """A class for the driver's devices; ``explicit``: naming ``self.resource``."""
        sel = () if index is None else (f'device.attributes["{DRIVER}"].index == {index}',)
        return self.device_class(suffix, *sel, extended_resource=self.resource if explicit else None)

    def ext_pod(self, name: str, *per_container: int, node: str | None = None, resource: str = "") -> None:
        """A pool pod whose containers request (and limit) ``per_container`` of the
        resource (``self.resource`` unless another is named)."""
        pod = make_pool_pod(name, self.ns, cpu="100m")
        if node:
            pod = pod.node_selector(**{"kubernetes.io/hostname": node})
        for i in range(1, len(per_container)):
            pod = pod.container(f"c{i}")
        obj = pod.build()
        for c, n in zip(obj["spec"]["containers"], per_container, strict=True):
            res = c.setdefault("resources", {})
            res.setdefault("requests", {})[resource or self.resource] = str(n)
            res.setdefault("limits", {})[resource or self.resource] = str(n)
        self.target.apply(obj)

    def get_pod(self, name: str) -> Obj:
        return self.target.get("v1", "Pod", name, self.ns)

    def ext_status(self, name: str) -> Obj | None:
        status: Obj | None = (self.get_pod(name).get("status") or {}).get("extendedResourceClaimStatus")
        return status

    def ext_claim(self, name: str) -> Obj:
        status = self.ext_status(name)
        assert status is not None, f"pod {name} has no extendedResourceClaimStatus"
        return self.claim(status["resourceClaimName"])

    def claims(self) -> list[Obj]:
        return self.target.list(DRA_API, "ResourceClaim", self.ns)


@pytest.fixture
def env(target: Target, namespace: str) -> Iterator[Env]:
    """Private nodes and classes for one test; removed afterwards."""
    with Env(target, namespace) as e:
        yield e


def _bound_with_status(target: Target, env: Env, name: str) -> None:
    target.wait_until(lambda: env.bound(name) and env.ext_status(name) is not None,
                      timeout=60, what=f"pod {name} bound with extendedResourceClaimStatus")


def test_extended_resource_request_is_served_through_a_special_claim(target: Target, env: Env) -> None:
    """DRA-EXT, special claim.

    A pod requesting 2 of an extended resource that no node advertises but a DeviceClass
    names in extendedResourceName MUST be scheduled onto a node with matching devices; the
    scheduler MUST create a claim named <pod>-extended-resources-<suffix>, owned by the pod
    (controller) and annotated resource.kubernetes.io/extended-resource-claim="true", with
    one ExactCount request of 2 from that class, allocated and reserved for the pod, and
    MUST record it in pod.status.extendedResourceClaimStatus with its request mapping.
    """
    node = env.gpu_node("dra", gpus=4)
    cls = env.gpu_class("gpu")
    env.ext_pod("p", 2)
    _bound_with_status(target, env, "p")
    pod = env.get_pod("p")
    assert pod["spec"]["nodeName"] == node
    claim = env.ext_claim("p")
    assert claim["metadata"]["name"].startswith("p-extended-resources-")
    assert claim["metadata"]["annotations"][EXTENDED_RESOURCE_CLAIM_ANNOTATION] == "true"
    (owner,) = claim["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == ("Pod", "p", pod["metadata"]["uid"], True)
    # The container requests cpu and the resource; sorted, the resource is request #1.
    (req,) = claim["spec"]["devices"]["requests"]
    assert req == {"name": "container-0-request-1",
                   "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": 2}}
    results = claim["status"]["allocation"]["devices"]["results"]
    assert len(results) == 2 and {r["request"] for r in results} == {"container-0-request-1"}
    assert {r["pool"] for r in results} == {node}
    assert [r["uid"] for r in claim["status"]["reservedFor"]] == [pod["metadata"]["uid"]]
    assert env.ext_status("p") == {
        "resourceClaimName": claim["metadata"]["name"],
        "requestMappings": [{"containerName": "main", "resourceName": env.resource,
                             "requestName": "container-0-request-1"}],
    }


def test_each_container_gets_its_own_request(target: Target, env: Env) -> None:
    """DRA-EXT, request mappings.

    With two containers requesting 1 each, the special claim MUST have one request per
    container (container-<i>-request-<j>) and requestMappings MUST map each container to
    its request.
    """
    env.gpu_node("dra", gpus=4)
    env.gpu_class("gpu")
    env.ext_pod("p", 1, 1)
    _bound_with_status(target, env, "p")
    claim = env.ext_claim("p")
    names = [r["name"] for r in claim["spec"]["devices"]["requests"]]
    assert names == ["container-0-request-1", "container-1-request-0"]
    assert len(claim["status"]["allocation"]["devices"]["results"]) == 2
    mappings = env.ext_status("p")["requestMappings"]  # type: ignore[index]
    assert sorted((m["containerName"], m["requestName"]) for m in mappings) == [
        ("c1", "container-1-request-0"), ("main", "container-0-request-1")]


def test_newest_device_class_wins(target: Target, env: Env) -> None:
    """DRA-EXT, class choice.

    When two DeviceClasses name the same extendedResourceName, a pod scheduled after both
    exist MUST be served by the one created later, even when its name sorts after the other.
    """
    env.gpu_node("dra", gpus=4)
    older = target.get(DRA_API, "DeviceClass", env.gpu_class("a"))
    env.ext_pod("first", 1)
    target.wait_until(lambda: (env.get_pod("first").get("status") or {}).get("phase") == "Running",
                      timeout=60, what="first pod running")
    newer = target.get(DRA_API, "DeviceClass", env.gpu_class("b"))
    assert newer["metadata"]["creationTimestamp"] > older["metadata"]["creationTimestamp"]
    assert env.ext_claim("first")["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == older["metadata"]["name"]
    env.ext_pod("second", 1)
    _bound_with_status(target, env, "second")
    served = env.ext_claim("second")["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"]
    assert served == newer["metadata"]["name"]


def test_device_plugin_allocatable_keeps_working_side_by_side(target: Target, env: Env) -> None:
    """DRA-EXT, device plugin side by side.

    On a node advertising the extended resource as allocatable, a pod requesting it MUST be
    placed by node allocatable alone (no special claim, no extendedResourceClaimStatus), a
    request above that allocatable MUST stay Pending, while on a node without it the same
    resource MUST still be served through DRA.
    """
    plugin = env.gpu_node("dp", advertised="4")
    dra = env.gpu_node("dra", gpus=2)
    env.gpu_class("gpu")
    env.ext_pod("dp", 2, node=plugin)
    env.ext_pod("toobig", 8, node=plugin)
    env.ext_pod("viadra", 2, node=dra)
    target.wait_until(lambda: env.bound("dp"), timeout=60, what="device-plugin pod bound")
    _bound_with_status(target, env, "viadra")
    assert env.ext_status("dp") is None
    target.wait_until(
        lambda: (condition(env.get_pod("toobig"), "PodScheduled") or {}).get("status") == "False",
        timeout=60, what="oversized pod unschedulable")
    assert not env.bound("toobig")
    owners = {r["name"] for c in env.claims() for r in c["metadata"].get("ownerReferences") or ()}
    assert owners == {"viadra"}


def test_too_few_devices_leave_the_pod_pending_without_a_claim(target: Target, env: Env) -> None:
    """DRA-EXT, cannot allocate.

    A pod asking for more devices than any node has MUST stay Pending with
    PodScheduled=False, and no special claim MUST be written for it.
    """
    env.gpu_node("dra", gpus=2)
    env.gpu_class("gpu")
    env.ext_pod("p", 3)
    target.wait_until(
        lambda: (condition(env.get_pod("p"), "PodScheduled") or {}).get("status") == "False",
        timeout=60, what="pod unschedulable")
    assert not env.bound("p")
    assert env.ext_status("p") is None
    assert env.claims() == []


def test_special_claim_is_deleted_with_its_pod(target: Target, env: Env) -> None:
    """DRA-EXT, ownership.

    Deleting the pod MUST garbage-collect its special claim, freeing the devices for the
    next pod asking for the same extended resource.
    """
    env.gpu_node("dra", gpus=2)
    env.gpu_class("gpu")
    env.ext_pod("p", 2)
    _bound_with_status(target, env, "p")
    name = env.ext_claim("p")["metadata"]["name"]
    env.ext_pod("next", 2)
    target.delete("v1", "Pod", "p", env.ns)

    def claim_gone() -> bool:
        try:
            target.get(DRA_API, "ResourceClaim", name, env.ns)
        except NotFound:
            return True
        return False

    target.wait_until(claim_gone, timeout=90, what="special claim garbage-collected")
    _bound_with_status(target, env, "next")


IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


def _unschedulable_message(env: Env, name: str) -> str:
    cond = condition(env.get_pod(name), "PodScheduled") or {}
    return str(cond.get("message", "")) if cond.get("status") == "False" else ""


@pytest.mark.parametrize("explicit", [False, True], ids=["no-extendedResourceName", "with-extendedResourceName"])
def test_implicit_device_class_resource_name_is_served(
    target: Target, env: Env, explicit: bool
) -> None:
    """DRA-EXT, implicit extended resource name.

    A pod requesting ``deviceclass.resource.kubernetes.io/<class>: 1`` MUST be scheduled
    onto a node with a device of that class, through a special claim with one request of
    1 from that class, whether or not the class sets an extendedResourceName; the
    requestMappings MUST name the implicit resource.
    """
    node = env.gpu_node("dra", gpus=2)
    cls = env.gpu_class("gpu", explicit=explicit)
    implicit = f"{IMPLICIT_PREFIX}{cls}"
    env.ext_pod("p", 1, resource=implicit)
    _bound_with_status(target, env, "p")
    assert env.get_pod("p")["spec"]["nodeName"] == node
    claim = env.ext_claim("p")
    (req,) = claim["spec"]["devices"]["requests"]
    assert req["exactly"] == {"deviceClassName": cls, "allocationMode": "ExactCount", "count": 1}
    (result,) = claim["status"]["allocation"]["devices"]["results"]
    assert result["pool"] == node
    assert env.ext_status("p")["requestMappings"] == [  # type: ignore[index]
        {"containerName": "main", "resourceName": implicit, "requestName": req["name"]}]


def test_implicit_name_of_a_missing_class_is_insufficient_and_not_preemptible(
    target: Target, env: Env
) -> None:
    """DRA-EXT, implicit name without a class.

    A pod requesting ``deviceclass.resource.kubernetes.io/<name>`` for which no DeviceClass
    exists MUST stay Pending; its message MUST report the node as "Insufficient" that
    resource and end with "Preemption is not helpful for scheduling." (no node has any
    of it, so no victim could make room).
    """
    env.gpu_node("dra", gpus=2)
    env.gpu_class("gpu")
    missing = f"{IMPLICIT_PREFIX}dra-ext-{env.ns}-none"
    env.ext_pod("p", 1, resource=missing)
    # Until the new node is Ready its not-ready taint may be the reason; then Insufficient.
    target.wait_until(lambda: f"1 Insufficient {missing}" in _unschedulable_message(env, "p"),
                      timeout=60, what="pod unschedulable for the missing resource")
    msg = _unschedulable_message(env, "p")
    assert f"1 Insufficient {missing}" in msg, msg
    assert msg.endswith("Preemption is not helpful for scheduling."), msg
    assert env.claims() == []

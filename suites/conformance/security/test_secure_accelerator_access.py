"""Secure accelerator access (AI conformance ``secure_accelerator_access``, a MUST).

Upstream ``TestSecureAcceleratorAccess`` as three checks: a container that references a
claim sees exactly its allocated accelerator (PositiveAccessTest), a pod without a claim
sees none while another pod holds one on the same node (NegativeIsolationTest), and in a
two-container pod only the container that references the claim sees it
(MultiContainerIsolationTest).

The accelerators are garhwal's DRA driver's fake GPUs on a real node (tools/dradriver, a
kubelet plugin): it prepares a claim as a CDI spec with an env var ``GARHWAL_GPU_<index>``
(the device's uuid) and a device node ``/dev/garhwal-gpu<index>`` per allocated GPU, which
containerd injects into the containers the kubelet names. What each container got is read
from its own process on the node (``container_devices``), not from the API. This proves the
kubelet/DRA/CDI/containerd isolation path, not a vendor's GPU driver.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import KUBELET_DRA_DRIVER, Capability, Target, allocated_devices, container_devices
from reference_impl.api import make_device_class, make_pod, make_resource_claim
from reference_impl.errors import NotFound

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-4381"),
    pytest.mark.requires(Capability.KUBELET, Capability.DRA_KUBELET_PLUGIN),
]

DRA = "resource.k8s.io/v1"
CLASS = "garhwal-secure-access-gpu"
ENV_PREFIX, DEV_PREFIX = "GARHWAL_GPU_", "garhwal-gpu"
WAIT_S = 60


@pytest.fixture
def gpu_class(target: Target, request: pytest.FixtureRequest) -> Iterator[str]:
    """A DeviceClass of the kubelet plugin's GPUs (cluster-scoped: deleted after). Each test
    that takes it is ``secure_accelerator_access`` evidence."""
    request.node.user_properties.append(("ai_requirement", "secure_accelerator_access"))
    expr = f'device.driver == "{KUBELET_DRA_DRIVER}"'
    target.apply(make_device_class(CLASS).selector(expr).build())
    yield CLASS
    try:
        target.delete(DRA, "DeviceClass", CLASS)
    except NotFound:
        pass


def _running(target: Target, namespace: str, name: str) -> dict[str, Any]:
    def running() -> bool:
        return target.get("v1", "Pod", name, namespace).get("status", {}).get("phase") == "Running"

    target.wait_until(running, timeout=WAIT_S, what=f"pod {name} Running")
    return target.get("v1", "Pod", name, namespace)


def _claim(target: Target, namespace: str, name: str) -> None:
    target.apply(make_resource_claim(name, namespace).request("gpu", CLASS).build())


def _allocated(target: Target, namespace: str, claim: str, node: str) -> tuple[dict[str, str], set[str]]:
    """The env and /dev entries the claim's allocated GPUs must give: from the claim's
    allocation and the node's ResourceSlice (index and uuid attributes)."""
    devices = allocated_devices(target, namespace, claim, node)
    env = {f"{ENV_PREFIX}{d['attributes']['index']['int']}": d["attributes"]["uuid"]["string"] for d in devices}
    dev = {f"{DEV_PREFIX}{d['attributes']['index']['int']}" for d in devices}
    return env, dev


def _sight(target: Target, namespace: str, pod: str, container: str) -> tuple[dict[str, str], set[str]]:
    """The GPU env vars and /dev entries the running container has."""
    seen = container_devices(target).container_sight(pod, namespace, container)
    env = {k: v for k, v in seen.env.items() if k.startswith(ENV_PREFIX)}
    return env, {d for d in seen.dev if d.startswith(DEV_PREFIX)}


def test_a_claiming_container_sees_exactly_its_allocated_gpu(
    target: Target, namespace: str, gpu_class: str
) -> None:
    """PositiveAccessTest.

    A container that references an allocated claim MUST get that claim's device (its env
    var and device node) and no other device of the node.
    """
    _claim(target, namespace, "one-gpu")
    target.apply(make_pod("claimant", namespace).claim("gpu", claim="one-gpu").build())
    pod = _running(target, namespace, "claimant")
    want = _allocated(target, namespace, "one-gpu", pod["spec"]["nodeName"])
    assert _sight(target, namespace, "claimant", pod["spec"]["containers"][0]["name"]) == want


def test_a_pod_without_a_claim_sees_no_gpu(target: Target, namespace: str, gpu_class: str) -> None:
    """NegativeIsolationTest.

    A pod that references no claim MUST see no accelerator, even on the node where
    another pod's claim has a device prepared at the same time.
    """
    _claim(target, namespace, "held")
    target.apply(make_pod("holder", namespace).claim("gpu", claim="held").build())
    holder = _running(target, namespace, "holder")
    target.apply(make_pod("bystander", namespace).build())
    bystander = _running(target, namespace, "bystander")
    assert bystander["spec"]["nodeName"] == holder["spec"]["nodeName"]
    held = _allocated(target, namespace, "held", holder["spec"]["nodeName"])
    assert _sight(target, namespace, "holder", holder["spec"]["containers"][0]["name"]) == held
    assert _sight(target, namespace, "bystander", bystander["spec"]["containers"][0]["name"]) == ({}, set())


def test_only_the_container_referencing_the_claim_sees_it(
    target: Target, namespace: str, gpu_class: str
) -> None:
    """MultiContainerIsolationTest.

    In a pod whose claim only its first container references, that container MUST see
    the device and the second container MUST NOT.
    """
    _claim(target, namespace, "shared-pod-gpu")
    target.apply(make_pod("two", namespace).claim("gpu", claim="shared-pod-gpu").container("plain").build())
    pod = _running(target, namespace, "two")
    first, second = (c["name"] for c in pod["spec"]["containers"])
    assert second == "plain"
    want = _allocated(target, namespace, "shared-pod-gpu", pod["spec"]["nodeName"])
    assert _sight(target, namespace, "two", first) == want
    assert _sight(target, namespace, "two", second) == ({}, set())

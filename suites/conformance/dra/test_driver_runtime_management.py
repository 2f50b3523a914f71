"""Accelerator driver and runtime management (AI conformance ``driver_runtime_management``,
a SHOULD).

Upstream ``TestAcceleratorDriverRuntimeManagement``: the driver and runtime versions are
published (DRA attributes such as NVIDIA's ``driverVersion`` and ``cudaDriverVersion``) and
match what a pod finds, and an ``nvidia-smi`` run in a plain image proves the runtime
injects the driver stack into a container given a GPU.

Here the GPUs are a DRA kubelet plugin's on a real node; the pod runs the GPU exporter
image's ``smi`` mode (NVIDIA's go-nvml, no NVML library in the image), which reports
through the container's termination message what NVML showed it: the driver and CUDA
versions and the GPUs it can see.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest

from fixtures import KUBELET_DRA_DRIVER, Capability, Target, allocated_devices
from reference_impl.api import make_device_class, make_pod, make_resource_claim
from reference_impl.errors import NotFound

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-4381"),
    pytest.mark.requires(Capability.KUBELET, Capability.DRA_KUBELET_PLUGIN),
]

DRA: Final = "resource.k8s.io/v1"
CLASS: Final = "garhwal-driver-runtime-gpu"
SMI_IMAGE: Final = "garhwal.dev/gpu-exporter:v1"  # tools/gpuexporter: `smi` mode
WAIT_S: Final = 60


@pytest.fixture
def gpu_class(target: Target, request: pytest.FixtureRequest) -> Iterator[str]:
    request.node.user_properties.append(("ai_requirement", "driver_runtime_management"))
    target.apply(make_device_class(CLASS).selector(f'device.driver == "{KUBELET_DRA_DRIVER}"').build())
    yield CLASS
    try:
        target.delete(DRA, "DeviceClass", CLASS)
    except NotFound:
        pass


def _smi_pod(name: str, namespace: str, claim: str | None) -> dict[str, Any]:
    b = make_pod(name, namespace).image(SMI_IMAGE)
    if claim:
        b = b.claim("gpu", claim=claim)
    pod = b.build()
    pod["spec"]["restartPolicy"] = "Never"
    pod["spec"]["containers"][0]["args"] = ["smi"]
    return pod


def _report(target: Target, namespace: str, name: str) -> tuple[int, dict[str, str], list[dict[str, str]]]:
    """The finished container's exit code, its key=value lines and its GPU lines."""

    def finished() -> bool:
        statuses = target.get("v1", "Pod", name, namespace).get("status", {}).get("containerStatuses") or []
        return bool(statuses) and "terminated" in (statuses[0].get("state") or {})

    target.wait_until(finished, timeout=WAIT_S, what=f"{name} finished")
    done = target.get("v1", "Pod", name, namespace)["status"]["containerStatuses"][0]["state"]["terminated"]
    facts: dict[str, str] = {}
    gpus: list[dict[str, str]] = []
    for line in str(done.get("message", "")).splitlines():
        if line.startswith("gpu="):
            gpus.append(dict(f.split("=", 1) for f in line.split()))
        elif "=" in line:
            k, v = line.split("=", 1)
            facts[k] = v
    return int(done["exitCode"]), facts, gpus


def _semver(nvml_version: str) -> str:
    """NVML's 550.163.01 as a semantic version (550.163.1), as a DRA attribute holds it."""
    parts = [str(int(p)) for p in nvml_version.split(".")]
    return ".".join((parts + ["0", "0"])[:3])


def test_the_published_driver_and_cuda_versions_are_what_a_claiming_pod_finds(
    target: Target, namespace: str, gpu_class: str
) -> None:
    """Driver and runtime versions.

    A pod given one GPU through a claim MUST find, through NVML injected by the runtime
    (its image has none), the driver version and CUDA version the GPU's ResourceSlice
    publishes as ``driverVersion`` and ``cudaDriverVersion``, and exactly that GPU.
    """
    target.apply(make_resource_claim("one-gpu", namespace).request("gpu", gpu_class).build())
    target.apply(_smi_pod("smi", namespace, claim="one-gpu"))
    code, facts, gpus = _report(target, namespace, "smi")
    assert code == 0, f"smi failed in the claiming container: {facts}"
    node = target.get("v1", "Pod", "smi", namespace)["spec"]["nodeName"]
    (device,) = allocated_devices(target, namespace, "one-gpu", node)
    attrs = device["attributes"]
    assert _semver(facts["driver_version"]) == attrs["driverVersion"]["version"], (facts, attrs)
    assert f"{facts['cuda_version']}.0" == attrs["cudaDriverVersion"]["version"], (facts, attrs)
    assert [g["uuid"] for g in gpus] == [attrs["uuid"]["string"]], (gpus, attrs)


def test_a_pod_without_a_claim_finds_no_driver(target: Target, namespace: str, gpu_class: str) -> None:
    """Driver stack only where a GPU is given.

    The same image in a pod that references no claim MUST find no NVML library: the
    runtime injects the driver stack only into containers given a GPU.
    """
    target.apply(_smi_pod("plain", namespace, claim=None))
    code, facts, gpus = _report(target, namespace, "plain")
    assert code != 0 and not gpus, (code, facts, gpus)
    assert "LIBRARY_NOT_FOUND" in facts.get("error", ""), facts

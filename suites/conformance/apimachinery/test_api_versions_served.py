"""API machinery: beta and alpha group/versions are served only when --runtime-config enables them.

Since 1.24 new beta APIs are off by default (KEP-3136) and alpha APIs always were: a 1.37
kube-apiserver serves its stable group/versions and nothing else unless
``--runtime-config`` says so.
"""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import RESOURCES, ResourceInfo, served_versions
from reference_impl.api.runtime_config import APIResourceConfig
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance


def _probe(version: str, gates: dict[str, bool]) -> ResourceInfo | None:
    """A listable kind of ``version`` whose gates are on, or None."""
    kinds = sorted(
        (r for r in RESOURCES.values() if r.api_version == version and not r.virtual),
        key=lambda r: r.kind,
    )
    return next((r for r in kinds if all(gates.get(g, False) for g in r.gates)), None)


def _served(target: Target, info: ResourceInfo) -> bool:
    try:
        target.list(info.api_version, info.kind)
    except NotFound:
        return False
    return True


def test_only_the_versions_runtime_config_enables_are_served(
    target: Target, declared_runtime_config: dict[str, str] | None
) -> None:
    """API machinery, served versions.

    A 1.37 apiserver MUST serve every stable group/version and MUST NOT serve a beta or
    alpha one unless --runtime-config enables it: listing a kind of a version that is off
    MUST fail with NotFound.
    """
    if declared_runtime_config is None:
        pytest.skip(
            "the cluster's --runtime-config is unknown: pass garhwal --runtime-config=<the "
            "value its kube-apiserver runs with> to check what it serves"
        )
    expected = APIResourceConfig.from_overrides(declared_runtime_config)
    gates = dict(target.feature_gates)
    wrong, checked_off = [], []
    for version in served_versions():
        info = _probe(version, gates)
        if info is None:
            continue  # every kind of it is gated off: nothing tells on the version
        want = expected.resource_enabled(info)
        if _served(target, info) is not want:
            wrong.append(f"{version} ({info.kind}): {'not ' if want else ''}served")
        if not want:
            checked_off.append(version)
    assert not wrong, f"served versions differ from --runtime-config: {wrong}"
    assert checked_off, "no version was expected off: the check would pass on any cluster"


@pytest.mark.runtime_config("coordination.k8s.io/v1beta1=false")
def test_a_write_to_a_version_that_is_off_is_not_found_and_stores_nothing(
    target: Target, namespace: str
) -> None:
    """API machinery, served versions.

    A write in a group/version the apiserver does not serve MUST fail with NotFound
    naming that version, and MUST store nothing: the kind stays readable in no version.
    """
    candidate = {
        "apiVersion": "coordination.k8s.io/v1beta1",
        "kind": "LeaseCandidate",
        "metadata": {"name": "off", "namespace": namespace},
        "spec": {
            "leaseName": "garhwal-off",
            "binaryVersion": "1.37.2",
            "strategy": "OldestEmulationVersion",
        },
    }
    with pytest.raises(NotFound) as info:
        target.apply(candidate)
    assert "coordination.k8s.io/v1beta1" in str(info.value)
    with pytest.raises(NotFound):
        target.get("coordination.k8s.io/v1beta1", "LeaseCandidate", "off", namespace)


@pytest.mark.runtime_config("resource.k8s.io/v1beta2=true")
def test_an_enabled_beta_version_is_served_beside_the_stable_one(target: Target) -> None:
    """API machinery, served versions.

    With --runtime-config=resource.k8s.io/v1beta2=true the apiserver MUST serve
    resource.k8s.io/v1beta2 as well as resource.k8s.io/v1: both list DeviceClasses.
    """
    assert isinstance(target.list("resource.k8s.io/v1beta2", "DeviceClass"), list)
    assert isinstance(target.list("resource.k8s.io/v1", "DeviceClass"), list)

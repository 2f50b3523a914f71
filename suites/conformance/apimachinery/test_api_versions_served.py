"""API machinery: beta and alpha group/versions are served only when --runtime-config enables them.

Since 1.24 new beta APIs are off by default (KEP-3136) and alpha APIs always were: a 1.37
kube-apiserver serves its stable group/versions and nothing else unless
``--runtime-config`` says so.
"""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import (
    RESOURCES,
    ResourceInfo,
    ca_certificate_pem,
    make_ctb,
    served_versions,
)
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance

# What a stock v1.37.2 kube-apiserver leaves off (pkg/controlplane/instance.go, the beta and
# alpha lists of DefaultAPIResourceConfigSource): written out here, apart from the
# reference's own table, so the test cannot agree with itself.
STOCK_OFF = frozenset({
    "admissionregistration.k8s.io/v1beta1", "authentication.k8s.io/v1beta1",
    "certificates.k8s.io/v1beta1", "coordination.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3", "storagemigration.k8s.io/v1beta1",
    "storage.k8s.io/v1beta1", "networking.k8s.io/v1beta1", "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1beta2", "scheduling.k8s.io/v1beta1",
    "admissionregistration.k8s.io/v1alpha1", "internal.apiserver.k8s.io/v1alpha1",
    "authentication.k8s.io/v1alpha1", "coordination.k8s.io/v1alpha2",
    "certificates.k8s.io/v1alpha1", "lifecycle.k8s.io/v1alpha1", "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha3", "storage.k8s.io/v1alpha1",
})  # fmt: skip


def _expected_on(version: str, runtime_config: dict[str, str]) -> bool:
    """kube-apiserver's rule: an explicit group/version entry, else api/alpha|beta|all, else
    the stock default (stable on, the STOCK_OFF list off)."""
    if version in runtime_config:
        return runtime_config[version] == "true"
    stage = (
        "alpha" if "alpha" in version.rsplit("/", 1)[-1] else "beta" if "beta" in version else ""
    )
    for key in (f"api/{stage}" if stage else "", "api/all"):
        if key and key in runtime_config:
            return runtime_config[key] == "true"
    if stage:
        assert version in STOCK_OFF, f"{version} is not in the stock table: add it"
        return False
    return True


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
    gates = dict(target.feature_gates)
    wrong, checked_off = [], []
    for version in served_versions():
        info = _probe(version, gates)
        if info is None:
            continue  # every kind of it is gated off: nothing tells on the version
        want = _expected_on(version, declared_runtime_config)
        if _served(target, info) is not want:
            wrong.append(f"{version} ({info.kind}): {'not ' if want else ''}served")
        if not want:
            checked_off.append(version)
    assert not wrong, f"served versions differ from --runtime-config: {wrong}"
    assert checked_off, "no version was expected off: the check would pass on any cluster"


@pytest.mark.runtime_config("certificates.k8s.io/v1beta1=false")
def test_a_write_to_a_version_that_is_off_is_not_found_and_stores_nothing(target: Target) -> None:
    """API machinery, served versions.

    A write in a group/version the apiserver does not serve MUST fail with NotFound
    naming that version, and MUST store nothing: the served certificates.k8s.io/v1 shows
    no such ClusterTrustBundle.
    """
    name = "garhwal-served-versions-off"
    bundle = make_ctb(name, ca_certificate_pem("garhwal-off")).build()
    bundle["apiVersion"] = "certificates.k8s.io/v1beta1"
    try:
        with pytest.raises(NotFound) as info:
            target.apply(bundle)
        assert "certificates.k8s.io/v1beta1" in str(info.value)
        with pytest.raises(NotFound):
            target.get("certificates.k8s.io/v1", "ClusterTrustBundle", name)
    finally:
        try:
            target.delete("certificates.k8s.io/v1", "ClusterTrustBundle", name)
        except NotFound:
            pass


@pytest.mark.runtime_config("resource.k8s.io/v1beta2=true")
def test_an_enabled_beta_version_is_served_beside_the_stable_one(target: Target) -> None:
    """API machinery, served versions.

    With --runtime-config=resource.k8s.io/v1beta2=true the apiserver MUST serve
    resource.k8s.io/v1beta2 as well as resource.k8s.io/v1: both list DeviceClasses.
    """
    assert isinstance(target.list("resource.k8s.io/v1beta2", "DeviceClass"), list)
    assert isinstance(target.list("resource.k8s.io/v1", "DeviceClass"), list)

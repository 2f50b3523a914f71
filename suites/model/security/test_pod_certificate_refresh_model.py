"""podCertificate refresh by the kubelet at ``beginRefreshAt`` (KEP-4317).

A model test (marker ``model``, not conformance evidence): upstream's validation puts
``beginRefreshAt`` at least 10 minutes after ``notBefore`` for any signer, and the test
waits for the kubelet to act on it, so only the reference's virtual clock makes it
affordable. The live-runnable podCertificate behaviours (the request, its issue and the
projected credential bundle) are conformance in
suites/conformance/security/test_pod_certificate_signing.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Target
from reference_impl.api import condition, make_pod, pod_certificate_volume

pytestmark = [
    pytest.mark.model,
    pytest.mark.feature("PODCERT"),
    pytest.mark.requires(Capability.POD_CERT_SIGNER),
]

PCR = ("certificates.k8s.io/v1", "PodCertificateRequest")
SIGNER = "garhwal.dev/test-signer"


def _mounted(pod: dict[str, Any]) -> dict[str, Any]:
    """Mount every volume into the container (an unmounted one is never projected)."""
    pod["spec"]["containers"][0]["volumeMounts"] = [
        {"name": v["name"], "mountPath": f"/var/run/garhwal/{v['name']}", "readOnly": True}
        for v in pod["spec"]["volumes"]
    ]
    return pod


def _pod_requests(target: Target, namespace: str, pod: str) -> list[dict[str, Any]]:
    return [p for p in target.list(*PCR, namespace) if p["spec"]["podName"] == pod]


@pytest.mark.requires(Capability.KUBELET, Capability.VIRTUAL_TIME)
def test_the_credential_is_refreshed_at_begin_refresh_at(target: Target, namespace: str) -> None:
    """podCertificate refresh.

    The kubelet MUST request a new certificate, with a new key, once ``beginRefreshAt``
    of the mounted one has passed and before it expires; the pod MUST keep running.
    """
    vol = pod_certificate_volume("cred", SIGNER, max_expiration_seconds=3600)
    target.apply(_mounted(make_pod("podcert-refresh", namespace).set("spec.volumes", [vol]).build()))
    target.wait_until(
        lambda: (
            len(_pod_requests(target, namespace, "podcert-refresh")) == 1
            and condition(_pod_requests(target, namespace, "podcert-refresh")[0], "Issued")
            is not None
        ),
        timeout=60,
        what="first certificate issued",
    )
    first = _pod_requests(target, namespace, "podcert-refresh")[0]

    def others() -> list[dict[str, Any]]:
        # The first request may be gone by then: the PodCertificateRequest cleaner
        # deletes requests 15 minutes after their creation.
        reqs = _pod_requests(target, namespace, "podcert-refresh")
        return [p for p in reqs if p["metadata"]["name"] != first["metadata"]["name"]]

    target.wait_until(lambda: bool(others()), timeout=3600, what="a refresh request")
    second = others()[0]
    assert first["status"]["beginRefreshAt"] <= second["metadata"]["creationTimestamp"]
    assert second["metadata"]["creationTimestamp"] < first["status"]["notAfter"]
    assert second["spec"]["stubPKCS10Request"] != first["spec"]["stubPKCS10Request"]
    assert target.get("v1", "Pod", "podcert-refresh", namespace)["status"]["phase"] == "Running"

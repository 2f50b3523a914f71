"""PodCertificateRequest signing and the podCertificate projected volume (KEP-4317).

The signer is ``garhwal.dev/test-signer``; it publishes its root CA as a ClusterTrustBundle
with that signer name, so chains are checked against what the API serves. On a live
cluster garhwal runs that signer for the session as an out-of-cluster controller
(``fixtures/localcluster/pod_cert_signer.py``); KWOK mounts no volumes, so the projected
volume tests also need KUBELET.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Target, node_files
from reference_impl.api import (
    chain_facts,
    condition,
    credential_bundle_matches,
    make_pcr,
    make_pod,
    pod_certificate_volume,
)
from reference_impl.errors import Invalid

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("PODCERT"),
    pytest.mark.requires(Capability.POD_CERT_SIGNER),
]

PCR = ("certificates.k8s.io/v1", "PodCertificateRequest")
CTB = ("certificates.k8s.io/v1", "ClusterTrustBundle")
SIGNER = "garhwal.dev/test-signer"


def _mounted(pod: dict[str, Any]) -> dict[str, Any]:
    """Mount every volume into the container: a kubelet sets up only the volumes a
    container mounts (an unmounted one is never projected)."""
    pod["spec"]["containers"][0]["volumeMounts"] = [
        {"name": v["name"], "mountPath": f"/var/run/garhwal/{v['name']}", "readOnly": True}
        for v in pod["spec"]["volumes"]
    ]
    return pod


def _anchors(target: Target) -> str:
    bundles = [b for b in target.list(*CTB) if b["spec"].get("signerName") == SIGNER]
    return "".join(b["spec"]["trustBundle"] for b in bundles)


def _issued(target: Target, name: str, namespace: str) -> dict[str, Any]:
    def done() -> bool:
        return condition(target.get(*PCR, name, namespace), "Issued") is not None

    target.wait_until(done, timeout=30, what=f"PodCertificateRequest {name} Issued")
    return target.get(*PCR, name, namespace)


@pytest.mark.parametrize("key_type", ["ECDSAP256", "ECDSAP384", "ED25519"])
def test_an_issued_chain_parses_and_chains_to_the_signer_ca(
    target: Target, namespace: str, key_type: str
) -> None:
    """Pod certificate issuance.

    A request to the signer MUST be answered with an Issued condition and a PEM chain,
    leaf first, whose leaf carries the request's public key, is not a CA, and whose links
    verify up to a trust anchor the signer publishes in a ClusterTrustBundle.
    """
    pcr = make_pcr(f"podcert-issue-{key_type.lower()}", namespace, key_type=key_type).build()
    target.apply(pcr)
    got = _issued(target, pcr["metadata"]["name"], namespace)
    facts = chain_facts(
        got["status"]["certificateChain"], _anchors(target), pcr["spec"]["stubPKCS10Request"]
    )
    assert facts.leaf_matches_request and facts.chains_to_anchor
    assert not facts.leaf_is_ca and facts.length >= 2
    assert condition(got, "Denied") is None and condition(got, "Failed") is None


def test_the_lifetime_stays_within_max_expiration_seconds(target: Target, namespace: str) -> None:
    """Pod certificate lifetime.

    An issued leaf MUST NOT outlive ``maxExpirationSeconds`` nor be shorter than 3600 s;
    ``status.notBefore``/``notAfter`` MUST match the leaf, and ``beginRefreshAt`` MUST lie
    strictly between them.
    """
    pcr = make_pcr("podcert-life", namespace).set("spec.maxExpirationSeconds", 7200).build()
    target.apply(pcr)
    st = _issued(target, "podcert-life", namespace)["status"]
    facts = chain_facts(st["certificateChain"], _anchors(target))
    assert 3600 <= facts.lifetime_seconds <= 7200
    assert st["notBefore"] < st["beginRefreshAt"] < st["notAfter"]


def test_an_issued_chain_is_immutable(target: Target, namespace: str) -> None:
    """Pod certificate status immutability.

    Once issued, rewriting ``status.certificateChain`` MUST be rejected as Invalid, on the
    field ``status``: the whole status of an answered request is immutable.
    """
    target.apply(make_pcr("podcert-immut", namespace).build())
    target.apply(make_pcr("podcert-immut-2", namespace).build())
    got = _issued(target, "podcert-immut", namespace)
    other = _issued(target, "podcert-immut-2", namespace)
    got["status"]["certificateChain"] = other["status"]["certificateChain"]
    with pytest.raises(Invalid) as err:
        target.patch_status(got)
    assert err.value.fields == ("status",)


def test_unknown_user_annotations_are_denied(target: Target, namespace: str) -> None:
    """Pod certificate denial.

    A request with user annotations the signer does not understand MUST end Denied, with
    no chain issued and no Issued condition.
    """
    pcr = make_pcr("podcert-deny", namespace)
    target.apply(pcr.set("spec.unverifiedUserAnnotations", {"example.com/x": "y"}).build())

    def denied() -> bool:
        return condition(target.get(*PCR, "podcert-deny", namespace), "Denied") is not None

    target.wait_until(denied, timeout=30, what="PodCertificateRequest Denied")
    got = target.get(*PCR, "podcert-deny", namespace)
    assert not got["status"].get("certificateChain")
    assert condition(got, "Issued") is None


def _pod_requests(target: Target, namespace: str, pod: str) -> list[dict[str, Any]]:
    return [p for p in target.list(*PCR, namespace) if p["spec"]["podName"] == pod]


@pytest.mark.requires(Capability.KUBELET)
def test_the_kubelet_requests_a_certificate_for_a_projected_volume(
    target: Target, namespace: str
) -> None:
    """podCertificate projection.

    For a pod with a ``podCertificate`` projected source the kubelet MUST create a
    PodCertificateRequest naming the pod, its UID, node and the source's signer and
    expiration, and the pod MUST start only once it is issued; the mounted credential
    bundle MUST hold a PKCS#8 key followed by a chain whose leaf carries that key.
    """
    vol = pod_certificate_volume("cred", SIGNER, max_expiration_seconds=3600)
    pod = target.apply(_mounted(make_pod("podcert-pod", namespace).set("spec.volumes", [vol]).build()))

    def running() -> bool:
        return (
            target.get("v1", "Pod", "podcert-pod", namespace).get("status", {}).get("phase")
            == "Running"
        )

    target.wait_until(running, timeout=60, what="pod Running")
    (pcr,) = _pod_requests(target, namespace, "podcert-pod")
    assert pcr["spec"]["podUID"] == pod["metadata"]["uid"]
    assert pcr["spec"]["signerName"] == SIGNER and pcr["spec"]["maxExpirationSeconds"] == 3600
    assert (
        pcr["spec"]["nodeName"]
        == target.get("v1", "Pod", "podcert-pod", namespace)["spec"]["nodeName"]
    )
    assert condition(pcr, "Issued") is not None
    files = node_files(target).projected_files("podcert-pod", namespace)
    assert credential_bundle_matches(files["cred"]["credentialbundle.pem"])

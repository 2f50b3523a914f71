"""Builders for certificates.k8s.io PodCertificateRequests and ClusterTrustBundles.

``make_pcr`` generates a real key of the requested type and the kubelet's stub PKCS#10
request carrying it; ``ca_certificate_pem`` makes a self-signed certificate for trust
bundles (with the ``cryptography`` package; keys are random, so manifests differ per call).
"""

from __future__ import annotations

import base64
import datetime
from typing import Any, Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from reference_impl.api.builders import ManifestBuilder

__all__ = ["KEY_TYPES", "ca_certificate_pem", "make_ctb", "make_pcr", "stub_pkcs10"]

KEY_TYPES: Final = ("RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519")
_CURVES: Final[dict[str, ec.EllipticCurve]] = {
    "ECDSAP256": ec.SECP256R1(),
    "ECDSAP384": ec.SECP384R1(),
    "ECDSAP521": ec.SECP521R1(),
}
Obj = dict[str, Any]


def _key(key_type: str) -> Any:
    if key_type.startswith("RSA"):
        return rsa.generate_private_key(public_exponent=65537, key_size=int(key_type[3:]))
    if key_type == "ED25519":
        return ed25519.Ed25519PrivateKey.generate()
    return ec.generate_private_key(_CURVES[key_type])


def stub_pkcs10(key_type: str) -> str:
    """A base64 DER PKCS#10 request with an empty subject for a new ``key_type`` key
    (``RSA2048`` and other unlisted sizes are allowed here so suites can send them)."""
    key = _key(key_type)
    algo = None if key_type == "ED25519" else hashes.SHA256()
    csr = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([])).sign(key, algo)
    return base64.b64encode(csr.public_bytes(serialization.Encoding.DER)).decode()


def make_pcr(
    name: str,
    namespace: str | None = None,
    *,
    signer: str = "garhwal.dev/test-signer",
    key_type: str = "ECDSAP256",
    node: str = "kwok-node-0",
) -> ManifestBuilder:
    """A certificates.k8s.io/v1 PodCertificateRequest for pod ``p`` on ``node``."""
    b = ManifestBuilder("certificates.k8s.io/v1", "PodCertificateRequest", name, namespace)
    return b.set(
        "spec",
        {
            "signerName": signer,
            "podName": "p",
            "podUID": "11111111-1111-4111-8111-111111111111",
            "serviceAccountName": "default",
            "serviceAccountUID": "22222222-2222-4222-8222-222222222222",
            "nodeName": node,
            "nodeUID": "33333333-3333-4333-8333-333333333333",
            "stubPKCS10Request": stub_pkcs10(key_type),
        },
    )


def ca_certificate_pem(common_name: str, *, ca: bool = True) -> str:
    """A self-signed ECDSA P-256 certificate in PEM (a CA unless ``ca=False``)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def make_ctb(name: str, trust_bundle: str, signer: str | None = None) -> ManifestBuilder:
    """A certificates.k8s.io/v1 ClusterTrustBundle (cluster-scoped)."""
    b = ManifestBuilder("certificates.k8s.io/v1", "ClusterTrustBundle", name)
    spec: Obj = {"trustBundle": trust_bundle}
    if signer:
        spec["signerName"] = signer
    return b.set("spec", spec)

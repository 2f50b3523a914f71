"""Checks suites run on issued pod certificates and projected trust bundles (black-box:
they take PEM text from the API or a projected file and parse it with ``cryptography``).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization

__all__ = [
    "ChainFacts",
    "chain_facts",
    "cluster_trust_bundle_volume",
    "credential_bundle_matches",
    "pem_certificate_count",
    "pod_certificate_volume",
]

Obj = dict[str, Any]
_CERT: Final = re.compile(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ChainFacts:
    """What a PEM chain says: lifetime, SAN URIs, and whether it chains to an anchor."""

    length: int
    lifetime_seconds: int
    leaf_is_ca: bool
    uris: tuple[str, ...]
    chains_to_anchor: bool
    leaf_matches_request: bool


def _certs(pem: str) -> list[x509.Certificate]:
    return [x509.load_pem_x509_certificate(m.group(0).encode()) for m in _CERT.finditer(pem)]


def pem_certificate_count(pem: str) -> int:
    """How many CERTIFICATE blocks ``pem`` holds."""
    return len(_CERT.findall(pem))


def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def chain_facts(chain_pem: str, anchors_pem: str, stub_pkcs10_b64: str = "") -> ChainFacts:
    """Parse a leaf-first chain; check each link's signature, the last against one of
    ``anchors_pem``, and (given the request's stub) that the leaf carries its key."""
    chain, anchors = _certs(chain_pem), _certs(anchors_pem)
    leaf = chain[0]
    links = all(_issued_by(c, i) for c, i in zip(chain, chain[1:], strict=False))
    anchored = links and any(_issued_by(chain[-1], a) for a in anchors)
    try:
        ca = leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        ca = False
    try:
        san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        uris = tuple(san.get_values_for_type(x509.UniformResourceIdentifier))
    except x509.ExtensionNotFound:
        uris = ()
    matches = False
    if stub_pkcs10_b64:
        csr = x509.load_der_x509_csr(base64.b64decode(stub_pkcs10_b64))
        matches = csr.public_key() == leaf.public_key()
    life = leaf.not_valid_after_utc - leaf.not_valid_before_utc
    return ChainFacts(len(chain), int(life.total_seconds()), ca, uris, anchored, matches)


def credential_bundle_matches(bundle_pem: str) -> bool:
    """A credential bundle file: a PKCS#8 private key first, then a chain whose leaf
    carries that key's public key."""
    if not bundle_pem.startswith("-----BEGIN PRIVATE KEY-----"):
        return False
    end = bundle_pem.index("-----END PRIVATE KEY-----") + len("-----END PRIVATE KEY-----")
    key = serialization.load_pem_private_key(bundle_pem[:end].encode(), password=None)
    certs = _certs(bundle_pem[end:])
    return bool(certs) and certs[0].public_key() == key.public_key()


def pod_certificate_volume(
    name: str,
    signer: str,
    *,
    key_type: str = "ECDSAP256",
    max_expiration_seconds: int | None = None,
    path: str = "credentialbundle.pem",
    user_annotations: dict[str, str] | None = None,
) -> Obj:
    """A projected volume with one ``podCertificate`` source (credential bundle file)."""
    src: Obj = {"signerName": signer, "keyType": key_type, "credentialBundlePath": path}
    if max_expiration_seconds is not None:
        src["maxExpirationSeconds"] = max_expiration_seconds
    if user_annotations:
        src["userAnnotations"] = dict(user_annotations)
    return {"name": name, "projected": {"sources": [{"podCertificate": src}]}}


def cluster_trust_bundle_volume(
    name: str,
    path: str = "ca.pem",
    *,
    signer: str | None = None,
    label_selector: Obj | None = None,
    bundle_name: str | None = None,
    optional: bool = False,
) -> Obj:
    """A projected volume with one ``clusterTrustBundle`` source (by name or by signer)."""
    src: Obj = {"path": path}
    if bundle_name:
        src["name"] = bundle_name
    if signer:
        src["signerName"] = signer
    if label_selector is not None:
        src["labelSelector"] = label_selector
    if optional:
        src["optional"] = True
    return {"name": name, "projected": {"sources": [{"clusterTrustBundle": src}]}}

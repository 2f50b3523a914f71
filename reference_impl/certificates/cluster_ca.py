"""The cluster's root CA: what kube-controller-manager's ``--root-ca-file`` holds.

A kubeadm cluster's CA is a self-signed ``CN=kubernetes`` certificate valid for ten years
(``pkiutil.NewCertificateAuthority``); the root-ca-cert-publisher copies it into every
namespace's ``kube-root-ca.crt`` ConfigMap. The reference has no TLS endpoint of its own,
so the CA is made at cluster start from the seed (ECDSA P-256, where kubeadm defaults to
RSA 2048: a seeded RSA key costs seconds here) and nothing is signed with it.
"""

from __future__ import annotations

import datetime
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import NameOID

from reference_impl.certificates.keys import generate_key, sign_args
from reference_impl.clock import EPOCH_UNIX_SECONDS, Instant
from reference_impl.rng import Rng

__all__ = ["cluster_ca_pem"]

_CA_YEARS: Final = 10
_NS: Final = 1_000_000_000


def cluster_ca_pem(rng: Rng, created: Instant) -> str:
    """A self-signed ``CN=kubernetes`` CA certificate in PEM, drawn from ``rng``."""
    key = generate_key("ECDSAP256", rng.child("key"))
    start = datetime.datetime.fromtimestamp(EPOCH_UNIX_SECONDS + created // _NS, tz=datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(rng.randint(1, (1 << 63) - 1))
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=365 * _CA_YEARS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, **sign_args(key))  # type: ignore[arg-type]
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()

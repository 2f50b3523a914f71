"""The Secret strategy's TLS warning (``warningsForSecret``): ``tls.X509KeyPair``'s error
for each way a kubernetes.io/tls Secret's pair can be wrong. Upstream has no table for it;
the texts are Go's ``crypto/tls``."""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from reference_impl.apiserver.warnings.secret import secret_warnings, x509_key_pair_error

Obj = dict[str, Any]
NONE: Any = None


def _key_pem(key: Any) -> bytes:
    return bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))  # fmt: skip


def _cert_pem(key: Any) -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "t")])
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(start).not_valid_after(start + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))  # fmt: skip
    return cert.public_bytes(serialization.Encoding.PEM)


RSA_A = rsa.generate_private_key(public_exponent=65537, key_size=1024)
RSA_B = rsa.generate_private_key(public_exponent=65537, key_size=1024)
EC_A = ec.generate_private_key(ec.SECP256R1())
CERT_A, KEY_A, KEY_B, KEY_EC = _cert_pem(RSA_A), _key_pem(RSA_A), _key_pem(RSA_B), _key_pem(EC_A)

ROWS = [
    ("good pair", CERT_A, KEY_A, None),
    ("good EC pair", _cert_pem(EC_A), KEY_EC, None),
    ("no PEM in cert", b"not pem", KEY_A, "tls: failed to find any PEM data in certificate input"),
    ("no PEM in key", CERT_A, b"", "tls: failed to find any PEM data in key input"),
    ("inputs switched", KEY_A, CERT_A,
     "tls: failed to find certificate PEM data in certificate input, but did find a private key; "
     "PEM inputs may have been switched"),
    ("certificate as key", CERT_A, CERT_A,
     "tls: found a certificate rather than a key in the PEM for the private key"),
    ("other block in cert", b"-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n", KEY_A,
     'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of '
     "the following types: [FOO]"),
    ("mismatched key", CERT_A, KEY_B, "tls: private key does not match public key"),
    ("key of another type", CERT_A, KEY_EC, "tls: private key type does not match public key type"),
    ("malformed certificate", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", KEY_A,
     "x509: malformed certificate"),
]  # fmt: skip


@pytest.mark.parametrize(("cert", "key", "want"), [pytest.param(c, k, w, id=n) for n, c, k, w in ROWS])
def test_x509_key_pair(cert: bytes, key: bytes, want: str | None) -> None:
    assert x509_key_pair_error(cert, key) == want


def _secret(kind: str, cert: bytes, key: bytes) -> Obj:
    data = {"tls.crt": base64.b64encode(cert).decode(), "tls.key": base64.b64encode(key).decode()}
    return {"metadata": {"name": "s"}, "type": kind, "data": data}


def test_only_tls_secrets_are_checked() -> None:
    assert secret_warnings(_secret("Opaque", b"x", b"y"), None, NONE) == []
    assert secret_warnings(_secret("kubernetes.io/tls", CERT_A, KEY_B), None, NONE) == [
        "tls: private key does not match public key"
    ]

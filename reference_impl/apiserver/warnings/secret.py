"""The Secret strategy's warnings (``pkg/registry/core/secret/strategy.go``
``warningsForSecret``): a ``kubernetes.io/tls`` Secret whose key does not pair with its
certificate gets ``tls.X509KeyPair``'s error (Go's ``crypto/tls``), on create and update."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner

__all__ = ["secret_warnings", "x509_key_pair_error"]

Obj = dict[str, Any]

# pem.Decode: a BEGIN line, optional headers, base64, the matching END line.
_BLOCK: Final = re.compile(rb"(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n(.*?)\n-----END \1-----", re.S)


def _pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """(type, DER) of each block ``pem.Decode`` reads; a block whose body does not decode
    is skipped, as Decode skips it."""
    out = []
    for m in _BLOCK.finditer(data):
        lines = m.group(2).split(b"\n")
        if any(b":" in line for line in lines):  # headers end at the first blank line
            blank = lines.index(b"") if b"" in lines else len(lines)
            lines = lines[blank + 1:]
        try:
            der = base64.b64decode(b"".join(line.strip() for line in lines), validate=True)
        except (binascii.Error, ValueError):
            continue
        out.append((m.group(1).decode("latin-1"), der))
    return out


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(items) + "]"


def x509_key_pair_error(cert_pem: bytes, key_pem: bytes) -> str | None:
    """``tls.X509KeyPair``'s error text, or None when the pair is good."""
    blocks = _pem_blocks(cert_pem)
    certs = [der for kind, der in blocks if kind == "CERTIFICATE"]
    if not certs:
        skipped = [kind for kind, _ in blocks]
        if not skipped:
            return "tls: failed to find any PEM data in certificate input"
        if len(skipped) == 1 and skipped[0].endswith("PRIVATE KEY"):
            return ("tls: failed to find certificate PEM data in certificate input, but did find a "
                    "private key; PEM inputs may have been switched")  # fmt: skip
        return ('tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM '
                f"blocks of the following types: {_go_list(skipped)}")  # fmt: skip
    key_der: bytes | None = None
    key_skipped: list[str] = []
    for kind, der in _pem_blocks(key_pem):
        if kind == "PRIVATE KEY" or kind.endswith(" PRIVATE KEY"):
            key_der = der
            break
        key_skipped.append(kind)
    if key_der is None:
        if not key_skipped:
            return "tls: failed to find any PEM data in key input"
        if key_skipped == ["CERTIFICATE"]:
            return "tls: found a certificate rather than a key in the PEM for the private key"
        return ('tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after '
                f"skipping PEM blocks of the following types: {_go_list(key_skipped)}")  # fmt: skip
    from cryptography import x509  # only TLS secrets need it: kept off the import path
    from cryptography.hazmat.primitives import serialization

    try:
        public = x509.load_der_x509_certificate(certs[0]).public_key()
    except ValueError:
        return "x509: malformed certificate"  # the first of x509.ParseCertificate's checks
    try:
        private = serialization.load_der_private_key(key_der, password=None)
    except (ValueError, TypeError):
        return "tls: failed to parse private key"
    return _match(public, private)


def _match(public: object, private: object) -> str | None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    pairs = ((rsa.RSAPublicKey, rsa.RSAPrivateKey), (ec.EllipticCurvePublicKey, ec.EllipticCurvePrivateKey),
             (ed25519.Ed25519PublicKey, ed25519.Ed25519PrivateKey))  # fmt: skip
    if not isinstance(private, tuple(p for _, p in pairs)):
        return "tls: found unknown private key type in PKCS#8 wrapping"
    for pub_type, priv_type in pairs:
        if isinstance(public, pub_type):
            if not isinstance(private, priv_type):
                return "tls: private key type does not match public key type"
            raw = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            same = private.public_key().public_bytes(*raw) == public.public_bytes(*raw)
            return None if same else "tls: private key does not match public key"
    return "tls: unknown public key algorithm"


def _data(secret: Obj, key: str) -> bytes:
    value = (secret.get("data") or {}).get(key)
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value)
    except (binascii.Error, ValueError):
        return b""


@warner("Secret")
def secret_warnings(secret: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``warningsForSecret``: only TLS secrets are checked."""
    if secret.get("type") != "kubernetes.io/tls":
        return []
    err = x509_key_pair_error(_data(secret, "tls.crt"), _data(secret, "tls.key"))
    return [] if err is None else [err]

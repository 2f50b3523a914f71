"""Defaulting and validation for certificates.k8s.io PodCertificateRequest and
ClusterTrustBundle, after ``pkg/apis/certificates/validation/validation.go``.

PodCertificateRequest: ``maxExpirationSeconds`` defaults to 86400 and must lie in
[3600, 7862400]; the stub PKCS#10 request must parse, be self-signed and carry one of the
listed key types; the spec is immutable; status updates are in
``certificates_status``. ClusterTrustBundle: PEM
CERTIFICATE blocks only (no headers, no duplicates, at least one), and the name prefix
rule tied to ``signerName``.
"""

from __future__ import annotations

import base64
import binascii
import re
import warnings
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.utils import CryptographyDeprecationWarning

from reference_impl.api.meta import dns1123_subdomain_errors, label_key_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.certificates_names import (
    is_kubernetes_signer_name,
    signer_name_causes,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["key_type_of", "pem_certificates"]

Obj = dict[str, Any]
MIN_EXPIRATION: Final = 3600
MAX_EXPIRATION: Final = 7862400
KUBERNETES_MAX_EXPIRATION: Final = 86400
DEFAULT_EXPIRATION: Final = 86400
MAX_TRUST_BUNDLE_SIZE: Final = 1024 * 1024  # certificates.MaxTrustBundleSize
_ANNOTATIONS_MAX: Final = 256 * 1024  # TotalAnnotationSizeLimitB
_PEM: Final = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
_CURVE_NAMES: Final = {"secp256r1": "ECDSAP256", "secp384r1": "ECDSAP384", "secp521r1": "ECDSAP521"}
_GO_CURVE_NAMES: Final = {"secp224r1": "P-224"}  # elliptic.Curve.Params().Name
MAX_STUB_PKCS10_SIZE: Final = 10 * 1024  # certificates.MaxStubPKCS10RequestSize


def key_type_of(public_key: Any) -> str | None:
    """The PodCertificate key type of a public key, or None when it is not a listed one."""
    if isinstance(public_key, rsa.RSAPublicKey) and public_key.key_size in (3072, 4096):
        return f"RSA{public_key.key_size}"
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        return _CURVE_NAMES.get(public_key.curve.name)
    if isinstance(public_key, ed25519.Ed25519PublicKey):
        return "ED25519"
    return None


@defaulter("PodCertificateRequest")
def default_pcr(obj: Obj, ctx: Context) -> None:
    """``maxExpirationSeconds`` defaults to 86400 (24 h)."""
    obj.setdefault("spec", {}).setdefault("maxExpirationSeconds", DEFAULT_EXPIRATION)


@validator("PodCertificateRequest")
def validate_pcr(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Expiration bounds, the stub PKCS#10 request and key type; spec immutable."""
    spec = obj.get("spec") or {}
    if old is not None:
        if spec != (old.get("spec") or {}):
            return [Cause("spec", "FieldValueInvalid", "field is immutable")]
        return []
    return _pcr_create_causes(spec)


def domain_prefixed_key_causes(path: str, key: str) -> list[Cause]:
    """``IsDomainPrefixedKey``: a label key with a domain prefix."""
    if not key:
        return [fe.required(path)]
    causes = [fe.invalid(path, key, e) for e in label_key_errors(key)]
    if not causes and len(key.split("/")) != 2:
        causes.append(fe.invalid(path, key, 'must be a domain-prefixed key (such as "acme.io/foo")'))
    return causes


def _pcr_create_causes(spec: Obj) -> list[Cause]:
    """``ValidatePodCertificateRequestCreate`` (after ObjectMeta): signer, user
    annotations, the pod, service account and node references, the expiration bounds
    and exactly one of the stub PKCS#10 request or the deprecated key and proof."""
    causes = signer_name_causes("spec.signerName", str(spec.get("signerName") or ""))
    annotations = spec.get("unverifiedUserAnnotations")
    if isinstance(annotations, dict):
        for k in annotations:
            causes += domain_prefixed_key_causes("spec.unverifiedUserAnnotations", str(k).lower())
        # ValidateAnnotationsSize, as ValidateUserAnnotations checks it.
        if sum(len(str(k)) + len(str(v)) for k, v in annotations.items()) > _ANNOTATIONS_MAX:
            causes.append(fe.too_long("spec.unverifiedUserAnnotations", _ANNOTATIONS_MAX))
    for f, check in (("podName", dns1123_subdomain_errors), ("serviceAccountName", dns1123_subdomain_errors),
                     ("nodeName", dns1123_subdomain_errors)):
        value = str(spec.get(f) or "")
        causes += [fe.invalid(f"spec.{f}", value, e) for e in check(value)]
    for f in ("podUID", "serviceAccountUID", "nodeUID"):
        uid = str(spec.get(f) or "")
        if not uid:
            causes.append(fe.invalid(f"spec.{f}", uid, "must not be empty"))
        if len(uid) > 128:
            causes.append(fe.too_long(f"spec.{f}", 128))
    mes = int(spec.get("maxExpirationSeconds", DEFAULT_EXPIRATION))
    signer = str(spec.get("signerName") or "")
    top = KUBERNETES_MAX_EXPIRATION if is_kubernetes_signer_name(signer) else MAX_EXPIRATION
    if not MIN_EXPIRATION <= mes <= top:
        causes.append(fe.invalid("spec.maxExpirationSeconds", mes, f"must be in the range [{MIN_EXPIRATION}, {top}]"))
    stub, key, proof = (spec.get(f) for f in ("stubPKCS10Request", "pkixPublicKey", "proofOfPossession"))
    if stub and not key and not proof:
        causes += _stub_causes(str(stub))
    elif not (not stub and key and proof):
        causes.append(
            fe.invalid("spec", fe.OMIT, "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set")
        )
    return causes


def _stub_key_causes(path: str, pub: Any) -> list[Cause]:
    """The key-type half of ``validateStubPKCS10Request``."""
    if isinstance(pub, ed25519.Ed25519PublicKey):
        return []
    if isinstance(pub, ec.EllipticCurvePublicKey):
        if pub.curve.name in _CURVE_NAMES:
            return []
        return [
            fe.invalid(
                path,
                f"curve {_GO_CURVE_NAMES.get(pub.curve.name, pub.curve.name)}",
                "elliptic public keys must use curve P256, P384, or P521",
            )
        ]
    if isinstance(pub, rsa.RSAPublicKey):
        bits = (pub.key_size + 7) // 8 * 8  # Go: Size()*8, the modulus in whole bytes
        if bits in (3072, 4096):
            return []
        return [fe.invalid(path, f"{bits}-bit modulus", "RSA keys must have modulus size 3072 or 4096")]
    return [fe.invalid(path, fe.OMIT, "unknown public key type; supported types are Ed25519, ECDSA, and RSA")]


def _stub_causes(b64: str) -> list[Cause]:
    """``validateStubPKCS10Request``: size, parse, key type, then the self-signature."""
    path = "spec.stubPKCS10Request"
    try:
        der = base64.b64decode(b64, validate=True)
    except binascii.Error:
        der = b""
    if len(der) > MAX_STUB_PKCS10_SIZE:
        return [fe.too_long(path, MAX_STUB_PKCS10_SIZE)]
    try:
        csr = x509.load_der_x509_csr(der)
        pub = csr.public_key()
    except (ValueError, TypeError):
        return [fe.invalid(path, fe.OMIT, "must be a valid PKCS#10 CSR")]
    causes = _stub_key_causes(path, pub)
    if causes:
        return causes
    try:
        valid = csr.is_signature_valid
    except (InvalidSignature, ValueError):
        valid = False
    if not valid:
        return [fe.invalid(path, fe.OMIT, "invalid signature")]
    return []


def pem_certificates(bundle: str) -> tuple[list[bytes], list[str]]:
    """The DER certificates of a PEM bundle and the problems found, as upstream reports."""
    ders: list[bytes] = []
    problems: list[str] = []
    for m in _PEM.finditer(bundle):
        kind, body = m.group(1), m.group(2)
        if kind != "CERTIFICATE":
            problems.append(f"entry {len(ders)} has bad block type: {kind}")
            continue
        if ":" in body:
            problems.append(f"entry {len(ders)} has PEM block headers")
            continue
        try:
            der = base64.b64decode("".join(body.split()), validate=True)
        except binascii.Error:
            break  # Go's pem.Decode stops at the first undecodable block
        ders.append(der)
    return ders, problems


@validator("ClusterTrustBundle")
def validate_ctb(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Signer-name prefix rule and a bundle of distinct, parseable CA certificates."""
    spec = obj.get("spec") or {}
    signer = spec.get("signerName") or ""
    # The signer-dependent name rule is ValidateObjectMeta's (strategies/meta.py).
    causes: list[Cause] = []
    if signer:
        causes += signer_name_causes("spec.signerName", signer)
    if old is not None:
        ospec = old.get("spec") or {}
        if signer != (ospec.get("signerName") or ""):
            causes.append(fe.invalid("spec.signerName", signer, "field is immutable"))
        if spec.get("trustBundle") == ospec.get("trustBundle"):
            return causes  # an unchanged bundle is not parsed again
    path = "spec.trustBundle"
    if len(str(spec.get("trustBundle", ""))) > MAX_TRUST_BUNDLE_SIZE:
        return [*causes, fe.too_long(path, MAX_TRUST_BUNDLE_SIZE)]  # validateTrustBundle
    ders, problems = pem_certificates(str(spec.get("trustBundle", "")))
    causes += [Cause(path, "FieldValueInvalid", p) for p in problems]
    if not ders and not problems:
        causes.append(
            Cause(path, "FieldValueInvalid", "at least one trust anchor must be provided")
        )
    if len(set(ders)) != len(ders):
        causes.append(Cause(path, "FieldValueInvalid", "duplicate trust anchor"))
    for i, der in enumerate(ders):
        try:
            cert = _parse_certificate(der)
        except ValueError:
            causes.append(
                Cause(path, "FieldValueInvalid", f"entry {i} does not parse: bad certificate")
            )
            continue
        try:
            ca = cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
        except x509.ExtensionNotFound:
            ca = False
        if not ca:
            causes.append(Cause(path, "FieldValueInvalid", f"entry {i} is not a CA certificate"))
    return causes


def _parse_certificate(der: bytes) -> x509.Certificate:
    """Go's ``x509.ParseCertificate`` on serial numbers: zero parses, negative does not
    (Go 1.23+). cryptography parses both with a deprecation warning, which is not ours."""
    with warnings.catch_warnings():  # the serial is parsed on first read
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        cert = x509.load_der_x509_certificate(der)
        negative = cert.serial_number < 0
    if negative:
        raise ValueError("x509: negative serial number")
    return cert

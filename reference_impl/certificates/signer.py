"""The hermetic pod certificate signer (``test/utils/hermeticpodcertificatesigner``).

A root CA and an intermediate CA are made per signer from the cluster seed; a leaf for a
pod's public key is signed by the intermediate, and the chain handed out is leaf first,
then the intermediate. The root is what a ClusterTrustBundle publishes, so a client that
trusts the bundle can verify the whole chain. Lifetimes follow the request's
``maxExpirationSeconds`` (capped by the signer's own maximum); the kubelet is told to
refresh halfway through.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from reference_impl.certificates.keys import PrivateKey, generate_key, sign_args
from reference_impl.clock import EPOCH_UNIX_SECONDS, Instant, seconds
from reference_impl.rng import Rng

__all__ = ["TEST_SIGNER", "IssuedCertificate", "PodIdentity", "Signer"]

TEST_SIGNER: Final = "garhwal.dev/test-signer"
_CA_YEARS: Final = 10
_NS: Final = 1_000_000_000


@dataclass(frozen=True, slots=True)
class PodIdentity:
    """Who a leaf certificate is for, from the PodCertificateRequest spec."""

    namespace: str
    pod_name: str
    pod_uid: str
    service_account: str
    node_name: str

    @classmethod
    def from_spec(cls, namespace: str, spec: Mapping[str, Any]) -> PodIdentity:
        """The identity a PodCertificateRequest's spec names."""
        return cls(
            namespace,
            str(spec["podName"]),
            str(spec["podUID"]),
            str(spec["serviceAccountName"]),
            str(spec["nodeName"]),
        )

    @property
    def spiffe_id(self) -> str:
        """The SPIFFE URI SAN the leaf carries (``spiffe://cluster.local/ns/<ns>/sa/<sa>``)."""
        return f"spiffe://cluster.local/ns/{self.namespace}/sa/{self.service_account}"


@dataclass(frozen=True, slots=True)
class IssuedCertificate:
    """A signed chain and the times the PodCertificateRequest status records."""

    chain_pem: str
    not_before: Instant
    not_after: Instant
    begin_refresh_at: Instant


def _dt(when: Instant) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(EPOCH_UNIX_SECONDS + when // _NS, tz=datetime.UTC)


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


class Signer:
    """Issues leaf certificates for pods under one signer name."""

    def __init__(
        self, name: str, rng: Rng, created: Instant, *, max_lifetime_seconds: int = 7862400
    ) -> None:
        self.name = name
        self.max_lifetime_seconds = max_lifetime_seconds
        self._rng = rng
        start = _dt(created)
        end = start + datetime.timedelta(days=365 * _CA_YEARS)
        root_key = generate_key("ECDSAP256", rng.child("root"))
        self.root = self._ca(_name(f"{name} root"), root_key, root_key, None, start, end)
        self._key = generate_key("ECDSAP256", rng.child("intermediate"))
        self.intermediate = self._ca(
            _name(f"{name} intermediate"), self._key, root_key, self.root, start, end
        )

    @property
    def root_pem(self) -> str:
        """The root CA in PEM: the trust anchor to publish in a ClusterTrustBundle."""
        return _pem(self.root)

    def _serial(self) -> int:
        return self._rng.randint(1, (1 << 159) - 1)

    def _ca(
        self,
        subject: x509.Name,
        key: PrivateKey,
        issuer_key: PrivateKey,
        issuer: x509.Certificate | None,
        start: datetime.datetime,
        end: datetime.datetime,
    ) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer.subject if issuer else subject)
            .public_key(key.public_key())
            .serial_number(self._serial())
            .not_valid_before(start)
            .not_valid_after(end)
            .add_extension(
                x509.BasicConstraints(ca=True, path_length=0 if issuer else 1), critical=True
            )
            .add_extension(_usage(cert_sign=True), critical=True)
        )
        return builder.sign(issuer_key, **sign_args(issuer_key))  # type: ignore[arg-type]

    def denial(self, spec: Mapping[str, Any]) -> tuple[str, str] | None:
        """Why this signer refuses a request (reason, message), or None. Unknown user
        annotations are denied, as the API asks signers to do."""
        unknown = sorted(spec.get("unverifiedUserAnnotations") or {})
        if unknown:
            return (
                "UnsupportedUserAnnotation",
                f"{self.name} understands no user annotations; got {', '.join(unknown)}",
            )
        return None

    def issue(
        self, public_key: Any, who: PodIdentity, now: Instant, max_expiration_seconds: int
    ) -> IssuedCertificate:
        """Sign a leaf for ``public_key``, valid from ``now`` for the allowed lifetime."""
        lifetime = min(int(max_expiration_seconds), self.max_lifetime_seconds)
        not_after = Instant(now + seconds(lifetime))
        leaf = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([]))
            .issuer_name(self.intermediate.subject)
            .public_key(public_key)
            .serial_number(self._serial())
            .not_valid_before(_dt(now))
            .not_valid_after(_dt(not_after))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_usage(cert_sign=False), critical=True)
            .add_extension(
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.SERVER_AUTH]
                ),
                critical=False,
            )
            .add_extension(
                x509.SubjectAlternativeName([x509.UniformResourceIdentifier(who.spiffe_id)]),
                critical=True,  # the subject is empty, so the SAN must be critical (RFC 5280)
            )
            .sign(self._key, **sign_args(self._key))  # type: ignore[arg-type]
        )
        return IssuedCertificate(
            _pem(leaf) + _pem(self.intermediate),
            now,
            not_after,
            Instant(now + seconds(lifetime) // 2),
        )


def _usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )

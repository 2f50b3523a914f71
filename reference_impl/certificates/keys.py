"""Private keys drawn from a seeded ``Rng``, so every certificate the reference makes is
reproducible from the cluster seed.

``cryptography`` generates keys from the OS entropy pool, so keys are derived here instead:
ECDSA from a random scalar (``ec.derive_private_key``), Ed25519 from 32 random bytes, RSA
from two Miller-Rabin primes found from seeded candidates (pure Python, so an RSA key
takes seconds: prefer ECDSA or Ed25519 where speed matters). Signatures are deterministic too
(ECDSA per RFC 6979, Ed25519 by construction, RSA PKCS#1 v1.5).
"""

from __future__ import annotations

import math
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from reference_impl.rng import Rng

__all__ = ["KEY_TYPES", "PrivateKey", "generate_key", "sign_args", "stub_pkcs10_der"]

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey
KEY_TYPES: Final = ("RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519")
_CURVES: Final[dict[str, ec.EllipticCurve]] = {
    "ECDSAP256": ec.SECP256R1(),
    "ECDSAP384": ec.SECP384R1(),
    "ECDSAP521": ec.SECP521R1(),
}
# Curve sizes in bits; a scalar below 2**(bits-2) is always below the group order.
_BITS: Final = {"ECDSAP256": 256, "ECDSAP384": 384, "ECDSAP521": 521}
_SMALL_PRIMES: Final = tuple(p for p in range(3, 5000, 2) if all(p % d for d in range(3, p, 2)))
_SIEVE: Final = math.prod(_SMALL_PRIMES)


def _probably_prime(n: int, rng: Rng, rounds: int = 5) -> bool:
    # Five Miller-Rabin rounds are enough for random candidates of >= 1536 bits
    # (FIPS 186-4, table C.3); the gcd is a one-shot trial division.
    if math.gcd(n, _SIEVE) != 1:
        return n in _SMALL_PRIMES
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(rounds):
        x = pow(rng.randint(2, n - 2), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits: int, rng: Rng) -> int:
    while True:
        # Top two bits set so p*q has exactly 2*bits bits; odd; p-1 coprime to e.
        n = rng.randint(0, (1 << bits) - 1) | (3 << (bits - 2)) | 1
        if (n - 1) % 65537 and _probably_prime(n, rng):
            return n


def _rsa(bits: int, rng: Rng) -> rsa.RSAPrivateKey:
    e = 65537
    p = _prime(bits // 2, rng)
    q = _prime(bits // 2, rng)
    while q == p:
        q = _prime(bits // 2, rng)
    d = rsa.rsa_recover_private_exponent(e, p, q)
    numbers = rsa.RSAPrivateNumbers(
        p,
        q,
        d,
        rsa.rsa_crt_dmp1(d, p),
        rsa.rsa_crt_dmq1(d, q),
        rsa.rsa_crt_iqmp(p, q),
        rsa.RSAPublicNumbers(e, p * q),
    )
    return numbers.private_key()


def generate_key(key_type: str, rng: Rng) -> PrivateKey:
    """A private key of a listed PodCertificate key type, drawn from ``rng``."""
    if key_type in _CURVES:
        return ec.derive_private_key(rng.randint(1, 1 << (_BITS[key_type] - 2)), _CURVES[key_type])
    if key_type == "ED25519":
        return ed25519.Ed25519PrivateKey.from_private_bytes(
            rng.randint(0, (1 << 256) - 1).to_bytes(32, "big")
        )
    if key_type in ("RSA3072", "RSA4096"):
        return _rsa(int(key_type[3:]), rng)
    raise ValueError(f"unsupported key type {key_type!r}; use one of {', '.join(KEY_TYPES)}")


def sign_args(key: PrivateKey) -> dict[str, object]:
    """Keyword arguments for a deterministic ``sign`` with ``key`` (hash, RFC 6979)."""
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return {"algorithm": None}
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return {"algorithm": hashes.SHA256(), "ecdsa_deterministic": True}
    return {"algorithm": hashes.SHA256()}


def stub_pkcs10_der(key: PrivateKey) -> bytes:
    """The kubelet's stub PKCS#10 request: empty subject, signed by ``key``."""
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([]))
    csr = builder.sign(key, **sign_args(key))  # type: ignore[arg-type]
    return csr.public_bytes(serialization.Encoding.DER)

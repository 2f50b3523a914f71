"""Selftests of the certificate model: seeded keys and the hermetic signer are reproducible."""

from __future__ import annotations

import pytest
from cryptography import x509

from reference_impl import Cluster
from reference_impl.certificates import PodIdentity, Signer, generate_key, stub_pkcs10_der
from reference_impl.clock import Instant, seconds
from reference_impl.rng import Rng

WHO = PodIdentity("ns", "p", "uid", "default", "node")


@pytest.mark.parametrize("key_type", ["ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"])
def test_keys_and_stub_requests_are_reproducible_from_the_seed(key_type: str) -> None:
    a = stub_pkcs10_der(generate_key(key_type, Rng(7, "k")))
    assert a == stub_pkcs10_der(generate_key(key_type, Rng(7, "k")))
    assert a != stub_pkcs10_der(generate_key(key_type, Rng(8, "k")))
    assert x509.load_der_x509_csr(a).is_signature_valid


def test_the_signer_issues_identical_chains_for_identical_seeds() -> None:
    key = generate_key("ECDSAP256", Rng(1, "pod")).public_key()
    chains = [
        Signer("garhwal.dev/x", Rng(0, "s"), Instant(0)).issue(key, WHO, Instant(seconds(5)), 3600)
        for _ in range(2)
    ]
    assert chains[0] == chains[1]
    assert chains[0].not_after - chains[0].not_before == seconds(3600)


def test_the_signer_caps_the_lifetime_at_its_maximum() -> None:
    s = Signer("garhwal.dev/x", Rng(0, "s"), Instant(0), max_lifetime_seconds=3600)
    key = generate_key("ED25519", Rng(1, "pod")).public_key()
    issued = s.issue(key, WHO, Instant(0), 86400)
    assert issued.not_after == seconds(3600) and issued.begin_refresh_at == seconds(1800)


def test_two_clusters_with_one_seed_publish_the_same_root() -> None:
    def root(seed: int) -> str:
        c = Cluster(seed=seed)
        return str(
            c.get("certificates.k8s.io/v1", "ClusterTrustBundle", "garhwal.dev:test-signer:root")[
                "spec"
            ]["trustBundle"]
        )

    assert root(3) == root(3) != root(4)

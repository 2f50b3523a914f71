"""ClusterTrustBundle validation (KEP-3257, certificates.k8s.io/v1, cluster-scoped).

Bundles are cluster-scoped: each test deletes what it created.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fixtures import Target
from reference_impl.api import ca_certificate_pem, make_ctb
from reference_impl.errors import Invalid, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("CTB")]

CTB = ("certificates.k8s.io/v1", "ClusterTrustBundle")
SIGNER = "garhwal.dev/ctb-suite"
PREFIX = "garhwal.dev:ctb-suite:"


@pytest.fixture
def bundles(target: Target) -> Iterator[list[str]]:
    """Names of bundles the test created; deleted afterwards."""
    names: list[str] = []
    yield names
    for n in names:
        try:
            target.delete(*CTB, n)
        except NotFound:
            pass


def test_invalid_pem_in_a_trust_bundle_is_rejected(target: Target, bundles: list[str]) -> None:
    """ClusterTrustBundle invalid PEM.

    A bundle whose PEM block is not valid base64 MUST be rejected as Invalid at
    ``spec.trustBundle`` (no trust anchor), and nothing MUST be stored.
    """
    bad = "-----BEGIN CERTIFICATE-----\nnot base64!!\n-----END CERTIFICATE-----\n"
    name = PREFIX + "bad-pem"
    with pytest.raises(Invalid) as err:
        target.apply(make_ctb(name, bad, SIGNER).build())
    assert "spec.trustBundle" in err.value.fields
    with pytest.raises(NotFound):
        target.get(*CTB, name)


def test_a_bundle_named_without_its_signer_prefix_is_rejected(
    target: Target, bundles: list[str]
) -> None:
    """ClusterTrustBundle name prefix.

    A bundle with ``signerName`` whose name does not start with the signer name (``/``
    written as ``:``) MUST be rejected as Invalid at ``metadata.name``.
    """
    with pytest.raises(Invalid) as err:
        target.apply(make_ctb("garhwal-ctb-wrong", ca_certificate_pem("ca"), SIGNER).build())
    assert "metadata.name" in err.value.fields
    assert PREFIX in str(err.value)


def test_a_bundle_of_ca_certificates_is_stored(target: Target, bundles: list[str]) -> None:
    """ClusterTrustBundle accepted.

    A bundle of two distinct CA certificates, named with the signer prefix, MUST be
    stored with its signer and PEM unchanged.
    """
    pem = ca_certificate_pem("garhwal ca 1") + ca_certificate_pem("garhwal ca 2")
    name = PREFIX + "ok"
    bundles.append(name)
    stored = target.apply(make_ctb(name, pem, SIGNER).build())
    assert stored["spec"]["signerName"] == SIGNER
    assert stored["spec"]["trustBundle"].count("BEGIN CERTIFICATE") == 2


def test_an_empty_trust_bundle_is_rejected(target: Target, bundles: list[str]) -> None:
    """ClusterTrustBundle needs an anchor.

    A bundle with no PEM certificate at all MUST be rejected as Invalid at
    ``spec.trustBundle``.
    """
    with pytest.raises(Invalid) as err:
        target.apply(make_ctb("garhwal-ctb-empty", "no pem here").build())
    assert "spec.trustBundle" in err.value.fields


def test_duplicate_trust_anchors_are_rejected(target: Target, bundles: list[str]) -> None:
    """ClusterTrustBundle duplicates.

    A bundle that repeats the same certificate MUST be rejected as Invalid at
    ``spec.trustBundle``.
    """
    pem = ca_certificate_pem("dup")
    name = PREFIX + "dup"
    bundles.append(name)
    with pytest.raises(Invalid) as err:
        target.apply(make_ctb(name, pem + pem, SIGNER).build())
    assert "spec.trustBundle" in err.value.fields

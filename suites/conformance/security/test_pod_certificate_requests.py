"""PodCertificateRequest validation (KEP-4317, certificates.k8s.io/v1)."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_pcr
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("PODCERT")]

PCR = ("certificates.k8s.io/v1", "PodCertificateRequest")


@pytest.mark.parametrize("seconds", [100, 3599, 7862401])
def test_max_expiration_seconds_out_of_range_is_rejected(
    target: Target, namespace: str, seconds: int
) -> None:
    """PodCertificateRequest expiration bounds.

    A request whose ``maxExpirationSeconds`` lies outside [3600, 7862400] MUST be rejected
    as Invalid at ``spec.maxExpirationSeconds`` with the range in the message, and nothing
    MUST be stored.
    """
    bad = make_pcr("podcert-range", namespace).set("spec.maxExpirationSeconds", seconds).build()
    with pytest.raises(Invalid) as err:
        target.apply(bad)
    assert "spec.maxExpirationSeconds" in err.value.fields
    assert "[3600, 7862400]" in str(err.value)
    assert target.list(*PCR, namespace) == []


def test_max_expiration_seconds_defaults_to_a_day(target: Target, namespace: str) -> None:
    """PodCertificateRequest expiration default.

    A request without ``maxExpirationSeconds`` MUST be stored with 86400.
    """
    stored = target.apply(make_pcr("podcert-default", namespace).build())
    assert stored["spec"]["maxExpirationSeconds"] == 86400


@pytest.mark.parametrize("key_type", ["ECDSAP256", "ED25519", "RSA3072"])
def test_listed_key_types_are_accepted(target: Target, namespace: str, key_type: str) -> None:
    """PodCertificateRequest key types.

    A stub PKCS#10 request carrying a listed key type MUST be accepted, with the bounds
    3600 and 7862400 themselves allowed.
    """
    name = f"podcert-{key_type.lower()}"
    pcr = make_pcr(name, namespace, key_type=key_type).set("spec.maxExpirationSeconds", 3600)
    assert target.apply(pcr.build())["spec"]["maxExpirationSeconds"] == 3600


def test_an_unlisted_key_type_is_rejected(target: Target, namespace: str) -> None:
    """PodCertificateRequest unsupported key.

    A stub PKCS#10 request with an RSA 2048 key MUST be rejected as Invalid at
    ``spec.stubPKCS10Request``.
    """
    with pytest.raises(Invalid) as err:
        target.apply(make_pcr("podcert-rsa2048", namespace, key_type="RSA2048").build())
    assert "spec.stubPKCS10Request" in err.value.fields


def test_a_garbage_stub_request_is_rejected(target: Target, namespace: str) -> None:
    """PodCertificateRequest stub request must parse.

    A ``stubPKCS10Request`` that is not a DER PKCS#10 request MUST be rejected as Invalid
    at ``spec.stubPKCS10Request``.
    """
    bad = make_pcr("podcert-garbage", namespace).set("spec.stubPKCS10Request", "AAAA").build()
    with pytest.raises(Invalid) as err:
        target.apply(bad)
    assert "spec.stubPKCS10Request" in err.value.fields

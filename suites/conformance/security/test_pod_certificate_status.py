"""PodCertificateRequest status rules (KEP-4317): one terminal condition, then frozen.

These write ``status`` through ``/status`` directly, as a signer would, so they run on
both targets (on a live cluster the test user needs permission to update the status of
requests for the signer; cluster-admin has it).
"""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fixtures import Target
from reference_impl.api import make_pcr
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("PODCERT")]

PCR = ("certificates.k8s.io/v1", "PodCertificateRequest")
NO_SIGNER = "garhwal.dev/nobody-signs-this"
NOW = "2026-01-01T00:00:00Z"


def _cond(ctype: str, reason: str) -> dict[str, Any]:
    return {
        "type": ctype,
        "status": "True",
        "reason": reason,
        "message": f"{ctype} by the test",
        "lastTransitionTime": NOW,
    }


def _stamp(when: datetime.datetime) -> str:
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _leaf(public_key: Any, not_before: datetime.datetime, not_after: datetime.datetime) -> str:
    """A leaf for the request's key, signed by a throwaway CA, in PEM (as a signer writes)."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test signer")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pod")]))
        .issuer_name(name)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .sign(ca_key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _fields(err: Invalid) -> list[str]:
    return [f for f in err.fields if f.startswith("status.conditions")]


def test_two_terminal_conditions_are_rejected(target: Target, namespace: str) -> None:
    """PodCertificateRequest terminal conditions are exclusive.

    A status write carrying both a ``Denied`` and a ``Failed`` condition MUST be rejected
    as Invalid at ``status.conditions``, and the request MUST stay without conditions.
    """
    pcr = target.apply(make_pcr("pcr-two", namespace, signer=NO_SIGNER).build())
    pcr["status"] = {"conditions": [_cond("Denied", "NoThanks"), _cond("Failed", "Broken")]}
    with pytest.raises(Invalid) as err:
        target.patch_status(pcr)
    assert _fields(err.value), err.value.fields
    stored = target.get(*PCR, "pcr-two", namespace)
    assert not (stored.get("status") or {}).get("conditions")


def test_a_denied_request_cannot_be_changed_to_failed(target: Target, namespace: str) -> None:
    """PodCertificateRequest terminal status is immutable.

    Once a request is ``Denied``, a status write that replaces that condition with
    ``Failed`` MUST be rejected as Invalid, and the request MUST stay Denied.
    """
    pcr = target.apply(make_pcr("pcr-frozen", namespace, signer=NO_SIGNER).build())
    pcr["status"] = {"conditions": [_cond("Denied", "NoThanks")]}
    denied = target.patch_status(pcr)
    assert [c["type"] for c in denied["status"]["conditions"]] == ["Denied"]
    denied["status"] = {"conditions": [_cond("Failed", "Broken")]}
    with pytest.raises(Invalid):
        target.patch_status(denied)
    stored = target.get(*PCR, "pcr-frozen", namespace)
    assert [c["type"] for c in stored["status"]["conditions"]] == ["Denied"]


@pytest.mark.parametrize(("extra_s", "accepted"), [(0, True), (3600, False)])
def test_an_issued_leaf_may_not_outlive_max_expiration_seconds(
    target: Target, namespace: str, extra_s: int, accepted: bool
) -> None:
    """PodCertificateRequest issued lifetime.

    An Issued status whose leaf (for the request's key, with notBefore/notAfter matching
    it) lives ``maxExpirationSeconds`` MUST be accepted; one whose leaf lives an hour
    longer MUST be rejected as Invalid at ``status.certificateChain`` and leave the
    request pending.
    """
    name = f"pcr-life-{extra_s}"
    pcr = make_pcr(name, namespace, signer=NO_SIGNER).set("spec.maxExpirationSeconds", 7200)
    stored = target.apply(pcr.build())
    created = stored["metadata"]["creationTimestamp"]  # the apiserver's clock
    now = datetime.datetime.fromisoformat(created.replace("Z", "+00:00"))
    csr = x509.load_der_x509_csr(base64.b64decode(stored["spec"]["stubPKCS10Request"]))
    not_after = now + datetime.timedelta(seconds=7200 + extra_s)
    chain, stamps = _leaf(csr.public_key(), now, not_after), (now, not_after)
    stored["status"] = {
        "certificateChain": chain,
        "notBefore": _stamp(stamps[0]),
        "notAfter": _stamp(stamps[1]),
        "beginRefreshAt": _stamp(now + datetime.timedelta(seconds=3600)),
        "conditions": [_cond("Issued", "Issued") | {"lastTransitionTime": created}],
    }
    if accepted:
        assert target.patch_status(stored)["status"]["notAfter"] == _stamp(not_after)
        return
    with pytest.raises(Invalid) as err:
        target.patch_status(stored)
    assert "status.certificateChain" in err.value.fields
    assert not (target.get(*PCR, name, namespace).get("status") or {}).get("conditions")

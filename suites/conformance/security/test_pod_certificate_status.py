"""PodCertificateRequest status rules (KEP-4317): one terminal condition, then frozen.

These write ``status`` through ``/status`` directly, as a signer would, so they run on
both targets (on a live cluster the test user needs permission to update the status of
requests for the signer; cluster-admin has it).
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target, issued_status
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
    stored["status"] = issued_status(stored, 7200 + extra_s, _cond("Issued", "Issued"))
    if accepted:
        assert target.patch_status(stored)["status"]["notAfter"] == stored["status"]["notAfter"]
        return
    with pytest.raises(Invalid) as err:
        target.patch_status(stored)
    assert "status.certificateChain" in err.value.fields
    assert not (target.get(*PCR, name, namespace).get("status") or {}).get("conditions")

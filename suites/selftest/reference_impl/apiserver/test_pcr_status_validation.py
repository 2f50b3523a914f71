"""PodCertificateRequest status updates, as upstream's ValidatePodCertificateRequestStatusUpdate.

Each case writes the status a signer would, then breaks one rule; the validator must name
upstream's field. (The live apiserver refused a leaf outliving maxExpirationSeconds that
the reference had accepted: these pin the port.)
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from cryptography import x509

from reference_impl.api import make_pcr
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.strategies.certificates_status import validate_pcr_status
from reference_impl.certificates import TEST_SIGNER, PodIdentity, Signer, signer_status
from reference_impl.certificates.keys import generate_key
from reference_impl.clock import Instant, rfc3339, seconds
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng

Obj = dict[str, Any]
NOW = Instant(seconds(1000))
# The status validator consults the objects and the apiserver's clock (notBefore).
CTX = Context(FeatureGates(), lambda *a: None, lambda *a: [], now=NOW)


@pytest.fixture
def pending() -> Obj:
    pcr = make_pcr("r", "ns").build()
    pcr["metadata"]["generation"] = 1
    pcr["spec"]["maxExpirationSeconds"] = 7200
    return pcr


@pytest.fixture
def signer() -> Signer:
    return Signer(TEST_SIGNER, Rng(7, "s"), Instant(0))


def _issued(signer: Signer, pending: Obj) -> Obj:
    return {**pending, "status": signer_status(signer, pending, NOW)}


def _cond(ctype: str) -> Obj:
    """A condition that passes ``metav1validation.ValidateConditions``."""
    return {"type": ctype, "status": "True", "reason": "No", "lastTransitionTime": rfc3339(NOW)}


def _fields(new: Obj, old: Obj) -> list[str]:
    return [c.field for c in validate_pcr_status(new, old, CTX)]


def test_the_signers_issued_status_is_accepted(signer: Signer, pending: Obj) -> None:
    assert _fields(_issued(signer, pending), pending) == []


def test_a_denial_with_only_conditions_is_accepted_and_one_with_a_chain_is_not(
    signer: Signer, pending: Obj
) -> None:
    denied = copy.deepcopy(pending)
    denied["status"] = {"conditions": [_cond("Denied")]}
    assert _fields(denied, pending) == []
    denied["status"]["certificateChain"] = _issued(signer, pending)["status"]["certificateChain"]
    assert _fields(denied, pending) == ["status"]


def test_a_leaf_outliving_max_expiration_seconds_is_refused(signer: Signer, pending: Obj) -> None:
    new = _issued(signer, pending)
    who = PodIdentity.from_spec("ns", pending["spec"])
    key = x509.load_der_x509_csr(
        base64.b64decode(pending["spec"]["stubPKCS10Request"])
    ).public_key()
    long = signer.issue(key, who, NOW, 7200 + 3600)
    new["status"].update(certificateChain=long.chain_pem, notAfter=rfc3339(long.not_after))
    assert _fields(new, pending) == ["status.certificateChain"]


def test_a_leaf_for_another_key_is_refused(signer: Signer, pending: Obj) -> None:
    new = _issued(signer, pending)
    other = generate_key("ECDSAP256", Rng(9, "other")).public_key()
    cert = signer.issue(other, PodIdentity.from_spec("ns", pending["spec"]), NOW, 7200)
    new["status"]["certificateChain"] = cert.chain_pem
    causes = validate_pcr_status(new, pending, CTX)
    assert [c.field for c in causes] == ["status.certificateChain"]
    assert causes[0].message.endswith(": leaf certificate was not issued to the requested public key")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("notBefore", rfc3339(Instant(NOW - seconds(1)))),
        ("notAfter", rfc3339(Instant(NOW + seconds(7199)))),
        ("beginRefreshAt", rfc3339(Instant(NOW + seconds(7200 - 599)))),
        ("beginRefreshAt", rfc3339(Instant(NOW + seconds(599)))),
    ],
)
def test_times_inconsistent_with_the_leaf_or_refresh_bounds_are_refused(
    signer: Signer, pending: Obj, field: str, value: str
) -> None:
    new = _issued(signer, pending)
    new["status"][field] = value
    assert _fields(new, pending) == [f"status.{field}"]


def test_an_answered_request_is_frozen_and_a_pending_one_changes_only_by_answering(
    signer: Signer, pending: Obj
) -> None:
    issued = _issued(signer, pending)
    rewritten = copy.deepcopy(issued)
    rewritten["status"]["conditions"][0]["message"] = "changed"
    assert _fields(rewritten, issued) == ["status"]
    assert _fields(copy.deepcopy(issued), issued) == []
    noted = {**pending, "status": {"certificateChain": issued["status"]["certificateChain"]}}
    assert _fields(noted, pending) == ["status"]
    # Upstream refuses every condition type but the three answers (NotSupported).
    progress = {**pending, "status": {"conditions": [_cond("Progress")]}}
    assert _fields(progress, pending) == ["status.conditions.[0].type"]


def test_two_terminal_conditions_are_refused(signer: Signer, pending: Obj) -> None:
    new = _issued(signer, pending)
    new["status"]["conditions"].append(_cond("Denied"))
    # formatIndex after a dot: upstream's own path spelling, as the live apiserver answers.
    assert _fields(new, pending) == ["status.conditions.[1].type"]


def test_a_not_before_more_than_5_minutes_from_the_apiservers_clock_is_refused(
    signer: Signer, pending: Obj
) -> None:
    issued = _issued(signer, pending)  # stamped at NOW
    late = Context(FeatureGates(), lambda *a: None, lambda *a: [], now=Instant(NOW + seconds(300)))
    near = Context(FeatureGates(), lambda *a: None, lambda *a: [], now=Instant(NOW + seconds(299)))
    assert [c.field for c in validate_pcr_status(issued, pending, late)] == ["status.notBefore"]
    assert validate_pcr_status(issued, pending, near) == []

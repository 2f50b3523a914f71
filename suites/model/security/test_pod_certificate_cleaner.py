"""The PodCertificateRequest cleaner of kube-controller-manager (KEP-4317).

``podcertificaterequest-cleaner-controller`` deletes every PodCertificateRequest whose
``creationTimestamp`` is at least 15 minutes old, whatever its state, polling every
5 minutes. The live kube-controller-manager runs it too, but a creation timestamp cannot
be back-dated, so seeing a deletion takes 15 to 20 real minutes: these tests need
VIRTUAL_TIME (the reference's simulated clock). That makes them tests of the reference's
port of the cleaner (marker ``model``), not conformance evidence: no live cluster can run
them in a test run's time.
"""

from __future__ import annotations

import pytest

from fixtures import Capability, Target
from reference_impl.api import condition, make_pcr
from reference_impl.errors import NotFound, Timeout

pytestmark = [
    pytest.mark.model,
    pytest.mark.feature("PODCERT"),
    pytest.mark.requires(Capability.VIRTUAL_TIME),
]

PCR = ("certificates.k8s.io/v1", "PodCertificateRequest")
THRESHOLD_S = 15 * 60
POLL_S = 5 * 60
NO_SIGNER = "garhwal.dev/nobody-signs-this"


def _exists(target: Target, name: str, namespace: str) -> bool:
    try:
        target.get(*PCR, name, namespace)
    except NotFound:
        return False
    return True


def test_a_pending_request_is_kept_for_15_minutes_then_deleted(
    target: Target, namespace: str
) -> None:
    """PodCertificateRequest cleanup of pending requests.

    A request that no signer answers MUST still exist 14 minutes after its creation and
    MUST be deleted by the cleaner no later than 15 minutes plus one 5-minute polling
    period after it.
    """
    target.apply(make_pcr("pcr-pending", namespace, signer=NO_SIGNER).build())
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: not _exists(target, "pcr-pending", namespace),
            timeout=THRESHOLD_S - 60,
            what="an early deletion",
        )
    assert condition(target.get(*PCR, "pcr-pending", namespace), "Issued") is None
    target.wait_until(
        lambda: not _exists(target, "pcr-pending", namespace),
        timeout=60 + POLL_S + 5,
        what="pcr-pending deleted by the cleaner",
    )


@pytest.mark.requires(Capability.POD_CERT_SIGNER)
def test_issued_and_denied_requests_are_deleted_too(target: Target, namespace: str) -> None:
    """PodCertificateRequest cleanup of terminal requests.

    The cleaner MUST delete requests in a terminal state as well: an Issued request and a
    Denied one MUST both be gone within 20 minutes of their creation, and both MUST still
    exist 14 minutes after it.
    """
    target.apply(make_pcr("pcr-issued", namespace).build())
    denied = make_pcr("pcr-denied", namespace).set(
        "spec.unverifiedUserAnnotations", {"garhwal.dev/unknown": "x"}
    )
    target.apply(denied.build())

    def terminal() -> bool:
        issued = condition(target.get(*PCR, "pcr-issued", namespace), "Issued")
        refused = condition(target.get(*PCR, "pcr-denied", namespace), "Denied")
        return issued is not None and refused is not None

    target.wait_until(terminal, timeout=30, what="one request Issued and one Denied")
    names = ("pcr-issued", "pcr-denied")
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: not all(_exists(target, n, namespace) for n in names),
            timeout=THRESHOLD_S - 90,
            what="an early deletion",
        )
    target.wait_until(
        lambda: not any(_exists(target, n, namespace) for n in names),
        timeout=90 + POLL_S + 5,
        what="both terminal requests deleted",
    )


def test_a_young_request_survives_an_old_ones_cleanup(target: Target, namespace: str) -> None:
    """PodCertificateRequest cleanup is per request age.

    When an old request is deleted by the cleaner, a request created 10 minutes after it
    MUST survive that pass and be deleted only once it is 15 minutes old itself.
    """
    target.apply(make_pcr("pcr-old", namespace, signer=NO_SIGNER).build())
    with pytest.raises(Timeout):
        target.wait_until(lambda: False, timeout=10 * 60, what="ten minutes to pass")
    target.apply(make_pcr("pcr-young", namespace, signer=NO_SIGNER).build())
    target.wait_until(
        lambda: not _exists(target, "pcr-old", namespace),
        timeout=5 * 60 + POLL_S + 5,
        what="pcr-old deleted",
    )
    assert _exists(target, "pcr-young", namespace)
    target.wait_until(
        lambda: not _exists(target, "pcr-young", namespace),
        timeout=THRESHOLD_S + POLL_S + 5,
        what="pcr-young deleted",
    )

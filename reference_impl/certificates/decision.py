"""What a signer writes to a PodCertificateRequest's status: a denial or an issued chain.

Shared by the reference's in-process signer controller and the out-of-cluster signer that
garhwal runs against a live apiserver, so both answer a request the same way.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

from cryptography import x509

from reference_impl.certificates.signer import PodIdentity, Signer
from reference_impl.clock import Instant, rfc3339

__all__ = ["TERMINAL_CONDITIONS", "is_terminal", "signer_status"]

Obj = dict[str, Any]
TERMINAL_CONDITIONS: Final = ("Issued", "Denied", "Failed")


def is_terminal(pcr: Mapping[str, Any]) -> bool:
    """Whether a signer already answered the request (Issued, Denied or Failed is True)."""
    conds = (pcr.get("status") or {}).get("conditions") or []
    return any(c.get("type") in TERMINAL_CONDITIONS and c.get("status") == "True" for c in conds)


def signer_status(signer: Signer, pcr: Mapping[str, Any], now: Instant) -> Obj:
    """The status ``signer`` writes through ``/status`` for ``pcr`` at ``now``."""
    spec = pcr["spec"]
    stamp = rfc3339(now)
    denial = signer.denial(spec)
    if denial is not None:
        return {"conditions": [_condition("Denied", *denial, stamp, pcr)]}
    csr = x509.load_der_x509_csr(base64.b64decode(spec["stubPKCS10Request"]))
    who = PodIdentity.from_spec(pcr["metadata"]["namespace"], spec)
    issued = signer.issue(csr.public_key(), who, now, int(spec.get("maxExpirationSeconds", 86400)))
    return {
        "certificateChain": issued.chain_pem,
        "notBefore": rfc3339(issued.not_before),
        "notAfter": rfc3339(issued.not_after),
        "beginRefreshAt": rfc3339(issued.begin_refresh_at),
        "conditions": [_condition("Issued", "Issued", f"issued by {signer.name}", stamp, pcr)],
    }


def _condition(ctype: str, reason: str, message: str, now: str, pcr: Mapping[str, Any]) -> Obj:
    return {
        "type": ctype,
        "status": "True",
        "reason": reason,
        "message": message,
        "lastTransitionTime": now,
        "observedGeneration": pcr["metadata"].get("generation", 1),
    }

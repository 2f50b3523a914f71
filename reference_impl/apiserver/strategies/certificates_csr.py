"""CertificateSigningRequest updates (1.37.2): the main strategy's ``PrepareForUpdate``
(spec and status come from the stored object), and the /status strategy's
``PrepareForUpdate`` with ``ValidateCertificateSigningRequestStatusUpdate``: conditions
(types, statuses, Approved/Denied exclusive, no duplicates; each tolerated when the stored
object already breaks it), a PEM certificate chain, no added Approved or Denied condition,
no removed Approved/Denied/Failed condition, and a certificate set once."""

from __future__ import annotations

import base64
import binascii
import copy
import re
from typing import Any, Final

from cryptography import x509

from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["certificate_error", "prepare_csr_approval", "validate_csr_approval"]

Obj = dict[str, Any]
_CONDS: Final = "status.conditions"
_TRUE_ONLY: Final = ("Approved", "Denied", "Failed")  # trueConditionTypes
_ALL_STATUSES: Final = ("False", "True", "Unknown")
# pem.Decode: a block, optional "Key: value" headers ended by a blank line, a base64 body.
_BLOCK: Final = re.compile(
    r"-----BEGIN ([^-\r\n]*)-----\r?\n((?:[^\r\n:]+:[^\r\n]*\r?\n)+\r?\n)?(.*?)-----END \1-----",
    re.DOTALL,
)


def _of(csr: Obj | None, ctype: str) -> list[Obj]:
    """``findConditions``."""
    conds = ((csr or {}).get("status") or {}).get("conditions") or []
    return [c for c in conds if isinstance(c, dict) and c.get("type") == ctype]


def _certificate(csr: Obj) -> bytes:
    raw = str((csr.get("status") or {}).get("certificate") or "")
    try:
        return base64.b64decode(raw)
    except (binascii.Error, ValueError):
        return raw.encode()


def certificate_error(pem: bytes) -> str:
    """``validateCertificate``: "" when empty or one or more CERTIFICATE blocks, each
    header-free holding parseable certificates; else upstream's reason."""
    if not pem:
        return ""
    blocks = 0
    for m in _BLOCK.finditer(pem.decode("latin-1")):
        try:
            der = base64.b64decode("".join(m.group(3).split()), validate=True)
        except (binascii.Error, ValueError):
            break  # pem.Decode finds no further block
        if m.group(1) != "CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{m.group(1)}"'
        if m.group(2):
            return "no PEM block headers are permitted"
        blocks += 1
        if not der:
            return "found CERTIFICATE PEM block containing 0 certificates"
        try:
            x509.load_der_x509_certificate(der)
        except ValueError as e:
            return str(e) or "x509: malformed certificate"
    return "" if blocks else "must contain at least one CERTIFICATE PEM block"


def _has_duplicates(csr: Obj) -> bool:
    types = [c.get("type") for c in (csr.get("status") or {}).get("conditions") or []]
    return len(types) != len(set(types))


def _has_empty_type(csr: Obj) -> bool:
    return any(not c.get("type") for c in (csr.get("status") or {}).get("conditions") or [])


def _conditions_causes(csr: Obj, old: Obj) -> list[Cause]:
    """``validateConditions`` with the options ``getValidationOptions`` derives from ``old``."""
    allow_both = bool(_of(old, "Approved")) and bool(_of(old, "Denied"))
    allow_dup, allow_empty = _has_duplicates(old), _has_empty_type(old)
    causes: list[Cause] = []
    seen: set[str] = set()
    approved = denied = False
    for i, c in enumerate((csr.get("status") or {}).get("conditions") or []):
        p = f"{_CONDS}[{i}]"
        ctype, status = str(c.get("type") or ""), str(c.get("status") or "")
        if not ctype and not allow_empty:
            causes.append(fe.required(f"{p}.type"))
        allowed = ("True",) if ctype in _TRUE_ONLY else _ALL_STATUSES
        if not status:
            causes.append(fe.required(f"{p}.status"))
        elif status not in allowed:
            causes.append(fe.not_supported(f"{p}.status", status, allowed))
        if not allow_both and ctype in ("Approved", "Denied"):
            approved, denied = approved or ctype == "Approved", denied or ctype == "Denied"
            if approved and denied:
                causes.append(
                    fe.invalid(
                        _CONDS, ctype, "Approved and Denied conditions are mutually exclusive"
                    )
                )
        if ctype in seen and not allow_dup:
            causes.append(fe.duplicate(f"{p}.type", ctype))
        seen.add(ctype)
    return causes


def _removal_causes(csr: Obj, old: Obj) -> list[Cause]:
    """No removed Approved/Denied/Failed condition, whoever updates."""
    return [
        fe.forbidden(_CONDS, f'updates may not remove a condition of type "{ctype}"')
        for ctype in ("Approved", "Denied", "Failed")
        if len(_of(csr, ctype)) < len(_of(old, ctype))
    ]


def _transition_causes(csr: Obj, old: Obj) -> list[Cause]:
    """``validateCertificateSigningRequestUpdate`` without approval rights: no removed
    Approved/Denied/Failed condition, no added or changed Approved/Denied one."""
    causes = _removal_causes(csr, old)
    for ctype in ("Approved", "Denied"):
        new_c, old_c = _of(csr, ctype), _of(old, ctype)
        if len(new_c) > len(old_c):
            causes.append(
                fe.forbidden(_CONDS, f'updates may not add a condition of type "{ctype}"')
            )
        elif len(new_c) == len(old_c) and new_c != old_c:
            causes.append(
                fe.forbidden(_CONDS, f'updates may not modify a condition of type "{ctype}"')
            )
    return causes


@preparer("CertificateSigningRequest")
def keep_csr_spec(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``csrStrategy.PrepareForUpdate``: an update changes neither spec nor status."""
    if old is not None:
        obj["spec"] = copy.deepcopy(old.get("spec") or {})
        if "status" in old:
            obj["status"] = copy.deepcopy(old["status"])


@preparer("CertificateSigningRequest", status=True)
def prepare_csr_status(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``csrStatusStrategy.PrepareForUpdate``: stored Approved/Denied instances kept when
    their count is unchanged (``preserveConditionInstances``), timestamps filled in
    (``populateConditionTimestamps``)."""
    status = obj.get("status")
    conds = status.get("conditions") if isinstance(status, dict) else None
    if not isinstance(conds, list):
        return
    for ctype in ("Approved", "Denied"):
        new_i = [i for i, c in enumerate(conds) if isinstance(c, dict) and c.get("type") == ctype]
        old_c = _of(old, ctype)
        if len(new_i) == len(old_c):
            for i, c in zip(new_i, old_c, strict=True):
                conds[i] = copy.deepcopy(c)
    _populate_condition_timestamps(conds, old, now)


def _populate_condition_timestamps(conds: list[Any], old: Obj | None, now: str) -> None:
    """``populateConditionTimestamps``."""
    for c in conds:
        if not isinstance(c, dict):
            continue
        c.setdefault("lastUpdateTime", now)
        if not c.get("lastTransitionTime"):
            same = [o for o in _of(old, str(c.get("type"))) if o.get("status") == c.get("status")]
            c["lastTransitionTime"] = next(
                (o["lastTransitionTime"] for o in same if o.get("lastTransitionTime")), now
            )


@validator("CertificateSigningRequest", status=True)
def validate_csr_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCertificateSigningRequestStatusUpdate`` (the spec is the stored one)."""
    if old is None:
        return []
    causes = _conditions_causes(obj, old)
    new_cert, old_cert = _certificate(obj), _certificate(old)
    # allowArbitraryCertificate: an unchanged certificate, or a stored one already invalid.
    if new_cert != old_cert and not certificate_error(old_cert):
        err = certificate_error(new_cert)
        if err:
            causes.append(fe.invalid("status.certificate", "<certificate data>", err))
    causes += _transition_causes(obj, old)
    if new_cert != old_cert and old_cert:
        causes.append(
            fe.forbidden(
                "status.certificate", "updates may not modify existing certificate content"
            )
        )
    return causes


def prepare_csr_approval(obj: Obj, old: Obj, now: str) -> None:
    """``csrApprovalStrategy.PrepareForUpdate``: only the conditions (timestamps filled
    in) come from the body; spec and the rest of status are the stored ones."""
    status = obj.get("status")
    conds = status.get("conditions") if isinstance(status, dict) else None
    obj["spec"] = copy.deepcopy(old.get("spec") or {})
    kept = {k: copy.deepcopy(v) for k, v in (old.get("status") or {}).items() if k != "conditions"}
    if isinstance(conds, list):
        _populate_condition_timestamps(conds, old, now)
        kept["conditions"] = conds
    obj["status"] = kept


def validate_csr_approval(obj: Obj, old: Obj) -> list[Cause]:
    """``ValidateCertificateSigningRequestApprovalUpdate`` past the approval strategy (spec
    and certificate are the stored ones): the conditions, no removed Approved/Denied/Failed
    condition; adding or changing Approved and Denied is what /approval is for."""
    return _conditions_causes(obj, old) + _removal_causes(obj, old)

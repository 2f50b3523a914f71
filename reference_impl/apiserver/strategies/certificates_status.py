"""PodCertificateRequest status updates, after ``ValidatePodCertificateRequestStatusUpdate``.

At most one of Issued, Denied or Failed, each True. A status that is already terminal is
immutable as a whole (reported on ``status``); denying or failing writes conditions only;
issuing writes a chain whose leaf parses, carries the requested public key and has the
status's notBefore/notAfter, lives between one hour and ``spec.maxExpirationSeconds``,
with ``beginRefreshAt`` at least 10 minutes inside it; any other status change is refused.
Not ported: "notBefore within 5 minutes of the apiserver's clock" (validators here get
no clock; the reference's signer stamps its own simulated now).
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any, Final

from cryptography import x509

from reference_impl.apiserver.registry import Context, validator
from reference_impl.clock import EPOCH_UNIX_SECONDS, parse_rfc3339
from reference_impl.errors import Cause

__all__ = ["MAX_CERTIFICATE_CHAIN_SIZE", "validate_pcr_status"]

Obj = dict[str, Any]
MAX_CERTIFICATE_CHAIN_SIZE: Final = 100 * 1024  # certificates.MaxCertificateChainSize
_TERMINAL: Final = ("Issued", "Denied", "Failed")
_CHAIN: Final = "status.certificateChain"
_BLOCK: Final = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
_NS: Final = 1_000_000_000


def _is(status: Obj, ctype: str) -> bool:
    return any(
        c.get("type") == ctype and c.get("status") == "True" for c in status.get("conditions") or ()
    )


def _invalid(path: str, detail: str) -> Cause:
    return Cause(path, "FieldValueInvalid", detail)


def _condition_causes(status: Obj) -> list[Cause]:
    causes: list[Cause] = []
    known = 0
    for i, c in enumerate(status.get("conditions") or ()):
        if c.get("type") not in _TERMINAL:
            continue
        known += 1
        if known > 1:
            causes.append(
                _invalid(
                    f"status.conditions[{i}].type",
                    'There may be at most one condition with type "Issued", "Denied", or "Failed"',
                )
            )
        if c.get("status") != "True":
            causes.append(
                Cause(
                    f"status.conditions[{i}].status",
                    "FieldValueNotSupported",
                    f'Unsupported value: "{c.get("status")}": supported values: "True"',
                )
            )
    return causes


def _blocks(chain: str) -> list[tuple[str, bytes | None]]:
    out: list[tuple[str, bytes | None]] = []
    for m in _BLOCK.finditer(chain):
        try:
            out.append((m.group(1), base64.b64decode("".join(m.group(2).split()), validate=True)))
        except binascii.Error:
            out.append((m.group(1), None))
    return out


def _seconds(when: datetime.datetime) -> int:
    return int(when.timestamp())


def _stamp(status: Obj, field: str) -> int | None:
    raw = status.get(field)
    if not raw:
        return None
    return EPOCH_UNIX_SECONDS + parse_rfc3339(str(raw)) // _NS


def _issued_causes(status: Obj, spec: Obj) -> list[Cause]:
    chain = str(status.get("certificateChain") or "")
    if len(chain) > MAX_CERTIFICATE_CHAIN_SIZE:
        return [
            Cause(
                _CHAIN,
                "FieldValueTooLong",
                f"may not be more than {MAX_CERTIFICATE_CHAIN_SIZE} bytes",
            )
        ]
    blocks = _blocks(chain)
    if not blocks:
        return [_invalid(_CHAIN, "issued certificate chain must contain at least one certificate")]
    kind, der = blocks[0]
    if kind != "CERTIFICATE":
        return [
            _invalid(
                _CHAIN, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks"
            )
        ]
    try:
        leaf = x509.load_der_x509_certificate(der or b"")
    except ValueError:
        return [_invalid(_CHAIN, "leaf certificate does not parse as valid X.509")]
    try:
        csr = x509.load_der_x509_csr(base64.b64decode(str(spec.get("stubPKCS10Request", ""))))
        want = csr.public_key()
    except (ValueError, binascii.Error):
        return [_invalid("spec.stubPKCS10Request", "must be a valid PKCS#10 CSR")]
    if want != leaf.public_key():
        return [_invalid(_CHAIN, "leaf certificate was not issued to the requested public key")]
    missing = [
        Cause(f"status.{f}", "FieldValueRequired", f"Required value: {why}")
        for f, why in (
            ("notBefore", "must be present and consistent with the issued certificate"),
            ("notAfter", "must be present and consistent with the issued certificate"),
            (
                "beginRefreshAt",
                "must be present and in the range [notbefore+10min, notafter-10min]",
            ),
        )
        if not status.get(f)
    ]
    if missing:
        return missing
    nb, na, br = (_stamp(status, f) for f in ("notBefore", "notAfter", "beginRefreshAt"))
    assert nb is not None and na is not None and br is not None
    leaf_nb, leaf_na = _seconds(leaf.not_valid_before_utc), _seconds(leaf.not_valid_after_utc)
    if nb != leaf_nb:
        return [
            _invalid(
                "status.notBefore",
                "must be set to the NotBefore time encoded in the leaf certificate",
            )
        ]
    if na != leaf_na:
        return [
            _invalid(
                "status.notAfter",
                "must be set to the NotAfter time encoded in the leaf certificate",
            )
        ]
    lifetime = leaf_na - leaf_nb
    mes = int(spec.get("maxExpirationSeconds", 86400))
    if lifetime < 3600:
        return [_invalid(_CHAIN, "leaf certificate lifetime must be >= 1 hour")]
    if lifetime > mes:
        return [
            _invalid(
                _CHAIN, f"leaf certificate lifetime must be <= spec.maxExpirationSeconds ({mes})"
            )
        ]
    if br < nb + 600:
        return [
            _invalid("status.beginRefreshAt", "must be at least 10 minutes after status.notBefore")
        ]
    if br > na - 600:
        return [
            _invalid("status.beginRefreshAt", "must be at least 10 minutes before status.notAfter")
        ]
    for kind, der in blocks[1:]:
        if kind != "CERTIFICATE":
            return [
                _invalid(
                    _CHAIN,
                    "issued certificate chain must consist entirely of CERTFICATE PEM blocks",
                )
            ]
        try:
            x509.load_der_x509_certificate(der or b"")
        except ValueError:
            return [_invalid(_CHAIN, "intermediate certificate does not parse as valid X.509")]
    return []


@validator("PodCertificateRequest", status=True)
def validate_pcr_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Upstream's status-update rules, in upstream's order; each stage returns early."""
    status = obj.get("status") or {}
    causes = _condition_causes(status)
    if causes:  # upstream bails on bad conditions before judging the other fields
        return causes
    old_status = (old or {}).get("status") or {}
    if any(_is(old_status, t) for t in _TERMINAL):
        if status != old_status:
            return [
                _invalid(
                    "status", "immutable after PodCertificateRequest is issued, denied, or failed"
                )
            ]
        return []
    if _is(status, "Denied") or _is(status, "Failed"):
        if any(v for k, v in status.items() if k != "conditions"):
            return [
                _invalid(
                    "status",
                    "non-condition status fields must be empty when denying or failing the "
                    "PodCertificateRequest",
                )
            ]
        return []
    if _is(status, "Issued"):
        return _issued_causes(status, (old or obj).get("spec") or {})
    if old is not None and status != old_status:
        return [
            _invalid(
                "status",
                'status is immutable unless transitioning to "Issued", "Denied", or "Failed"',
            )
        ]
    return []

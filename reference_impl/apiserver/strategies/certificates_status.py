"""PodCertificateRequest status updates, after ``ValidatePodCertificateRequestStatusUpdate``.

Only Issued, Denied or Failed conditions, at most one, each True, then metav1's
``ValidateConditions``. A status that is already terminal is immutable as a whole
(reported on ``status``); denying or failing writes conditions only; issuing writes a
chain whose leaf parses, has sane DNS names and email addresses, carries the requested
public key and has the status's notBefore/notAfter, lives between one hour and
``spec.maxExpirationSeconds``, with ``beginRefreshAt`` at least 10 minutes inside it; any
other status change is refused. notBefore must be within 5 minutes of the apiserver's
(simulated) clock, which the reference's signer stamps.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any, Final

from cryptography import x509

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.strategies.certificates_mail import is_mail_address
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.go_time import instant_ns
from reference_impl.apiserver.validation.status_conditions import validate_conditions
from reference_impl.clock import EPOCH_UNIX_SECONDS, Instant
from reference_impl.errors import Cause

__all__ = ["MAX_CERTIFICATE_CHAIN_SIZE", "validate_pcr_status"]

Obj = dict[str, Any]
MAX_CERTIFICATE_CHAIN_SIZE: Final = 100 * 1024  # certificates.MaxCertificateChainSize
_TERMINAL: Final = ("Issued", "Denied", "Failed")
_CHAIN: Final = "status.certificateChain"
_BLOCK: Final = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
_NS: Final = 1_000_000_000
_UNIX_DAY: Final = datetime.date(1970, 1, 1).toordinal()  # go_time counts days from year 1
_SKEW: Final = 5 * 60 * _NS  # notBefore against the apiserver's clock


def _is(status: Obj, ctype: str) -> bool:
    return any(
        c.get("type") == ctype and c.get("status") == "True" for c in status.get("conditions") or ()
    )


def _invalid(path: str, detail: str, value: Any = fe.OMIT) -> Cause:
    return fe.invalid(path, value, detail)


def _condition_causes(status: Obj) -> list[Cause]:
    """At most one known condition, each True; then ``metav1validation.ValidateConditions``.
    Upstream names these indices ``conditions.[i]`` (``formatIndex`` after a dot)."""
    causes: list[Cause] = []
    known = 0
    conditions = status.get("conditions") or []
    for i, c in enumerate(conditions if isinstance(conditions, list) else []):
        ctype = (c if isinstance(c, dict) else {}).get("type")
        p = f"status.conditions.[{i}]"
        if ctype not in _TERMINAL:
            causes.append(fe.not_supported(f"{p}.type", ctype, _TERMINAL))
            continue
        known += 1
        if known > 1:
            causes.append(
                fe.invalid(
                    f"{p}.type",
                    ctype,
                    'There may be at most one condition with type "Issued", "Denied", or "Failed"',
                )
            )
        if c.get("status") != "True":
            causes.append(fe.not_supported(f"{p}.status", c.get("status"), ("True",)))
    return causes + validate_conditions(conditions, "status.conditions")


def _leaf_name_causes(leaf: x509.Certificate) -> list[Cause]:
    """The leaf's DNS names and email addresses, as upstream screens them."""
    try:
        san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    causes: list[Cause] = []
    for name in san.get_values_for_type(x509.DNSName):
        if name == "":
            causes.append(fe.invalid(_CHAIN, name, "leaf certificate should not contain empty DNSName"))
        if ".." in name:
            causes.append(fe.invalid(_CHAIN, name, "leaf certificate's DNSName should not contain '..'"))
        if name.startswith(".") or name.endswith("."):
            causes.append(
                fe.invalid(_CHAIN, name, "leaf certificate's DNSName should not start or end with '.'")
            )
    for email in san.get_values_for_type(x509.RFC822Name):
        if not is_mail_address(email):
            causes.append(fe.invalid(_CHAIN, email, "leaf certificate should not contain invalid EmailAddress"))
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
    """A status time in Unix nanoseconds, however Go's parser let it be spelled (an offset,
    a fraction); None when unset."""
    at = instant_ns(status.get(field)) if status.get(field) else None
    return None if at is None else at - _UNIX_DAY * 86_400 * _NS


def _near(unix_ns: int, now: Instant) -> bool:
    """``timeNear(t, clock.Now(), 5*time.Minute)``: strictly inside the skew."""
    at = unix_ns - EPOCH_UNIX_SECONDS * _NS
    return now - _SKEW < at < now + _SKEW


def _issued_causes(status: Obj, spec: Obj, now: Instant | None) -> list[Cause]:
    chain = str(status.get("certificateChain") or "")
    if len(chain) > MAX_CERTIFICATE_CHAIN_SIZE:
        return [fe.too_long(_CHAIN, MAX_CERTIFICATE_CHAIN_SIZE)]
    blocks = _blocks(chain)
    if not blocks:
        return [_invalid(_CHAIN, "issued certificate chain must contain at least one certificate", chain)]
    kind, der = blocks[0]
    if kind != "CERTIFICATE":
        return [
            _invalid(
                _CHAIN, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks", chain
            )
        ]
    try:
        leaf = x509.load_der_x509_certificate(der or b"")
        leaf.extensions  # noqa: B018 - Go's ParseCertificate refuses bad extensions too
    except ValueError:
        return [_invalid(_CHAIN, "leaf certificate does not parse as valid X.509", chain)]
    # Upstream gathers the name errors and goes on; the next early return carries them.
    names = _leaf_name_causes(leaf)
    try:
        csr = x509.load_der_x509_csr(base64.b64decode(str(spec.get("stubPKCS10Request", ""))))
        want = csr.public_key()
    except (ValueError, binascii.Error):
        return [*names, _invalid("spec.stubPKCS10Request", "must be a valid PKCS#10 CSR")]
    if want != leaf.public_key():
        return [
            *names,
            _invalid(_CHAIN, "leaf certificate was not issued to the requested public key", chain),
        ]
    missing = [
        fe.required(f"status.{f}", why)
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
    if names or missing:
        return names + missing
    nb, na, br = (_stamp(status, f) for f in ("notBefore", "notAfter", "beginRefreshAt"))
    assert nb is not None and na is not None and br is not None
    leaf_nb, leaf_na = _seconds(leaf.not_valid_before_utc), _seconds(leaf.not_valid_after_utc)
    if nb != leaf_nb * _NS:
        return [
            _invalid(
                "status.notBefore",
                "must be set to the NotBefore time encoded in the leaf certificate",
                status["notBefore"],
            )
        ]
    if now is not None and not _near(nb, now):
        return [
            _invalid(
                "status.notBefore",
                "must be set to within 5 minutes of kube-apiserver's current time",
                status["notBefore"],
            )
        ]
    if na != leaf_na * _NS:
        return [
            _invalid(
                "status.notAfter",
                "must be set to the NotAfter time encoded in the leaf certificate",
                status["notAfter"],
            )
        ]
    lifetime = leaf_na - leaf_nb
    mes = int(spec.get("maxExpirationSeconds", 86400))
    if lifetime < 3600:
        return [_invalid(_CHAIN, "leaf certificate lifetime must be >= 1 hour", lifetime * _NS)]
    if lifetime > mes:
        return [
            _invalid(
                _CHAIN, f"leaf certificate lifetime must be <= spec.maxExpirationSeconds ({mes})",
                lifetime * _NS,
            )
        ]
    if br < nb + 600 * _NS:
        return [
            _invalid("status.beginRefreshAt", "must be at least 10 minutes after status.notBefore", status["beginRefreshAt"])
        ]
    if br > na - 600 * _NS:
        return [
            _invalid("status.beginRefreshAt", "must be at least 10 minutes before status.notAfter", status["beginRefreshAt"])
        ]
    for kind, der in blocks[1:]:
        if kind != "CERTIFICATE":
            return [
                _invalid(
                    _CHAIN,
                    "issued certificate chain must consist entirely of CERTFICATE PEM blocks",
                    chain,
                )
            ]
        try:
            x509.load_der_x509_certificate(der or b"")
        except ValueError:
            return [_invalid(_CHAIN, "intermediate certificate does not parse as valid X.509", chain)]
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
        return _issued_causes(status, (old or obj).get("spec") or {}, ctx.now)
    if old is not None and status != old_status:
        return [
            _invalid(
                "status",
                'status is immutable unless transitioning to "Issued", "Denied", or "Failed"',
            )
        ]
    return []

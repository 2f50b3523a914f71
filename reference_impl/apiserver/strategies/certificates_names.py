"""certificates.k8s.io names (1.37.2): ``ValidateSignerName``, ``ValidateClusterTrustBundleName``
and the CertificateSigningRequest spec (request, usages, signerName, expirationSeconds)."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

from cryptography import x509

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.strategies.meta import annotations_causes, labels_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["is_kubernetes_signer_name", "signer_name_causes"]

Obj = dict[str, Any]
_USAGES: Final = (
    "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign",
    "data encipherment", "decipher only", "digital signature", "email protection",
    "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement",
    "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
    "server auth", "signing", "timestamping",
)  # fmt: skip


def is_kubernetes_signer_name(signer: str) -> bool:
    """``IsKubernetesSignerName``: the host part is kubernetes.io or one of its subdomains."""
    host = signer.split("/", 1)[0]
    return host == "kubernetes.io" or host.endswith(".kubernetes.io")


def signer_name_causes(path: str, signer: str) -> list[Cause]:
    """``ValidateSignerName``: ``<domain with a dot>/<path of subdomains>``, bounded."""
    if not signer:
        return [fe.required(path)]
    parts = signer.split("/")
    if len(parts) != 2:
        return [
            fe.invalid(
                path,
                signer,
                "must be a fully qualified domain and path of the form 'example.com/signer-name'",
            )
        ]
    domain, rest = parts
    causes: list[Cause] = []
    if len(domain) > 253:
        causes.append(fe.too_long(path, 253))
    labels = domain.split(".")
    for lbl in labels:
        errs = dns1123_label_errors(lbl)
        if errs:
            causes += [fe.invalid(path, domain, f'validating label "{lbl}": {e}') for e in errs]
            break
    if len(labels) < 2:
        causes.append(
            fe.invalid(
                path, domain, "should be a domain with at least two segments separated by dots"
            )
        )
    for lbl in rest.split("."):
        errs = dns1123_subdomain_errors(lbl)
        if errs:
            causes += [fe.invalid(path, rest, f'validating label "{lbl}": {e}') for e in errs]
            break
    if len(signer) > 253 + 253 + 63 + 1 + 1:
        causes.append(fe.too_long(path, 253 + 253 + 63 + 1 + 1))
    return causes


def _request_error(request: str) -> str:
    try:
        der_or_pem = base64.b64decode(request, validate=True)
    except (binascii.Error, ValueError):
        return "PEM block type must be CERTIFICATE REQUEST"
    if b"-----BEGIN CERTIFICATE REQUEST-----" not in der_or_pem:
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        x509.load_pem_x509_csr(der_or_pem)
    except ValueError as e:
        return str(e)
    return ""


@validator("CertificateSigningRequest")
def validate_csr(csr: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateCertificateSigningRequest`` (spec part) on create."""
    if old is not None:
        return []
    spec = csr.get("spec") or {}
    causes: list[Cause] = []
    err = _request_error(str(spec.get("request") or ""))
    if err:
        causes.append(fe.invalid("spec.request", spec.get("request", ""), err))
    usages = spec.get("usages") or []
    if not usages:
        causes.append(fe.required("spec.usages"))
    seen: set[str] = set()
    for i, u in enumerate(usages):
        if u not in _USAGES:
            causes.append(fe.not_supported(f"spec.usages[{i}]", u, _USAGES))
        if u in seen:
            causes.append(fe.duplicate(f"spec.usages[{i}]", u))
        seen.add(u)
    signer = str(spec.get("signerName") or "")
    if signer == "kubernetes.io/legacy-unknown":
        causes.append(
            fe.invalid(
                "spec.signerName",
                signer,
                "the legacy signerName is not allowed via this API version",
            )
        )
    else:
        causes += signer_name_causes("spec.signerName", signer)
    exp = spec.get("expirationSeconds")
    if isinstance(exp, int) and exp < 600:
        causes.append(
            fe.invalid(
                "spec.expirationSeconds",
                exp,
                "may not specify a duration less than 600 seconds (10 minutes)",
            )
        )
    if not causes:
        causes = _generic_name_causes(csr.get("metadata") or {})
    return causes


def _generic_name_causes(meta: Obj) -> list[Cause]:
    """``rest.BeforeCreate``'s generic ObjectMeta check once the strategy's passed:
    ``path.ValidatePathSegmentName`` (the CSR's own name rule accepts anything). Skipped
    when metadata already failed the strategy's check (labels, annotations)."""
    if labels_causes(meta.get("labels") or {}, "metadata.labels") or annotations_causes(
        meta.get("annotations") or {}, "metadata.annotations"
    ):
        return []
    name = str(meta.get("name") or "")
    errs = [f"may not be '{name}'"] if name in (".", "..") else []
    errs += [f"may not contain '{c}'" for c in "/%" if c in name]
    return [fe.invalid("metadata.name", name, e) for e in errs]

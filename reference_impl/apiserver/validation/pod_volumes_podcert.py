"""A pod's projected ``podCertificate`` source (``validateProjectionSources``, v1.37.2):
the signer, user annotations, key type, expiration bounds and the three file paths.

``user`` is not checked: the AtomicWriteVolumeUserFields gate is off, so it is dropped on
write before validation.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.pod_volumes import local_path_causes
from reference_impl.errors import Cause

__all__ = ["pod_certificate_causes"]

Obj = dict[str, Any]
_KEY_TYPES: Final = ("RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519")
_PATHS: Final = ("credentialBundlePath", "keyPath", "certificateChainPath")


def pod_certificate_causes(src: Obj, path: str, paths: set[str], projected: str) -> list[Cause]:
    """The ``podCertificate`` branch; ``paths`` holds the files other sources claimed."""
    # Imported here: the strategies package imports the pod volume modules.
    from reference_impl.apiserver.strategies.certificates import (
        KUBERNETES_MAX_EXPIRATION,
        MAX_EXPIRATION,
        domain_prefixed_key_causes,
    )
    from reference_impl.apiserver.strategies.certificates_names import (
        is_kubernetes_signer_name,
        signer_name_causes,
    )

    signer = str(src.get("signerName") or "")
    out = signer_name_causes(f"{path}.signerName", signer)
    annotations = src.get("userAnnotations")
    if isinstance(annotations, dict):  # ValidateUserAnnotations
        for k in annotations:
            out += domain_prefixed_key_causes(f"{path}.userAnnotations", str(k).lower())
        if sum(len(k) + len(str(v or "")) for k, v in annotations.items()) > 256 * 1024:
            out.append(fe.too_long(f"{path}.userAnnotations", 256 * 1024))
    kind = src.get("keyType")
    if kind not in _KEY_TYPES:
        out.append(fe.not_supported(f"{path}.keyType", kind or "", _KEY_TYPES))
    mes = src.get("maxExpirationSeconds")
    if isinstance(mes, int):
        if mes < 3600:
            out.append(fe.invalid(f"{path}.maxExpirationSeconds", mes, "if provided, maxExpirationSeconds must be >= 3600"))
        top = KUBERNETES_MAX_EXPIRATION if is_kubernetes_signer_name(signer) else MAX_EXPIRATION
        if mes > top:
            out.append(fe.invalid(f"{path}.maxExpirationSeconds", mes, f"if provided, maxExpirationSeconds must be <= {top}"))
    claimed = 0
    for name in _PATHS:
        p = str(src.get(name) or "")
        if not p:
            continue
        claimed += 1
        out += local_path_causes(p, f"{path}.{name}")
        if p in paths:
            out.append(fe.invalid(projected, p, "conflicting duplicate paths"))
        paths.add(p)
    if not claimed:
        out.append(fe.required(path, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
    return out

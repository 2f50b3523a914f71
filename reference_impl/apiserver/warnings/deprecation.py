"""``k8s.io/apiserver/pkg/endpoints/deprecation``: a request to a deprecated group/version
of a kind carries ``WarningMessage``'s text (``installer.go`` adds it to the route, ahead of
the strategy's warnings). The lifecycle is each type's generated ``APILifecycleDeprecated``
/ ``Removed`` / ``Replacement`` (``k8s.io/api/*/zz_generated.prerelease-lifecycle.go``);
listed are the served versions deprecated by 1.37 (a later deprecation does not warn yet)."""

from __future__ import annotations

from typing import Final

__all__ = ["deprecation_warnings"]

_MAP = "admissionregistration.k8s.io/v1"
# (group/version, kind, deprecated in, removed in, replacement group/version or "").
_LIFECYCLE: Final = (
    ("admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicy", "1.35", "1.38", ""),
    ("admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicyBinding", "1.35", "1.38", ""),
    ("admissionregistration.k8s.io/v1beta1", "MutatingAdmissionPolicy", "1.37", "1.40", _MAP),
    ("admissionregistration.k8s.io/v1beta1", "MutatingAdmissionPolicyBinding", "1.37", "1.40", _MAP),
    ("certificates.k8s.io/v1beta1", "ClusterTrustBundle", "1.37", "1.40", "certificates.k8s.io/v1"),
    ("certificates.k8s.io/v1beta1", "PodCertificateRequest", "1.37", "1.40", "certificates.k8s.io/v1"),
    ("coordination.k8s.io/v1alpha2", "LeaseCandidate", "1.35", "1.38", ""),
    ("coordination.k8s.io/v1beta1", "LeaseCandidate", "1.36", "1.39", ""),
    ("resource.k8s.io/v1alpha3", "DeviceTaintRule", "1.36", "1.39", ""),
    ("resource.k8s.io/v1beta1", "DeviceClass", "1.35", "1.38", ""),
    ("resource.k8s.io/v1beta1", "ResourceClaim", "1.35", "1.38", ""),
    ("resource.k8s.io/v1beta1", "ResourceClaimTemplate", "1.35", "1.38", ""),
    ("resource.k8s.io/v1beta1", "ResourceSlice", "1.35", "1.38", ""),
    ("resource.k8s.io/v1beta2", "DeviceClass", "1.36", "1.39", ""),
    ("resource.k8s.io/v1beta2", "ResourceClaim", "1.36", "1.39", ""),
    ("resource.k8s.io/v1beta2", "ResourceClaimTemplate", "1.36", "1.39", ""),
    ("resource.k8s.io/v1beta2", "ResourceSlice", "1.36", "1.39", ""),
    ("storagemigration.k8s.io/v1beta1", "StorageVersionMigration", "1.37", "1.40",
     "storagemigration.k8s.io/v1"),
)  # fmt: skip


def _message(gv: str, kind: str, deprecated: str, removed: str, replacement: str) -> str:
    msg = f"{gv} {kind} is deprecated in v{deprecated}+"
    if removed:
        msg += f", unavailable in v{removed}+"
    return msg + (f"; use {replacement} {kind}" if replacement else "")


_MESSAGES: Final = {(gv, kind): _message(gv, kind, *rest) for gv, kind, *rest in _LIFECYCLE}


def deprecation_warnings(api_version: str, kind: str) -> list[str]:
    """The deprecation warning of a request to ``kind`` at ``api_version``, if any."""
    msg = _MESSAGES.get((api_version, kind))
    return [msg] if msg is not None else []

"""``k8s.io/apiserver/pkg/endpoints/deprecation``: a request to a deprecated group/version
of a kind carries ``WarningMessage``'s text. ``installer.go`` adds it to every route of the
kind (GET, LIST, WATCH, CREATE, UPDATE, PATCH, DELETE), ahead of the handler's warnings.

The lifecycle is each type's ``APILifecycleDeprecated`` / ``Removed`` / ``Replacement``
(``k8s.io/api/*/zz_generated.prerelease-lifecycle.go``, and ``core/v1/lifecycle.go`` for
Endpoints and ComponentStatus). Listed are the kinds the reference serves at a version
deprecated by 1.37 (a version removed by then is not served, and a later deprecation
does not warn yet)."""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = [
    "CURRENT",
    "Lifecycle",
    "deprecation_warnings",
    "is_deprecated",
    "major_minor",
    "removed_release",
    "warning_message",
]

CURRENT: Final = (1, 37)  # versioninfo.Get() of v1.37.2


class Lifecycle(NamedTuple):
    """A type's generated lifecycle methods; (0, 0) / "" where a method is absent."""

    deprecated: tuple[int, int] = (0, 0)
    removed: tuple[int, int] = (0, 0)
    replacement: str = ""  # "<group/version> <Kind>", "" for none


_LEADING_DIGITS: Final = re.compile(r"^(\d+)")


def major_minor(major: str, minor: str) -> tuple[int, int]:
    """``MajorMinor``: the minor drops everything after its leading digits; ValueError
    for a non-numeric major or minor."""
    m = _LEADING_DIGITS.match(minor)
    if not major.strip().isdigit() or m is None:
        raise ValueError(f"not a numeric version: {major!r}.{minor!r}")
    return int(major), int(m.group(1))


def is_deprecated(lc: Lifecycle | None, current: tuple[int, int]) -> bool:
    """``IsDeprecated``: a non-zero deprecation at or before ``current``; with no current
    version (0, 0), any non-zero deprecation."""
    if lc is None or lc.deprecated == (0, 0):
        return False
    return current == (0, 0) or lc.deprecated <= current


def removed_release(lc: Lifecycle | None) -> str:
    """``RemovedRelease``: "<major>.<minor>" of a non-zero removal, else ""."""
    if lc is None or lc.removed == (0, 0):
        return ""
    return f"{lc.removed[0]}.{lc.removed[1]}"


def warning_message(lc: Lifecycle | None, gv: str, kind: str) -> str:
    """``WarningMessage`` for ``kind`` at group/version ``gv``; "" when not deprecated or
    the kind is unknown (an empty GVK)."""
    if lc is None or lc.deprecated == (0, 0) or not (gv or kind):
        return ""
    msg = f"{gv} {kind} is deprecated in v{lc.deprecated[0]}.{lc.deprecated[1]}+"
    if lc.removed != (0, 0):
        msg += f", unavailable in v{lc.removed[0]}.{lc.removed[1]}+"
    return msg + (f"; use {lc.replacement}" if lc.replacement else "")


_AR = "admissionregistration.k8s.io"
LIFECYCLES: Final[dict[tuple[str, str], Lifecycle]] = {
    ("v1", "ComponentStatus"): Lifecycle((1, 19)),
    ("v1", "Endpoints"): Lifecycle((1, 33), replacement="discovery.k8s.io/v1 EndpointSlice"),
    (f"{_AR}/v1alpha1", "MutatingAdmissionPolicy"): Lifecycle((1, 35), (1, 38)),
    (f"{_AR}/v1alpha1", "MutatingAdmissionPolicyBinding"): Lifecycle((1, 35), (1, 38)),
    (f"{_AR}/v1beta1", "MutatingAdmissionPolicy"):
        Lifecycle((1, 37), (1, 40), f"{_AR}/v1 MutatingAdmissionPolicy"),
    (f"{_AR}/v1beta1", "MutatingAdmissionPolicyBinding"):
        Lifecycle((1, 37), (1, 40), f"{_AR}/v1 MutatingAdmissionPolicyBinding"),
    ("certificates.k8s.io/v1beta1", "ClusterTrustBundle"):
        Lifecycle((1, 37), (1, 40), "certificates.k8s.io/v1 ClusterTrustBundle"),
    ("certificates.k8s.io/v1beta1", "PodCertificateRequest"):
        Lifecycle((1, 37), (1, 40), "certificates.k8s.io/v1 PodCertificateRequest"),
    ("coordination.k8s.io/v1alpha2", "LeaseCandidate"): Lifecycle((1, 35), (1, 38)),
    ("coordination.k8s.io/v1beta1", "LeaseCandidate"): Lifecycle((1, 36), (1, 39)),
    ("resource.k8s.io/v1alpha3", "DeviceTaintRule"): Lifecycle((1, 36), (1, 39)),
    ("resource.k8s.io/v1beta1", "DeviceClass"): Lifecycle((1, 35), (1, 38)),
    ("resource.k8s.io/v1beta1", "ResourceClaim"): Lifecycle((1, 35), (1, 38)),
    ("resource.k8s.io/v1beta1", "ResourceClaimTemplate"): Lifecycle((1, 35), (1, 38)),
    ("resource.k8s.io/v1beta1", "ResourceSlice"): Lifecycle((1, 35), (1, 38)),
    ("resource.k8s.io/v1beta2", "DeviceClass"): Lifecycle((1, 36), (1, 39)),
    ("resource.k8s.io/v1beta2", "ResourceClaim"): Lifecycle((1, 36), (1, 39)),
    ("resource.k8s.io/v1beta2", "ResourceClaimTemplate"): Lifecycle((1, 36), (1, 39)),
    ("resource.k8s.io/v1beta2", "ResourceSlice"): Lifecycle((1, 36), (1, 39)),
    ("storagemigration.k8s.io/v1beta1", "StorageVersionMigration"):
        Lifecycle((1, 37), (1, 40), "storagemigration.k8s.io/v1 StorageVersionMigration"),
}  # fmt: skip


def deprecation_warnings(api_version: str, kind: str) -> list[str]:
    """The route's deprecation warning of any request to ``kind`` at ``api_version``."""
    lc = LIFECYCLES.get((api_version, kind))
    if not is_deprecated(lc, CURRENT):
        return []
    return [warning_message(lc, api_version, kind)]

"""certificates.k8s.io/v1 <-> v1beta1 (the storage version) for PodCertificateRequest.

1.37 stores PodCertificateRequest at v1beta1 (a storage override). The v1beta1 spec is
a superset of v1: it still has the deprecated ``pkixPublicKey`` and ``proofOfPossession``
that ``stubPKCS10Request`` replaced. As upstream's generated conversion, a v1 read drops
them (they have no v1 field), and a v1 write simply never sets them. ClusterTrustBundle
has the same shape in both versions.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.conversion.scheme import register

__all__ = ["V1BETA1_ONLY_SPEC_FIELDS"]

Obj = dict[str, Any]
V1BETA1_ONLY_SPEC_FIELDS: Final = ("pkixPublicKey", "proofOfPossession")


def _to_v1beta1(obj: Obj) -> Obj:
    return obj


def _from_v1beta1(obj: Obj) -> Obj:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        for f in V1BETA1_ONLY_SPEC_FIELDS:
            spec.pop(f, None)
    return obj


register(
    "certificates.k8s.io",
    "v1",
    "PodCertificateRequest",
    to_storage=_to_v1beta1,
    from_storage=_from_v1beta1,
)

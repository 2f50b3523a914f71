"""Certificate issuance for the reference: deterministic keys and a hermetic pod signer.

Models ``test/utils/hermeticpodcertificatesigner`` (the signer upstream's e2e tests use
for PodCertificateRequests): a root and an intermediate CA per cluster, leaf certificates
for a pod's public key, and the root published as a ClusterTrustBundle.
"""

from reference_impl.certificates.decision import is_terminal, signer_status
from reference_impl.certificates.keys import KEY_TYPES, generate_key, stub_pkcs10_der
from reference_impl.certificates.signer import (
    TEST_SIGNER,
    IssuedCertificate,
    PodIdentity,
    Signer,
)

__all__ = [
    "KEY_TYPES",
    "TEST_SIGNER",
    "IssuedCertificate",
    "PodIdentity",
    "Signer",
    "generate_key",
    "is_terminal",
    "signer_status",
    "stub_pkcs10_der",
]

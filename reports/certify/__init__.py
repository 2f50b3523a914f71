"""The certification pipeline: inputs, the AI checklist filler, the bundle builder and the
offline pre-validator of the CNCF rules."""

from reports.certify.bundle import Certification, certify
from reports.certify.inputs import CertifyError
from reports.certify.validator import Finding

__all__ = ["Certification", "CertifyError", "Finding", "certify"]

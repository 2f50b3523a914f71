"""Conversion between served versions; importing it registers every spoke.

One module per group/version whose shapes differ from the storage version
(``resource_v1beta1``, ``certificates_v1``, ``autoscaling_v1``); see ``scheme`` for the rules.
"""

from reference_impl.apiserver.conversion import (
    autoscaling_v1,
    certificates_v1,
    core_v1_defaults,
    resource_defaults,
    resource_v1beta1,
)
from reference_impl.apiserver.conversion.scheme import (
    convert,
    default,
    registered,
    storage_info,
    storage_version,
    stored_default,
    to_storage,
    wire_causes,
)

__all__ = [
    "autoscaling_v1",
    "certificates_v1",
    "convert",
    "core_v1_defaults",
    "default",
    "registered",
    "resource_defaults",
    "resource_v1beta1",
    "storage_info",
    "storage_version",
    "stored_default",
    "to_storage",
    "wire_causes",
]

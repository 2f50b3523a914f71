"""Small helpers for the DRA taint and extended-resource suites (wire constants, times)."""

from __future__ import annotations

from typing import Final

from reference_impl.clock import parse_rfc3339

__all__ = ["EXTENDED_RESOURCE_CLAIM_ANNOTATION", "timestamp_seconds"]

# resourceapi.ExtendedResourceClaimAnnotation: marks the scheduler's special claim.
EXTENDED_RESOURCE_CLAIM_ANNOTATION: Final = "resource.kubernetes.io/extended-resource-claim"


def timestamp_seconds(text: str) -> int:
    """An RFC 3339 API timestamp as whole seconds, for comparing two timestamps."""
    return parse_rfc3339(text) // 1_000_000_000

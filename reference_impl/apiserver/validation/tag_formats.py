"""The ``+k8s:format=`` string formats (``apimachinery/pkg/api/validate/strfmt.go``), each
returning upstream's reasons (an empty list when the value is valid)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors, label_key_errors

__all__ = ["FORMATS", "Format", "path_segment_name_errors"]

Format = Callable[[str], list[str]]


def path_segment_name_errors(value: str) -> list[str]:
    """``path.IsValidPathSegmentName``: not "." or "..", no "/" or "%"."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in value]


FORMATS: Final[dict[str, Format]] = {
    "k8s-short-name": dns1123_label_errors,
    "k8s-long-name": dns1123_subdomain_errors,
    "k8s-label-key": label_key_errors,
    "k8s-path-segment-name": path_segment_name_errors,
}

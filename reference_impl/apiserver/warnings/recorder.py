"""``k8s.io/apiserver/pkg/endpoints/filters/warning.go``'s recorder: what a request's
warnings become as ``Warning:`` headers. Empty texts are dropped, repeats deduplicated;
past 4096 runes in all, every warning is cut to 256 runes and later ones stop once the
total is spent."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["header_texts"]

TRUNCATE_AT_TOTAL_RUNES: Final = 4 * 1024
TRUNCATE_ITEM_RUNES: Final = 256


def header_texts(texts: Iterable[str]) -> list[str]:
    """The texts of the ``Warning`` headers (299 "-") a request's warnings produce."""
    ordered: list[str] = []
    recorded: set[str] = set()
    headers: list[str] = []
    written, truncating = 0, False
    for text in texts:
        if not text or (written >= TRUNCATE_AT_TOTAL_RUNES and truncating) or text in recorded:
            continue
        recorded.add(text)
        ordered.append(text)
        if truncating and len(text) > TRUNCATE_ITEM_RUNES:
            text = text[:TRUNCATE_ITEM_RUNES]
        if written + len(text) <= TRUNCATE_AT_TOTAL_RUNES or truncating:
            written += len(text)
            headers.append(text)
            continue
        # Over the limit: replay everything so far, each cut to the item limit.
        truncating, written = True, 0
        headers = [t[:TRUNCATE_ITEM_RUNES] for t in ordered]
        written = sum(len(t) for t in headers)
    return headers

"""Content-keyed caches for CEL device selectors.

A device never exposes its name (or pool, or node) to CEL: an expression's result depends
only on the expression, the environment it was compiled in and the ``device`` variable,
which is built from the driver, the attributes, the capacities and
``allowMultipleAllocations``. So results are cached per (expression, environment, that
content). A changed device has a different key and is simply evaluated again; nothing
needs invalidating when slices change. Both caches are LRU-bounded, so a long run with
ever-changing slices keeps a fixed memory footprint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from reference_impl.lru import LRU
from reference_impl.storage import codec

__all__ = ["ACTIVATION_CACHE_SIZE", "RESULT_CACHE_SIZE", "LRU", "content_key"]

ACTIVATION_CACHE_SIZE: Final = 4096
RESULT_CACHE_SIZE: Final = 16384


def content_key(driver: str, device: Mapping[str, Any]) -> str | None:
    """Everything of one device manifest that ``device_activation`` reads, canonically.

    Exactly the inputs of the activation: two devices with the same key have identical
    CEL activations (the converse need not hold: ``"1"`` and ``1`` are different keys).
    None when the content is not plain JSON (then nothing is cached for it)."""
    try:
        caps = device.get("capacity") or {}
        return codec.dumps(
            [
                driver,
                bool(device.get("allowMultipleAllocations")),
                device.get("attributes") or {},
                {name: cap.get("value", 0) for name, cap in caps.items()},
            ],
            sort_keys=True,
        ).decode()
    except (AttributeError, TypeError, ValueError):
        return None

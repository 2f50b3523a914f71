"""The watch event shape both targets yield, like ``watch.Event`` in client-go."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["WatchEvent", "WatchEventType"]

WatchEventType = Literal["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One watch event: its type and the object (a manifest dict) after the change."""

    type: WatchEventType
    object: dict[str, Any]

    @property
    def resource_version(self) -> str:
        """The object's resourceVersion, which a later watch can start from."""
        rv: str = (self.object.get("metadata") or {}).get("resourceVersion", "")
        return rv

"""Spot/preemptible termination notices with the providers' timings and shapes.

- AWS: the instance-action notice two minutes before an interruption; IMDS serves
  ``/latest/meta-data/spot/instance-action`` as ``{"action": "terminate", "time": T}``
  (amazon-ec2-metadata-mock's shape), 404 until then.
- GCP: a preemption gives 30 s; the metadata server's
  ``/computeMetadata/v1/instance/preempted`` turns ``TRUE``.
- Azure: a ``Preempt`` Scheduled Event with ``NotBefore`` 30 s ahead at
  ``/metadata/scheduledevents?api-version=2020-07-01``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any, Final

__all__ = ["PROVIDERS", "Notice", "Provider", "notice_for"]


@dataclass(frozen=True, slots=True)
class Provider:
    """A provider's reclaim notice: how long before the instance goes, and where it shows."""

    name: str
    window_seconds: float
    path: str


PROVIDERS: Final = {
    "aws": Provider("aws", 120.0, "/latest/meta-data/spot/instance-action"),
    "gcp": Provider("gcp", 30.0, "/computeMetadata/v1/instance/preempted"),
    "azure": Provider("azure", 30.0, "/metadata/scheduledevents"),
}


@dataclass(frozen=True, slots=True)
class Notice:
    """One reclaim notice of ``node``'s instance: issued at ``issued``, gone at ``deadline``
    (unix seconds), and the body the instance metadata service serves for it."""

    provider: Provider
    node: str
    issued: float
    deadline: float

    @property
    def window_seconds(self) -> float:
        """What the provider gives."""
        return self.deadline - self.issued

    def document(self) -> Any:
        """The metadata body at ``provider.path``."""
        when = datetime.fromtimestamp(self.deadline, UTC)
        if self.provider.name == "aws":
            return {"action": "terminate", "time": when.strftime("%Y-%m-%dT%H:%M:%SZ")}
        if self.provider.name == "gcp":
            return "TRUE"
        event_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.node}/{self.issued}"))
        return {
            "DocumentIncarnation": 1,
            "Events": [{
                "EventId": event_id, "EventType": "Preempt", "ResourceType": "VirtualMachine",
                "Resources": [self.node], "EventStatus": "Scheduled",
                "NotBefore": format_datetime(when, usegmt=True), "Description": "",
                "EventSource": "Platform", "DurationInSeconds": -1,
            }],
        }  # fmt: skip


def notice_for(provider: str, node: str, issued: float) -> Notice:
    """The notice ``provider`` sends for ``node`` at ``issued``; ValueError naming the
    known providers for another."""
    p = PROVIDERS.get(provider)
    if p is None:
        raise ValueError(f"unknown provider {provider!r}; use one of: {', '.join(PROVIDERS)}")
    return Notice(p, node, issued, issued + p.window_seconds)

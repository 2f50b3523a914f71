"""The evaluator interface (``quota.Evaluator``) and what evaluators may read.

A ``ResourceList`` maps a resource name to a parsed ``Quantity`` (amount and format), so a
sum prints as Go's ``Quantity.String()`` would. Scope selector requirements stay wire
dicts (``scopeName``, ``operator``, ``values``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from reference_impl.api.quantity import Quantity
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.clock import Instant

__all__ = ["Env", "Evaluator", "ResourceList", "UsageStatsOptions"]

Obj = dict[str, Any]
ResourceList = dict[str, Quantity]


@dataclass(frozen=True, slots=True)
class Env:
    """What an evaluator reads besides the object: storage (through ``ctx``, whose
    ``list`` also lists a namespace's objects for usage stats), the gates, and the clock
    (the pod evaluator's terminating-pod check: an ``Instant``, comparable with
    ``reference_impl.clock.parse_rfc3339`` of a timestamp)."""

    ctx: Context
    now: Instant


@dataclass(frozen=True, slots=True)
class UsageStatsOptions:
    """``quota.UsageStatsOptions``."""

    namespace: str
    scopes: Sequence[str]
    resources: Sequence[str]
    scope_selector: Obj | None = None


class Evaluator(Protocol):
    """``quota.Evaluator``: how one group-resource consumes quota."""

    @property
    def group_resource(self) -> str:
        """``GroupResource().String()``: ``pods``, ``resourceclaims.resource.k8s.io``."""
        ...

    def constraints(self, required: Sequence[str], obj: Obj) -> str | None:
        """The error text when ``obj`` lacks a required resource (None when it has all)."""
        ...

    def handles(self, operation: Operation, subresource: str, obj: Obj, old: Obj | None) -> bool:
        """Whether admission must do quota processing for this write."""
        ...

    def matches(self, quota: Obj, obj: Obj) -> bool:
        """Whether ``quota`` (a ResourceQuota) applies to ``obj``."""
        ...

    def matching_scopes(self, obj: Obj, selectors: Sequence[Obj]) -> list[Obj]:
        """The scope selector requirements that ``obj`` matches."""
        ...

    def uncovered_quota_scopes(self, limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
        """The limited scopes no matched quota scope covers."""
        ...

    def matching_resources(self, names: Sequence[str]) -> list[str]:
        """The resource names this evaluator accounts, in input order."""
        ...

    def usage(self, obj: Obj) -> ResourceList:
        """What ``obj`` consumes."""
        ...

    def usage_stats(self, options: UsageStatsOptions) -> ResourceList:
        """What the namespace's stored objects matching the scopes consume, every asked
        resource present (zero when unused)."""
        ...

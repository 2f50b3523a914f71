"""Which etcd features the apiserver may use, after ``storage/feature/feature_support_checker.go``.

For RangeStream the 1.37 checker starts optimistic: ``supports`` is true until a read is
answered ``Unimplemented``, and ``mark_unsupported`` then turns it off for
``rangeStreamRecheckInterval`` (10 minutes), after which RangeStream is tried again (an
etcd upgraded to 3.7 meanwhile is picked up without an apiserver restart). The checker
is one per apiserver (upstream's ``DefaultFeatureSupportChecker`` is process-global), and
reads the simulated clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from reference_impl.clock import Instant, seconds

__all__ = ["RANGE_STREAM_RECHECK_S", "FeatureSupportChecker"]

RANGE_STREAM_RECHECK_S: Final = 600.0


class FeatureSupportChecker:
    """RangeStream support as the apiserver last learned it."""

    def __init__(self, now: Callable[[], Instant], recheck_s: float = RANGE_STREAM_RECHECK_S):
        self._now = now
        self._recheck = seconds(recheck_s)
        self.unsupported_at: Instant | None = None

    def supports_range_stream(self) -> bool:
        """True unless etcd answered Unimplemented less than the recheck interval ago."""
        if self.unsupported_at is None:
            return True
        return self._now() - self.unsupported_at >= self._recheck

    def mark_unsupported(self) -> None:
        """Record an Unimplemented answer now."""
        self.unsupported_at = self._now()

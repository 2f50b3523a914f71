"""The HPA controller's work-queue rate limiter (``pkg/controller/podautoscaler/rate_limiters.go``).

``FixedItemIntervalRateLimiter`` answers the same interval for every item, every time:
the HPA queue re-adds each HPA one resync period after it was processed
(``AddRateLimited``), so a failed reconcile is retried no sooner than a successful one.
"""

from __future__ import annotations

from reference_impl.clock import Duration

__all__ = ["FixedItemIntervalRateLimiter", "new_default_hpa_rate_limiter"]


class FixedItemIntervalRateLimiter:
    """``FixedItemIntervalRateLimiter``: ``when`` is always ``interval``."""

    def __init__(self, interval: Duration) -> None:
        self.interval = interval

    def when(self, item: str) -> Duration:
        return self.interval

    def num_requeues(self, item: str) -> int:
        return 1  # upstream's constant answer

    def forget(self, item: str) -> None:
        return None


def new_default_hpa_rate_limiter(interval: Duration) -> FixedItemIntervalRateLimiter:
    """``NewDefaultHPARateLimiter``: the fixed interval alone (the resync period)."""
    return FixedItemIntervalRateLimiter(interval)

"""client-go ``util/workqueue`` rate limiters on the simulated clock:
``ItemExponentialFailureRateLimiter`` (per item, ``base * 2**failures`` capped at
``maximum``), ``BucketRateLimiter`` (one token bucket for the whole queue,
``golang.org/x/time/rate.Limiter.Reserve``), ``MaxOfRateLimiter`` and
``DefaultTypedControllerRateLimiter`` (5 ms .. 1000 s per item, max'ed with a 10 qps,
burst 100 bucket), ``ItemFastSlowRateLimiter`` and ``WithMaxWaitRateLimiter``. A queue built with one requeues a failed key after ``when(key)``
(``AddRateLimited``) and ``forget``s it once a sync succeeds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from reference_impl.clock import Duration, Instant, millis, seconds

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
]

_SECOND: Final = seconds(1)


class RateLimiter(Protocol):
    """``TypedRateLimiter``."""

    def when(self, item: str) -> Duration:
        """How long to wait before the item's next try (records a failure)."""
        ...

    def forget(self, item: str) -> None:
        """Stop tracking the item (its sync succeeded, or it was dropped)."""
        ...

    def num_requeues(self, item: str) -> int:
        """How many failures the item has had (``NumRequeues``)."""
        ...


class ItemExponentialFailureRateLimiter:
    """``ItemExponentialFailureRateLimiter``: the n-th failure (from 0) waits
    ``base * 2**n``, at most ``maximum``."""

    def __init__(self, base: Duration, maximum: Duration) -> None:
        self.base, self.maximum = base, maximum
        self._failures: dict[str, int] = {}

    def when(self, item: str) -> Duration:
        exp = self._failures.get(item, 0)
        self._failures[item] = exp + 1
        return Duration(min(self.base * 2**exp, self.maximum))

    def forget(self, item: str) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: str) -> int:
        return self._failures.get(item, 0)


class ItemFastSlowRateLimiter:
    """``ItemFastSlowRateLimiter``: an item's first ``max_fast_attempts`` failures wait
    ``fast``, later ones ``slow``."""

    def __init__(self, fast: Duration, slow: Duration, max_fast_attempts: int) -> None:
        self.fast, self.slow, self.max_fast_attempts = fast, slow, max_fast_attempts
        self._failures: dict[str, int] = {}

    def when(self, item: str) -> Duration:
        n = self._failures[item] = self._failures.get(item, 0) + 1
        return self.fast if n <= self.max_fast_attempts else self.slow

    def forget(self, item: str) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: str) -> int:
        return self._failures.get(item, 0)


class BucketRateLimiter:
    """``BucketRateLimiter`` over a ``rate.Limiter(qps, burst)``: the bucket starts full,
    refills ``qps`` tokens a second, and every ``when`` reserves one token, waiting
    until the bucket's debt is paid when it is empty. Items are not tracked."""

    def __init__(self, now: Callable[[], Instant], qps: float, burst: int) -> None:
        self._now, self.qps, self.burst = now, qps, burst
        self._tokens = float(burst)
        self._last: Instant | None = None

    def when(self, item: str) -> Duration:
        now = self._now()
        if self._last is not None and now > self._last:
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps / _SECOND)
        self._last = now if self._last is None else max(self._last, now)
        self._tokens -= 1
        if self._tokens >= 0:
            return Duration(0)
        return Duration(int(-self._tokens / self.qps * _SECOND))  # durationFromTokens truncates

    def forget(self, item: str) -> None:
        return None

    def num_requeues(self, item: str) -> int:
        return 0


class MaxOfRateLimiter:
    """``MaxOfRateLimiter``: the longest wait, and the most requeues, of its limiters."""

    def __init__(self, *limiters: RateLimiter) -> None:
        self.limiters = limiters

    def when(self, item: str) -> Duration:
        return max(limiter.when(item) for limiter in self.limiters)

    def forget(self, item: str) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def num_requeues(self, item: str) -> int:
        return max(limiter.num_requeues(item) for limiter in self.limiters)


class WithMaxWaitRateLimiter:
    """``WithMaxWaitRateLimiter``: the wrapped limiter's wait, at most ``max_delay``."""

    def __init__(self, limiter: RateLimiter, max_delay: Duration) -> None:
        self.limiter, self.max_delay = limiter, max_delay

    def when(self, item: str) -> Duration:
        return min(self.limiter.when(item), self.max_delay)

    def forget(self, item: str) -> None:
        self.limiter.forget(item)

    def num_requeues(self, item: str) -> int:
        return self.limiter.num_requeues(item)


def default_controller_rate_limiter(now: Callable[[], Instant]) -> MaxOfRateLimiter:
    """``DefaultTypedControllerRateLimiter``: per item 5 ms doubling to 1000 s, and
    10 qps with a burst of 100 across the queue."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(millis(5), seconds(1000)),
        BucketRateLimiter(now, 10.0, 100),
    )

"""Controller expectations (``pkg/controller/controller_utils.go``, v1.37.2).

``ControllerExpectations`` maps a controller key to the creations and deletions it asked
for and has not yet observed; ``UIDTrackingControllerExpectations`` also remembers which
pod keys it expects to see deleted, so a pod marked for deletion and then removed counts
once. Setting expectations replaces what was there (``SetExpectations``, and so
``ExpectCreations`` and ``ExpectDeletions``); only ``RaiseExpectations`` adds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from reference_impl.clock import Duration, Instant, seconds

__all__ = [
    "EXPECTATIONS_TIMEOUT_S",
    "ControlleeExpectations",
    "ControllerExpectations",
    "UIDTrackingControllerExpectations",
]

EXPECTATIONS_TIMEOUT_S: Final = 5 * 60  # ExpectationsTimeout


@dataclass(slots=True)
class ControlleeExpectations:
    """One controller's pending counts and when they were set (``timestamp``; None when
    set with no clock: such expectations never expire)."""

    add: int
    dels: int
    timestamp: Instant | None

    def fulfilled(self) -> bool:
        """``Fulfilled``: no creation and no deletion still pending."""
        return self.add <= 0 and self.dels <= 0


@dataclass(slots=True)
class ControllerExpectations:
    """Creations and deletions a controller has asked for but not yet observed.

    Informers here are fed synchronously at commit, so expectations are usually met by
    the time a create returns; they still guard a sync that runs between a request and
    its event (e.g. a retried write), exactly as upstream uses them. Observations lower
    the counts below zero (``LowerExpectations``), and expectations set more than ``ttl``
    ago count as satisfied (``isExpired``: ``ExpectationsTimeout``, 5 minutes). Given
    ``clock`` (a controller's simulated clock), setting and checking read it when ``now``
    is not passed, as upstream stamps every ``SetExpectations`` and checks the age in
    ``SatisfiedExpectations``.
    """

    ttl: Duration = field(default_factory=lambda: seconds(EXPECTATIONS_TIMEOUT_S))
    clock: Callable[[], Instant] | None = None
    _store: dict[str, ControlleeExpectations] = field(default_factory=dict)

    def _now(self, now: Instant | None) -> Instant | None:
        if now is None and self.clock is not None:
            return self.clock()
        return now

    def expect(self, key: str, adds: int = 0, dels: int = 0, now: Instant | None = None) -> None:
        """``SetExpectations``: forget what ``key`` expected; now ``adds`` creations and
        ``dels`` deletions are on their way."""
        self._store[key] = ControlleeExpectations(adds, dels, self._now(now))

    def expect_creations(self, key: str, adds: int, now: Instant | None = None) -> None:
        """``ExpectCreations``: ``SetExpectations(key, adds, 0)``."""
        self.expect(key, adds, 0, now)

    def expect_deletions(self, key: str, dels: int, now: Instant | None = None) -> None:
        """``ExpectDeletions``: ``SetExpectations(key, 0, dels)``."""
        self.expect(key, 0, dels, now)

    def raise_expectations(self, key: str, adds: int, dels: int) -> None:
        """``RaiseExpectations``: add to the counts, if any were set; keeps the stamp."""
        if (exp := self._store.get(key)) is not None:
            exp.add += adds
            exp.dels += dels

    def lower_expectations(self, key: str, adds: int, dels: int) -> None:
        """``LowerExpectations``: take from the counts, if any were set (they may go below
        zero: more observed than expected)."""
        if (exp := self._store.get(key)) is not None:
            exp.add -= adds
            exp.dels -= dels

    def creation_observed(self, key: str) -> None:
        """An informer saw one of the expected creations (or the create failed)."""
        self.lower_expectations(key, 1, 0)

    def deletion_observed(self, key: str) -> None:
        """An informer saw one of the expected deletions (or the delete failed)."""
        self.lower_expectations(key, 0, 1)

    def get(self, key: str) -> tuple[int, int] | None:
        """``GetExpectations``: the (adds, dels) still expected, None when never set."""
        exp = self._store.get(key)
        return None if exp is None else (exp.add, exp.dels)

    def satisfied(self, key: str, now: Instant | None = None) -> bool:
        """``SatisfiedExpectations``: every expected event was observed, none were set,
        or they were set more than ``ttl`` ago."""
        exp = self._store.get(key)
        if exp is None or exp.fulfilled():
            return True
        at = self._now(now)
        return at is not None and exp.timestamp is not None and at - exp.timestamp > self.ttl

    def forget(self, key: str) -> None:
        """``DeleteExpectations``: drop a controller's expectations (its object was
        deleted)."""
        self._store.pop(key, None)


@dataclass(slots=True)
class UIDTrackingControllerExpectations:
    """``UIDTrackingControllerExpectations``: ``expectations`` plus, per controller, the
    keys of the pods it expects to see deleted, so a pod's deletion is counted once
    whether it is first seen as a deletionTimestamp or as the delete."""

    expectations: ControllerExpectations
    _uids: dict[str, set[str]] = field(default_factory=dict)

    def get_uids(self, key: str) -> set[str] | None:
        """``GetUIDs``: the pod keys still expected to be deleted, None when none were."""
        return self._uids.get(key)

    def expect_deletions(self, key: str, deleted_keys: Iterable[str], now: Instant | None = None) -> None:
        """``ExpectDeletions``: replace the expected pod keys (and the counts: 0 creations,
        one deletion per distinct key)."""
        uids = set(deleted_keys)
        self._uids[key] = uids
        self.expectations.expect_deletions(key, len(uids), now)

    def deletion_observed(self, key: str, delete_key: str) -> None:
        """``DeletionObserved``: counts only a pod key that was expected, and only once."""
        uids = self._uids.get(key)
        if uids is not None and delete_key in uids:
            self.expectations.deletion_observed(key)
            uids.discard(delete_key)

    def forget(self, key: str) -> None:
        """``DeleteExpectations``: drop the counts and the expected pod keys."""
        self.expectations.forget(key)
        self._uids.pop(key, None)

    # The rest is the embedded ControllerExpectationsInterface.

    def expect_creations(self, key: str, adds: int, now: Instant | None = None) -> None:
        self.expectations.expect_creations(key, adds, now)

    def creation_observed(self, key: str) -> None:
        self.expectations.creation_observed(key)

    def get(self, key: str) -> tuple[int, int] | None:
        return self.expectations.get(key)

    def satisfied(self, key: str, now: Instant | None = None) -> bool:
        return self.expectations.satisfied(key, now)

"""DynamicResources queueing hints, rows of upstream ``TestIsSchedulableAfterClaimChange``
(``dynamicresources_test.go``): the claim is created or updated through the apiserver
first, so the plugin's tracker holds it when the hint runs, as upstream waits for its
assume cache."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from reference_impl.scheduler.framework.interface import QueueingHint
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    CLAIM,
    NS,
    RES,
    Env,
    Obj,
    allocated,
    claim,
    pod,
    setup,
)

Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def _pending() -> Obj:
    return claim()


def _other_allocated() -> Obj:
    return allocated(claim("not-my-claim", owned=False))


def _wrong_owner() -> Obj:
    c = allocated(_pending())
    c["metadata"]["ownerReferences"][0]["uid"] += "123"
    return c


def _renamed() -> Obj:
    c = allocated(_pending())
    c["metadata"]["name"] += "-foo"
    return c


def _add_finalizer(c: Obj) -> Obj:
    c["metadata"]["finalizers"] = [*(c["metadata"].get("finalizers") or []), "example.com/foo"]
    return c


def _allocate(c: Obj) -> Obj:
    # Upstream sets an empty AllocationResult; the apiserver wants one device result.
    c["status"] = allocated(c)["status"]
    return c


def _deallocate(c: Obj) -> Obj:
    c["status"] = {}
    return c


@dataclass
class Row:
    pod: Obj
    want: QueueingHint
    claims: list[Obj] = field(default_factory=list)
    deleted: Obj | None = None  # newObj nil: a delete event of this (never stored) claim
    create: Obj | None = None  # oldObj nil: created now
    update: tuple[str, Callable[[Obj], Obj], bool] | None = None  # (name, change, status?)


ROWS: dict[str, Row] = {
    "skip-deletes": Row(pod(claim_name=False), SKIP, deleted=_pending()),
    "queue-on-delete-with-allocation": Row(pod(claim_name=False), Q, deleted=allocated(_pending())),
    "skip-wrong-claim": Row(pod(claim_name=False), SKIP, create=_wrong_owner()),
    "skip-unrelated-claim": Row(pod(claim_name=False), SKIP, claims=[allocated(_pending())],
                                create=_renamed()),
    "queue-on-add": Row(pod(), Q, create=_pending()),
    "skip-adding-finalizer": Row(pod(), SKIP, claims=[_pending()],
                                 update=(CLAIM, _add_finalizer, False)),
    "queue-on-status-change": Row(pod(), Q, claims=[_pending()], update=(CLAIM, _allocate, True)),
    "claim-deallocate": Row(pod(), Q, claims=[_pending(), _other_allocated()],
                            update=("not-my-claim", _deallocate, True)),
}

SKIPPED = {
    "queue-on-delete-final-state-unknown": "cache.DeletedFinalStateUnknown: the reference's "
    "informers deliver every delete with its object",
    "queue-on-delete-final-state-unknown-with-object": "cache.DeletedFinalStateUnknown (as above)",
    "queue-on-delete-final-state-unknown-without-object": "cache.DeletedFinalStateUnknown (as above)",
    "backoff-wrong-new-object": "a non-claim object: events carry typed v1 dicts only",
    "backoff-wrong-old-object": "a non-claim object: events carry typed v1 dicts only",
}


def _event(env: Env, row: Row) -> tuple[Obj | None, Obj | None]:
    if row.deleted is not None:
        return row.deleted, None
    if row.create is not None:
        created = env.server.create(copy.deepcopy(row.create))
        env.clock.settle()
        return None, created
    assert row.update is not None
    name, change, status = row.update
    old = env.server.get(RES, "ResourceClaim", name, NS)
    changed = change(copy.deepcopy(old))
    new = env.server.update_status(changed) if status else env.server.update(changed)
    env.clock.settle()
    return old, new


@pytest.mark.parametrize("name", [
    *[pytest.param(n, id=n) for n in ROWS],
    *[pytest.param(n, id=n, marks=pytest.mark.skip(reason=why)) for n, why in SKIPPED.items()],
])
def test_is_schedulable_after_claim_change(name: str) -> None:
    row = ROWS[name]
    env = setup(row.claims)
    old, new = _event(env, row)
    assert env.plugin._claim_hint(row.pod, old, new) == row.want

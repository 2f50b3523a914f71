"""One pass over a StatefulSet's pods (``stateful_set_control.go``'s ``updateStatefulSet``).

Replicas in the ordinal range are created, recreated or repaired in order; pods past
the range are condemned and deleted from the highest ordinal; then the RollingUpdate
deletes outdated pods within the partition and maxUnavailable. OrderedReady ("monotonic")
stops at the first pod that is not yet Running, Ready and available.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Final

from reference_impl.clock import Instant
from reference_impl.controllers.statefulset.identity import (
    allows_burst,
    get_ordinal,
    get_pod_revision,
    get_start_ordinal,
    identity_matches,
    is_created,
    is_pending,
    is_running_and_available,
    is_running_and_ready,
    is_terminal_phase,
    is_terminating,
    is_unavailable,
    new_versioned_stateful_set_pod,
    pod_in_ordinal_range,
    replicas_of,
    storage_matches,
)
from reference_impl.controllers.statefulset.pod_control import StatefulPodControl, aggregate
from reference_impl.controllers.statefulset.revisions import (
    RECREATE_IN_PROGRESS,
    get_max_unavailable,
    set_condition,
)
from reference_impl.errors import ApiError, NotFound

__all__ = [
    "MAX_BATCH_SIZE", "compute_status", "rolling_update", "run_for_all", "slow_start_batch",
    "update_replicas",
]  # fmt: skip

Obj = dict[str, Any]
MAX_BATCH_SIZE: Final = 500  # MaxBatchSize
Step = Callable[[int], tuple[bool, ApiError | None]]


class _StepError(ApiError):
    """An aggregate of a batch's errors."""


def slow_start_batch(initial: int, remaining: int, fn: Step) -> tuple[int, ApiError | None]:
    """``slowStartBatch``: batches of 1, 2, 4, ... (at most MaxBatchSize) over indexes
    0..remaining-1, each batch run whole; stop after a batch with errors. Upstream runs
    a batch concurrently; here in index order."""
    successes, j, batch = 0, 0, min(remaining, initial)
    while batch > 0:
        errors: list[Exception] = []
        for _ in range(batch):
            _, err = fn(j)
            j += 1
            if err is not None:
                errors.append(err)
        successes += batch - len(errors)
        if errors:
            agg = aggregate(errors)
            return successes, agg if isinstance(agg, ApiError) else _StepError(str(agg))
        remaining -= batch
        batch = min(2 * batch, remaining, MAX_BATCH_SIZE)
    return successes, None


def run_for_all(count: int, fn: Step, monotonic: bool) -> tuple[bool, ApiError | None]:
    """``runForAll``: in order, stopping at the first that asks to (monotonic), else in
    slow-start batches."""
    if monotonic:
        for i in range(count):
            stop, err = fn(i)
            if stop or err is not None:
                return True, err
        return False, None
    _, err = slow_start_batch(1, count, fn)
    return (True, err) if err is not None else (False, None)


def compute_status(status: Obj, min_ready: int, current: str, update: str, now: Instant,
                   *pod_lists: list[Obj]) -> None:  # fmt: skip
    """``updateStatus`` / ``computeReplicaStatus``: recount the replica counters."""
    counts = dict.fromkeys(("replicas", "readyReplicas", "availableReplicas", "currentReplicas",
                            "updatedReplicas"), 0)  # fmt: skip
    for pods in pod_lists:
        for pod in pods:
            created = is_created(pod)
            counts["replicas"] += created
            if is_running_and_ready(pod):
                counts["readyReplicas"] += 1
                counts["availableReplicas"] += is_running_and_available(pod, min_ready, now)
            if created and not is_terminating(pod):
                revision = get_pod_revision(pod)
                counts["currentReplicas"] += revision == current
                counts["updatedReplicas"] += revision == update
    status.update(counts)


class _Pass:
    """The state of one ``updateStatefulSet`` call."""

    def __init__(self, spc: StatefulPodControl, ss: Obj, update_set: Obj, now: Instant) -> None:
        self.spc, self.ss, self.update_set, self.now = spc, ss, update_set, now
        self.min_ready = int(ss["spec"].get("minReadySeconds") or 0)
        self.monotonic = not allows_burst(ss)

    def process_replica(self, replicas: list[Obj], i: int) -> tuple[bool, ApiError | None]:
        """``processReplica``: (stop, error) for the replica at index ``i``."""
        spc, ss, pod = self.spc, self.ss, replicas[i]
        try:
            if is_terminal_phase(pod):
                # A failed or succeeded pod is deleted; the next sync recreates it.
                if not is_terminating(pod):
                    spc.delete_stateful_pod(ss, pod)
                return True, None
            if not is_created(pod):
                if spc.pod_claim_is_stale(ss, pod):
                    return True, None  # its claim still waits for the garbage collector
                spc.create_stateful_pod(ss, pod)
                if self.monotonic:
                    return True, None
            if is_pending(pod):
                spc.create_missing_persistent_volume_claims(ss, pod)
            if is_terminating(pod) and self.monotonic:
                return True, None
            if not is_running_and_ready(pod) and self.monotonic:
                return True, None
            if not is_running_and_available(pod, self.min_ready, self.now) and self.monotonic:
                return True, None
            try:
                retention_match = spc.claims_match_retention_policy(self.update_set, pod)
            except ApiError:
                retention_match = True  # expected while the pod is not fully updated
            if identity_matches(ss, pod) and storage_matches(ss, pod) and retention_match:
                return False, None
            spc.update_stateful_pod(self.update_set, _deep(pod))
        except ApiError as exc:
            return True, exc
        return False, None

    def process_condemned(self, condemned: list[Obj], i: int, first_unhealthy: Obj | None
                          ) -> tuple[bool, ApiError | None]:  # fmt: skip
        """``processCondemned``: delete a pod past the range (monotonic: only once its
        successors are gone and it is healthy or the first unhealthy pod)."""
        pod = condemned[i]
        if is_terminating(pod):
            return self.monotonic, None
        if self.monotonic and pod is not first_unhealthy:
            if not is_running_and_ready(pod) or not is_running_and_available(pod, self.min_ready, self.now):
                return True, None
        try:
            self.spc.delete_stateful_pod(self.ss, pod)
        except ApiError as exc:
            return True, exc
        return True, None

    def fix_pod_claim(self, condemned: list[Obj], i: int) -> tuple[bool, ApiError | None]:
        """The condemned pods' claims follow the (whenScaled) retention policy."""
        try:
            if not self.spc.claims_match_retention_policy(self.update_set, condemned[i]):
                self.spc.update_pod_claim_for_retention_policy(self.update_set, condemned[i])
        except ApiError as exc:
            return True, exc
        return False, None


def _deep(pod: Obj) -> Obj:
    out: Obj = copy.deepcopy(pod)
    return out


def update_replicas(
    spc: StatefulPodControl, ss: Obj, current_set: Obj, update_set: Obj, current_rev: str,
    update_rev: str, status: Obj, pods: list[Obj], now: Instant, recreate_gate: bool, now_text: str,
) -> ApiError | None:
    """The body of ``updateStatefulSet`` after the status is seeded: fills ``status``'s
    counters and returns the error to retry with (None when done or waiting)."""
    p = _Pass(spc, ss, update_set, now)
    start, count = get_start_ordinal(ss), replicas_of(ss)
    slots: list[Obj | None] = [None] * max(count, 0)
    condemned: list[Obj] = []
    for pod in pods:
        ordinal = get_ordinal(pod)
        if pod_in_ordinal_range(pod, ss):
            slots[ordinal - start] = pod
        elif ordinal >= 0:
            condemned.append(pod)
    replicas: list[Obj] = [
        pod if pod is not None else new_versioned_stateful_set_pod(
            current_set, update_set, current_rev, update_rev, start + i)
        for i, pod in enumerate(slots)
    ]  # fmt: skip
    condemned.sort(key=get_ordinal, reverse=True)
    first_unhealthy: Obj | None = None
    unavailable = [pod for pod in replicas if is_unavailable(pod, p.min_ready, now)]
    unavailable += [pod for pod in reversed(condemned) if is_unavailable(pod, p.min_ready, now)]
    if unavailable:
        first_unhealthy = unavailable[0]

    def recount() -> None:
        compute_status(status, p.min_ready, current_rev, update_rev, now, replicas, condemned)

    if ss["metadata"].get("deletionTimestamp"):
        return None
    strategy = (ss["spec"].get("updateStrategy") or {}).get("type")
    if strategy == "Recreate":
        done, err = _recreate_delete_and_wait(spc, ss, update_rev, replicas + condemned, status, now_text)
        if err is not None or not done:
            recount()
            return err
        if current_rev != update_rev:
            set_condition(status, "Progressing", "True", RECREATE_IN_PROGRESS,
                          "Waiting for new-revision pods to be created", now_text)  # fmt: skip
    stop, err = run_for_all(len(replicas), lambda i: p.process_replica(replicas, i), p.monotonic)
    if stop or err is not None:
        recount()
        return err
    stop, err = run_for_all(len(condemned), lambda i: p.fix_pod_claim(condemned, i), p.monotonic)
    if stop or err is not None:
        recount()
        return err
    stop, err = run_for_all(
        len(condemned), lambda i: p.process_condemned(condemned, i, first_unhealthy), p.monotonic
    )
    if stop or err is not None:
        recount()
        return err
    recount()
    if strategy in ("OnDelete", "Recreate"):
        return None
    return rolling_update(spc, ss, replicas, update_rev, status, now)


def _recreate_delete_and_wait(spc: StatefulPodControl, ss: Obj, update_rev: str, pods: list[Obj],
                              status: Obj, now_text: str) -> tuple[bool, ApiError | None]:  # fmt: skip
    """``recreateDeleteAndWait``: delete every created pod not at the update revision;
    True once none is left."""
    in_progress = False

    def step(i: int) -> tuple[bool, ApiError | None]:
        nonlocal in_progress
        pod = pods[i]
        if not is_created(pod):
            return False, None
        if get_pod_revision(pod) != update_rev:
            in_progress = True
            if is_terminating(pod):
                return False, None
            try:
                spc.delete_stateful_pod(ss, pod)
            except NotFound:
                pass
            except ApiError as exc:
                return False, exc
        return True, None

    _, err = run_for_all(len(pods), step, False)
    if err is not None:
        return False, err
    if in_progress:
        set_condition(status, "Progressing", "True", RECREATE_IN_PROGRESS, "Deleting old revision pods", now_text)
        return False, None
    return True, None


def rolling_update(spc: StatefulPodControl, ss: Obj, replicas: list[Obj], update_rev: str, status: Obj,
                   now: Instant) -> ApiError | None:  # fmt: skip
    """``updateStatefulSetAfterInvariantEstablished`` (MaxUnavailableStatefulSet on, as in
    1.37): delete outdated pods at or above the partition, highest ordinal first, within
    maxUnavailable; Parallel sets first replace outdated pods that are already down."""
    min_ready = int(ss["spec"].get("minReadySeconds") or 0)
    ru = (ss["spec"].get("updateStrategy") or {}).get("rollingUpdate")
    update_min, max_unavailable = 0, 1
    if ru is not None:
        update_min = int(ru.get("partition") or 0)
        try:
            max_unavailable = get_max_unavailable(ru.get("maxUnavailable"), replicas_of(ss))
        except ValueError as exc:
            return _StepError(str(exc))
    parallel = ss["spec"].get("podManagementPolicy") == "Parallel"
    unavailable = needing_update = 0
    for pod in replicas:
        if is_unavailable(pod, min_ready, now):
            unavailable += 1
            if parallel and get_pod_revision(pod) != update_rev and not is_terminating(pod):
                needing_update += 1
    if unavailable >= max_unavailable and needing_update == 0:
        return None
    targets = list(range(len(replicas) - 1, update_min - 1, -1))

    def delete(pod: Obj) -> ApiError | None:
        try:
            spc.delete_stateful_pod(ss, pod)
        except ApiError as exc:
            return exc
        status["currentReplicas"] = int(status.get("currentReplicas") or 0) - 1
        return None

    if parallel:
        for t in targets:  # phase 1: outdated pods already unavailable
            pod = replicas[t]
            if (get_pod_revision(pod) != update_rev and not is_running_and_available(pod, min_ready, now)
                    and not is_terminating(pod)):  # fmt: skip
                if (err := delete(pod)) is not None:
                    return err
        budget = max_unavailable - unavailable
        for t in targets:  # phase 2: available outdated pods within the remaining budget
            if budget <= 0:
                break
            pod = replicas[t]
            if get_pod_revision(pod) != update_rev and not is_unavailable(pod, min_ready, now):
                if (err := delete(pod)) is not None:
                    return err
                budget -= 1
        return None
    to_delete, deleted = max_unavailable - unavailable, 0
    for t in targets:
        if deleted >= to_delete:
            break
        pod = replicas[t]
        if get_pod_revision(pod) != update_rev and not is_terminating(pod):
            if (err := delete(pod)) is not None:
                return err
            deleted += 1
    return None

"""The driving loops and invariants of ``stateful_set_control_test.go`` (v1.37.2):
``scaleUpStatefulSetControl``, ``scaleDownStatefulSetControl``, ``updateStatefulSetControl``,
``assert{Monotonic,Burst,Update}Invariants`` and ``checkClaimInvarients``."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from statefulset_upstream_env import Env, FakeObjectManager, _key

from reference_impl.clock import Instant
from reference_impl.controllers.statefulset.claims import has_owner_ref, retention_policy
from reference_impl.controllers.statefulset.identity import (
    get_ordinal,
    get_persistent_volume_claims,
    get_pod_revision,
    get_start_ordinal,
    identity_matches,
    is_running_and_ready,
    pod_in_ordinal_range,
    storage_matches,
)
from reference_impl.errors import ApiError

Obj = dict[str, Any]
Invariants = Callable[[Obj, FakeObjectManager], None]


class InternalError(ApiError):
    """``apierrors.NewInternalError``."""

    def __init__(self, message: str = "API server failed") -> None:
        super().__init__(f"Internal error occurred: {message}")


def is_or_has_internal_error(err: BaseException | None) -> bool:
    """``isOrHasInternalError``: the error, an aggregated one, or a wrapped one."""
    if err is None:
        return False
    if isinstance(err, InternalError):
        return True
    return any(is_or_has_internal_error(e) for e in getattr(err, "errors", []))


def status(ss: Obj, key: str) -> Any:
    """A status field with Go's zero value for an omitted one."""
    value = (ss.get("status") or {}).get(key)
    return value if value is not None else ("" if key.endswith("Revision") else 0)


def stored(env: Env, ss: Obj) -> Obj:
    """``om.setsLister.Get``: the stored set itself (mutations reach the store)."""
    return env.sets.get(_key(ss), ss)


def replicas(ss: Obj) -> int:
    return int(ss["spec"].get("replicas", 1))


def check_claim_invariants(ss: Obj, pod: Obj, claim: Obj | None) -> None:
    """``checkClaimInvarients``."""
    deleted, scaled = retention_policy(ss)
    if claim is None:
        assert scaled != "Retain", f"claim for Pod {pod['metadata']['name']} was not created"
        return
    if not is_running_and_ready(pod):
        return  # refs are only expected once the pod is up
    set_ref, pod_ref, in_range = has_owner_ref(claim, ss), has_owner_ref(claim, pod), pod_in_ordinal_range(pod, ss)
    name = claim["metadata"]["name"]
    if (scaled, deleted) == ("Retain", "Retain"):
        assert not set_ref and not pod_ref, name
    elif (scaled, deleted) == ("Retain", "Delete"):
        assert set_ref and not pod_ref, name
    elif (scaled, deleted) == ("Delete", "Retain"):
        assert not set_ref and in_range != pod_ref, name
    elif (scaled, deleted) == ("Delete", "Delete"):
        assert (pod_ref and not set_ref) if not in_range else (set_ref and not pod_ref), name


def _claim(om: FakeObjectManager, ss: Obj, name: str) -> Obj | None:
    return om.claims.get(f"{ss['metadata'].get('namespace')}/{name}")


def _check_pods(ss: Obj, om: FakeObjectManager, strict_claims: bool) -> list[Obj]:
    pods = sorted(om.list_pods(ss), key=get_ordinal)
    for pod in pods:
        assert storage_matches(ss, pod), pod["metadata"]["name"]
        for claim in get_persistent_volume_claims(ss, pod).values():
            found = _claim(om, ss, claim["metadata"]["name"])
            assert found is not None or not strict_claims, claim["metadata"]["name"]
            check_claim_invariants(ss, pod, found)
        assert identity_matches(ss, pod), pod["metadata"]["name"]
    return pods


def assert_monotonic_invariants(ss: Obj, om: FakeObjectManager) -> None:
    """``assertMonotonicInvariants``: no Ready successor of an unready pod, ordinals dense."""
    pods = _check_pods(ss, om, strict_claims=False)
    for idx, pod in enumerate(pods):
        if idx > 0:
            assert not (is_running_and_ready(pod) and not is_running_and_ready(pods[idx - 1])), pod["metadata"]["name"]
        assert get_ordinal(pod) == idx + get_start_ordinal(ss), pod["metadata"]["name"]


def assert_burst_invariants(ss: Obj, om: FakeObjectManager) -> None:
    """``assertBurstInvariants``."""
    _check_pods(ss, om, strict_claims=True)


def assert_update_invariants(ss: Obj, om: FakeObjectManager) -> None:
    """``assertUpdateInvariants``: current pods first, updated pods last."""
    pods = _check_pods(ss, om, strict_claims=True)
    strategy = (ss["spec"].get("updateStrategy") or {}).get("type")
    if strategy not in ("RollingUpdate", "Recreate"):
        return
    for i in range(min(status(ss, "currentReplicas"), len(pods))):
        assert get_pod_revision(pods[i]) == status(ss, "currentRevision"), pods[i]["metadata"]["name"]
    for j in range(status(ss, "updatedReplicas")):
        pod = pods[len(pods) - 1 - j]
        assert get_pod_revision(pod) == status(ss, "updateRevision"), pod["metadata"]["name"]


def empty_invariants(ss: Obj, om: FakeObjectManager) -> None:
    """``emptyInvariants``."""


class Clock:
    """time.Now() stand-in: a simulated instant moved by ``step``."""

    def __init__(self, start: int = 1_000_000_000_000) -> None:
        self.t = start

    def now(self) -> Instant:
        return Instant(self.t)

    def step(self, secs: float) -> None:
        self.t += int(secs * 1e9)


def _advance_one(env: Env, ss: Obj, rng: random.Random, clock: Clock) -> list[Obj] | None:
    """The loop body shared by scale-up and update: give an unphased pod Pending, then
    move a random pod one step (Pending to Running, Running to Ready). None: skip."""
    om = env.om
    pods = sorted(om.list_pods(ss), key=get_ordinal)
    for pod in pods:
        if not (pod.get("status") or {}).get("phase"):
            pods = om.set_phase(ss, get_ordinal(pod), "Pending")
            break
    if pods:
        pod = pods[rng.randrange(len(pods))]
        phase = (pod.get("status") or {}).get("phase")
        if phase == "Pending":
            pods = om.set_phase(ss, get_ordinal(pod), "Running")
        elif phase == "Running":
            pods = om.set_ready(ss, get_ordinal(pod), True, clock.t)
        else:
            return None
    return pods


def scale_up(env: Env, ss: Obj, invariants: Invariants, rng: random.Random, clock: Clock | None = None,
             step: bool = False) -> None:  # fmt: skip
    """``scaleUpStatefulSetControl``: until readyReplicas reaches spec.replicas; errors raise."""
    clock = clock or Clock()
    while status(ss, "readyReplicas") < replicas(ss):
        if step:
            clock.step(10)
        pods = _advance_one(env, ss, rng, clock)
        if pods is None:
            continue
        env.ssc.update_stateful_set(ss, pods, clock.now())
        ss = stored(env, ss)
        invariants(ss, env.om)
    invariants(ss, env.om)


def scale_down(env: Env, ss: Obj, invariants: Invariants) -> None:
    """``scaleDownStatefulSetControl``: delete from the top, then drop claims owned by
    gone pods (the garbage collector's part)."""
    om, now = env.om, Clock().now()
    while status(ss, "replicas") > replicas(ss):
        pods = sorted(om.list_pods(ss), key=get_ordinal)
        if pods:
            env.ssc.update_stateful_set(ss, pods, now)
            ss = stored(env, ss)
            pods = om.add_terminating_pod(ss, get_ordinal(pods[-1]))
            env.ssc.update_stateful_set(ss, pods, now)
            ss = stored(env, ss)
            pods = sorted(om.list_pods(ss), key=get_ordinal)
            if pods:
                om.pods.pop(_key(pods[-1]), None)
        env.ssc.update_stateful_set(ss, pods, now)
        ss = stored(env, ss)
        invariants(ss, om)
    current = {p["metadata"]["name"] for p in om.list_pods(ss)}
    for key, claim in sorted(om.claims.items()):
        name = claim["metadata"]["name"]
        set_name = ss["metadata"]["name"]
        m = re.fullmatch(rf".*-({re.escape(set_name)}-[0-9]+)", name)
        if m is None or m.group(1) in current:
            continue
        if any(r.get("name") == m.group(1) for r in claim["metadata"].get("ownerReferences") or []):
            del om.claims[key]
    invariants(ss, om)


def update_complete(ss: Obj, pods: list[Obj]) -> bool:
    """``updateComplete``."""
    pods = sorted(pods, key=get_ordinal)
    if len(pods) != replicas(ss) or status(ss, "readyReplicas") != replicas(ss):
        return False
    strategy = ss["spec"].get("updateStrategy") or {}
    kind, ru = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "OnDelete":
        return True
    partition = int((ru or {}).get("partition") or 0)
    if kind == "Recreate" or (kind == "RollingUpdate" and partition <= 0):
        if status(ss, "currentReplicas") < replicas(ss):
            return False
        return all(get_pod_revision(p) == status(ss, "currentRevision") for p in pods)
    if kind == "RollingUpdate":
        if len(pods) < partition:
            return False
        return all(get_pod_revision(p) == status(ss, "updateRevision") for p in pods[partition:])
    return True


def update_control(env: Env, ss: Obj, invariants: Invariants, rng: random.Random) -> None:
    """``updateStatefulSetControl``: one sync, then step pods until the update is complete."""
    om, clock = env.om, Clock()
    pods = om.list_pods(ss)
    count, deletes = len(pods), om.delete_tracker.requests
    env.ssc.update_stateful_set(ss, pods, clock.now())
    ss = stored(env, ss)
    strategy = (ss["spec"].get("updateStrategy") or {}).get("type")
    if strategy == "Recreate" and status(ss, "currentRevision") != status(ss, "updateRevision"):
        assert om.delete_tracker.requests - deletes == count, "recreate: all old pods deleted at once"
        assert om.list_pods(ss) == [], "recreate: expected 0 pods after delete phase"
    pods = om.list_pods(ss)
    while not update_complete(ss, pods):
        advanced = _advance_one(env, ss, rng, clock)
        if advanced is None:
            pods = om.list_pods(ss)
            continue
        env.ssc.update_stateful_set(ss, advanced, clock.now())
        ss = stored(env, ss)
        invariants(ss, om)
        pods = om.list_pods(ss)
    invariants(ss, om)

"""Claim binding in the DynamicResources plugin: PreBind writes, binding conditions.

``bind_claims`` records the allocations and reservations (``bindClaim``). Device binding
conditions (KEP-5007, beta-on in 1.37) follow ``dynamicresources.go``: when an allocated
device carries ``bindingConditions``,
PreBind (after writing the allocation with its ``allocationTimestamp``) waits until every
such condition is True in the claim's ``status.devices[].conditions``. It checks at once
and then every 5 s, for at most ``bindingTimeout`` (600 s). A True binding-failure
condition fails PreBind ("device binding failed: ..."), running out of time fails it
with "device binding timeout: ..."; the scheduler then unreserves (the pod leaves
``reservedFor``) and retries. On the retry Filter finds the allocated claim unusable
("resourceclaim not available on the node"), and PostFilter deallocates it when no other
consumer holds it, so the next attempt can pick other devices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from reference_impl.apiserver.informers import object_key
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.dra.tracker import ClaimTracker
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.interface import OK, Code, Status

__all__ = [
    "BINDING_TIMEOUT", "POLL_INTERVAL", "BindingFailed", "bind_claims", "binding_status", "deallocate",
    "deallocate_one", "drop_reservation", "has_binding_conditions", "ready_for_binding",
    "timed_out", "unreserve", "usable", "wait_for_binding",
]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
POLL_INTERVAL: Final = seconds(5)
BINDING_TIMEOUT: Final = seconds(600)  # DynamicResourcesArgs.bindingTimeout default
DEALLOCATED: Final = "deallocation of ResourceClaim completed"
FINALIZER: Final = "resource.kubernetes.io/delete-protection"  # resourceapi.Finalizer


class BindingFailed(Exception):
    """A binding-failure condition of an allocated device is True."""


def _results(claim: Obj) -> list[Obj]:
    alloc = (claim.get("status") or {}).get("allocation") or {}
    return list((alloc.get("devices") or {}).get("results") or ())


def bind_claims(
    ctx: Any, tracker: ClaimTracker, claims: Sequence[Obj], consumers: Sequence[Obj],
    allocs: Mapping[str, Obj], stamp: bool,
) -> tuple[list[Obj], Status | None]:
    """``bindClaim`` for each claim: record the allocation found at Reserve (with its
    ``allocationTimestamp`` when ``stamp``) and the consumer in ``reservedFor``. Returns
    the claims as written, or an error status."""
    written: list[Obj] = []
    for c, consumer in zip(claims, consumers, strict=True):
        key = object_key(c)
        latest = tracker.claims.get(key) or c
        status = dict(latest.get("status") or {})
        alloc = allocs.get(key) or tracker.assumed.get(key)
        if alloc and not status.get("allocation"):
            status["allocation"] = alloc
        if stamp and status.get("allocation") and not status["allocation"].get("allocationTimestamp"):
            status["allocation"] = {**status["allocation"], "allocationTimestamp": rfc3339(ctx.clock.now())}
        reserved = list(status.get("reservedFor") or [])
        if all(r.get("uid") != consumer["uid"] for r in reserved):
            reserved.append(consumer)
        status["reservedFor"] = reserved
        if status == latest.get("status"):  # a shared group claim already reserved
            tracker.forget(key)
            written.append(latest)
            continue
        try:
            lmeta = latest["metadata"]
            if alloc and not (latest.get("status") or {}).get("allocation") and (
                    FINALIZER not in (lmeta.get("finalizers") or ())):
                # bindClaim: the builtin finalizer first, in a normal update.
                finalizers = [*(lmeta.get("finalizers") or ()), FINALIZER]
                latest = ctx.server.update({**latest, "metadata": {**lmeta, "finalizers": finalizers}})
            written.append(ctx.server.update_status({**latest, "status": status}))
        except ApiError as e:
            return written, Status(Code.ERROR, (f"updating ResourceClaim {key}: {e}",))
        finally:
            tracker.forget(key)
    return written, None


def has_binding_conditions(claims: Sequence[Obj]) -> bool:
    """Whether any allocated device of ``claims`` has binding conditions."""
    return any(r.get("bindingConditions") for c in claims for r in _results(c))


def _device_status(claim: Obj, r: Obj) -> Obj | None:
    key = (r.get("driver"), r.get("pool"), r.get("device"), r.get("shareID") or "")
    for d in (claim.get("status") or {}).get("devices") or ():
        if (d.get("driver"), d.get("pool"), d.get("device"), d.get("shareID") or "") == key:
            return dict(d)
    return None


def ready_for_binding(claim: Obj) -> bool:
    """``isClaimReadyForBinding``: every binding condition True; BindingFailed when a
    binding-failure condition is True (checked first, device by device)."""
    if not (claim.get("status") or {}).get("allocation"):
        return False
    for r in _results(claim):
        if not r.get("bindingConditions"):
            continue
        st = _device_status(claim, r)
        if st is None:
            return False
        conds = {c.get("type"): c for c in st.get("conditions") or ()}
        for t in r.get("bindingFailureConditions") or ():
            c = conds.get(t)
            if c is not None and c.get("status") == "True":
                name = claim["metadata"]["name"]
                raise BindingFailed(f"device binding failed: claim={name}, reason={c.get('reason', '')}, "
                                    f'message="{c.get("message", "")}"')
        if any((conds.get(t) or {}).get("status") != "True" for t in r["bindingConditions"]):
            return False
    return True


def timed_out(claim: Obj, now: Instant, timeout: Duration = BINDING_TIMEOUT) -> bool:
    """``isClaimTimeout``: allocated with binding conditions longer than ``timeout`` ago."""
    stamp = ((claim.get("status") or {}).get("allocation") or {}).get("allocationTimestamp")
    if not stamp or not any(r.get("bindingConditions") for r in _results(claim)):
        return False
    return parse_rfc3339(stamp) + timeout < now


def binding_status(claims: Sequence[Obj], now: Instant) -> Status | None:
    """OK when ready, an error when failed or timed out, None to keep waiting."""
    for c in claims:
        try:
            ready = ready_for_binding(c)
        except BindingFailed as e:
            return Status(Code.ERROR, (str(e),))
        if not ready:
            if timed_out(c, now):
                return Status(Code.ERROR, (f"device binding timeout: claim={c['metadata']['name']}",))
            return None
    return OK


def wait_for_binding(
    tracker: ClaimTracker, clock: Any, keys: Sequence[str], done: Callable[[Status], None]
) -> None:
    """Poll the claims every POLL_INTERVAL until ready, failed, or BINDING_TIMEOUT."""
    deadline = Instant(clock.now() + BINDING_TIMEOUT)

    def check() -> None:
        claims = [tracker.claims.get(k) for k in keys]
        if any(c is None for c in claims):
            done(Status(Code.ERROR, ("resourceclaim was deleted while waiting for binding",)))
            return
        st = binding_status([c for c in claims if c is not None], clock.now())
        if st is None and clock.now() >= deadline:
            st = Status(Code.ERROR, ("device binding timeout: context deadline exceeded",))
        if st is None:
            clock.call_later(POLL_INTERVAL, check)
        else:
            done(st)

    clock.call_later(POLL_INTERVAL, check)


def usable(claim: Obj, now: Instant) -> bool:
    """An allocated claim whose binding neither failed nor timed out (Filter)."""
    try:
        return ready_for_binding(claim) or not timed_out(claim, now)
    except BindingFailed:
        return False


def deallocate_one(server: Any, tracker: ClaimTracker, keys: Sequence[str], pod: Obj) -> Status:
    """PostFilter: deallocate the first of the unusable claims ``keys`` that only the pod
    (or nobody) holds; Unschedulable either way, saying so when one was deallocated."""
    for key in keys:
        claim = tracker.claims.get(key)
        if claim is not None:
            st = deallocate(server, claim, pod)
            if st.reasons or not st.is_rejected():
                return st
    return Status(Code.UNSCHEDULABLE)


def deallocate(server: Any, claim: Obj, pod: Obj) -> Status:
    """``deallocateOrDeletePodClaims`` for one unusable claim: clear allocation,
    reservations and device status unless another consumer holds it."""
    reserved = (claim.get("status") or {}).get("reservedFor") or []
    if reserved and not (len(reserved) == 1 and reserved[0].get("uid") == pod["metadata"].get("uid")):
        return Status(Code.UNSCHEDULABLE)
    status = {k: v for k, v in (claim.get("status") or {}).items()
              if k not in ("allocation", "reservedFor", "devices")}
    try:
        server.update_status({**claim, "status": status})
    except ApiError as e:
        return Status(Code.ERROR, (f"deallocating ResourceClaim {object_key(claim)}: {e}",))
    return Status(Code.UNSCHEDULABLE, (DEALLOCATED,))


def unreserve(
    server: Any, tracker: ClaimTracker, claims: Sequence[Obj], consumers: Sequence[Obj], pod: Obj
) -> None:
    """Unreserve: drop the pod from claims reserved for it (not from group-held ones)."""
    uid = pod["metadata"].get("uid")
    for c, consumer in zip(claims, consumers, strict=True):
        cached = tracker.claims.get(object_key(c)) or c
        reserved = (cached.get("status") or {}).get("reservedFor") or ()
        if consumer["uid"] == uid and any(r.get("uid") == uid for r in reserved):
            drop_reservation(server, cached, pod)


def drop_reservation(server: Any, claim: Obj, pod: Obj) -> None:
    """Unreserve: take the pod out of an allocated claim's ``reservedFor``."""
    meta = claim["metadata"]
    try:
        latest = server.get(API, "ResourceClaim", meta["name"], meta.get("namespace"))
    except ApiError:
        return
    st = latest.get("status") or {}
    uid = pod["metadata"].get("uid")
    reserved = st.get("reservedFor") or []
    if not st.get("allocation") or all(r.get("uid") != uid for r in reserved):
        return
    rest = [r for r in reserved if r.get("uid") != uid]
    new = {k: v for k, v in st.items() if k != "reservedFor"}
    if rest:
        new["reservedFor"] = rest
    try:
        server.update_status({**latest, "status": new})
    except ApiError:
        pass  # retried with the pod's next attempt, as upstream

"""The device taint eviction controller (``pkg/controller/devicetainteviction``).

A pod is evicted when a claim it has reserved is allocated a device with a ``NoExecute``
taint that the allocation result does not tolerate. Taints come from the newest
generation of the device's ResourceSlices and from every DeviceTaintRule whose selector
matches it. A ``NoExecute`` toleration with ``tolerationSeconds`` delays eviction to
``timeAdded + tolerationSeconds``; one without it tolerates forever. Eviction sets the
pod's ``DisruptionTarget`` condition, then deletes it; the resource claim controller
drops the reservation and deallocates the claim once its pods are gone.

Eviction times are in ``device_taint_eviction_time``; each DeviceTaintRule's
``status.conditions[type=EvictionInProgress]`` (pods pending eviction for NoExecute, a
one-time dry run for effect None) is written by ``device_taint_eviction_status``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Instant, Timer, rfc3339
from reference_impl.controllers.device_taint_eviction_status import RULE_STATUS_PERIOD, RuleStatus
from reference_impl.controllers.device_taint_eviction_time import (
    Eviction,
    claim_names,
    earliest,
    finished,
    pool_of,
    results,
    taint_eviction,
)
from reference_impl.controllers.resourceclaim_names import is_for_pod
from reference_impl.dra.pools import DeviceID
from reference_impl.dra.taints import rule_matches
from reference_impl.dra.workload_claims import WORKLOAD_CLAIM_GATES
from reference_impl.errors import Conflict, NotFound

__all__ = ["DeviceTaintEvictionController", "Eviction", "RULE_STATUS_PERIOD"]

Obj = dict[str, Any]
API: Final = "resource.k8s.io/v1"
REASON: Final = "DeletionByDeviceTaintManager"


class DeviceTaintEvictionController:
    """Deletes pods whose allocated devices carry an untolerated NoExecute taint."""

    name: Final = "device-taint-eviction-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        inf = ctx.informers
        self._pods = inf.informer("v1", "Pod")
        self._claims = inf.informer(API, "ResourceClaim")
        self._slices = inf.informer(API, "ResourceSlice")
        self._rules = inf.informer(API, "DeviceTaintRule")
        # Upstream's one queue of pods and rules: one DefaultTypedControllerRateLimiter.
        limiter = default_controller_rate_limiter(ctx.clock.now)
        self._pod_q = WorkQueue(ctx.clock, self._sync_pod, name="devicetainteviction-pods", rate_limiter=limiter)
        self._rule_q = WorkQueue(ctx.clock, self._sync_rule, name="devicetainteviction-rules", rate_limiter=limiter)
        self._device_taints: dict[DeviceID, list[Obj]] = {}  # NoExecute slice taints
        self._pool_slices: dict[tuple[str, str], dict[str, Obj]] = {}  # pool -> slices by name
        self._pool_claims: dict[tuple[str, str], set[str]] = {}  # pool -> allocated claim keys
        self._timers: dict[str, tuple[Instant, Timer]] = {}
        self._evicted: dict[str, int] = {}  # rule uid -> pods evicted
        # A claim reserved for a PodGroup evicts every pod of the group (handlePods).
        self._group_claims = all(ctx.gates[g] for g in WORKLOAD_CLAIM_GATES)
        informers = {"rules": self._rules, "pods": self._pods, "slices": self._slices,
                     "claims": self._claims}
        self._status = RuleStatus(ctx, informers, self._rule_q, self.pod_eviction, self._evicted)

    def start(self) -> None:
        """Watch slices, rules, claims and pods."""
        self._slices.add_handler(self._on_slice)
        self._rules.add_handler(self._on_rule)
        self._claims.add_handler(self._on_claim)
        self._pods.add_handler(self._on_pod)
        self._reindex_slices()
        for c in self._claims.items():
            self._index_claim(c, +1)
        for p in self._pods.items():
            self._handle_pod(p)
        for r in self._rules.items():
            self._rule_q.add(r["metadata"]["name"])

    # -- indexes --------------------------------------------------------------------

    def _reindex_slices(self, pool: tuple[str, str] | None = None) -> None:
        """NoExecute taints of devices in the newest generation of ``pool`` (or all)."""
        newest: dict[tuple[str, str], int] = {}
        group: dict[tuple[str, str], list[Obj]] = {}
        if pool is None:
            self._pool_slices = {}
            for s in self._slices.items():
                self._pool_slices.setdefault(pool_of(s), {})[s["metadata"]["name"]] = s
        pools = [pool] if pool is not None else sorted(self._pool_slices)
        for s in [s for p in pools for s in self._pool_slices.get(p, {}).values()]:
            spec = s["spec"]
            key = pool_of(s)
            g = int(spec["pool"].get("generation", 0))
            if key not in newest or g > newest[key]:
                newest[key], group[key] = g, [s]
            elif g == newest[key]:
                group[key].append(s)
        if pool is None:
            self._device_taints.clear()
        else:
            for did in [d for d in self._device_taints if d[:2] == pool]:
                del self._device_taints[did]
        for (driver, pname), slices in group.items():
            for s in slices:
                for dev in s["spec"].get("devices") or ():
                    taints = [t for t in dev.get("taints") or () if t.get("effect") == "NoExecute"]
                    if taints:
                        self._device_taints[(driver, pname, dev["name"])] = taints

    def _index_claim(self, claim: Obj, sign: int) -> None:
        key = object_key(claim)
        for r in results(claim):
            pool = (r["driver"], r["pool"])
            if sign > 0:
                self._pool_claims.setdefault(pool, set()).add(key)
            else:
                self._pool_claims.get(pool, set()).discard(key)

    # -- events ---------------------------------------------------------------------

    def _on_slice(self, ev: ObjectEvent) -> None:
        pool = pool_of(ev.obj)
        if ev.old is not None:
            self._pool_slices.get(pool_of(ev.old), {}).pop(ev.old["metadata"]["name"], None)
        if ev.type == "DELETED":
            self._pool_slices.get(pool, {}).pop(ev.obj["metadata"]["name"], None)
        else:
            self._pool_slices.setdefault(pool, {})[ev.obj["metadata"]["name"]] = ev.obj
        before = {d: t for d, t in self._device_taints.items() if d[:2] == pool}
        self._reindex_slices(pool)
        after = {d: t for d, t in self._device_taints.items() if d[:2] == pool}
        if before != after:
            for key in sorted(self._pool_claims.get(pool, ())):
                self._queue_claim_pods(self._claims.get(key))

    def _on_rule(self, ev: ObjectEvent) -> None:
        old, new = ev.old, (None if ev.type == "DELETED" else ev.obj)
        if new is not None and (old is None or old.get("spec") != new.get("spec")):
            self._rule_q.add(new["metadata"]["name"])
        if new is None:
            self._evicted.pop(ev.obj["metadata"].get("uid", ""), None)
        if old is None or new is None or old.get("spec") != new.get("spec"):
            # Rule changes are rare: re-evaluate every allocated claim.
            for c in self._claims.items():
                if results(c):
                    self._queue_claim_pods(c)

    def _on_claim(self, ev: ObjectEvent) -> None:
        if ev.old is not None:
            self._index_claim(ev.old, -1)
            self._queue_claim_pods(ev.old)
        if ev.type != "DELETED":
            self._index_claim(ev.obj, +1)
            self._queue_claim_pods(ev.obj)

    def _on_pod(self, ev: ObjectEvent) -> None:
        key = object_key(ev.obj)
        if ev.type == "DELETED":
            self._cancel(key)
            return
        old, new = ev.old, ev.obj
        if old is not None and old["spec"].get("nodeName") == new["spec"].get("nodeName") and (
            (old.get("status") or {}).get("resourceClaimStatuses")
            == (new.get("status") or {}).get("resourceClaimStatuses")
            and (old.get("status") or {}).get("extendedResourceClaimStatus")
            == (new.get("status") or {}).get("extendedResourceClaimStatus")
            and bool(old["metadata"].get("deletionTimestamp")) == bool(new["metadata"].get("deletionTimestamp"))
        ):
            return
        self._handle_pod(new)

    def _handle_pod(self, pod: Obj) -> None:
        """``handlePod``, in the event handler as upstream: a pod with an eviction is
        queued (its rules get a delayed status update), a pod without one is cancelled."""
        key = object_key(pod)
        ev = self.pod_eviction(pod)
        if ev is None:
            self._cancel(key)
            return
        for uid in sorted(ev.rules):
            name = self._rule_name(uid)
            if name:
                self._rule_q.add_after(name, RULE_STATUS_PERIOD)
        self._pod_q.add(key)

    def _queue_claim_pods(self, claim: Obj | None) -> None:
        if claim is None:
            return
        ns = claim["metadata"].get("namespace", "default")
        for ref in (claim.get("status") or {}).get("reservedFor") or ():
            if ref.get("resource") == "pods" and not ref.get("apiGroup"):
                pod = self._pods.get(f"{ns}/{ref['name']}")
                if pod is not None and pod["metadata"].get("uid") == ref.get("uid"):
                    self._handle_pod(pod)
            elif self._group_claims and _group_ref(ref):
                for p in self._pods.items():
                    if p["metadata"].get("namespace", "default") == ns and _group_of(p) == ref.get("name"):
                        self._handle_pod(p)

    # -- eviction time --------------------------------------------------------------

    def _taints(self, did: DeviceID, simulate: Obj | None) -> Iterator[tuple[Obj, str | None]]:
        """NoExecute taints of an allocated device, with the uid of the rule behind each."""
        for t in self._device_taints.get(did, ()):
            yield t, None
        rules = [r for r in self._rules.items() if r is not simulate]
        for r in [*rules, *([simulate] if simulate is not None else [])]:
            taint = r["spec"]["taint"]
            if r is simulate:
                taint = {**taint, "effect": "NoExecute"}
            if taint.get("effect") == "NoExecute" and rule_matches(r, did):
                yield taint, str(r["metadata"].get("uid", ""))

    def claim_eviction(self, claim: Obj, simulate: Obj | None = None) -> Eviction | None:
        """The earliest untolerated NoExecute eviction of ``claim``'s devices, if any."""
        out: Eviction | None = None
        for r in results(claim):
            did: DeviceID = (r["driver"], r["pool"], r["device"])
            for taint, rule_uid in self._taints(did, simulate):
                when = taint_eviction(taint, list(r.get("tolerations") or ()))
                if when is not None:
                    rules = frozenset({rule_uid}) if rule_uid else frozenset()
                    out = earliest(out, Eviction(when, rules))
        return out

    def pod_eviction(self, pod: Obj, simulate: Obj | None = None) -> Eviction | None:
        """``podEvictionTime``: over the scheduled pod's allocated, reserved claims."""
        if not pod["spec"].get("nodeName"):
            return None
        ns = pod["metadata"].get("namespace", "default")
        uid = pod["metadata"].get("uid")
        out: Eviction | None = None
        for name, check in claim_names(pod):
            claim = self._claims.get(f"{ns}/{name}")
            if claim is None or (check and is_for_pod(pod, claim, self._group_claims) is not None):
                continue  # missing, or not the pod's (IsForPod)
            if not self._reserved_for(pod, uid, claim):
                continue
            out = earliest(out, self.claim_eviction(claim, simulate))
        return out

    def _reserved_for(self, pod: Obj, uid: Any, claim: Obj) -> bool:
        """``resourceclaim.IsReservedForPod``: the pod's UID, or (workload claims on) its
        PodGroup by name, since a pod does not know its group's UID."""
        for r in (claim.get("status") or {}).get("reservedFor") or ():
            if r.get("uid") == uid:
                return True
            if self._group_claims and _group_ref(r) and r.get("name") == _group_of(pod):
                return True
        return False

    # -- pods -----------------------------------------------------------------------

    def _cancel(self, key: str) -> None:
        entry = self._timers.pop(key, None)
        if entry is not None:
            entry[1].cancel()

    def _sync_pod(self, key: str) -> None:
        pod = self._pods.get(key)
        if pod is None or pod["metadata"].get("deletionTimestamp") or finished(pod):
            self._cancel(key)
            return
        ev = self.pod_eviction(pod)
        if ev is None:
            self._cancel(key)
            return
        now = self._ctx.clock.now()
        if ev.when > now:
            entry = self._timers.get(key)
            if entry is None or entry[0] != ev.when:
                self._cancel(key)
                timer = self._ctx.clock.call_at(ev.when, lambda: self._pod_q.add(key))
                self._timers[key] = (ev.when, timer)
            return
        self._cancel(key)
        if self._evict(pod):
            for uid in sorted(ev.rules):
                self._evicted[uid] = self._evicted.get(uid, 0) + 1
                name = self._rule_name(uid)
                if name:
                    self._rule_q.add_after(name, RULE_STATUS_PERIOD)

    def _evict(self, pod: Obj) -> bool:
        """``addConditionAndDeletePod``: DisruptionTarget, then delete with a uid precondition."""
        meta = pod["metadata"]
        ns, name = meta.get("namespace", "default"), meta["name"]
        server = self._ctx.server
        try:
            latest = server.get("v1", "Pod", name, ns)
            if latest["metadata"].get("uid") != meta.get("uid") or latest["metadata"].get("deletionTimestamp"):
                return False
            status = dict(latest.get("status") or {})
            cond = {"type": "DisruptionTarget", "status": "True", "reason": REASON,
                    "message": "Device Taint manager: deleting due to NoExecute taint"}
            if set_condition(status, cond, rfc3339(self._ctx.clock.now())):
                server.update_status({**latest, "status": status})
            server.delete("v1", "Pod", name, ns, uid=meta.get("uid"))
        except (NotFound, Conflict):
            return False
        self._ctx.trace.record(self.name, "evict", f"{ns}/{name}", REASON)
        return True

    # -- rule status ----------------------------------------------------------------

    def _sync_rule(self, name: str) -> None:
        self._status.sync(name)

    def _rule_name(self, uid: str) -> str | None:
        return self._status.rule_name(uid)


def _group_ref(ref: Obj) -> bool:
    return ref.get("apiGroup") == "scheduling.k8s.io" and ref.get("resource") == "podgroups"


def _group_of(pod: Obj) -> str | None:
    name = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return str(name) if name else None

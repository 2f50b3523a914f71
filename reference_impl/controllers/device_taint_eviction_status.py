"""DeviceTaintRule ``status.conditions[type=EvictionInProgress]`` (upstream ``ruleStatus``).

NoExecute: True while pods still have to be evicted (``PodsPendingEviction``), else
False with ``NotStarted`` or ``Completed``. None: a one-time dry run of what NoExecute
would do (``NoEffect``). Other effects: ``OtherEffect``. The condition is rewritten at
most every ``RULE_STATUS_PERIOD`` per spec generation, with upstream's wording.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue
from reference_impl.clock import Duration, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.device_taint_eviction_time import (
    Eviction,
    finished,
    pool_of,
    results,
)
from reference_impl.dra.taints import rule_matches
from reference_impl.errors import NotFound

__all__ = ["CONDITION", "RULE_STATUS_PERIOD", "RuleStatus"]

Obj = dict[str, Any]
CONDITION: Final = "EvictionInProgress"
RULE_STATUS_PERIOD: Final = seconds(10)  # upstream ruleStatusPeriod
PodEviction = Callable[[Obj, Obj | None], Eviction | None]


class RuleStatus:
    """Writes the EvictionInProgress condition of DeviceTaintRules."""

    def __init__(
        self, ctx: ComponentContext, informers: dict[str, SharedInformer], queue: WorkQueue,
        pod_eviction: PodEviction, evicted: dict[str, int],
    ) -> None:
        self._ctx, self._queue, self._pod_eviction = ctx, queue, pod_eviction
        self._rules, self._pods = informers["rules"], informers["pods"]
        self._slices, self._claims = informers["slices"], informers["claims"]
        self._evicted = evicted  # rule uid -> pods evicted (kept by the controller)

    def rule_name(self, uid: str) -> str | None:
        """The name of the rule with ``uid``, if it still exists."""
        for r in self._rules.items():
            if r["metadata"].get("uid") == uid:
                return str(r["metadata"]["name"])
        return None

    def sync(self, name: str) -> None:
        """Update one rule's condition (or requeue it until the period has passed)."""
        rule = self._rules.get(name)
        if rule is None:
            return
        now = self._ctx.clock.now()
        gen = int(rule["metadata"].get("generation", 1))
        old = next((c for c in (rule.get("status") or {}).get("conditions") or ()
                    if c.get("type") == CONDITION), None)
        if old is not None and old.get("observedGeneration") == gen:
            since = Duration(now - parse_rfc3339(old["lastTransitionTime"]))
            if since < RULE_STATUS_PERIOD:
                self._queue.add_after(name, Duration(RULE_STATUS_PERIOD - since))
                return
        status, reason, message = self._condition(rule)
        cond = {"type": CONDITION, "status": status, "reason": reason, "message": message,
                "observedGeneration": gen}
        if old is not None and all(old.get(k) == v for k, v in cond.items()):
            return
        new_status = dict(rule.get("status") or {})
        new_status["conditions"] = [c for c in new_status.get("conditions") or () if c.get("type") != CONDITION]
        new_status["conditions"].append({**cond, "lastTransitionTime": rfc3339(now)})
        try:
            self._ctx.server.update_status({**rule, "status": new_status})
        except NotFound:
            pass

    def _pending(self, rule: Obj, simulate: Obj | None) -> tuple[int, int]:
        uid = rule["metadata"].get("uid", "")
        namespaces: set[str] = set()
        n = 0
        for pod in self._pods.items():
            if pod["metadata"].get("deletionTimestamp") or finished(pod):
                continue
            ev = self._pod_eviction(pod, simulate)
            if ev is not None and uid in ev.rules:
                n += 1
                namespaces.add(pod["metadata"].get("namespace", "default"))
        return n, len(namespaces)

    def _condition(self, rule: Obj) -> tuple[str, str, str]:
        """(status, reason, message) of EvictionInProgress, worded as upstream."""
        effect = rule["spec"]["taint"].get("effect")
        status, message = "False", ""
        if effect == "NoExecute":
            pods, nss = self._pending(rule, None)
            if pods:
                status, reason = "True", "PodsPendingEviction"
                message = f"{_n(pods, 'pod needs', 'pods need')} to be evicted in {_ns(nss)}."
            else:
                reason = "Completed" if self._evicted.get(rule["metadata"].get("uid", "")) else "NotStarted"
        elif effect == "None":
            reason = "NoEffect"
            pods, nss = self._pending(rule, rule)
            published, allocated = self._selected(rule)
            message = (f"{_n(published, 'published device', 'published devices')} selected. "
                       f"{_n(allocated, 'allocated device', 'allocated devices')} selected. "
                       f"{_n(pods, 'pod would', 'pods would')} be evicted in {_ns(nss, ' ')}"
                       "if the effect was NoExecute. This information will not be updated again. "
                       "Recreate the DeviceTaintRule to trigger an update.")
        else:
            reason, message = "OtherEffect", "Eviction only happens for the NoExecute effect."
        evicted = self._evicted.get(rule["metadata"].get("uid", ""), 0)
        if evicted:
            message += (" " if message else "") + f"{_n(evicted, 'pod', 'pods')} evicted since starting the controller."
        return status, reason, message

    def _selected(self, rule: Obj) -> tuple[int, int]:
        """``countTaintedDevices``: devices of each pool's newest generation, and allocated
        devices, that the rule selects."""
        newest: dict[tuple[str, str], int] = {}
        for s in self._slices.items():
            pool = pool_of(s)
            newest[pool] = max(newest.get(pool, 0), int(s["spec"]["pool"].get("generation", 0)))
        published = 0
        for s in self._slices.items():
            spec = s["spec"]
            if int(spec["pool"].get("generation", 0)) != newest[pool_of(s)]:
                continue  # an older generation of the pool
            for dev in spec.get("devices") or ():
                published += rule_matches(rule, (spec["driver"], spec["pool"]["name"], dev["name"]))
        allocated = sum(
            rule_matches(rule, (r["driver"], r["pool"], r["device"]))
            for c in self._claims.items() for r in results(c)
        )
        return published, allocated


def _n(count: int, one: str, many: str) -> str:
    return f"1 {one}" if count == 1 else f"{count} {many}"


def _ns(count: int, end: str = "") -> str:
    return ("1 namespace" if count == 1 else f"{count} different namespaces") + end

"""Taint-based eviction (``pkg/controller/tainteviction``): NoExecute node taints.

``handleNodeUpdate`` keeps each node's NoExecute taints and walks its pods; a pod update
(``handlePodUpdate``, only when the tolerations or nodeName change) is checked against the
taints last seen for its node. ``processPodOnNode``: a pod with an untolerated taint is
deleted at once; when every taint is tolerated, the first matching toleration of each
taint counts and the smallest ``tolerationSeconds`` among them is the delay (none: tolerated
forever, any scheduled deletion is cancelled). A deletion already scheduled is kept, so
lengthening a toleration does not postpone it. Deleting adds the ``DisruptionTarget``
condition (``DeletionByTaintManager``) and deletes gracefully (``addConditionAndDeletePod``).
Events are trace records with upstream's reason and messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.pod_conditions import update_pod_condition
from reference_impl.api.taints import Taint, parse_tolerations
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, Timer, rfc3339, seconds
from reference_impl.errors import ApiError

__all__ = [
    "EVENT_REASON",
    "REASON",
    "TaintEvictionController",
    "get_matching_tolerations",
    "get_min_toleration_time",
    "get_no_execute_taints",
]

Obj = dict[str, Any]
REASON: Final = "DeletionByTaintManager"
MESSAGE: Final = "Taint manager: deleting due to NoExecute taint"
EVENT_REASON: Final = "TaintManagerEviction"
_RETRIES: Final = 5  # deletePodHandler's retries


def get_no_execute_taints(taints: list[Obj]) -> list[Obj]:
    """``getNoExecuteTaints``: the taints with effect NoExecute, in order."""
    return [t for t in taints if t.get("effect") == "NoExecute"]


def get_matching_tolerations(
    taints: list[Obj], tolerations: list[Obj], compare: bool = False
) -> tuple[bool, list[Obj]]:
    """``v1helper.GetMatchingTolerations``: whether every taint is tolerated, and for each
    taint the first toleration that tolerates it."""
    if not taints:
        return True, []
    parsed = parse_tolerations({"spec": {"tolerations": tolerations}}, compare)
    used: list[Obj] = []
    for raw in taints:
        taint = Taint(str(raw.get("key") or ""), str(raw.get("value") or ""), str(raw["effect"]))
        hit = next((i for i, tol in enumerate(parsed) if tol.tolerates(taint)), None)
        if hit is None:
            return False, []
        used.append(tolerations[hit])
    return True, used


def get_min_toleration_time(tolerations: list[Obj]) -> Duration | None:
    """``getMinTolerationTime``: 0 for no tolerations or any non-positive seconds, the
    smallest seconds otherwise, None (upstream's -1) when none has seconds: forever."""
    if not tolerations:
        return Duration(0)
    limits: list[int] = []
    for tol in tolerations:
        if tol.get("tolerationSeconds") is None:
            continue
        secs = int(tol["tolerationSeconds"])
        if secs <= 0:
            return Duration(0)
        limits.append(secs)
    return seconds(min(limits)) if limits else None


@dataclass(slots=True)
class _Worker:
    """``TimedWorker``: a deletion due at ``fire_at``; no timer once it runs."""

    created: Instant
    fire_at: Instant
    timer: Timer | None


class TaintEvictionController:
    """Deletes pods from nodes whose NoExecute taints they do not (or no longer) tolerate."""

    name: Final = "taint-eviction-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._nodes = ctx.informers.informer("v1", "Node")
        self._pods = ctx.informers.informer("v1", "Pod")
        # One FIFO for node and pod items: node items carry a "node:" prefix.
        self._q = WorkQueue(ctx.clock, self._sync, name="tainteviction")
        self._tainted: dict[str, list[Obj]] = {}  # taintedNodes
        self._workers: dict[str, _Worker | None] = {}  # TimedWorkerQueue.workers
        self._compare = bool(ctx.gates["TaintTolerationComparisonOperators"])

    def start(self) -> None:
        """Watch nodes and pods; what the caches hold counts as added."""
        self._nodes.add_handler(self._on_node)
        self._pods.add_handler(self._on_pod)
        for node in self._nodes.items():
            self._q.add("node:" + object_key(node))
        for pod in self._pods.items():
            self._q.add(object_key(pod))

    def scheduled(self, key: str) -> Instant | None:
        """When the deletion of pod ``key`` is due, or None (``GetWorkerUnsafe``)."""
        worker = self._workers.get(key)
        return worker.fire_at if worker is not None else None

    # -- event handlers: ``NodeUpdated`` and ``PodUpdated`` ---------------------------------

    def _on_node(self, ev: ObjectEvent) -> None:
        old = ev.old
        if ev.type == "MODIFIED" and old is not None:
            before = get_no_execute_taints(list((old.get("spec") or {}).get("taints") or []))
            after = get_no_execute_taints(list((ev.obj.get("spec") or {}).get("taints") or []))
            if before == after:
                return
        self._q.add("node:" + str(ev.obj["metadata"]["name"]))

    def _on_pod(self, ev: ObjectEvent) -> None:
        old = ev.old
        if ev.type == "MODIFIED" and old is not None:
            same_tol = (old["spec"].get("tolerations") or []) == (
                ev.obj["spec"].get("tolerations") or []
            )
            if same_tol and old["spec"].get("nodeName") == ev.obj["spec"].get("nodeName"):
                return
        self._q.add(object_key(ev.obj))

    # -- workers ------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        if key.startswith("node:"):
            self._handle_node_update(key[5:])
        else:
            self._handle_pod_update(key)

    def _handle_pod_update(self, key: str) -> None:
        """``handlePodUpdate``: a pod against the taints last seen on its node."""
        pod = self._pods.get(key)
        if pod is None:
            self._cancel_work_with_event(key)
            return
        node_name = str(pod["spec"].get("nodeName") or "")
        taints = self._tainted.get(node_name) if node_name else None
        if taints is None:
            return  # no node, or no NoExecute taints: evictions were cancelled then
        tolerations = list(pod["spec"].get("tolerations") or [])
        self._process_pod_on_node(key, tolerations, taints, self._ctx.clock.now())

    def _handle_node_update(self, name: str) -> None:
        """``handleNodeUpdate``: remember the node's NoExecute taints, then its pods."""
        node = self._nodes.get(name)
        if node is None:
            self._tainted.pop(name, None)
            return
        taints = get_no_execute_taints(list((node.get("spec") or {}).get("taints") or []))
        if taints:
            self._tainted[name] = taints
        else:
            self._tainted.pop(name, None)
        pods = [p for p in self._pods.items() if p["spec"].get("nodeName") == name]
        now = self._ctx.clock.now()
        for pod in pods:
            if not taints:
                self._cancel_work_with_event(object_key(pod))
                continue
            tolerations = list(pod["spec"].get("tolerations") or [])
            self._process_pod_on_node(object_key(pod), tolerations, taints, now)

    def _process_pod_on_node(
        self, key: str, tolerations: list[Obj], taints: list[Obj], now: Instant
    ) -> None:
        """``processPodOnNode``."""
        if not taints:
            self._cancel_work_with_event(key)
        ok, used = get_matching_tolerations(taints, tolerations, self._compare)
        if not ok:
            self._cancel_work_with_event(key)
            self._add_work(key, now, now)
            return
        wait = get_min_toleration_time(used)
        if wait is None:
            self._cancel_work_with_event(key)
            return
        start, trigger = now, Instant(now + wait)
        scheduled = self._workers.get(key)
        if scheduled is not None:
            start = scheduled.created
            if start + wait < trigger:
                return  # a deletion planned earlier stands, even for a longer toleration
            self._cancel_work_with_event(key)
        self._add_work(key, start, trigger)

    # -- the timed worker queue ----------------------------------------------------------

    def _add_work(self, key: str, created: Instant, fire_at: Instant) -> None:
        """``TimedWorkerQueue.AddWork``: an existing item is kept; the delay is measured
        from ``created`` (``createWorker``)."""
        if key in self._workers:
            return
        delay = fire_at - created
        if delay <= 0:
            self._workers[key] = None
            self._run(key)
            return
        clock = self._ctx.clock
        timer = clock.call_at(Instant(clock.now() + delay), lambda: self._run(key))
        self._workers[key] = _Worker(created, fire_at, timer)

    def _cancel_work_with_event(self, key: str) -> None:
        """``cancelWorkWithEvent``: the event only when a pending deletion was stopped."""
        if key not in self._workers:
            return
        worker = self._workers.pop(key)
        if worker is not None:
            if worker.timer is not None:
                worker.timer.cancel()
            self._event(key, f"Cancelling deletion of Pod {key}")

    def _run(self, key: str) -> None:
        """The wrapped ``deletePodHandler``; the item leaves the queue once it ran."""
        self._event(key, f"Marking for deletion Pod {key}")
        ns, _, name = key.partition("/")
        for _ in range(_RETRIES):
            try:
                self._add_condition_and_delete_pod(ns, name)
                break
            except ApiError:
                continue
        self._workers.pop(key, None)

    def _add_condition_and_delete_pod(self, ns: str, name: str) -> None:
        """``addConditionAndDeletePod``: DisruptionTarget (uid-guarded), then delete."""
        server = self._ctx.server
        pod = server.get("v1", "Pod", name, ns)
        status = dict(pod.get("status") or {})
        cond: Obj = {"type": "DisruptionTarget", "status": "True", "reason": REASON,
                     "message": MESSAGE}  # fmt: skip
        gen = pod["metadata"].get("generation")
        if gen:
            cond["observedGeneration"] = int(gen)  # PodObservedGenerationTracking is GA
        if update_pod_condition(status, cond, rfc3339(self._ctx.clock.now())):
            server.update_status({**pod, "status": status})
        server.delete("v1", "Pod", name, ns)
        self._ctx.trace.record(self.name, "evict", f"{ns}/{name}", REASON)

    def _event(self, key: str, message: str) -> None:
        self._ctx.trace.record(self.name, EVENT_REASON, key, message)

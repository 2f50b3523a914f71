"""Models pkg/controller/disruption (the ``disruption`` controller of 1.37).

Keeps every PodDisruptionBudget's status current: ``currentHealthy``, ``desiredHealthy``,
``expectedPods``, ``disruptionsAllowed``, ``disruptedPods``, ``observedGeneration`` and the
``DisruptionAllowed`` condition (True/SufficientPods when a disruption is allowed, else
False/InsufficientPods). When the budget cannot be computed (a percentage over pods of a
controller without a scale subresource, such as a Job, or a selector that does not parse) it
fails safe (``failSafe``): disruptionsAllowed 0 and DisruptionAllowed False/SyncFailed with
the error, the other fields untouched. The controller's finders are in
``disruption_finders``; its events (NoPods, UnmanagedPods, CalculateExpectedPodCountFailed)
are trace records.
A PDB is resynced on its own changes, on changes of any pod it selects (upstream requeues
only the first matching PDB; here all of them, in name order), and when an entry of
``disruptedPods`` falls due. A non-terminating pod whose ``DisruptionTarget`` condition
(set by anyone but the kubelet) is older than 2 minutes gets it reset to False
(``syncStalePodDisruption``; the reset condition keeps no reason or message).
``unhealthyPodEvictionPolicy`` only steers the eviction subresource
(``apiserver/eviction.py``), so it does not enter the status.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.api.formats import label_key_errors
from reference_impl.api.meta import (
    Selector,
    condition,
    selector_from_label_selector,
    set_condition,
)
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.disruption_budget import Budget, SyncError, compute
from reference_impl.controllers.disruption_finders import FINDERS

__all__ = ["DisruptionController", "go_selector"]

Obj = dict[str, Any]
PDB_API: Final = "policy/v1"
STALE_DISRUPTION_TIMEOUT: Final = seconds(120)
_UNMANAGED: Final = (
    "Pods selected by this PodDisruptionBudget (selector: {}) were found to be unmanaged. As a "
    "result, the status of the PDB cannot be calculated correctly, which may result in undefined "
    'behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an '
    "integer value."
)


def go_selector(sel: Mapping[str, Any] | None) -> str:
    """``%v`` of a ``*metav1.LabelSelector``: its generated ``String()``."""
    if sel is None:
        return "nil"
    labels = sel.get("matchLabels") or {}
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
        f"Values:[{' '.join(e.get('values') or [])}],}},"
        for e in sel.get("matchExpressions") or []
    )
    pairs = "".join(f"{k}: {labels[k]}," for k in sorted(labels))
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")  # fmt: skip


def _pdb_selector(pdb: Obj) -> Selector:
    """``metav1.LabelSelectorAsSelector``, with the key and operator checks of
    ``labels.NewRequirement`` (a PDB that fails them selects no pods and fails its sync)."""
    raw = (pdb.get("spec") or {}).get("selector")
    if raw is not None:
        keys = list(raw.get("matchLabels") or {})
        for expr in raw.get("matchExpressions") or []:
            if expr.get("operator") not in ("In", "NotIn", "Exists", "DoesNotExist"):
                raise ValueError(f'"{expr.get("operator")}" is not a valid label selector operator')
            keys.append(str(expr.get("key", "")))
        for key in keys:
            errs = label_key_errors(key)
            if errs:
                raise ValueError(f'key: Invalid value: "{key}": {"; ".join(errs)}')
    return selector_from_label_selector(raw)


class DisruptionController:
    """Writes PodDisruptionBudget status."""

    name: Final = "disruption-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name,
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._stale = WorkQueue(ctx.clock, self._clear_stale, name="disruption-stale",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._pdbs: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to PDBs and pods; queue every PDB."""
        self._pdbs = self._ctx.informers.informer(PDB_API, "PodDisruptionBudget")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._pdbs.add_handler(self._on_pdb)
        self._pods.add_handler(self._on_pod)
        for pdb in self._pdbs.items():
            self._queue.add(object_key(pdb))

    def _on_pdb(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._queue.add(object_key(ev.obj))

    def _on_pod(self, ev: ObjectEvent) -> None:
        for pod in (ev.obj, ev.old):
            if pod is not None:
                for key in self._pdbs_for(pod):
                    self._queue.add(key)
        if ev.type != "DELETED":
            wait = self._stale_wait(ev.obj)
            if wait is not None:
                self._stale.add_after(object_key(ev.obj), wait)

    def _pdbs_for(self, pod: Obj) -> list[str]:
        assert self._pdbs is not None
        ns = pod["metadata"].get("namespace", "default")
        labels = pod["metadata"].get("labels") or {}
        out = []
        for pdb in self._pdbs.items():
            if pdb["metadata"].get("namespace") != ns:
                continue
            try:
                if _pdb_selector(pdb).matches(labels):
                    out.append(object_key(pdb))
            except ValueError:
                continue  # an invalid selector selects nothing
        return sorted(out)

    # -- sync ---------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._pdbs is not None and self._pods is not None
        pdb = self._pdbs.get(key)
        if pdb is None:
            return
        ns = pdb["metadata"].get("namespace", "default")
        try:  # trySync: getPodsForPdb, then getExpectedPodCount
            sel = _pdb_selector(pdb)
        except ValueError as e:
            self._event(pdb, "NoPods", f"Failed to get pods: {e}")
            self._fail_safe(pdb, str(e))
            return
        pods = sorted(
            (
                p
                for p in self._pods.items()
                if p["metadata"].get("namespace") == ns
                and sel.matches(p["metadata"].get("labels") or {})
            ),
            key=lambda p: str(p["metadata"]["name"]),
        )
        if not pods:
            self._event(pdb, "NoPods", "No matching pods found")
        now = self._ctx.clock.now()
        try:
            budget = compute(pdb, pods, self._scale_of, now)
        except SyncError as e:
            msg = f"Failed to calculate the number of expected pods: {e}"
            self._event(pdb, "CalculateExpectedPodCountFailed", msg)
            self._fail_safe(pdb, str(e))
            return
        ns = pdb["metadata"].get("namespace", "default")
        for name in budget.overdue:
            # buildDisruptedPodMap's event names the PDB's namespace twice, as upstream does.
            msg = f"Pod was expected by PDB {ns}/{ns} to be deleted but it wasn't"
            self._ctx.trace.record(self.name, "NotDeleted", f"{ns}/{name}", msg)
        if budget.unmanaged:
            sel_text = go_selector((pdb.get("spec") or {}).get("selector"))
            self._event(pdb, "UnmanagedPods", _UNMANAGED.format(sel_text))
        self._write(pdb, budget, now)
        if budget.recheck_at is not None:
            self._queue.add_after(key, Duration(max(0, budget.recheck_at - now)))

    def _write(self, pdb: Obj, b: Budget, now: Instant) -> None:
        status = copy.deepcopy(pdb.get("status") or {})
        new: Obj = {
            "currentHealthy": b.current_healthy,
            "desiredHealthy": b.desired_healthy,
            "expectedPods": b.expected_pods,
            "disruptionsAllowed": b.disruptions_allowed,
            "observedGeneration": int(pdb["metadata"].get("generation", 1)),
            "conditions": status.get("conditions") or [],
        }
        if b.disrupted_pods:
            new["disruptedPods"] = dict(b.disrupted_pods)
        allowed = b.disruptions_allowed > 0
        cond = {
            "type": "DisruptionAllowed",
            "status": "True" if allowed else "False",
            "reason": "SufficientPods" if allowed else "InsufficientPods",
            "message": "",
            "observedGeneration": new["observedGeneration"],
        }
        set_condition(new, cond, rfc3339(now))
        if new != status:
            self._ctx.server.update_status({**pdb, "status": new})

    def _fail_safe(self, pdb: Obj, message: str) -> None:
        status = copy.deepcopy(pdb.get("status") or {})
        status["disruptionsAllowed"] = 0
        cond = {
            "type": "DisruptionAllowed",
            "status": "False",
            "reason": "SyncFailed",
            "message": message,
            "observedGeneration": int(status.get("observedGeneration") or 0),
        }
        if not cond["observedGeneration"]:
            cond.pop("observedGeneration")
        set_condition(status, cond, rfc3339(self._ctx.clock.now()))
        if status != (pdb.get("status") or {}):
            self._ctx.server.update_status({**pdb, "status": status})
        self._ctx.trace.record(self.name, "SyncFailed", object_key(pdb), message)

    def _event(self, pdb: Obj, reason: str, message: str) -> None:
        """The controller's recorder.Eventf on the PDB, as a trace record."""
        self._ctx.trace.record(self.name, reason, object_key(pdb), message)

    def _scale_of(self, ref: Mapping[str, Any], namespace: str) -> tuple[str, int] | None:
        """``getExpectedScale``'s inner loop: the first finder that knows the controller."""
        for finder in FINDERS:
            found = finder(self._ctx.server, ref, namespace)
            if found is not None:
                return found
        return None

    # -- stale DisruptionTarget conditions ------------------------------------------------

    def _stale_wait(self, pod: Obj) -> Duration | None:
        """How long until the pod's DisruptionTarget condition is stale, or None."""
        if pod["metadata"].get("deletionTimestamp"):
            return None
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return None
        c = condition(pod, "DisruptionTarget")
        if c is None or c.get("status") != "True" or c.get("reason") == "TerminationByKubelet":
            return None
        if not c.get("lastTransitionTime"):
            return Duration(0)  # upstream's zero time is long past
        since = parse_rfc3339(str(c["lastTransitionTime"]))
        return Duration(max(0, since + STALE_DISRUPTION_TIMEOUT - self._ctx.clock.now()))

    def _clear_stale(self, key: str) -> None:
        assert self._pods is not None
        pod = self._pods.get(key)
        if pod is None or self._stale_wait(pod) != 0:
            return
        # syncStalePodDisruption: UpdatePodCondition replaces the whole condition, so the
        # old reason and message go with it.
        status = copy.deepcopy(pod.get("status") or {})
        cond: Obj = {"type": "DisruptionTarget", "status": "False",
                     "lastTransitionTime": rfc3339(self._ctx.clock.now())}  # fmt: skip
        gen = pod["metadata"].get("generation")
        if gen:
            cond["observedGeneration"] = int(gen)  # PodObservedGenerationTracking is GA
        status["conditions"] = [
            cond if c.get("type") == "DisruptionTarget" else c for c in status.get("conditions") or []
        ]
        self._ctx.server.update_status({**pod, "status": status})

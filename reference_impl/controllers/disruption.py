"""Models pkg/controller/disruption (the ``disruption`` controller of 1.37).

Keeps every PodDisruptionBudget's status current: ``currentHealthy``, ``desiredHealthy``,
``expectedPods``, ``disruptionsAllowed``, ``disruptedPods``, ``observedGeneration`` and the
``DisruptionAllowed`` condition (True/SufficientPods when a disruption is allowed, else
False/InsufficientPods). When the budget cannot be computed (a percentage over pods of a
controller without a scale subresource, such as a Job) it fails safe: disruptionsAllowed
0 and DisruptionAllowed False/SyncFailed with the error, the other fields untouched.
A PDB is resynced on its own changes, on changes of any pod it selects (upstream requeues
only the first matching PDB; here all of them, in name order), and when an entry of
``disruptedPods`` falls due. A non-terminating pod whose ``DisruptionTarget`` condition
(set by anyone but the kubelet) is older than 2 minutes gets it reset to False.
``unhealthyPodEvictionPolicy`` only steers the eviction subresource, which the reference
does not serve, so it does not enter the status.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.api.meta import condition, selector_from_label_selector, set_condition
from reference_impl.api.resources import lookup
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.disruption_budget import Budget, SyncError, compute

__all__ = ["DisruptionController"]

Obj = dict[str, Any]
PDB_API: Final = "policy/v1"
STALE_DISRUPTION_TIMEOUT: Final = seconds(120)
# Controllers with a scale subresource, by (group, kind).
_SCALED: Final = {
    ("", "ReplicationController"): "v1",
    ("apps", "ReplicaSet"): "apps/v1",
    ("apps", "Deployment"): "apps/v1",
    ("apps", "StatefulSet"): "apps/v1",
}


class DisruptionController:
    """Writes PodDisruptionBudget status."""

    name: Final = "disruption-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)
        self._stale = WorkQueue(ctx.clock, self._clear_stale, name="disruption-stale")
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
        return sorted(
            object_key(pdb)
            for pdb in self._pdbs.items()
            if pdb["metadata"].get("namespace") == ns
            and selector_from_label_selector((pdb.get("spec") or {}).get("selector")).matches(
                labels
            )
        )

    # -- sync ---------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._pdbs is not None and self._pods is not None
        pdb = self._pdbs.get(key)
        if pdb is None:
            return
        ns = pdb["metadata"].get("namespace", "default")
        sel = selector_from_label_selector((pdb.get("spec") or {}).get("selector"))
        pods = sorted(
            (
                p
                for p in self._pods.items()
                if p["metadata"].get("namespace") == ns
                and sel.matches(p["metadata"].get("labels") or {})
            ),
            key=lambda p: str(p["metadata"]["name"]),
        )
        now = self._ctx.clock.now()
        try:
            budget = compute(pdb, pods, self._scale_of, now)
        except SyncError as e:
            self._fail_safe(pdb, str(e))
            return
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

    def _scale_of(self, ref: Mapping[str, Any], namespace: str) -> tuple[str, int] | None:
        """The finders of ``getExpectedScale``: (uid, replicas) of the pod's controller."""
        api_version, kind = str(ref.get("apiVersion", "")), str(ref.get("kind", ""))
        group = api_version.rpartition("/")[0]
        served = _SCALED.get(("apps" if group == "extensions" else group, kind))
        if served is None:
            info = lookup(api_version, kind)
            if info is None:
                raise SyncError(f'no matches for kind "{kind}" in version "{api_version}"')
            raise SyncError(f"{info.group_resource} does not implement the scale subresource")
        obj = self._ctx.server.try_get(served, kind, str(ref.get("name", "")), namespace)
        if obj is None or obj["metadata"].get("uid") != ref.get("uid"):
            return None
        if kind == "ReplicaSet":
            owner = controller_ref(obj)
            if owner is not None and owner.get("kind") == "Deployment":
                dep = self._ctx.server.try_get("apps/v1", "Deployment", owner["name"], namespace)
                if dep is not None and dep["metadata"].get("uid") == owner.get("uid"):
                    obj = dep  # the Deployment's scale governs its ReplicaSets' pods
        return str(obj["metadata"]["uid"]), int((obj.get("spec") or {}).get("replicas", 1))

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
        since = parse_rfc3339(str(c.get("lastTransitionTime") or rfc3339(self._ctx.clock.now())))
        return Duration(max(0, since + STALE_DISRUPTION_TIMEOUT - self._ctx.clock.now()))

    def _clear_stale(self, key: str) -> None:
        assert self._pods is not None
        pod = self._pods.get(key)
        if pod is None or self._stale_wait(pod) != 0:
            return
        status = copy.deepcopy(pod.get("status") or {})
        set_condition(
            status, {"type": "DisruptionTarget", "status": "False"}, rfc3339(self._ctx.clock.now())
        )
        self._ctx.server.update_status({**pod, "status": status})

"""The HorizontalPodAutoscaler controller, after ``pkg/controller/podautoscaler/horizontal.go``.

Every sync period (15 s, ``--horizontal-pod-autoscaler-sync-period``) each HPA reads its
target's ``spec.replicas`` and pods, asks the replica calculator for a proposal per metric,
takes the maximum, applies behavior and bounds and writes the target's ``spec.replicas``
(Deployment, ReplicaSet or StatefulSet) and the HPA status.

Scale to zero (KEP-2021): with ``minReplicas: 0`` the HPA may set 0 replicas; it then
sets ``ScaledToZero=True`` and removes the condition when it scales up again. A target
scaled to 0 by hand under ``minReplicas >= 1`` disables scaling (``ScalingActive=False,
ScalingDisabled``) and never gets ScaledToZero.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import condition, selector_from_label_selector, set_condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, rfc3339, seconds
from reference_impl.controllers.controller_utils import is_pod_active, is_pod_ready
from reference_impl.controllers.hpa.behavior import Stabilizer
from reference_impl.controllers.hpa.replica_calculator import (
    ExternalMetrics,
    MetricResult,
    ReplicaCalculator,
)
from reference_impl.errors import Conflict, NotFound

__all__ = ["SCALED_TO_ZERO", "SYNC_PERIOD_S", "HorizontalController"]

Obj = dict[str, Any]
SYNC_PERIOD_S: Final = 15.0
SCALED_TO_ZERO: Final = "ScaledToZero"
_SCALABLE: Final = {"Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1"}


class HorizontalController:
    """Reconciles HorizontalPodAutoscalers against their scale targets."""

    name: Final = "horizontal-pod-autoscaler-controller"  # kube-controller-manager's name

    def __init__(
        self,
        ctx: ComponentContext,
        external_metrics: ExternalMetrics | None = None,
        sync_period_s: float = SYNC_PERIOD_S,
    ) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._calc = ReplicaCalculator(external_metrics if external_metrics is not None else {})
        self._period = Duration(seconds(sync_period_s))
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)
        self._stab = Stabilizer()
        self._ticking: set[str] = set()
        self._hpas: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Register the HPA and Pod informers and start each HPA's periodic sync."""
        self._hpas = self._ctx.informers.informer("autoscaling/v2", "HorizontalPodAutoscaler")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._hpas.add_handler(self._on_hpa)
        for hpa in self._hpas.items():
            self._begin(object_key(hpa))

    def _on_hpa(self, ev: ObjectEvent) -> None:
        key = object_key(ev.obj)
        if ev.type == "DELETED":
            self._ticking.discard(key)
            self._stab.forget(key)
        elif ev.type == "ADDED" or key not in self._ticking:
            self._begin(key)

    def _begin(self, key: str) -> None:
        self._ticking.add(key)
        self._queue.add(key)
        self._tick(key)

    def _tick(self, key: str) -> None:
        def fire() -> None:
            if key in self._ticking:
                self._queue.add(key)
                self._tick(key)

        self._ctx.clock.call_later(self._period, fire)

    # -- sync -----------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._hpas is not None
        hpa = self._hpas.get(key)
        if hpa is None:
            return
        spec, ns = hpa["spec"], hpa["metadata"]["namespace"]
        ref = spec.get("scaleTargetRef") or {}
        api_version = ref.get("apiVersion") or _SCALABLE.get(str(ref.get("kind")), "")
        target = self._server.try_get(api_version, str(ref.get("kind")), str(ref.get("name")), ns)
        status: Obj = dict(hpa.get("status") or {})
        now = rfc3339(self._ctx.clock.now())
        if target is None or ref.get("kind") not in _SCALABLE:
            set_condition(
                status,
                _cond(
                    "AbleToScale",
                    "False",
                    "FailedGetScale",
                    "the HPA controller was unable to get the target's current scale",
                ),
                now,
            )
            self._write_status(hpa, status)
            return
        set_condition(
            status,
            _cond(
                "AbleToScale",
                "True",
                "SucceededGetScale",
                "the HPA controller was able to get the target's current scale",
            ),
            now,
        )
        current = int((target.get("spec") or {}).get("replicas", 1))
        lo, hi = int(spec.get("minReplicas", 1)), int(spec["maxReplicas"])
        scaled_by_us = (condition({"status": status}, SCALED_TO_ZERO) or {}).get("status") == "True"
        if current == 0 and not (lo == 0 and scaled_by_us):
            # At zero and not put there by this HPA (scaled by hand, or created at zero):
            # upstream 1.37 disables autoscaling rather than scale up from zero.
            set_condition(
                status,
                _cond(
                    "ScalingActive",
                    "False",
                    "ScalingDisabled",
                    "scaling is disabled since the replica count of the target is zero",
                ),
                now,
            )
            _drop(status, SCALED_TO_ZERO)
            self._write_status(hpa, {**status, "currentReplicas": 0, "desiredReplicas": 0})
            return
        pods = self._target_pods(target, ns)
        results = self._compute(spec, pods, current, ns)
        if not results:
            set_condition(
                status,
                _cond(
                    "ScalingActive",
                    "False",
                    "FailedGetExternalMetric",
                    "the HPA was unable to compute the replica count: no metric value",
                ),
                now,
            )
            self._write_status(
                hpa, {**status, "currentReplicas": current, "desiredReplicas": current}
            )
            return
        proposal = max(r.replicas for r in results)
        set_condition(
            status,
            _cond(
                "ScalingActive",
                "True",
                "ValidMetricFound",
                "the HPA was able to successfully calculate a replica count",
            ),
            now,
        )
        desired = self._stab.normalize(
            key, self._ctx.clock.now(), spec.get("behavior"), current, proposal, lo, hi
        )
        limited = desired in (lo, hi) and desired != proposal
        set_condition(
            status,
            _cond(
                "ScalingLimited",
                "True" if limited else "False",
                self._stab.last_reason,
                "the desired count is within the acceptable range"
                if not limited
                else "the desired replica count is limited",
            ),
            now,
        )
        if desired != current:
            self._scale(target, desired)
            self._stab.record(key, self._ctx.clock.now(), desired - current)
            status["lastScaleTime"] = now
        if desired == 0:
            set_condition(
                status,
                _cond(
                    SCALED_TO_ZERO,
                    "True",
                    "ScaledToZero",
                    "the metrics report no work; the target was scaled to zero",
                ),
                now,
            )
        else:
            _drop(status, SCALED_TO_ZERO)
        status.update(
            currentReplicas=current,
            desiredReplicas=desired,
            currentMetrics=[r.status for r in results],
            observedGeneration=hpa["metadata"].get("generation", 1),
        )
        self._write_status(hpa, status)

    def _compute(self, spec: Obj, pods: list[Obj], current: int, ns: str) -> list[MetricResult]:
        ready = sum(1 for p in pods if is_pod_ready(p))
        out: list[MetricResult] = []
        for m in spec.get("metrics") or []:
            res: MetricResult | None = None
            mtype = m.get("type")
            if mtype == "External":
                res = self._calc.external(m["external"], current, ready)
            elif mtype == "Object":
                ref = m["object"].get("describedObject") or {}
                obj = self._server.try_get(
                    str(ref.get("apiVersion", "v1")), str(ref.get("kind")), str(ref.get("name")), ns
                )
                res = self._calc.object(m["object"], obj, current, ready)
            elif mtype == "Pods":
                res = self._calc.pods(m["pods"], pods, current)
            elif mtype == "Resource":
                res = self._calc.resource(m["resource"], pods, current)
            if res is not None:
                out.append(res)
        return out

    def _target_pods(self, target: Obj, ns: str) -> list[Obj]:
        assert self._pods is not None
        sel = selector_from_label_selector((target.get("spec") or {}).get("selector"))
        return [
            p
            for p in self._pods.items()
            if p["metadata"].get("namespace") == ns
            and is_pod_active(p)
            and sel.matches(p["metadata"].get("labels"))
        ]

    def _scale(self, target: Obj, replicas: int) -> None:
        """Write the target's ``spec.replicas`` (the scale subresource's effect)."""
        fresh = dict(target)
        fresh["spec"] = {**target["spec"], "replicas": replicas}
        self._ctx.trace.record(self.name, "scale", object_key(target), str(replicas))
        self._server.update(fresh)

    def _write_status(self, hpa: Obj, status: Obj) -> None:
        if status == hpa.get("status"):
            return
        try:
            self._server.update_status({**hpa, "status": status})
        except (Conflict, NotFound):
            return  # the next period retries with a fresh copy


def _cond(ctype: str, status: str, reason: str, message: str) -> Obj:
    return {"type": ctype, "status": status, "reason": reason, "message": message}


def _drop(status: Obj, ctype: str) -> None:
    if condition({"status": status}, ctype) is not None:
        status["conditions"] = [c for c in status["conditions"] if c.get("type") != ctype]

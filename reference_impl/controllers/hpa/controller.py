"""The HorizontalPodAutoscaler controller, after ``pkg/controller/podautoscaler/horizontal.go``.

Every sync period (15 s, ``--horizontal-pod-autoscaler-sync-period``) each HPA reads its
target's Scale (the ``/scale`` subresource: replicas, status replicas and selector) and
pods, asks the replica calculator for a proposal per metric, takes the maximum, applies
behavior and bounds and writes the new count through the Scale (Deployment, ReplicaSet,
StatefulSet, ReplicationController or a custom resource with a scale subresource) and
the HPA status. The period is the queue's:
each reconcile, failed or not, re-adds the HPA one period later (``AddRateLimited`` with
``NewDefaultHPARateLimiter``); a new HPA, or a spec change under HPAGeneration, is
reconciled at once, a status-only update waits its period.

The flow and the conditions are ``reconcileAutoscaler``'s: AbleToScale (SucceededGetScale,
or FailedGetScale with the mapping's or the apiserver's error, then the normalization's
ReadyForNewScale / Scale{Up,Down}Stabilized, then SucceededRescale after a write retried on
conflict, or FailedUpdateScale keeping the old desired count), ScalingActive
(ValidMetricFound, FailedGet*Metric, ScalingDisabled) and ScalingLimited; a count above
maxReplicas or below minReplicas is corrected without reading metrics; every status write
carries ``observedGeneration``. Failed reads and writes of the Scale (FailedGetScale,
FailedRescale) are Warning events, kept as trace records.

Scale to zero (KEP-2021): every rescale sets ``ScaledToZero``: True when it took the
target from >0 to 0 under ``minReplicas: 0`` with an Object or External metric, else
False/NotScaledToZero. At zero the HPA computes metrics only when it put the target there
(ScaledToZero=True) and may leave: an Object/External metric, or minReplicas raised from 0
(then it scales to at least minReplicas). A target at 0 otherwise (scaled by hand, or
created at 0) disables scaling (``ScalingActive=False, ScalingDisabled``).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.meta import condition, parse_selector, set_condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, rfc3339, seconds
from reference_impl.controllers.hpa.behavior import (
    DEFAULT_DOWNSCALE_STABILIZATION_S,
    SCALE_UP_LIMIT_FACTOR,
    Stabilizer,
)
from reference_impl.controllers.hpa.rate_limiters import new_default_hpa_rate_limiter
from reference_impl.controllers.hpa.replica_calculator import (
    DEFAULT_TOLERANCE,
    Delays,
    ExternalMetrics,
    MetricFailure,
    MetricResult,
    PodMetrics,
    ReplicaCalculator,
    go_selector,
    tolerances_for_hpa,
)
from reference_impl.controllers.hpa.replica_rules import (
    CPU_INITIALIZATION_PERIOD,
    DELAY_OF_INITIAL_READINESS_STATUS,
)
from reference_impl.controllers.hpa.scale_client import (
    MappingError,
    ScaleTarget,
    scale_for_target,
    update_scale,
)
from reference_impl.controllers.hpa.selectors import HPASelectors
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = ["SCALED_TO_ZERO", "SYNC_PERIOD_S", "HorizontalController"]

Obj = dict[str, Any]
SYNC_PERIOD_S: Final = 15.0
SCALED_TO_ZERO: Final = "ScaledToZero"


class HorizontalController:
    """Reconciles HorizontalPodAutoscalers against their scale targets."""

    name: Final = "horizontal-pod-autoscaler-controller"  # kube-controller-manager's name

    def __init__(
        self,
        ctx: ComponentContext,
        external_metrics: ExternalMetrics | None = None,
        sync_period_s: float = SYNC_PERIOD_S,
        pod_metrics: PodMetrics | None = None,
        *,
        tolerance: float = DEFAULT_TOLERANCE,
        delays: Delays = (CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS),
        downscale_stabilization_s: int = DEFAULT_DOWNSCALE_STABILIZATION_S,
        scale_up_limit_factor: float = SCALE_UP_LIMIT_FACTOR,
    ) -> None:
        """The keywords are kube-controller-manager's ``--horizontal-pod-autoscaler-*``
        flags (tolerance, cpu-initialization-period and initial-readiness-delay,
        downscale-stabilization) and upstream's ``scaleUpLimitFactor``."""
        self._ctx = ctx
        self._server = ctx.server
        self._calc = ReplicaCalculator(
            external_metrics if external_metrics is not None else {}, tolerance, pod_metrics, delays
        )
        self._period = Duration(seconds(sync_period_s))
        self.rate_limiter = new_default_hpa_rate_limiter(self._period)
        self._queue = WorkQueue(ctx.clock, self._process, name=self.name, rate_limiter=self.rate_limiter)
        self.stabilizer = Stabilizer(downscale_stabilization_s, scale_up_limit_factor)
        self.selectors = HPASelectors()
        self._hpas: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Register the HPA and Pod informers and start each HPA's periodic sync."""
        self._hpas = self._ctx.informers.informer("autoscaling/v2", "HorizontalPodAutoscaler")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._hpas.add_handler(self._on_hpa)
        for hpa in self._hpas.items():
            self._enqueue_hpa(object_key(hpa))

    def _on_hpa(self, ev: ObjectEvent) -> None:
        """``enqueueHPA`` / ``updateHPA`` / ``deleteHPA``."""
        key = object_key(ev.obj)
        if ev.type == "DELETED":
            self.rate_limiter.forget(key)
            self.selectors.delete(key)
            self.stabilizer.forget(key)
        elif ev.type == "ADDED":
            self._enqueue_hpa(key)
        elif (
            self._ctx.gates["HPAGeneration"]
            and ev.old is not None
            and ev.old["metadata"].get("generation") != ev.obj["metadata"].get("generation")
        ):
            self._enqueue_hpa(key)  # a spec change reconciles at once
        else:
            self._queue.add_rate_limited(key)  # status-only updates wait: no hot loop

    def _enqueue_hpa(self, key: str) -> None:
        self.selectors.put_if_absent(key)
        self._queue.add(key)

    def _process(self, key: str) -> None:
        """``processNextWorkItem``: reconcile (an error is only logged), then re-add the
        HPA one period later unless it is gone."""
        assert self._hpas is not None
        try:
            self._sync(key)
        except ApiError:
            pass  # utilruntime.HandleError; the re-add below is the retry
        if self._hpas.get(key) is not None:
            self._queue.add_rate_limited(key)

    # -- sync -----------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        """``reconcileAutoscaler``."""
        assert self._hpas is not None
        hpa = self._hpas.get(key)
        if hpa is None:
            return
        spec = hpa["spec"]
        status: Obj = copy.deepcopy(hpa.get("status") or {})
        st = self._scale_target(hpa, status)
        if st is None:
            self._write_status(hpa, status)
            return
        target = st.scale
        current = int((target.get("spec") or {}).get("replicas", 0))  # Scale: omitempty
        self.stabilizer.record_initial(key, self._ctx.clock.now(), current)
        lo, hi = int(spec.get("minReplicas", 1)), int(spec["maxReplicas"])
        scaled_to_zero = (condition({"status": status}, SCALED_TO_ZERO) or {}).get("status") == "True"
        results: list[tuple[str, MetricResult | MetricFailure]] | None = None
        # shouldComputeMetricsForZeroReplicas: only an HPA that put the target at zero (and
        # may leave it: minReplicas raised, or an Object/External metric) scales it.
        if current == 0 and not (scaled_to_zero and (lo != 0 or _object_or_external(spec))):
            self._cond(status, "ScalingActive", "False", "ScalingDisabled",
                       "scaling is disabled since the replica count of the target is zero")
            desired = current
        elif current > hi or 0 < current < lo:
            desired = hi if current > hi else lo
            bound = "above Spec.MaxReplicas" if current > hi else "below Spec.MinReplicas"
            if not self._rescale(key, hpa, st, status, current, desired,
                                 f"Current number of replicas {bound}", None):  # fmt: skip
                return
        else:
            proposal = self._from_metrics(key, hpa, target, status, current, scaled_to_zero)
            if proposal is None:
                return  # the metrics failed: status is written, the old desired count kept
            desired, results, reason = proposal
            if desired != current and not self._rescale(key, hpa, st, status, current, desired, reason, results):
                return
        self._write_status(hpa, self._status(hpa, status, current, desired, results))

    def _cond(self, status: Obj, ctype: str, value: str, reason: str, message: str) -> None:
        set_condition(status, _cond(ctype, value, reason, message), rfc3339(self._ctx.clock.now()))

    def _scale_target(self, hpa: Obj, status: Obj) -> ScaleTarget | None:
        """``reconcileAutoscaler``'s mapping of scaleTargetRef and
        ``scaleForResourceMappings``: the target's Scale (its /scale subresource), with
        AbleToScale saying whether it could be read."""
        spec, ns = hpa["spec"], hpa["metadata"]["namespace"]
        try:
            st = scale_for_target(self._server, spec.get("scaleTargetRef") or {}, ns)
        except (MappingError, ApiError) as e:
            what = e.message if isinstance(e, ApiError) else str(e)
            self._event(hpa, "FailedGetScale", what)
            self._cond(status, "AbleToScale", "False", "FailedGetScale",
                       f"the HPA controller was unable to get the target's current scale: {what}")
            return None
        self._cond(status, "AbleToScale", "True", "SucceededGetScale",
                   "the HPA controller was able to get the target's current scale")
        return st

    def _from_metrics(
        self, key: str, hpa: Obj, target: Obj, status: Obj, current: int, scaled_to_zero: bool
    ) -> tuple[int, list[tuple[str, MetricResult | MetricFailure]], str] | None:
        """``computeReplicasForMetrics`` then ``normalizeDesiredReplicas``: the desired
        count, the per-metric results and the rescale reason; None when the HPA cannot
        scale (status written)."""
        spec, ns = hpa["spec"], hpa["metadata"]["namespace"]
        kept = int(status.get("desiredReplicas", 0))
        invalid = self._invalid_selector(key, ns, target)
        if invalid:
            self._cond(status, "ScalingActive", "False", *invalid)
            self._write_status(hpa, self._status(hpa, status, current, kept, None))
            return None
        results = self._compute(hpa, target, self._target_pods(target, ns), current, ns)
        best_name, best = "", None
        for n, r in results:  # "replicas == 0 || proposal > replicas"
            if isinstance(r, MetricResult) and (best is None or best.replicas == 0 or r.replicas > best.replicas):
                best_name, best = n, r
        failed = [r for _, r in results if isinstance(r, MetricFailure)]
        # All metrics invalid, or some invalid while the others would scale down.
        if failed and (best is None or best.replicas < current):
            self._cond(status, "ScalingActive", "False", failed[0].reason,
                       f"the HPA was unable to compute the replica count: {failed[0].error}")
            # setCurrentReplicasAndMetricsInStatus: the old desired count is kept.
            self._write_status(hpa, self._status(hpa, status, current, kept, results))
            return None
        assert best is not None
        self._cond(status, "ScalingActive", "True", "ValidMetricFound",
                   f"the HPA was able to successfully calculate a replica count from {best_name}")
        lo, hi, now = int(spec.get("minReplicas", 1)), int(spec["maxReplicas"]), self._ctx.clock.now()
        reason = (f"{best_name if best.replicas > 0 else ''} above target" if best.replicas > current
                  else "All metrics below target" if best.replicas < current else "")  # fmt: skip
        norm = (self.stabilizer.normalize_with_behaviors(key, now, spec["behavior"], current, best.replicas, lo, hi)
                if spec.get("behavior") is not None
                else self.stabilizer.normalize_without_behavior(key, now, current, best.replicas, lo, hi))
        self._cond(status, "AbleToScale", "True", norm.able_reason, norm.able_message)
        self._cond(status, "ScalingLimited", "True" if norm.limited else "False",
                   norm.limited_reason, norm.limited_message)
        if current == 0 and lo != 0 and scaled_to_zero and norm.replicas < lo:
            # leaving zero after minReplicas was raised
            return lo, results, reason or "Current number of replicas below Spec.MinReplicas"
        return norm.replicas, results, reason

    def _rescale(
        self, key: str, hpa: Obj, st: ScaleTarget, status: Obj, current: int, desired: int, reason: str,
        results: list[tuple[str, MetricResult | MetricFailure]] | None,
    ) -> bool:  # fmt: skip
        """Write the target's new scale (``RetryOnConflict``) and the conditions and times
        that record it; on failure AbleToScale=False/FailedUpdateScale, the status written
        with the old desired count, and False."""
        spec = hpa["spec"]
        self._ctx.trace.record(self.name, "scale", object_key(st.scale), str(desired))
        try:
            update_scale(self._server, st, desired)
        except ApiError as e:
            self._event(hpa, "FailedRescale", f"New size: {desired}; reason: {reason}; error: {e.message}")
            self._cond(status, "AbleToScale", "False", "FailedUpdateScale",
                       f"the HPA controller was unable to update the target scale: {e.message}")
            # setCurrentReplicasAndMetricsInStatus: the old desired count is kept.
            kept = int(status.get("desiredReplicas", 0))
            self._write_status(hpa, self._status(hpa, status, current, kept, results))
            return False
        self._cond(status, "AbleToScale", "True", "SucceededRescale",
                   f"the HPA controller was able to update the target scale to {desired}")
        if spec.get("behavior") is not None:
            self.stabilizer.record(key, self._ctx.clock.now(), desired - current, spec["behavior"])
        # ScaledToZero is set on every rescale, so it is never stale.
        if current > 0 and desired == 0 and int(spec.get("minReplicas", 1)) == 0 and _object_or_external(spec):
            self._cond(status, SCALED_TO_ZERO, "True", "ScaledToZero", "the HPA controller scaled the workload to zero")
        else:
            self._cond(status, SCALED_TO_ZERO, "False", "NotScaledToZero",
                       "the HPA controller did not scale the workload to zero")
        status["lastScaleTime"] = rfc3339(self._ctx.clock.now())
        return True

    def _event(self, hpa: Obj, reason: str, message: str) -> None:
        """The controller's Warning event on the HPA, as a trace record."""
        self._ctx.trace.record(self.name, reason, object_key(hpa), message)

    def _invalid_selector(self, key: str, ns: str, target: Obj) -> tuple[str, str] | None:
        """``validateAndParseSelector``: (reason, message) when the target's pods cannot be
        attributed to this HPA alone."""
        assert self._pods is not None
        sel = str((target.get("status") or {}).get("selector") or "")
        if not sel:
            return "InvalidSelector", "the HPA target's scale is missing a selector"
        try:
            parsed = parse_selector(sel)
        except ValueError as e:
            return ("InvalidSelector",
                    f"couldn't convert selector into a corresponding internal selector object: {e}")
        if not self.selectors.put_if_present(key, parsed):
            return None  # deleted meanwhile: the DELETED event stops its sync
        pods = [p for p in self._pods.items()
                if p["metadata"].get("namespace") == ns and parsed.matches(p["metadata"].get("labels"))]
        hpas = self.selectors.matching(ns, pods, 2)
        if len(hpas) > 1:
            return ("AmbiguousSelector", f"pods by selector {sel} are controlled "
                    f"by more than one HPA (e.g. [{' '.join(hpas)}])")
        return None

    @staticmethod
    def _status(
        hpa: Obj, status: Obj, current: int, desired: int,
        results: list[tuple[str, MetricResult | MetricFailure]] | None,
    ) -> Obj:
        """``setStatus``: a fresh status keeping conditions and lastScaleTime."""
        out: Obj = {"desiredReplicas": desired}
        if current:  # int32 with omitempty, as the Go type
            out["currentReplicas"] = current
        if results:
            # A metric without a value leaves its zero MetricStatus, as upstream's slice does.
            out["currentMetrics"] = [r.status if isinstance(r, MetricResult) else {"type": ""} for _, r in results]
        for k in ("lastScaleTime", "conditions"):
            if status.get(k):
                out[k] = status[k]
        out["observedGeneration"] = hpa["metadata"].get("generation", 1)
        return out

    def _compute(
        self, hpa: Obj, target: Obj, pods: list[Obj], current: int, ns: str
    ) -> list[tuple[str, MetricResult | MetricFailure]]:
        """``computeReplicasForMetric`` per metric, in spec order: (metric name as
        upstream's condition message gives it, proposal or failure)."""
        tol, now = tolerances_for_hpa(hpa["spec"], self._calc.tolerance), self._ctx.clock.now()
        status_replicas = int((target.get("status") or {}).get("replicas", 0))
        out: list[tuple[str, MetricResult | MetricFailure]] = []
        for m in hpa["spec"].get("metrics") or []:
            res: MetricResult | MetricFailure
            mtype = m.get("type")
            if mtype == "External":
                res = self._calc.external(m["external"], current, status_replicas, pods, tol, ns)
            elif mtype == "Object":
                ref = m["object"].get("describedObject") or {}
                obj = self._server.try_get(
                    str(ref.get("apiVersion", "v1")), str(ref.get("kind")), str(ref.get("name")), ns
                )
                res = self._calc.object(m["object"], obj, current, status_replicas, pods, tol, ns)
            elif mtype == "Pods":
                res = self._calc.pods(m["pods"], pods, current, tol, now)
            elif mtype == "Resource":
                res = self._calc.resource(m["resource"], pods, current, tol, now)
            elif mtype == "ContainerResource":
                spec = m["containerResource"]
                res = self._calc.resource(spec, pods, current, tol, now, str(spec.get("container", "")))
            else:
                res = MetricFailure("InvalidMetricSourceType", f'unknown metric source type "{mtype}"')
            out.append((_metric_name(m), res))
        return out

    def _target_pods(self, target: Obj, ns: str) -> list[Obj]:
        assert self._pods is not None
        sel = parse_selector((target.get("status") or {}).get("selector"))
        return [
            p
            for p in self._pods.items()
            if p["metadata"].get("namespace") == ns and sel.matches(p["metadata"].get("labels"))
        ]

    def _write_status(self, hpa: Obj, status: Obj) -> None:
        status.setdefault("desiredReplicas", 0)  # never omitted by the Go type
        if status == hpa.get("status"):
            return
        try:
            self._server.update_status({**hpa, "status": status})
        except (Conflict, NotFound):
            return  # the next period retries with a fresh copy


def _cond(ctype: str, status: str, reason: str, message: str) -> Obj:
    return {"type": ctype, "status": status, "reason": reason, "message": message}


def _object_or_external(spec: Obj) -> bool:
    """Whether a metric can scale the target up from zero (it is not measured on pods)."""
    return any(m.get("type") in ("Object", "External") for m in spec.get("metrics") or [])


def _metric_name(m: Obj) -> str:
    """The metric as ``computeStatusFor*Metric`` names it."""
    mtype = m.get("type")
    spec = m.get(str(mtype).lower() if mtype != "ContainerResource" else "containerResource") or {}
    metric = spec.get("metric") or {}
    if mtype == "External":
        return f"external metric {metric.get('name')}({go_selector(metric.get('selector'))})"
    if mtype == "Object" and (spec.get("target") or {}).get("type") == "AverageValue":
        # computeStatusForObjectMetric names a per-pod object metric this way.
        return f"external metric {metric.get('name')}({go_selector(metric.get('selector'))})"
    if mtype == "Object":
        return f"{(spec.get('describedObject') or {}).get('kind')} metric {metric.get('name')}"
    if mtype == "Pods":
        return f"pods metric {metric.get('name')}"
    if (spec.get("target") or {}).get("type") == "Utilization" and mtype == "ContainerResource":
        return f"{spec.get('name')} container resource utilization (percentage of request)"
    if (spec.get("target") or {}).get("type") == "Utilization":
        return f"{spec.get('name')} resource utilization (percentage of request)"
    return f"{spec.get('name')} resource"

"""A one-HPA control plane for the ``horizontal_test.go`` rows: an APIServer with the scale
target, the pods and the HPA of upstream's ``testCase`` / ``horizontalScenario``, the
reference ``HorizontalController`` alone (2 minute CPU initialization period, 10 s
readiness delay, ``scaleUpLimitFactor`` 8 as upstream's test ``init`` sets it), and one
reconcile at a simulated instant.

Metrics reach the controller through its simulated sources: CPU as per-container usage
annotations (half the reported level in each of the two containers, sampled now over a
1 minute window as the fake metrics client does), ``qps`` pod metrics through the
custom-metrics map, external series through the external-metrics map (one series per
level) and Object metrics as the described object's annotation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, rfc3339, seconds
from reference_impl.controllers.hpa import HorizontalController
from reference_impl.controllers.hpa.behavior import Recommendation
from reference_impl.controllers.hpa.replica_rules import GO_ZERO_TIME
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

__all__ = [
    "COOL", "F", "HOT", "NOT_ZERO", "NS", "OK", "RESCALED", "START", "T", "Cond", "Outcome", "Scenario", "check",
    "conds", "cpu", "external_qps", "object_qps", "ok_with", "pods_qps", "run_scenario",
]

Obj = dict[str, Any]
NS = "test-namespace"
START = Instant(seconds(10 * 86_400))  # the reconcile instant ("time.Now()")
HOT, COOL = "hot", "cool"


@dataclass
class Scenario:
    """``testCase`` / ``horizontalScenario``: the fields the ported rows set."""

    min_replicas: int | None = None
    max_replicas: int = 0
    spec_replicas: int = 0
    status_replicas: int = 0
    cpu_target: int = 0
    levels: Sequence[int] = ()
    requests: Sequence[str] | None = None
    readiness: Sequence[str] | None = None
    start: Sequence[str] | None = None  # HOT / COOL; unset is Go's zero time
    phase: Sequence[str] | None = None
    deleted: Sequence[bool] | None = None
    metrics: Sequence[Obj] = ()
    levels_as: str = "cpu"  # cpu | pods | external | object, or several joined by "+"
    kind: str = "ReplicationController"
    name: str | None = None  # the target's name; upstream's per-kind default when unset
    up: Obj | None = None
    down: Obj | None = None
    recommendations: Sequence[tuple[int, float]] | None = None  # (replicas, seconds ago)
    initial_conditions: Sequence[Obj] | None = None
    tolerance: float = 0.1
    container: str = ""
    extra_objects: Sequence[Obj] = field(default_factory=list)
    no_target: bool = False  # the scale subresource cannot be read
    hpa_selectors: dict[str, Obj] = field(default_factory=dict)  # other HPAs' selectors, by name
    pod_labels: Obj = field(default_factory=dict)  # extra labels on every pod
    initial_status: Obj | None = None  # the HPA's whole status, instead of buildHPA's
    # PrependReactor("update", ...): the scale updates' errors, in order (then the real one)
    scale_update_errors: Sequence[Exception] = ()


@dataclass
class Outcome:
    """The target's replicas and the HPA's status after the reconcile."""

    replicas: int
    status: Obj
    hpa_written: bool = True  # whether the reconcile updated the HPA


_API = {"ReplicationController": "v1", "Deployment": "apps/v1", "ReplicaSet": "apps/v1"}
_NAMES = {"ReplicationController": "test-rc", "Deployment": "test-dep", "ReplicaSet": "test-replicaset"}


def _template() -> Obj:
    return {"metadata": {"labels": {"name": "test-pod"}},
            "spec": {"containers": [{"name": "container1", "image": "x"}]}}


def _name(s: Scenario) -> str:
    return s.name or _NAMES[s.kind]


def _object_annotations(s: Scenario, kind: str, name: str) -> Obj:
    """The Object metric value ``AddGetCustomMetricsReactor`` serves for any object."""
    if "object" not in s.levels_as.split("+") or not s.levels:
        return {}
    for m in s.metrics:
        ref = (m.get("object") or {}).get("describedObject") or {}
        if m.get("type") == "Object" and (ref.get("kind"), ref.get("name")) == (kind, name):
            metric = m["object"]["metric"]["name"]
            return {f"garhwal.dev/metric-{metric}": f"{s.levels[0]}m"}
    return {}


def _target(s: Scenario) -> Obj:
    spec: Obj = {"replicas": s.spec_replicas, "template": _template()}
    if s.kind == "ReplicationController":
        spec["selector"] = {"name": "test-pod"}
    else:
        spec["selector"] = {"matchLabels": {"name": "test-pod"}}
    meta = {"name": _name(s), "namespace": NS, "annotations": _object_annotations(s, s.kind, _name(s))}
    return {"apiVersion": _API[s.kind], "kind": s.kind, "metadata": meta, "spec": spec}


def _time(tag: str | None) -> str:
    if tag == HOT:
        return rfc3339(START)
    if tag == COOL:
        return rfc3339(Instant(START - seconds(180)))
    return rfc3339(GO_ZERO_TIME)


def _pods(s: Scenario) -> list[tuple[Obj, Obj, bool]]:
    """``AddListPodsReactor``: (pod, status, being deleted) per pod."""
    count = len(s.requests) if s.requests is not None else s.status_replicas
    out = []
    for i in range(count):
        req_milli = round(float(s.requests[i]) * 1000) if s.requests is not None else 1000
        started = _time(s.start[i] if s.start else None)
        ready = s.readiness[i] if s.readiness else "True"
        ann: Obj = {}
        if "cpu" in s.levels_as.split("+") and i < len(s.levels):
            for c in ("container1", "container2"):
                ann[f"garhwal.dev/usage-cpu.{c}"] = f"{s.levels[i] // 2}m"
        containers = [{"name": c, "image": "x", "resources": {"requests": {"cpu": f"{req_milli // 2}m"}}}
                      for c in ("container1", "container2")]
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"test-pod-{i}", "namespace": NS, "labels": {"name": "test-pod", **s.pod_labels},
                            "annotations": ann},
               "spec": {"containers": containers, "nodeName": "node-0"}}
        status = {"phase": s.phase[i] if s.phase else "Running", "startTime": started,
                  "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": started}]}
        out.append((pod, status, bool(s.deleted and s.deleted[i])))
    return out


def _hpa(s: Scenario) -> Obj:
    spec: Obj = {"scaleTargetRef": {"kind": s.kind, "name": _name(s), "apiVersion": _API[s.kind]},
                 "maxReplicas": s.max_replicas}
    if s.min_replicas is not None:
        spec["minReplicas"] = s.min_replicas
    metrics: list[Obj] = []
    if s.cpu_target > 0:
        metrics.append({"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": s.cpu_target}}})
    metrics += list(s.metrics)
    spec["metrics"] = metrics
    if s.up is not None or s.down is not None:
        spec["behavior"] = {k: v for k, v in (("scaleUp", s.up), ("scaleDown", s.down)) if v is not None}
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "test-hpa", "namespace": NS}, "spec": spec}


def run_scenario(s: Scenario, target_ref: Obj | None = None) -> Outcome:
    """Store the scenario's objects, then let the controller reconcile the HPA once;
    ``target_ref`` replaces the HPA's scaleTargetRef."""
    clock = SimClock()
    clock.run_until(START)
    rng, gates = Rng(1), FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    server.create(make_namespace(NS).build())
    if not s.no_target:
        target = server.create(_target(s))
        server.update_status({**target, "status": {"replicas": s.status_replicas}})
    external: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    pod_metrics: dict[tuple[str, str, str], float] = {}
    for i, level in enumerate(s.levels):
        if "pods" in s.levels_as.split("+"):
            pod_metrics[(NS, f"test-pod-{i}", "qps")] = level / 1000
        if "external" in s.levels_as.split("+"):
            external[("qps", (("label", "value"), ("series", str(i))))] = level / 1000
    for obj in s.extra_objects:
        server.create(obj)
    for m in s.metrics:  # a described object other than the target
        ref = (m.get("object") or {}).get("describedObject") or {}
        if m.get("type") == "Object" and (ref.get("kind"), ref.get("name")) != (s.kind, _name(s)):
            server.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
                "name": ref["name"], "namespace": NS, "annotations": _object_annotations(s, ref["kind"], ref["name"])},
                "spec": {"replicas": 0, "selector": {"matchLabels": {"name": "other"}},
                         "template": {**_template(), "metadata": {"labels": {"name": "other"}}}}})
    for pod, pod_status, deleted in _pods(s):
        stored = server.create(pod)
        stored = server.update_status({**stored, "status": pod_status})
        if deleted:  # a finalizer keeps it, marked for deletion
            server.update({**stored, "metadata": {**stored["metadata"], "finalizers": ["garhwal.dev/hold"]}})
            server.delete("v1", "Pod", stored["metadata"]["name"], NS)
    hpa_obj = _hpa(s)
    if target_ref is not None:
        hpa_obj["spec"]["scaleTargetRef"] = target_ref
    hpa = server.create(hpa_obj)
    status: Obj = {"currentReplicas": s.spec_replicas, "desiredReplicas": s.spec_replicas}  # buildHPA
    if s.initial_conditions is not None:
        status["conditions"] = list(s.initial_conditions)
    hpa = server.update_status({**hpa, "status": s.initial_status if s.initial_status is not None else status})
    if s.scale_update_errors:
        _fail_scale_updates(server, list(s.scale_update_errors))
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, gates, Trace(clock))
    ctrl = HorizontalController(ctx, external, pod_metrics=pod_metrics, tolerance=s.tolerance,
                                delays=(seconds(120), seconds(10)), scale_up_limit_factor=8.0)
    if s.recommendations is not None:  # upstream seeds the map, even with an empty slice
        hist = ctrl.stabilizer.history(f"{NS}/test-hpa")
        hist.recs = [Recommendation(r, Instant(START - seconds(ago))) for r, ago in s.recommendations]
        hist.seeded = True
    for name, sel in s.hpa_selectors.items():  # hpaSelectors: registered with their selectors
        ctrl.selectors.put_if_absent(f"{NS}/{name}")
        ctrl.selectors.put_if_present(f"{NS}/{name}", sel)
    ctrl.start()
    clock.settle()
    if s.no_target:
        stored = server.get("autoscaling/v2", "HorizontalPodAutoscaler", "test-hpa", NS)
        return Outcome(s.spec_replicas, stored.get("status") or {})
    got = server.get(_API[s.kind], s.kind, _name(s), NS)
    stored_hpa = server.get("autoscaling/v2", "HorizontalPodAutoscaler", "test-hpa", NS)
    written = stored_hpa["metadata"]["resourceVersion"] != hpa["metadata"]["resourceVersion"]
    return Outcome(int(got["spec"].get("replicas", 0)), stored_hpa.get("status") or {}, written)


def _fail_scale_updates(server: APIServer, errors: list[Exception]) -> None:
    """The scale client's update reactor: each call raises the next error, then the
    apiserver answers."""
    real = server.update_scale

    def update_scale(api_version: str, kind: str, body: Obj) -> Obj:
        if errors:
            raise errors.pop(0)
        return real(api_version, kind, body)

    setattr(server, "update_scale", update_scale)  # noqa: B010


def conds(status: Obj) -> list[tuple[str, str, str]]:
    """(type, status, reason) of each condition, in order (upstream clears messages)."""
    return [(c["type"], c["status"], c["reason"]) for c in status.get("conditions") or []]


# -- row helpers shared by the test modules --------------------------------------------

T, F = "True", "False"
Cond = tuple[str, str, str]
OK: list[Cond] = [("AbleToScale", T, "SucceededRescale"), ("ScalingActive", T, "ValidMetricFound"),
                  ("ScalingLimited", F, "DesiredWithinRange")]
NOT_ZERO: Cond = ("ScaledToZero", F, "NotScaledToZero")


def ok_with(*overrides: Cond) -> list[Cond]:
    """``statusOkWithOverrides``: replace a condition of the same type, else append."""
    out = list(OK)
    for o in overrides:
        idx = next((i for i, c in enumerate(out) if c[0] == o[0]), None)
        if idx is None:
            out.append(o)
        else:
            out[idx] = o
    return out


RESCALED = ok_with(NOT_ZERO)  # statusOkWithOverrides(scaledToZeroFalse)


def cpu(n: int) -> list[str]:
    """n pods requesting 1 CPU."""
    return ["1.0"] * n


def pods_qps(value: str) -> Obj:
    """A Pods metric "qps" with an AverageValue target."""
    return {"type": "Pods", "pods": {"metric": {"name": "qps"},
                                     "target": {"type": "AverageValue", "averageValue": value}}}


def external_qps(target_type: str, value: str) -> Obj:
    """An External metric "qps" (empty selector)."""
    field = "value" if target_type == "Value" else "averageValue"
    return {"type": "External", "external": {"metric": {"name": "qps", "selector": {}},
                                             "target": {"type": target_type, field: value}}}


def object_qps(target_type: str, value: str) -> Obj:
    """An Object metric "qps" on Deployment some-deployment."""
    field = "value" if target_type == "Value" else "averageValue"
    return {"type": "Object", "object": {
        "describedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "some-deployment"},
        "metric": {"name": "qps"}, "target": {"type": target_type, field: value}}}


def check(s: Scenario, replicas: int, expected: list[Cond] | None) -> Obj:
    """Reconcile; the target's replicas, status.desiredReplicas and (type, status, reason)."""
    out = run_scenario(s)
    assert out.replicas == replicas
    assert out.status["desiredReplicas"] == replicas
    assert out.status.get("currentReplicas", 0) == s.spec_replicas  # setStatus: the scale's spec
    if expected is not None:
        assert conds(out.status) == expected
    return out.status

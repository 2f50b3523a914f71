"""The resource quota controller, after upstream's
``pkg/controller/resourcequota/resource_quota_controller_test.go``: TestSyncResourceQuota
(one case per row: the status written by ``syncResourceQuota``) and TestAddQuota (which
queue ``addQuota`` picks).

Each row stores its pods in a real APIServer, starts the controller without draining its
queues, puts the quota in its informer and calls its sync on the quota's key, as upstream
calls ``syncResourceQuota`` directly. Like upstream's fake clientset, the quota is not
validated (BestEffort with cpu limits is refused by the apiserver) and the status writes
are recorded, not stored. Upstream's error lister is a ``list`` that raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.controllers.resourcequota import ResourceQuotaController
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
HARD = {"cpu": "3", "memory": "100Gi", "pods": "5"}


class Env:
    """One row's store and (started, undrained) controller."""

    def __init__(self) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        for ns in ("default", "testing"):
            self.server.create(make_namespace(ns).build())
        ctx = ComponentContext(
            self.server, InformerFactory(self.server), self.clock, rng, gates, Trace(self.clock)
        )
        self.ctrl = ResourceQuotaController(ctx)
        self.updates: list[Obj] = []

    def pod(self, name: str, phase: str, cpu: str, mem: str, pc: str = "") -> None:
        req = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v}
        spec: Obj = {"containers": [{"name": "ctr", "image": "image",
                                     "resources": {"requests": req} if req else {}}]}  # fmt: skip
        if pc:
            spec["priorityClassName"] = pc
        m = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": name, "namespace": "testing"}, "spec": spec}  # fmt: skip
        stored = self.server.create(m)
        self.server.update_status({**stored, "status": {**stored.get("status", {}), "phase": phase}})

    def start(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Start the controller; its status writes are recorded (the fake client)."""
        self.ctrl.start()

        def record(obj: Obj) -> Obj:
            self.updates.append(obj)
            return obj

        monkeypatch.setattr(self.server, "update_status", record)

    def quota(self, rq: Obj) -> str:
        """The quota as the informer holds it; its key."""
        meta = rq["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        assert self.ctrl._quotas is not None
        self.ctrl._quotas.cache[key] = rq
        return key


def new_test_pods(env: Env) -> None:
    """``newTestPods``."""
    env.pod("pod-running", "Running", "100m", "1Gi")
    env.pod("pod-running-2", "Running", "100m", "1Gi")
    env.pod("pod-failed", "Failed", "100m", "1Gi")


def new_best_effort_test_pods(env: Env) -> None:
    """``newBestEffortTestPods``."""
    env.pod("pod-running", "Running", "", "")
    env.pod("pod-running-2", "Running", "", "")
    env.pod("pod-failed", "Failed", "100m", "1Gi")


def new_test_pods_with_priority_classes(env: Env) -> None:
    """``newTestPodsWithPriorityClasses``."""
    env.pod("pod-running", "Running", "500m", "50Gi", "high")
    env.pod("pod-running-2", "Running", "100m", "1Gi", "low")
    env.pod("pod-failed", "Failed", "100m", "1Gi")


def no_pods(env: Env) -> None:
    """``[]runtime.Object{}``."""


PODS: dict[str, Callable[[Env], None]] = {"test": new_test_pods, "best-effort": new_best_effort_test_pods,
        "priority": new_test_pods_with_priority_classes, "none": no_pods}  # fmt: skip


def quota(hard: dict[str, str], ns: str = "testing", name: str = "quota", **spec: Any) -> Obj:
    rq: Obj = {"apiVersion": "v1", "kind": "ResourceQuota",
               "metadata": {"name": name, "namespace": ns}, "spec": {"hard": hard, **spec}}  # fmt: skip
    return rq


def pc_selector(op: str, *values: str) -> Obj:
    req: Obj = {"scopeName": "PriorityClass", "operator": op}
    if values:
        req["values"] = list(values)
    return {"scopeSelector": {"matchExpressions": [req]}}


def used(cpu: str, mem: str, pods: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem, "pods": pods}


@pytest.fixture
def env() -> Iterator[Env]:
    yield Env()


@pytest.mark.parametrize(("pods", "rq", "error_kind", "hard", "want_used", "want_error"), [
    pytest.param("test", quota(HARD, scopes=["BestEffort"]), None, HARD, used("0", "0", "0"), None,
                 id="non-matching-best-effort-scoped-quota"),
    pytest.param("best-effort", quota(HARD, scopes=["BestEffort"]), None, HARD, used("0", "0", "2"),
                 None, id="matching-best-effort-scoped-quota"),
    pytest.param("test", quota(HARD, **pc_selector("Exists")), None, HARD, used("0", "0", "0"), None,
                 id="non-matching-priorityclass-scoped-quota-OpExists"),
    pytest.param("priority", quota(HARD, **pc_selector("Exists")), None, HARD,
                 used("600m", "51Gi", "2"), None, id="matching-priorityclass-scoped-quota-OpExists"),
    pytest.param("priority", quota(HARD, **pc_selector("In", "high", "low")), None, HARD,
                 used("600m", "51Gi", "2"), None, id="matching-priorityclass-scoped-quota-OpIn"),
    pytest.param("priority", quota(HARD, **pc_selector("In", "high")), None, HARD,
                 used("500m", "50Gi", "1"), None, id="matching-priorityclass-scoped-quota-OpIn-high"),
    pytest.param("priority", quota(HARD, **pc_selector("In", "low")), None, HARD,
                 used("100m", "1Gi", "1"), None, id="matching-priorityclass-scoped-quota-OpIn-low"),
    pytest.param("priority", quota(HARD, **pc_selector("NotIn", "high")), None, HARD,
                 used("100m", "1Gi", "1"), None, id="matching-priorityclass-scoped-quota-OpNotIn-low"),
    pytest.param("priority", quota(HARD, **pc_selector("In", "random")), None, HARD,
                 used("0", "0", "0"), None, id="non-matching-priorityclass-scoped-quota-OpIn"),
    pytest.param("test", quota(HARD, **pc_selector("NotIn", "random")), None, HARD,
                 used("200m", "2Gi", "2"), None, id="non-matching-priorityclass-scoped-quota-OpNotIn"),
    pytest.param("test", quota(HARD, **pc_selector("DoesNotExist")), None, HARD,
                 used("200m", "2Gi", "2"), None, id="matching-priorityclass-scoped-quota-OpDoesNotExist"),
    pytest.param("test", quota(HARD), None, HARD, used("200m", "2Gi", "2"), None, id="pods"),
    pytest.param("none", {**quota({"cpu": "4"}, "default", "rq"),
                          "status": {"hard": {"cpu": "3"}, "used": {"cpu": "0"}}}, None,
                 {"cpu": "4"}, {"cpu": "0"}, None, id="quota-spec-hard-updated"),
    pytest.param("none", {**quota({"cpu": "4"}, "default", "rq"), "status": {"hard": {"cpu": "0"}}},
                 None, {"cpu": "4"}, {"cpu": "0"}, None, id="quota-unchanged"),
    pytest.param("none", quota({"pods": "1"}, "default", "rq"), "Pod", {"pods": "1"}, {},
                 "error listing", id="quota-missing-status-with-calculation-error"),
    pytest.param("none", quota({"pods": "1", "configmaps": "1"}, "default", "rq"), "Pod",
                 {"pods": "1", "configmaps": "1"}, {"configmaps": "0"}, "error listing",
                 id="quota-missing-status-with-partial-calculation-error"),
])  # fmt: skip
def test_sync_resource_quota(
    env: Env, monkeypatch: pytest.MonkeyPatch, pods: str, rq: Obj, error_kind: str | None,
    hard: dict[str, str], want_used: dict[str, str], want_error: str | None,
) -> None:  # fmt: skip
    """TestSyncResourceQuota: an update of the quota's status with exactly this hard and
    used; a listing error is returned after the status is written."""
    PODS[pods](env)
    env.start(monkeypatch)
    key = env.quota(rq)
    if error_kind is not None:
        real_list = env.server.list

        def failing(api_version: str, kind: str, *args: Any, **kw: Any) -> list[Obj]:
            if kind == error_kind:
                raise ApiError("error listing")
            return real_list(api_version, kind, *args, **kw)

        monkeypatch.setattr(env.server, "list", failing)
    if want_error is None:
        env.ctrl._sync(key)
    else:
        with pytest.raises(ApiError, match=want_error):
            env.ctrl._sync(key)
    assert env.updates, "expected an update of resourcequotas/status"
    status = env.updates[-1]["status"]
    assert status["hard"] == hard
    assert status.get("used") == want_used


def test_sync_resource_quota_listing_error_is_retried(env: Env) -> None:
    """The worker's ``AddRateLimited`` on a sync error: once listing works again, the
    retry fills in the usage without waiting for the full resync."""
    env.server.create(quota({"pods": "1"}, "default", "rq"))
    real_list = env.server.list
    failures = [1]

    def flaky(api_version: str, kind: str, *args: Any, **kw: Any) -> list[Obj]:
        if kind == "Pod" and failures:
            failures.pop()
            raise ApiError("error listing")
        return real_list(api_version, kind, *args, **kw)

    env.server.list = flaky  # type: ignore[method-assign]
    env.ctrl.start()
    env.clock.settle()
    # The failed sync stores an empty usage: an omitempty map, so none is stored.
    assert "used" not in env.server.get("v1", "ResourceQuota", "rq", "default")["status"]
    env.clock.run_until(Instant(env.clock.now() + seconds(1)))
    assert env.server.get("v1", "ResourceQuota", "rq", "default")["status"]["used"] == {"pods": "0"}


@pytest.mark.parametrize(("rq", "priority"), [
    pytest.param(quota({"cpu": "4"}, "default", "rq"), True, id="no status"),
    pytest.param({**quota({"cpu": "4"}, "default", "rq"), "status": {"hard": {"cpu": "4"}}}, True,
                 id="status, no usage"),
    pytest.param({**quota({"requests.example/foobars.example.com": "4"}, "default", "rq"),
                  "status": {"hard": {"requests.example/foobars.example.com": "4"}}}, True,
                 id="status, no usage(to validate it works for extended resources)"),
    pytest.param({**quota({"cpu": "4"}, "default", "rq"),
                  "status": {"hard": {"cpu": "6"}, "used": {"cpu": "0"}}}, True,
                 id="status, mismatch"),
    pytest.param({**quota({"foobars.example.com": "4"}, "default", "rq"),
                  "status": {"hard": {"foobars.example.com": "4"}}}, False,
                 id="status, missing usage, but don't care (no informer)"),
    pytest.param({**quota({"cpu": "4"}, "default", "rq"),
                  "status": {"hard": {"cpu": "4"}, "used": {"cpu": "0"}}}, False, id="ready"),
])  # fmt: skip
def test_add_quota(env: Env, monkeypatch: pytest.MonkeyPatch, rq: Obj, priority: bool) -> None:
    """TestAddQuota: ``addQuota`` queues on the missing-usage queue or the normal one."""
    new_test_pods(env)
    env.start(monkeypatch)
    env.ctrl._add_quota(rq)
    want = (1, 0) if priority else (0, 1)
    assert (len(env.ctrl._missing_usage_queue), len(env.ctrl._queue)) == want

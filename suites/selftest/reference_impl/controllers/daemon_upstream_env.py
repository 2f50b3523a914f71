"""A harness for the DaemonSet controller's upstream table rows
(``pkg/controller/daemon/daemon_controller_test.go``, ``update_test.go``).

Nodes, DaemonSets and pods live in a real APIServer; the controller is started (its
informer handlers keep the expectations, as the test's fakePodControl does), but its
queue never runs: a row calls ``sync`` with the set's key, as upstream's
``expectSyncDaemonSets`` calls ``syncHandler``. The controller writes through a
recording proxy, upstream's ``FakePodControl``: pod creates and deletes are counted,
``create_limit`` and ``err`` fail them, and status updates can be refused.
"""

from __future__ import annotations

import copy
from typing import Any, cast

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import Instant, SimClock, rfc3339, seconds
from reference_impl.controllers.daemon import DaemonSetsController
from reference_impl.controllers.daemon.placement import Backoff
from reference_impl.controllers.deployment.util import compute_hash
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"
SIMPLE_DS_LABEL = {"name": "simple-daemon", "type": "production"}
SIMPLE_DS_LABEL2 = {"name": "simple-daemon", "type": "test"}
SIMPLE_NODE_LABEL = {"color": "blue", "speed": "fast"}
SIMPLE_NODE_LABEL2 = {"color": "red", "speed": "fast"}
NO_SCHEDULE_TOLERATIONS = [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]
NO_SCHEDULE_TAINTS = [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]
NO_EXECUTE_TAINTS = [{"key": "dedicated", "value": "user1", "effect": "NoExecute"}]
EVENT_REASONS = ("SelectingAll", "FailedPlacement", "FailedDaemonPod", "SucceededDaemonPod")
START = Instant(seconds(1_000_000))


def new_daemon_set(name: str, strategy: Obj | None = None) -> Obj:
    """``newDaemonSet``: OnDelete, revisionHistoryLimit 2, the simple labels. (Upstream's
    container has no name; validation here wants one.)"""
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "revisionHistoryLimit": 2,
            "updateStrategy": copy.deepcopy(strategy or on_delete()),
            "selector": {"matchLabels": dict(SIMPLE_DS_LABEL)},
            "template": {
                "metadata": {"labels": dict(SIMPLE_DS_LABEL)},
                "spec": {
                    "containers": [{"name": "foo", "image": "foo/bar", "imagePullPolicy": "IfNotPresent"}],
                    "dnsPolicy": "Default",
                },
            },
        },
    }


def on_delete() -> Obj:
    """``newOnDeleteStrategy``."""
    return {"type": "OnDelete"}


def rolling(max_unavailable: int | str = 1, max_surge: int | str = 0) -> Obj:
    """``newRollingUpdateStrategy`` (maxUnavailable 1) or a surge strategy."""
    return {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": max_unavailable, "maxSurge": max_surge}}


STRATEGIES = (("OnDelete", on_delete()), ("RollingUpdate", rolling()))


class Proxy:
    """The apiserver as the controller sees it: upstream's ``FakePodControl`` and the
    clientset's reactors."""

    def __init__(self, server: APIServer) -> None:
        self._server = server
        self.create_limit = 0
        self.create_calls = 0
        self.templates: list[Obj] = []
        self.controller_refs: list[Obj] = []
        self.deleted: list[str] = []
        self.err: ApiError | None = None
        self.status_err: ApiError | None = None
        self.status_updates: list[Obj] = []
        # fakePodControl deletes only pods it created (podIDMap); others fail after the
        # delete was recorded, and stay.
        self.created: set[str] = set()
        self.only_delete_created = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    def clear(self) -> None:
        """``FakePodControl.Clear``."""
        self.create_limit = self.create_calls = 0
        self.templates, self.controller_refs, self.deleted = [], [], []

    def create(self, manifest: Obj) -> Obj:
        if manifest.get("kind") != "Pod":
            out: Obj = self._server.create(manifest)
            return out
        self.create_calls += 1
        if self.create_limit and self.create_calls > self.create_limit:
            raise ApiError(
                f"not creating pod, limit {self.create_limit} already reached (create call {self.create_calls})"
            )
        self.templates.append(manifest)
        self.controller_refs += [r for r in manifest["metadata"].get("ownerReferences") or [] if r.get("controller")]
        if self.err is not None:
            raise self.err
        out = self._server.create(manifest)
        self.created.add(str(out["metadata"]["name"]))
        return out

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None, **kw: Any) -> Any:
        if kind == "Pod":
            self.deleted.append(name)
            if self.err is not None:
                raise self.err
            if self.only_delete_created and name not in self.created:
                raise ApiError(f'pod "{name}" does not exist')
            self.created.discard(name)
        return self._server.delete(api_version, kind, name, namespace, **kw)

    def update_status(self, manifest: Obj) -> Obj:
        if manifest.get("kind") == "DaemonSet":
            self.status_updates.append(copy.deepcopy(manifest))
            if self.status_err is not None:
                raise self.status_err
        out: Obj = self._server.update_status(manifest)
        return out


class Env:
    """One row's store, proxy and started controller (``newTestController``)."""

    def __init__(self, gates: dict[str, bool] | None = None) -> None:
        self.clock = SimClock(START)
        rng = Rng(1)
        fg = FeatureGates(gates or {})
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), fg)
        self.server.create(make_namespace(NS).build())
        self.proxy = Proxy(self.server)
        informers = InformerFactory(self.server)
        self.trace = Trace(self.clock)
        ctx = ComponentContext(cast(APIServer, self.proxy), informers, self.clock, rng, fg, self.trace)
        # NewFakeBackOff(50ms, 500ms) on the test's fake clock.
        self.backoff = Backoff(initial=seconds(0.05), maximum=seconds(0.5))
        self.ctrl = DaemonSetsController(ctx, backoff=self.backoff)
        self.ctrl.start()

    # -- objects ------------------------------------------------------------------------

    def add_ds(self, ds: Obj) -> Obj:
        out: Obj = self.server.create(copy.deepcopy(ds))
        return out

    def ds(self, name: str = "foo") -> Obj:
        out: Obj = self.server.get("apps/v1", "DaemonSet", name, NS)
        return out

    def update_ds(self, ds: Obj) -> Obj:
        out: Obj = self.server.update(ds)
        return out

    def add_node(self, name: str, labels: dict[str, str] | None = None, *, taints: list[Obj] | None = None,
                 conditions: list[Obj] | None = None, unschedulable: bool = False) -> Obj:
        """``newNode``: Ready, 100 allocatable pods."""
        node: Obj = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, **({"labels": dict(labels)} if labels else {})},
            "spec": {},
            "status": {"conditions": conditions or [{"type": "Ready", "status": "True"}],
                       "allocatable": {"pods": "100"}, "capacity": {"pods": "100"}},
        }  # fmt: skip
        if taints:
            node["spec"]["taints"] = copy.deepcopy(taints)
        if unschedulable:
            node["spec"]["unschedulable"] = True
        created: Obj = self.server.create(node)
        return created

    def add_nodes(self, start: int, count: int, labels: dict[str, str] | None = None) -> None:
        """``addNodes``: node-<start> .. node-<start+count-1>."""
        for i in range(start, start + count):
            self.add_node(f"node-{i}", labels)

    def new_pod(self, prefix: str, node: str, labels: dict[str, str], ds: Obj | None, *,
                phase: str | None = None, created: Instant | None = None) -> Obj:
        """``newPod``: on ``node`` (when given), carrying the set's hash label and owned
        by it when ``ds`` is given."""
        labels = dict(labels)
        if ds is not None:
            labels["controller-revision-hash"] = compute_hash(
                ds["spec"]["template"], (ds.get("status") or {}).get("collisionCount")
            )
            spec = copy.deepcopy(ds["spec"]["template"]["spec"])
        else:
            spec = {"containers": [{"name": "foo", "image": "foo/bar", "imagePullPolicy": "IfNotPresent"}]}
        if node:
            spec["nodeName"] = node
        meta: Obj = {"generateName": prefix, "namespace": NS, "labels": labels}
        if ds is not None:
            meta["ownerReferences"] = [{
                "apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
                "uid": ds["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True,
            }]  # fmt: skip
        if created is not None:
            saved = self.clock.now()
            self.clock._now = created
        pod: Obj = self.server.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
        if created is not None:
            self.clock._now = saved
        if phase is not None:
            pod = self.set_status(pod, phase=phase)
        return pod

    def set_status(self, pod: Obj, *, phase: str | None = None, ready: bool | None = None,
                   ready_since: Instant | None = None) -> Obj:
        status = dict(pod.get("status") or {})
        if phase is not None:
            status["phase"] = phase
        if ready is not None:
            since = rfc3339(ready_since if ready_since is not None else self.clock.now())
            status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False",
                                     "lastTransitionTime": since}]  # fmt: skip
        out: Obj = self.server.update_status({**pod, "status": status})
        return out

    def add_pods(self, node: str, labels: dict[str, str], ds: Obj | None, number: int) -> list[Obj]:
        """``addPods``."""
        return [self.new_pod(f"{node}-", node, labels, ds) for _ in range(number)]

    def add_failed_pods(self, node: str, labels: dict[str, str], ds: Obj | None, number: int) -> list[Obj]:
        """``addFailedPods``."""
        return [self.new_pod(f"{node}-", node, labels, ds, phase="Failed") for _ in range(number)]

    def advance(self, delta: int) -> None:
        """Move the clock on by ``delta`` nanoseconds without running anything (the
        test's fake clock ``Sleep``)."""
        self.clock._now = Instant(self.clock.now() + delta)

    def pods(self) -> list[Obj]:
        out: list[Obj] = self.server.list("v1", "Pod", NS)
        return out

    # -- sync and checks ----------------------------------------------------------------

    # -- event handlers -----------------------------------------------------------------

    def drain(self) -> list[str]:
        """``getQueuedKeys``: the sorted keys waiting in the set queue, which is emptied."""
        queue = self.ctrl._queue
        keys = sorted(queue._queue)
        queue._queue.clear()
        queue._dirty.clear()
        return keys

    def drain_nodes(self) -> list[str]:
        """The node names waiting in the node-update queue, which is emptied."""
        queue = self.ctrl._node_queue
        keys = list(queue._queue)
        queue._queue.clear()
        queue._dirty.clear()
        return keys

    def fire(self, kind: str, type_: str, obj: Obj, old: Obj | None = None) -> None:
        """Hand the controller one informer event (``addPod``, ``updateNode``, ...)."""
        api = "v1" if kind in ("Pod", "Node") else "apps/v1"
        ev = ObjectEvent(type_, self.server.resource(api, kind), obj, old)  # type: ignore[arg-type]
        handler = {"Pod": self.ctrl._on_pod, "Node": self.ctrl._on_node,
                   "ControllerRevision": self.ctrl._on_history, "DaemonSet": self.ctrl._on_ds}[kind]  # fmt: skip
        handler(ev)

    def events(self) -> list[str]:
        return [r.event for r in self.trace.records
                if r.component == self.ctrl.name and r.event in EVENT_REASONS]  # fmt: skip

    def sync(self, name: str = "foo") -> ApiError | None:
        """``syncHandler``: the error it returned, if any."""
        try:
            self.ctrl.sync_daemon_set(f"{NS}/{name}")
        except ApiError as exc:
            return exc
        return None

    def expect_sync(self, creates: int, deletes: int, events: int, name: str = "foo") -> ApiError | None:
        """``expectSyncDaemonSets`` (``validateSyncDaemonSets``): one sync, then the pod
        creates and deletes, the events, and a DaemonSet controller ref on every pod."""
        err = self.sync(name)
        got = (len(self.proxy.templates), len(self.proxy.deleted), len(self.events()))
        assert got == (creates, deletes, events), f"(creates, deletes, events) {got} != {(creates, deletes, events)}"
        assert len(self.proxy.controller_refs) == creates
        for ref in self.proxy.controller_refs:
            assert (ref["apiVersion"], ref["kind"], ref["controller"]) == ("apps/v1", "DaemonSet", True)
        return err

    def reset_counters(self) -> None:
        """``resetCounters``: clear the pod control and the events."""
        self.proxy.clear()
        self.trace.records.clear()

    def clear_expectations(self, name: str = "foo") -> None:
        """``clearExpectations``."""
        self.proxy.clear()
        self.ctrl.expectations.forget(f"{NS}/{name}")

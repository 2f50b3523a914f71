"""The environment of the Endpoints controller rows (endpoints_controller_test.go's
``newController`` and ``newFakeController``): the controller with its informers' caches to
fill, and, in place of the apiserver, a recorder of its requests.

Upstream's ``makeTestServer`` answers every request with an empty Endpoints (so an update
comes back without a resourceVersion); ``newFakeController``'s clientset keeps the objects
it is given, unvalidated, and an update keeps the resourceVersion. ``tracker`` picks the
second. Objects are v1 wire dicts; upstream's test pods have no node, so their addresses
carry ``nodeName: ""`` (a real apiserver would refuse it, as the reference's does)."""

from __future__ import annotations

import copy
from typing import Any, cast

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import Duration, Instant, SimClock
from reference_impl.controllers.endpoint import EndpointController
from reference_impl.errors import AlreadyExists, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
MANAGED_BY = "endpoints.kubernetes.io/managed-by"
CONTROLLER = "endpoint-controller"
HEADLESS = "service.kubernetes.io/headless"
TRIGGER = "endpoints.kubernetes.io/last-change-trigger-time"
OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"
TRIGGER_TIME = "2018-01-01T00:00:00Z"
OLD_TRIGGER_TIME = "2017-12-31T23:00:00Z"
IPV4 = ("IPv4",)
IPV6 = ("IPv6",)
IPV4_IPV6 = ("IPv4", "IPv6")
IPV6_IPV4 = ("IPv6", "IPv4")


class FakeServer:
    """The requests the controller sends: (method, path, body)."""

    def __init__(self, tracker: bool) -> None:
        self.tracker = tracker
        self.requests: list[tuple[str, str, Obj | None]] = []
        self.objects: dict[str, Obj] = {}
        self.update_answer: Obj | None = None  # what a blocking test server answers an update

    @staticmethod
    def _key(obj: Obj) -> str:
        return f"{obj['metadata'].get('namespace') or ''}/{obj['metadata']['name']}"

    def _answer(self, obj: Obj) -> Obj:
        if self.tracker:
            self.objects[self._key(obj)] = copy.deepcopy(obj)
            return copy.deepcopy(obj)
        return {"apiVersion": "v1", "kind": "Endpoints", "metadata": {}}

    def seed(self, obj: Obj) -> None:
        """``client.CoreV1().Endpoints(ns).Create`` before the sync."""
        self.objects[self._key(obj)] = copy.deepcopy(obj)

    def create(self, manifest: Obj) -> Obj:
        ns = manifest["metadata"].get("namespace") or ""
        self.requests.append(
            ("POST", f"/api/v1/namespaces/{ns}/endpoints", copy.deepcopy(manifest))
        )
        if self.tracker and self._key(manifest) in self.objects:
            raise AlreadyExists(f'endpoints "{manifest["metadata"]["name"]}" already exists')
        return self._answer(manifest)

    def update(self, manifest: Obj) -> Obj:
        ns, name = manifest["metadata"].get("namespace") or "", manifest["metadata"]["name"]
        self.requests.append(
            ("PUT", f"/api/v1/namespaces/{ns}/endpoints/{name}", copy.deepcopy(manifest))
        )
        if self.update_answer is not None:
            return copy.deepcopy(self.update_answer)
        return self._answer(manifest)

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        self.requests.append(("DELETE", f"/api/v1/namespaces/{namespace}/endpoints/{name}", None))
        if self.tracker and self.objects.pop(f"{namespace}/{name}", None) is None:
            raise NotFound(f'endpoints "{name}" not found')

    def get(self, ns: str, name: str) -> Obj:
        return self.objects[f"{ns}/{name}"]


class Ctl:
    """``newController`` (``tracker=False``) or ``newFakeController`` (``tracker=True``)."""

    def __init__(self, batch: Duration | None = None, tracker: bool = False) -> None:
        self.clock = SimClock()
        real = APIServer(MVCCStore(), self.clock, Rng(1).child("apiserver"), FeatureGates())
        self.real = real
        self.fake = FakeServer(tracker)
        self.trace = Trace(self.clock)
        ctx = ComponentContext(cast(APIServer, self.fake), InformerFactory(real), self.clock,
                               Rng(1), FeatureGates(), self.trace)  # fmt: skip
        self.c = EndpointController(ctx, batch)
        self.c.start()

    def advance(self, d: Duration) -> None:
        """Run the simulated clock ``d`` on (upstream sleeps)."""
        self.clock.run_until(Instant(self.clock.now() + d))

    def _cache(self, which: str) -> dict[str, Obj]:
        inf = getattr(self.c, which)
        assert inf is not None
        return cast(dict[str, Obj], inf.cache)

    def add_service(self, svc: Obj) -> Obj:
        m = svc["metadata"]
        self._cache("_services")[f"{m['namespace']}/{m['name']}"] = svc
        return svc

    def delete_service(self, svc: Obj) -> None:
        m = svc["metadata"]
        self._cache("_services").pop(f"{m['namespace']}/{m['name']}", None)

    def add_pod(self, pod: Obj) -> None:
        m = pod["metadata"]
        self._cache("_pods")[f"{m['namespace']}/{m['name']}"] = pod

    def pod(self, ns: str, name: str) -> Obj:
        return self._cache("_pods")[f"{ns}/{name}"]

    def delete_pod(self, pod: Obj) -> None:
        m = pod["metadata"]
        self._cache("_pods").pop(f"{m['namespace']}/{m['name']}", None)

    def add_endpoints(self, ep: Obj) -> None:
        m = ep["metadata"]
        self._cache("_endpoints")[f"{m['namespace']}/{m['name']}"] = ep

    def pod_event(self, type_: str, obj: Obj, old: Obj | None = None) -> None:
        """``onPodUpdate``: an add, an update (``old`` given) or a delete."""
        self.c._on_pod(ObjectEvent(type_, self.real.resource("v1", "Pod"), obj, old))  # type: ignore[arg-type]

    def sync(self, key: str) -> None:
        self.c.sync_service(key)

    @property
    def requests(self) -> list[tuple[str, str, Obj | None]]:
        return self.fake.requests


def pod_ips(id_: int, families: tuple[str, ...]) -> list[str]:
    """``testPod``'s addresses: 1.2.3.4 for id 0 (carrying into the third octet) or 2000::4."""
    return [f"1.2.{3 + (4 + id_) // 256}.{(4 + id_) % 256}" if f == "IPv4" else f"2000::{4 + id_:x}"
            for f in families]  # fmt: skip


def make_pod(ns: str, id_: int, n_ports: int, ready: bool, families: tuple[str, ...]) -> Obj:
    """endpoints_controller_test.go ``testPod``."""
    ips = pod_ips(id_, families)
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": ns, "name": f"pod{id_}", "labels": {"foo": "bar"},
                     "resourceVersion": str(id_)},
        "spec": {"containers": [{"ports": [{"name": f"port{j}", "containerPort": 8080 + j}
                                           for j in range(n_ports)]}]},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                   "podIPs": [{"ip": ip} for ip in ips], "podIP": ips[0]},
    }  # fmt: skip


def add_pods(ctl: Ctl, ns: str, n_pods: int, n_ports: int, n_not_ready: int,
             families: tuple[str, ...] = IPV4) -> None:  # fmt: skip
    """``addPods``."""
    for i in range(n_pods + n_not_ready):
        ctl.add_pod(make_pod(ns, i, n_ports, i < n_pods, families))


def add_not_ready_pods(
    ctl: Ctl, ns: str, n_pods: int, n_ports: int, restart: str, phase: str
) -> None:
    """``addNotReadyPodsWithSpecifiedRestartPolicyAndPhase``."""
    for i in range(n_pods):
        ctl.add_pod({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": ns, "name": f"pod{i}", "labels": {"foo": "bar"}},
            "spec": {"restartPolicy": restart,
                     "containers": [{"ports": [{"name": f"port{j}", "containerPort": 8080 + j}
                                               for j in range(n_ports)]}]},
            "status": {"podIP": f"1.2.3.{4 + i}", "phase": phase,
                       "conditions": [{"type": "Ready", "status": "False"}]},
        })  # fmt: skip


def addr(ip: str, pod: str | None, ns: str) -> Obj:
    """An address of a pod without node: ``{IP, NodeName: &emptyNodeName, TargetRef}``."""
    out: Obj = {"ip": ip, "nodeName": ""}
    if pod is not None:
        out["targetRef"] = {"kind": "Pod", "namespace": ns, "name": pod}
    return out


def service(ns: str, name: str = "foo", **spec: Any) -> Obj:
    """A Service; ``labels``/``creationTimestamp`` go to its metadata."""
    meta: Obj = {"name": name, "namespace": ns}
    for k in ("labels", "creationTimestamp"):
        if k in spec:
            meta[k] = spec.pop(k)
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec}


def endpoints(ns: str, subsets: list[Obj] | None = None, *, rv: str | None = "1",
              labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
              name: str = "foo") -> Obj:  # fmt: skip
    """An Endpoints as the informer holds it or as the controller sends it."""
    meta: Obj = {"name": name, "namespace": ns}
    if rv is not None:
        meta["resourceVersion"] = rv
    if labels is not None:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    out: Obj = {"apiVersion": "v1", "kind": "Endpoints", "metadata": meta}
    if subsets:
        out["subsets"] = subsets
    return out


def managed(headless: bool = True, **extra: str) -> dict[str, str]:
    """The labels the controller writes: managed-by, headless (no ClusterIP), the Service's."""
    out = dict(extra)
    out[MANAGED_BY] = CONTROLLER
    if headless:
        out[HEADLESS] = ""
    return out
